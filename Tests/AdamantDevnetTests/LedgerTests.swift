import AdamantCore
import Testing

@testable import AdamantDevnet

/// The ledger without sockets: validation order and texts, timestamps, pool and blocks.
struct LedgerTests {
    /// A fixed "now", with transactions stamped relative to it.
    let now: Int64 = AdamantTime.epochUnixMillis + 300_000_000_123
    var nowTimestamp: Int32 { Int32(AdamantTime.timestamp(unixMillis: now)) }
    var ledger: Ledger

    init() {
        ledger = Ledger(genesisUnixMillis: now - 60_000)
        try! ledger.credit(Fixtures.alice.address, units: 100 * ADMAmount.unitsPerADM)
    }

    func rejection(_ body: JSONValue, version: NodeVersion = .current, at time: Int64? = nil) -> String? {
        var copy = ledger
        do {
            _ = try copy.submit(body, version: version, nowUnixMillis: time ?? now)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func schemaErrorsUseZSchemaTexts() throws {
        let good = try transfer(100, timestamp: nowTimestamp)
        #expect(rejection([:]) == "Missing required property: transaction")
        #expect(rejection(["transaction": "x"]) == "Expected type object but found type string")
        #expect(rejection(try body(of: good, setting: "signature")) == "Missing required property: signature")
        #expect(
            rejection(try body(of: good, setting: "signature", to: "abc"))
                == "Object didn't pass validation for format signature: abc")
        #expect(rejection(try body(of: good, setting: "recipientId")) == "Invalid recipient")
        #expect(rejection(try body(of: good, setting: "type", to: 3)) == "Unknown transaction type 3")
        #expect(rejection(try body(of: good, setting: "type")) == "Unknown transaction type undefined")
        #expect(rejection(try body(of: good, setting: "senderId")) == "Invalid sender")
        #expect(
            rejection(try body(of: good, setting: "amount", to: "100"))
                == "Failed to validate transaction schema: Expected type integer but found type string")
        #expect(
            rejection(try body(of: good, setting: "amount", to: .integer(9_800_000_000_000_001)))
                == "Failed to validate transaction schema: Value 9800000000000001 is greater than maximum 9800000000000000"
        )
        #expect(
            rejection(try body(of: good, setting: "recipientId", to: "U"))
                == "Failed to validate transaction schema: Object didn't pass validation for format address: U")
    }

    @Test func verificationErrorsInTheNodesOrder() throws {
        let good = try transfer(100, timestamp: nowTimestamp)
        #expect(
            rejection(try body(of: good, setting: "senderId", to: .string(Fixtures.bob.address.description)))
                == "Invalid sender address")
        #expect(rejection(try body(of: good, setting: "amount", to: 101)) == "Failed to verify signature")
        let broke = try transfer(100, from: Fixtures.bobKeys, timestamp: nowTimestamp)
        #expect(
            rejection(try body(of: broke)) == "Account does not have enough ADM: \(Fixtures.bob.address) balance: 0")
        let tooMuch = try transfer(9_960_000_000, timestamp: nowTimestamp)
        #expect(
            rejection(try body(of: tooMuch))
                == "Account does not have enough ADM: \(Fixtures.alice.address) balance: 100")
        // A bad signature is reported before an empty balance.
        #expect(rejection(try body(of: broke, setting: "amount", to: 5)) == "Failed to verify signature")
    }

    @Test func chatChecks() throws {
        let chat = try message("hi", timestamp: nowTimestamp)
        let asset = try body(of: chat)["transaction"]!["asset"]!
        #expect(rejection(try body(of: chat, setting: "asset", to: [:])) == "Invalid transaction asset")
        #expect(
            rejection(try body(of: chat, setting: "asset", to: ["chat": asset["chat"]!.setting("type", to: 7)]))
                == "Invalid message type")
        #expect(
            rejection(try body(of: chat, setting: "asset", to: ["chat": asset["chat"]!.setting("message", to: "zz")]))
                == "Failed to validate chat schema: Object didn't pass validation for format hex: zz")
        let long = String(repeating: "ab", count: 10_241)
        #expect(
            rejection(
                try body(of: chat, setting: "asset", to: ["chat": asset["chat"]!.setting("message", to: .string(long))])
            )
                == "Failed to validate chat schema: String is too long (20482 chars), maximum 20480")
    }

    @Test mutating func feesAreRecomputedAndCharged() throws {
        let sent = try ledger.submit(
            try body(of: transfer(1_000, timestamp: nowTimestamp), setting: "fee", to: 1), version: .current,
            nowUnixMillis: now)
        #expect(sent.fee == Fee.transfer)
        let chat = try ledger.submit(
            try body(of: message("hello", timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        #expect(chat.fee == 100_000)
        ledger.promote(nowUnixMillis: now)
        ledger.forge(nowUnixMillis: now)
        #expect(
            ledger.account(Fixtures.alice.address)?.balance == 100 * ADMAmount.unitsPerADM - 1_000 - Fee.transfer
                - 100_000)
        #expect(ledger.account(Fixtures.bob.address)?.balance == 1_000)
        #expect(ledger.account(Fixtures.alice.address)?.publicKey == Fixtures.alice.publicKey)
    }

    @Test mutating func poolStatesThenBlock() throws {
        let sent = try ledger.submit(
            try body(of: transfer(1, timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        let id = try #require(sent.id)
        #expect(ledger.queued.map(\.transaction.id) == [id])
        ledger.promote(nowUnixMillis: now)
        #expect(ledger.queued.isEmpty && ledger.unconfirmed.map(\.transaction.id) == [id])
        let block = ledger.forge(nowUnixMillis: now)
        #expect(block.transactionIDs == [id] && ledger.confirmed(id)?.height == block.height)
        #expect(ledger.unconfirmed.isEmpty)
    }

    @Test mutating func duplicatesInPoolAndChain() throws {
        let chat = try message("once", timestamp: nowTimestamp)
        let id = try chat.computedID()
        _ = try ledger.submit(try body(of: chat), version: .current, nowUnixMillis: now)
        #expect(rejection(try body(of: chat)) == "Transaction is already processed: \(id)")
        ledger.promote(nowUnixMillis: now)
        #expect(rejection(try body(of: chat)) == "Transaction is already processed: \(id)")
        ledger.forge(nowUnixMillis: now)
        #expect(rejection(try body(of: chat)) == "Transaction is already confirmed: \(id)")
        // On 0.10 a late resend of a chat hits the past window before the duplicate check.
        #expect(
            rejection(try body(of: chat), at: now + 11_000)
                == "Transaction timestamp is more than 5 seconds in the past")
        #expect(
            rejection(try body(of: chat), version: NodeVersion(0, 9, 0), at: now + 60_000)
                == "Transaction is already confirmed: \(id)")
    }

    @Test func timestampWindowsOf0_10() throws {
        let slotStart = AdamantTime.epochUnixMillis + 300_000_000_000  // a slot boundary
        let inNextSlot = try message("x", timestamp: Int32(300_000_005))
        #expect(rejection(try body(of: inNextSlot), at: slotStart + 4_400) == "Transaction timestamp is in the future")
        #expect(rejection(try body(of: inNextSlot), at: slotStart + 4_600) != "Transaction timestamp is in the future")
        let old = try message("x", timestamp: Int32(300_000_000))
        #expect(rejection(try body(of: old), at: slotStart + 9_999) == nil)
        #expect(
            rejection(try body(of: old), at: slotStart + 10_000)
                == "Transaction timestamp is more than 5 seconds in the past")
        // Transfers have no past window.
        #expect(rejection(try body(of: transfer(1, timestamp: Int32(300_000_000))), at: slotStart + 3_600_000) == nil)
    }

    @Test func timestampRulesOf0_9() throws {
        let version = NodeVersion(0, 9, 0)
        let slotStart = AdamantTime.epochUnixMillis + 300_000_000_000
        let inNextSlot = try message("x", timestamp: Int32(300_000_005))
        #expect(
            rejection(try body(of: inNextSlot), version: version, at: slotStart + 4_900)
                == "Invalid transaction timestamp. Timestamp is in the future")
        let old = try message("x", timestamp: Int32(300_000_000))
        #expect(rejection(try body(of: old), version: version, at: slotStart + 3_600_000) == nil)
        // The future check comes after the balance check on 0.9.
        let broke = try message("x", from: Fixtures.bobKeys, timestamp: Int32(300_000_005))
        #expect(
            rejection(try body(of: broke), version: version, at: slotStart)
                == "Account does not have enough ADM: \(Fixtures.bob.address) balance: 0")
        #expect(rejection(try body(of: broke), at: slotStart) == "Transaction timestamp is in the future")
    }

    @Test func poolFull() throws {
        var small = Ledger(rules: Ledger.Rules(poolCapacity: 2), genesisUnixMillis: now)
        try small.credit(Fixtures.alice.address, units: 100 * ADMAmount.unitsPerADM)
        for amount in 1...2 {
            _ = try small.submit(
                try body(of: transfer(Int64(amount), timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        }
        #expect(throws: Rejection("Transaction pool is full")) {
            try small.submit(try body(of: transfer(3, timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        }
    }

    @Test mutating func blocksHoldAtMost25AndOverspendingIsDropped() throws {
        for amount in 1...30 {
            _ = try ledger.submit(
                try body(of: transfer(Int64(amount), timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        }
        ledger.promote(nowUnixMillis: now)
        #expect(ledger.unconfirmed.count == 25 && ledger.queued.count == 5)
        #expect(ledger.forge(nowUnixMillis: now).transactionIDs.count == 25)

        // Two transfers that each fit the confirmed balance but not together: the second is dropped in the pool.
        var tight = Ledger(genesisUnixMillis: now)
        try tight.credit(Fixtures.alice.address, units: 2 * ADMAmount.unitsPerADM)
        let first = try tight.submit(
            try body(of: transfer(100_000_000, timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        let second = try tight.submit(
            try body(of: transfer(100_000_001, timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        #expect(tight.promote(nowUnixMillis: now) == [second.id!])
        #expect(tight.unconfirmed.map(\.transaction.id) == [first.id])
    }

    @Test mutating func poolExpiry() throws {
        _ = try ledger.submit(try body(of: transfer(1, timestamp: nowTimestamp)), version: .current, nowUnixMillis: now)
        ledger.promote(nowUnixMillis: now)
        let expired = ledger.promote(nowUnixMillis: now + ledger.rules.poolExpiryMillis + 1)
        #expect(expired.count == 1 && ledger.unconfirmed.isEmpty)
        #expect(ledger.account(Fixtures.alice.address)?.unconfirmedBalance == 100 * ADMAmount.unitsPerADM)
    }
}
