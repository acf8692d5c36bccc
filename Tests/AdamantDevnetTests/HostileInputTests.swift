import AdamantCore
import Testing

@testable import AdamantDevnet

/// Numbers from outside at the edges of Int64 and beyond, without sockets: each gets the node's
/// answer, never a trap.
struct HostileInputTests {
    let now: Int64 = AdamantTime.epochUnixMillis + 300_000_000_123
    var nowTimestamp: Int32 { Int32(AdamantTime.timestamp(unixMillis: now)) }
    /// A timestamp in the next 5-second slot, so the 0.10 future check reads `timestampMs`.
    var nextSlotTimestamp: Int32 { nowTimestamp + 5 }
    let ledger: Ledger
    let node: OfflineNode

    init() throws {
        var ledger = Ledger(genesisUnixMillis: now - 60_000)
        try ledger.credit(Fixtures.alice.address, units: 100 * ADMAmount.unitsPerADM)
        self.ledger = ledger
        var node = OfflineNode(nowUnixMillis: now)
        try node.fund(Fixtures.alice.address, units: 100 * ADMAmount.unitsPerADM)
        self.node = node
    }

    /// The envelope's `error`, or `"accepted"`, through `OfflineNode` (the fuzz entry point).
    func answer(
        _ path: String, method: String = "POST", query: [(name: String, value: String)] = [],
        body: JSONValue? = nil, version: NodeVersion = .current
    ) -> String {
        var node = version == .current ? self.node : OfflineNode(version: version, nowUnixMillis: now)
        if version != .current { try? node.fund(Fixtures.alice.address, units: 100 * ADMAmount.unitsPerADM) }
        guard let response = node.respond(method: method, path: path, query: query, body: body?.bytes ?? []) else {
            return "never answered"
        }
        let json = (try? JSONValue.parse(response.body)) ?? .null
        if json["success"]?.boolValue == true { return "accepted" }
        return json["error"]?.string ?? "HTTP \(response.status)"
    }

    func submitted(
        _ transaction: Transaction, setting key: String, to value: JSONValue, version: NodeVersion = .current
    ) throws -> String {
        answer(transaction.submissionPath, body: try body(of: transaction, setting: key, to: value), version: version)
    }

    static let int32Range = "Invalid transaction timestamp. Timestamp is not within the signed int32 range"
    static let inFuture = "Transaction timestamp is in the future"

