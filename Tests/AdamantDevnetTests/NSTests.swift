import AdamantCore
import Synchronization
import Testing

@testable import AdamantDevnet

/// The adamant-ns emulator in both modes: signals crafted and encrypted here, blocks and polls
/// driven by hand.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct NSTests {
    let log = LogLines()
    let network: TestNetwork
    let nsKeys: KeyPair
    var devnet: Devnet { network.devnet }

    init() throws {
        network = try TestNetwork { [log] in $0.log = { log.append($0) } }
        nsKeys = network.devnet.ns.keyPair
        try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("10"))
    }

    static func payload(_ action: String, _ deviceId: String = "d1", token: String = "t1", provider: String = "FCM")
        -> String
    {
        #"{"deviceId":"\#(deviceId)","token":"\#(token)","provider":"\#(provider)","action":"\#(action)"}"#
    }

    /// A signal to adamant-ns whose plaintext is `json`.
    func signal(_ json: String, from keys: KeyPair = Fixtures.aliceKeys) throws -> Transaction {
        try message(json, to: nsKeys, from: keys, type: .signal)
    }

    /// Posts each transaction to a node, in order: each is admitted to the pool as it is posted.
    func admit(_ transactions: Transaction...) throws {
        for transaction in transactions {
            #expect(try network.submit(transaction).json["success"]?.boolValue == true)
        }
    }

    /// Admits, forges one block and polls once.
    func land(_ transactions: Transaction...) throws {
        for transaction in transactions { try admit(transaction) }
        devnet.mine()
        devnet.pollNS()
    }

    var deviceIDs: [String] { devnet.nsDevices.map(\.deviceId) }

    // MARK: Replay and order

    @Test(arguments: NSMode.allCases) func signalsAtAdmissionOnlyInReplay(mode: NSMode) throws {
        devnet.nsMode = mode
        try admit(try signal(Self.payload("add")))
        #expect(deviceIDs == (mode == .replay ? ["d1"] : []), "before any block")
        devnet.pollNS()
        #expect(deviceIDs == (mode == .replay ? ["d1"] : []), "a poll reads blocks only")
        devnet.mine()
        devnet.pollNS()
        #expect(deviceIDs == ["d1"])
    }

    /// The socket applies remove, add; the poll then applies add, remove (newest first).
    @Test(arguments: NSMode.allCases) func removeThenAddInOneWindow(mode: NSMode) throws {
        devnet.nsMode = mode
        try land(try signal(Self.payload("add")))
        try admit(try signal(Self.payload("remove")), try signal(Self.payload("add", token: "t2")))
        #expect(devnet.nsDevices.map(\.token) == (mode == .replay ? ["t2"] : ["t1"]), "as the socket heard them")
        devnet.mine()
        devnet.pollNS()
        #expect(deviceIDs == (mode == .replay ? [] : ["d1"]))
        #expect(mode == .replay || devnet.nsDevices.first?.token == "t2")
    }

    /// The poll applies remove, then add: the device stays subscribed after logout, and pushes go on.
    @Test(arguments: NSMode.allCases) func addThenRemoveInOneWindow(mode: NSMode) throws {
        devnet.nsMode = mode
        try admit(try signal(Self.payload("add")), try signal(Self.payload("remove")))
        #expect(deviceIDs.isEmpty, "nothing yet, or the socket's add and remove")
        devnet.mine()
        devnet.pollNS()
        #expect(deviceIDs == (mode == .replay ? ["d1"] : []))
        devnet.pollNS()
        #expect(deviceIDs == (mode == .replay ? ["d1"] : []), "the tip block read again")

        try land(try message("after logout", to: Fixtures.aliceKeys, from: Fixtures.bobKeys))
        #expect(devnet.nsPushes.count == (mode == .replay ? 1 : 0))
    }

    @Test(arguments: NSMode.allCases) func addAndRemoveInDifferentWindows(mode: NSMode) throws {
        devnet.nsMode = mode
        try land(try signal(Self.payload("add")))
        devnet.pollNS()
        #expect(deviceIDs == ["d1"])
        try admit(try signal(Self.payload("remove")))
        #expect(deviceIDs == (mode == .replay ? [] : ["d1"]))
        devnet.pollNS()
        #expect(deviceIDs == ["d1"], "replay reads the add's block, still the tip, again")
        devnet.mine()
        devnet.pollNS()
        #expect(deviceIDs.isEmpty)
        devnet.pollNS()
        #expect(deviceIDs.isEmpty)
    }

    /// `fromHeight` is the height at the poll: a block that was never the tip then is never read.
    @Test(arguments: NSMode.allCases) func replayReadsOnlyTheTipBlock(mode: NSMode) throws {
        devnet.nsMode = mode
        try land(try signal(Self.payload("add")))
        try admit(try message("missed", to: Fixtures.aliceKeys, from: Fixtures.bobKeys))
        devnet.mine()
        devnet.mine()
        devnet.pollNS()
        #expect(devnet.nsPushes.count == (mode == .replay ? 0 : 1))
    }

    // MARK: The payload and the registry

    @Test(arguments: NSMode.allCases) func payloadsOutsideTheSchemaAreDropped(mode: NSMode) throws {
        devnet.nsMode = mode
        let dropped = [
            #"{"deviceId":"d1","token":"t1","provider":"fcm","action":"add"}"#,
            #"{"token":"t1","provider":"FCM","action":"add"}"#,
            #"{"deviceId":7,"token":"t1","provider":"FCM","action":"add"}"#,
            #"{"deviceId":"d1","token":"t1","provider":"FCM","action":"Add"}"#,
            #"{"token":"t1","provider":"fcm"}"#,
            "not json",
        ]
        for text in dropped {
            let transaction = try signal(text)
            try land(transaction)
            #expect(deviceIDs.isEmpty, "\(text)")
            let id = try transaction.computedID()
            #expect(log.all.contains { $0.hasPrefix("NS dropped \(id): ") }, "\(text)")
        }
        try land(try signal(#"{"deviceId":"d1","token":"t1","provider":"APNS","action":"add","platform":"web"}"#))
        #expect(devnet.nsDevices.map(\.provider) == ["APNS"], "extra keys are ignored")
    }

    @Test(arguments: NSMode.allCases) func devicesAreKeyedByDeviceIDAlone(mode: NSMode) throws {
        devnet.nsMode = mode
        try land(try signal(Self.payload("add")))
        let before = devnet.nsDevices
        try land(try signal(Self.payload("remove", "unknown")))
        #expect(devnet.nsDevices == before)
        #expect(log.all.contains { $0.hasPrefix("NS remove unknown for \(Fixtures.alice.address): unknown device") })

        try land(try signal(Self.payload("add", token: "t2"), from: Fixtures.bobKeys))
        let moved = devnet.nsDevices
        #expect(moved.map(\.deviceId) == ["d1"] && moved.first?.address == Fixtures.bob.address)
        #expect(moved.first?.token == "t2")

        try land(try signal(Self.payload("remove")))
        #expect(deviceIDs.isEmpty, "Alice's remove deletes the device Bob holds")
    }

    // MARK: Pushes

    @Test(arguments: NSMode.allCases) func onePushPerFCMDeviceOnceConfirmed(mode: NSMode) throws {
        devnet.nsMode = mode
        try land(
            try signal(Self.payload("add", "d1", token: "t1")), try signal(Self.payload("add", "d2", token: "t2")),
            try signal(Self.payload("add", "d3", token: "t3", provider: "APNS")))
        #expect(deviceIDs == ["d1", "d2", "d3"])

        let chat = try message("hi", to: Fixtures.aliceKeys, from: Fixtures.bobKeys)
        let payment = try transfer(50_000_000, to: Fixtures.alice.address, from: Fixtures.bobKeys)
        try admit(chat, payment)
        devnet.pollNS()
        #expect(devnet.nsPushes.isEmpty, "nothing before a block")
        devnet.mine()
        #expect(devnet.nsPushes.isEmpty, "nothing before a poll")
        devnet.pollNS()
        devnet.pollNS()

        let pushes = devnet.nsPushes
        #expect(pushes.count == 4, "two transactions, two FCM devices, each once")
        #expect(Set(pushes.map(\.device.deviceId)) == ["d1", "d2"])
        for transaction in [chat, payment] {
            let id = try transaction.computedID()
            let mine = pushes.filter { $0.transactionID == id }
            #expect(Set(mine.map(\.device.token)) == ["t1", "t2"])
            for push in mine {
                let message = try #require(JSONValue(parsing: push.message)?["message"])
                #expect(message["token"]?.string == push.device.token)
                #expect(message["notification"]?["title"]?.string == Fixtures.bob.address.description)
                #expect(
                    message["notification"]?["body"]?.string
                        == (transaction.type == .transfer
                            ? "Transfer of 0.5" : "You received a new message from \(Fixtures.bob.address)"))
                let data = try #require(message["data"])
                #expect(
                    data["txn-id"]?.string == "1780057658950425716"
                        && data["push-recipient"]?.string == "U3716604363012166999")
                let txn = try #require(data["txn"]?.string.flatMap { JSONValue(parsing: $0) })
                #expect(txn["id"]?.string == id.description && txn["height"]?.int64 == devnet.height)
                #expect(txn["recipientId"]?.string == Fixtures.alice.address.description)
                #expect(transaction.type == .transfer || txn["asset"]?["chat"]?["type"]?.int64 == 1)
            }
        }

        let control = try network.control("GET", "/ns/pushes").json["pushes"]?.arrayValue ?? []
        #expect(control.count == 4)
        #expect(control.first?["message"]?["message"]?["data"]?["txn-id"]?.string == "1780057658950425716")
    }

    /// The service's `isChatMessage` is any type 8, so a signal to a registered user pushes too.
    @Test func aSignalToAUserPushesAsAMessage() throws {
        try land(try signal(Self.payload("add")))
        try land(try message("{}", to: Fixtures.aliceKeys, from: Fixtures.bobKeys, type: .signal))
        #expect(devnet.nsPushes.count == 1)
    }

    @Test func javaScriptPrintsTinyAmountsInExponentForm() {
        #expect(
            [1, 5, 10, 15, 99, 100, 150_000_000, 100_000_000].map(FCMMessage.javaScriptADM) == [
                "1e-8", "5e-8", "1e-7", "1.5e-7", "9.9e-7", "0.000001", "1.5", "1",
            ])
    }

    // MARK: Beside the ANS, and alone

    @Test func theTwoServicesHearOnlyTheirOwnSignals() throws {
        let ansSignal = try message(
            #"{"token":"ansToken","provider":"apns","action":"add"}"#, to: devnet.ans.keyPair, type: .signal)
        try admit(ansSignal, try signal(Self.payload("add", token: "nsToken")))
        devnet.mine()
        devnet.pollANS()
        devnet.pollNS()
        #expect(devnet.ansRegistrations.map(\.token) == ["ansToken"])
        #expect(devnet.nsDevices.map(\.token) == ["nsToken"])
        #expect(!log.all.contains { $0.hasPrefix("NS dropped") })
    }

    @Test func aServiceThatDoesNotRunHearsNothing() throws {
        let network = try TestNetwork { $0.services = .ans }
        let nsSignal = try message(Self.payload("add"), to: network.devnet.ns.keyPair, type: .signal)
        #expect(try network.submit(nsSignal).json["success"]?.boolValue == true)
        network.devnet.mine()
        network.devnet.pollNS()
        #expect(network.devnet.nsDevices.isEmpty)
        #expect(try network.control("GET", "/ns/registry").status == 404)
        #expect(try network.control("GET", "/ans/registry").status == 200)
        #expect(try network.control("GET", "/").json["ns"] == nil)

        let nsOnly = try TestNetwork { $0.services = .ns }
        #expect(try nsOnly.control("POST", "/ans/poll").status == 404)
        let summary = try nsOnly.control("GET", "/").json
        #expect(summary["ans"] == nil && summary["ns"]?["address"]?.string == nsOnly.devnet.ns.address.description)
    }

    @Test func theControlEndpointSetsTheModeAndPolls() throws {
        #expect(try network.control("GET", "/ns/mode").json["mode"]?.string == "replay")
        #expect(try network.control("PUT", "/ns/mode", ["mode": "ordered"]).json["mode"]?.string == "ordered")
        #expect(try network.control("PUT", "/ns/mode", ["mode": "csharp"]).status == 400)
        try admit(try signal(Self.payload("add")))
        devnet.mine()
        let registry = try network.control("POST", "/ns/poll").json["registry"]?.arrayValue ?? []
        #expect(registry.map { $0["deviceId"]?.string } == ["d1"])
        #expect(registry.first?["address"]?.string == Fixtures.alice.address.description)
        #expect(registry.first?["provider"]?.string == "FCM" && registry.first?["token"]?.string == "t1")
    }

    @Test func pollsOnItsOwnTimer() throws {
        let network = try TestNetwork(blockTime: .milliseconds(50)) {
            $0.nsPollInterval = .milliseconds(50)
            $0.nsMode = .ordered  // so only a poll can add the device
        }
        let add = try message(Self.payload("add"), to: network.devnet.ns.keyPair, type: .signal)
        _ = try network.submit(add)
        #expect(eventually { network.devnet.nsDevices.count == 1 })
    }
}

/// The devnet's log lines, gathered from its threads.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
