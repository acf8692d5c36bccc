import AdamantCore
import Testing

@testable import AdamantDevnet

/// The ANS emulator in both modes, driven through the chain and read through the control endpoint.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct ANSTests {
    static let token = String(repeating: "ab", count: 32)
    let network: TestNetwork
    let service: NotificationService

    init() throws {
        network = try TestNetwork()
        service = try NotificationService(address: network.devnet.ans.address, publicKey: network.devnet.ans.publicKey)
    }

    func signal(_ action: PushAction, token: String = token, from keys: KeyPair = Fixtures.aliceKeys) throws
        -> Transaction
    {
        try Transaction.signal(
            PushSignal(token: token, provider: .apns, action: action), to: service, timestamp: nowTimestamp(),
            signedBy: keys)
    }

    /// Sends the signals in order, in one block, then lets the service poll once.
    func land(_ signals: [Transaction]) throws {
        for signal in signals { #expect(try network.submit(signal).json["success"]?.boolValue == true) }
        network.devnet.mine()
        _ = try network.control("POST", "/ans/poll")
    }

    var registry: [JSONValue] { (try? network.control("GET", "/ans/registry").json["registry"]?.arrayValue) ?? [] }

    var tokens: [String] { registry.compactMap { $0["token"]?.string } }
    static let other = String(repeating: "cd", count: 32)

    /// The C# service's batch rules, one branch each (docs/node-api.md §4.1).
    @Test func csharpModeAppliesAPollAsTheServiceDoes() throws {
        // A batch with no adds applies its removes.
        try land([try signal(.add)])
        try land([try signal(.remove)])
        #expect(registry.isEmpty)

        // A new add and a remove of it in one batch: inserted, then deleted.
        try land([try signal(.add), try signal(.remove)])
        #expect(registry.isEmpty)
        try land([try signal(.remove), try signal(.add)])
        #expect(registry.isEmpty, "whatever their chain order")
    }

    /// remove(T) then add(T) of a registered T in one poll: the add is a duplicate and, with no
    /// other new add, the service returns before the removes: T survives.
    @Test func csharpModeDropsTheRemovesOfABatchWhoseOnlyAddsAreDuplicates() throws {
        try land([try signal(.add)])
        try land([try signal(.remove), try signal(.add)])
        #expect(tokens == [Self.token])
        // Removes alone still work afterwards.
        try land([try signal(.remove)])
        #expect(registry.isEmpty)
    }

    /// The same batch plus a stranger's new add: the removes run, and T is deleted.
    @Test func csharpModeLosesTheRegistrationWhenAStrangersAddSharesTheBatch() throws {
        _ = try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("1"))
        try land([try signal(.add)])
        try land([try signal(.remove), try signal(.add), try signal(.add, token: Self.other, from: Fixtures.bobKeys)])
        #expect(tokens == [Self.other])
    }

    /// A redundant add costs strangers their removes.
    @Test func csharpModeLetsARedundantAddDropAStrangersRemove() throws {
        _ = try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("1"))
        try land([try signal(.add), try signal(.add, token: Self.other, from: Fixtures.bobKeys)])
        try land([try signal(.add), try signal(.remove, token: Self.other, from: Fixtures.bobKeys)])
        #expect(Set(tokens) == [Self.token, Self.other], "Bob's remove was lost")
    }

    @Test func csharpModeRemovesEveryProviderAndReadsActionsAsTheServiceDoes() throws {
        let fcm = try Transaction.signal(
            PushSignal(token: Self.token, provider: .fcm, action: .add), to: service, timestamp: nowTimestamp(),
            signedBy: Fixtures.aliceKeys)
        try land([try signal(.add), fcm])
        #expect(registry.count == 2, "one row per provider")
        try land([
            try message(
                #"{"token":"\#(Self.token)","provider":"apns","action":"REMOVE"}"#, to: network.devnet.ans.keyPair,
                from: Fixtures.aliceKeys, type: .signal)
        ])
        #expect(registry.isEmpty, "a remove deletes every provider's row; the action is case-insensitive")
        try land([
            try message(
                #"{"token":"\#(Self.token)","provider":"apns"}"#, to: network.devnet.ans.keyPair,
                from: Fixtures.aliceKeys, type: .signal)
        ])
        try land([
            try message(
                #"{"token":"\#(Self.other)","provider":"apns","action":"subscribe"}"#, to: network.devnet.ans.keyPair,
                from: Fixtures.aliceKeys, type: .signal)
        ])
        #expect(Set(tokens) == [Self.token, Self.other], "a missing or unknown action is an add")
    }

    @Test func orderedModeAppliesChainOrder() throws {
        #expect(try network.control("PUT", "/ans/mode", ["mode": "ordered"]).json["mode"]?.string == "ordered")
        try land([try signal(.add)])
        try land([try signal(.remove), try signal(.add)])
        let registered = registry
        #expect(registered.count == 1)
        #expect(registered.first?["address"]?.string == Fixtures.alice.address.description)
        #expect(registered.first?["token"]?.string == Self.token && registered.first?["provider"]?.string == "apns")
    }

    @Test func csharpModeKeepsDuplicateAddsOfOneBatch() throws {
        try land([try signal(.add), try signal(.add)])
        #expect(registry.count == 2)
        try land([try signal(.add)])  // already stored: skipped
        #expect(registry.count == 2)
    }

    @Test func pushesForMessagesAndTransfersToRegisteredAddresses() throws {
        try land([try signal(.add)])
        let chat = try message("hi", to: Fixtures.aliceKeys, from: Fixtures.bobKeys)
        let payment = try transfer(1, to: Fixtures.alice.address, from: Fixtures.bobKeys)
        let toBob = try message("not pushed: Bob is not registered", to: Fixtures.bobKeys, from: Fixtures.aliceKeys)
        let signalToAlice = try message("{}", to: Fixtures.aliceKeys, from: Fixtures.bobKeys, type: .signal)
        try network.devnet.fund(Fixtures.bob.address, amount: try ADMAmount("5"))
        try land([chat, payment, toBob, signalToAlice])
        let pushes = try network.control("GET", "/ans/pushes").json["pushes"]!.arrayValue
        #expect(
            pushes.map { $0["txn-id"]?.string } == [
                try chat.computedID().description, try payment.computedID().description,
            ])
        #expect(
            pushes.allSatisfy {
                $0["push-recipient"]?.string == Fixtures.alice.address.description && $0["token"]?.string == Self.token
            })
    }

    @Test func pollsOnItsOwnTimer() throws {
        let network = try TestNetwork(blockTime: .milliseconds(50)) { $0.ansPollInterval = .milliseconds(50) }
        let service = try NotificationService(
            address: network.devnet.ans.address, publicKey: network.devnet.ans.publicKey)
        let add = try Transaction.signal(
            PushSignal(token: Self.token, provider: .fcm, action: .add), to: service, timestamp: nowTimestamp(),
            signedBy: Fixtures.aliceKeys)
        _ = try network.submit(add)
        #expect(eventually { network.devnet.ansRegistrations.count == 1 })
        #expect(network.devnet.ansRegistrations.first?.provider == "fcm")
    }
}