    /// `timestamp × 1000` and `timestampMs − now` at the edges of Int64 must not overflow in
    /// the 0.10 future check. The node does this arithmetic in doubles: far-future stamps are "in the
    /// future", far-past ones fail the past window (chats) or the int32 range (transfers).
    @Test func timestampsAtTheEdgesOfInt64() throws {
        let transfer = try transfer(100, timestamp: nowTimestamp)
        #expect(try submitted(transfer, setting: "timestamp", to: .integer(.max)) == Self.inFuture)
        #expect(try submitted(transfer, setting: "timestamp", to: .integer(10_000_000_000_000_000)) == Self.inFuture)
        #expect(try submitted(transfer, setting: "timestamp", to: .integer(.min)) == Self.int32Range)
        #expect(try submitted(transfer, setting: "timestamp", to: .integer(Int64(Int32.max) + 1)) == Self.inFuture)
        #expect(try submitted(transfer, setting: "timestamp", to: .integer(Int64(Int32.min) - 1)) == Self.int32Range)
        let chat = try message("hi", timestamp: nowTimestamp)
        #expect(
            try submitted(chat, setting: "timestamp", to: .integer(.min))
                == "Transaction timestamp is more than 5 seconds in the past")
        // 0.9 has no future check before normalisation.
        #expect(
            try submitted(transfer, setting: "timestamp", to: .integer(.max), version: NodeVersion(0, 9, 0))
                == "Invalid transaction timestamp. Timestamp is not in the int32 range")
    }

    /// `timestampMs` is not signed and only feeds the future check: Int64.min is simply not in the
    /// future, Int64.max is, and the node drops the field afterwards.
    @Test func timestampMsAtTheEdgesOfInt64() throws {
        let current = try transfer(100, timestamp: nowTimestamp)
        #expect(try submitted(current, setting: "timestampMs", to: .integer(.min)) == "accepted")
        #expect(try submitted(current, setting: "timestampMs", to: .integer(.max)) == "accepted")
        let nextSlot = try transfer(100, timestamp: nextSlotTimestamp)
        #expect(try submitted(nextSlot, setting: "timestampMs", to: .integer(.min)) == "accepted")
        #expect(try submitted(nextSlot, setting: "timestampMs", to: .integer(.max)) == Self.inFuture)
        let chat = try message("hi", timestamp: nextSlotTimestamp)
        #expect(try submitted(chat, setting: "timestampMs", to: .integer(.min)) == "accepted")
    }

    /// z-schema calls any whole number an integer, even past Int64 (JSON has no size limit).
    @Test func wholeNumbersBeyondInt64AreIntegersToTheSchema() throws {
        let transfer = try transfer(100, timestamp: nowTimestamp)
        #expect(try submitted(transfer, setting: "timestamp", to: .number("1e19")) == Self.inFuture)
        #expect(try submitted(transfer, setting: "timestamp", to: .number("-1e19")) == Self.int32Range)
        #expect(
            try submitted(transfer, setting: "amount", to: .number("1e19"))
                == "Failed to validate transaction schema: Value 10000000000000000000 is greater than maximum 9800000000000000"
        )
        #expect(
            try submitted(transfer, setting: "fee", to: .number("-1e30"))
                == "Failed to validate transaction schema: Value -1e+30 is less than minimum 0")
        #expect(
            try submitted(transfer, setting: "amount", to: .number("1.5"))
                == "Failed to validate transaction schema: Expected type integer but found type number")
    }

    @Test func otherIntegerFieldsAtTheEdges() throws {
        let transfer = try transfer(100, timestamp: nowTimestamp)
        #expect(
            try submitted(transfer, setting: "type", to: .integer(.max))
                == "Unknown transaction type 9223372036854775807")
        #expect(
            try submitted(transfer, setting: "type", to: .integer(.min))
                == "Unknown transaction type -9223372036854775808")
        #expect(try submitted(transfer, setting: "type", to: "+0") == "Unknown transaction type +0")
        #expect(
            try submitted(transfer, setting: "type", to: "0")
                == "Failed to validate transaction schema: Expected type integer but found type string")
        #expect(
            try submitted(transfer, setting: "amount", to: .integer(.min))
                == "Failed to validate transaction schema: Value -9223372036854775808 is less than minimum 0")
        #expect(
            try submitted(transfer, setting: "fee", to: .integer(.max))
                == "Failed to validate transaction schema: Value 9223372036854775807 is greater than maximum 9800000000000000"
        )
        let chat = try message("hi", timestamp: nowTimestamp)
        let asset = try body(of: chat)["transaction"]!["asset"]!["chat"]!
        for type in [Int64.max, .min] {
            #expect(
                try submitted(chat, setting: "asset", to: ["chat": asset.setting("type", to: .integer(type))])
                    == "Invalid message type")
        }
    }

    /// `fromUnixTime − epoch` overflowed. Bare names are checked against the node's list schema;
    /// `and:` names skip it, as on the node, and must still compare safely.
    @Test func integerQueryParametersAtTheEdges() {
        let prefix = "Failed to get transactions: "
        let transactions = { (name: String, value: Int64) in
            self.answer("/api/transactions", method: "GET", query: [(name, String(value))])
        }
        #expect(
            transactions("fromUnixTime", .min) == prefix + "Value -9223372036854775808 is less than minimum 1504371600")
        #expect(
            transactions("toUnixTime", .min) == prefix + "Value -9223372036854775808 is less than minimum 1504371601")
        #expect(transactions("fromHeight", 0) == prefix + "Value 0 is less than minimum 1")
        #expect(transactions("limit", 0) == prefix + "Value 0 is less than minimum 1")
        #expect(transactions("offset", -1) == prefix + "Value -1 is less than minimum 0")
        #expect(transactions("type", .max) == prefix + "Value 9223372036854775807 is greater than maximum 10")
        for name in [
            "and:fromUnixTime", "and:toUnixTime", "and:fromTimestamp", "and:toTimestamp", "and:fromHeight",
            "and:toHeight", "and:minAmount", "and:maxAmount", "and:minFee", "and:maxFee", "and:minConfirmations",
        ] {
            for value in [Int64.min, .max] {
                #expect(transactions(name, value) == "accepted", "\(name)=\(value)")
            }
        }
        #expect(transactions("offset", .max) == "accepted")
        #expect(transactions("fromHeight", 1) == "accepted")
        #expect(transactions("limit", 1000) == "accepted")
        // Beyond Int64 a query value is text to the devnet, like any string that is not a number.
        #expect(
            answer("/api/transactions", method: "GET", query: [("fromHeight", "99999999999999999999")])
                == prefix + "Expected type integer but found type string")

        let chats = { (name: String, value: Int64) in
            self.answer("/api/chats/get", method: "GET", query: [(name, String(value))])
        }
        #expect(chats("fromHeight", .min) == prefix + "Value -9223372036854775808 is less than minimum 1")
        #expect(chats("fromHeight", .max) == "accepted")
        #expect(chats("offset", .min) == prefix + "Value -9223372036854775808 is less than minimum 0")
        #expect(chats("offset", .max) == "accepted")
        #expect(chats("limit", .min) == prefix + "Value -9223372036854775808 is less than minimum 1")
        #expect(chats("limit", .max) == prefix + "Invalid limit. Maximum is 100")
        #expect(chats("type", .min) == prefix + "Value -9223372036854775808 is less than minimum 0")
    }

    /// A faucet asked for 942 × 98,000,000 ADM must not overflow a balance: the ledger
    /// holds at most the network's total supply, so no balance or sum of balances can overflow.
    @Test func creditsStopAtTheTotalSupply() throws {
        var ledger = self.ledger
        let supply = ADMAmount.totalSupply.units
        #expect(throws: Ledger.CreditRefused.self) { try ledger.credit(Fixtures.bob.address, units: supply) }
        try ledger.credit(Fixtures.bob.address, units: supply - ledger.issuedUnits)
        #expect(ledger.issuedUnits == supply)
        for _ in 0..<942 {
            #expect(throws: Ledger.CreditRefused.self) {
                try ledger.credit(Fixtures.bob.address, units: 98_000_000 * ADMAmount.unitsPerADM)
            }
        }
        #expect(throws: Ledger.CreditRefused.self) { try ledger.credit(Fixtures.bob.address, units: 1) }
        #expect(throws: Ledger.CreditRefused.self) { try ledger.credit(Fixtures.bob.address, units: -1) }
        #expect(ledger.account(Fixtures.bob.address)?.balance == supply - 100 * ADMAmount.unitsPerADM)
    }

    /// The fuzz entry point gives the answers a devnet node gives over HTTP, without sockets.
    @Test func offlineNodeAnswersAsANodeDoes() throws {
        var node = self.node
        let sent = try transfer(250, timestamp: nowTimestamp)
        let id = try sent.computedID().description
        let accepted = node.respond(method: "POST", path: sent.submissionPath, body: try sent.submissionBody())
        #expect(
            accepted?.status == 200
                && accepted.flatMap { try? JSONValue.parse($0.body) }?["transactionId"]?.string == id)
        node.mine()
        let found = node.respond(method: "GET", path: "/api/transactions/get", query: [("id", id)])
        #expect(found.flatMap { try? JSONValue.parse($0.body) }?["transaction"]?["height"]?.int64 == 2)
        let unanswered = node.respond(method: "POST", path: "/api/transactions", body: try sent.submissionBody())
        #expect(unanswered == nil)
        let huge = node.respond(
            method: "POST", path: "/api/chats/process",
            body: [UInt8](repeating: 0x20, count: HTTPServer.maxBodyBytes + 1))
        #expect(huge?.status == 500)
        #expect(
            huge.map { String(decoding: $0.body, as: UTF8.self) }
                == #"{"success":false,"error":"API error: request entity too large"}"#)
        let unknown = node.respond(method: "GET", path: "/api/foo")
        #expect(unknown?.status == 404)
    }
}
