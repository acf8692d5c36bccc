import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// `adm-push` against the devnet's adamant-ns, which keys devices by id, hears each signal at
/// admission and again in its polls (newest first), and deletes a device for whoever names it.
/// Every test polls the service after each block, as the real one does between 5 s blocks.
@Suite("adm-push with adamant-ns", .timeLimit(.minutes(3)))
struct NSOutboxTests {
    static let old = "old-fcm-token-" + String(repeating: "a", count: 30)
    static let new = "new-fcm-token-" + String(repeating: "b", count: 30)

    struct Queue: Decodable {
        struct Intent: Decodable {
            let action: String
            let state: String
            let attempts: [Attempt]
        }
        struct Attempt: Decodable { let action: String }
        let intents: [Intent]
    }

    func queue(_ network: OutboxDevnet, home: String = "home") async throws -> [Queue.Intent] {
        let result = try await network.push(["queue", "--json"], home: home)
        return try JSONDecoder().decode(Queue.self, from: Data(result.stdout.utf8)).intents
    }

    /// A devnet that forges a block only when a test settles it, so that signals sent together
    /// surely share the block its service's next poll reads (its polls read the tip alone).
    static func blocksByHand() throws -> OutboxDevnet {
        try OutboxDevnet(blockTime: .seconds(3600), service: .ns)
    }

    /// Signs a signal as another client of the account would and puts it in the pool now.
    func sendByHand(_ network: OutboxDevnet, _ action: PushAction, _ token: String, device: String) throws {
        let service = try NotificationService(
            address: network.devnet.ns.address, publicKey: network.devnet.ns.publicKey, kind: .ns)
        let timestamp = Int32(AdamantTime.timestamp(unixMillis: SystemWallClock().unixMillis()))
        let transaction = try Transaction.signal(
            PushSignal(token: token, provider: .fcm, action: action, deviceId: device), to: service,
            timestamp: timestamp, signedBy: network.account)
        try network.devnet.admitUnchecked(transaction)
    }

    /// The web branch rotates a token with remove(old) then add(new) under one device id, in one
    /// block: the poll reads them newest first, so the remove is applied last and the device is
    /// gone. adm-push sends the new token as one add, clear of the old one: the device keeps it.
    @Test func aRotationKeepsTheDeviceWhereTheWebBranchLosesIt() async throws {
        let manual = try Self.blocksByHand()
        let web = "web-branch-installation"
        try sendByHand(manual, .add, Self.old, device: web)
        manual.settle()
        #expect(manual.devices.map(\.token) == [Self.old])
        try sendByHand(manual, .remove, Self.old, device: web)
        try sendByHand(manual, .add, Self.new, device: web)
        manual.settle()
        #expect(manual.devices.isEmpty, "the web branch's rotation lost its device")

        let network = try OutboxDevnet(service: .ns)
        let first = try await network.push(["register", "--token", Self.old, "--provider", "fcm"])
        #expect(first.status == 0, "\(first.stderr)")
        network.settle()
        let device = try #require(network.devices.first?.deviceId)
        #expect(network.devices.map(\.token) == [Self.old] && device.utf8.count == 32, "a 128-bit id of this home")
        let rotated = try await network.push(["register", "--token", Self.new, "--provider", "fcm"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        network.settle()
        #expect(network.devices.map(\.token) == [Self.new] && network.devices.first?.deviceId == device)
        let intents = try await queue(network)
        #expect(intents.flatMap(\.attempts).map(\.action) == ["add", "add"], "no remove was sent")
    }

    /// add(d) then remove(d) in one window leaves the device subscribed after a logout; the
    /// outbox keeps the remove clear of the add, so the device is gone.
    @Test func anUnregisterRightAfterTheRegisterEndsTheDevice() async throws {
        let manual = try Self.blocksByHand()
        let web = "web-branch-installation"
        try sendByHand(manual, .add, Self.old, device: web)
        try sendByHand(manual, .remove, Self.old, device: web)
        manual.settle()
        #expect(manual.devices.map(\.deviceId) == [web], "the web branch's logout left it subscribed")

        let network = try OutboxDevnet(service: .ns)
        let register = try await network.push(["register", "--token", Self.old, "--provider", "fcm"])
        #expect(register.status == 0, "\(register.stderr)")
        let unregister = try await network.push(["unregister", "--token", Self.old])
        #expect(unregister.status == 0, "\(unregister.stderr)")
        network.settle()
        #expect(network.devices.isEmpty)
        let heights = network.devnet.confirmedTransactions.filter {
            $0.recipientId == network.devnet.ns.address && $0.senderPublicKey == network.account.publicKey
        }.compactMap(\.height)
        #expect(heights.count == 2 && heights[1] - heights[0] >= 3, "\(heights)")
    }

    /// A remove of a token this device has since replaced would delete the device with its new
    /// token: nothing is sent, and the device keeps the new one.
    @Test func aRemoveOfAReplacedTokenSendsNothing() async throws {
        let network = try OutboxDevnet(service: .ns)
        for token in [Self.old, Self.new] {
            let result = try await network.push(["register", "--token", token, "--provider", "fcm", "--no-wait"])
            #expect(result.status == 75, "\(result.stderr)")
        }
        let stale = try await network.push(["unregister", "--token", Self.old])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stdout.hasPrefix("nothing sent: old-fc…aaaa is no longer this device's token"), "\(stale.stdout)")
        let flush = try await network.push(["flush"])
        #expect(flush.status == 0, "\(flush.stderr)")
        network.settle()
        #expect(network.devices.map(\.token) == [Self.new])
        #expect(try await queue(network).map(\.action) == ["add", "add"])
    }

    /// Two homes of one account are two devices with ids of their own; a remove from one leaves
    /// the other, and `unregister --all` from a third, fresh home finds both on the chain.
    @Test func twoHomesAreTwoDevicesAndAFreshHomeUnregistersBoth() async throws {
        let network = try OutboxDevnet(service: .ns)
        let a = try await network.push(["register", "--token", Self.old, "--provider", "fcm"], home: "a")
        let b = try await network.push(["register", "--token", Self.new, "--provider", "fcm"], home: "b")
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
        network.settle()
        #expect(Set(network.devices.map(\.token)) == [Self.old, Self.new])
        #expect(Set(network.devices.map(\.deviceId)).count == 2)
        // A fresh home reads both devices back from the chain: repair holds them, sending nothing.
        let repair = try await network.push(["repair"], home: "repaired")
        #expect(repair.status == 0, "\(repair.stderr)")
        let held = try await queue(network, home: "repaired")
        #expect(held.map(\.action) == ["add", "add"] && held.allSatisfy { $0.attempts.isEmpty })
        let status = try await network.push(["status"], home: "repaired")
        #expect(status.stdout.components(separatedBy: ": applied").count == 3, "\(status.stdout)")
        #expect(status.stdout.components(separatedBy: " on device ").count == 3, "\(status.stdout)")
        let one = try await network.push(["unregister", "--token", Self.old], home: "a")
        #expect(one.status == 0, "\(one.stderr)")
        network.settle()
        #expect(network.devices.map(\.token) == [Self.new], "home b's device is left")

        let all = try await network.push(["unregister", "--all", "--json"], home: "fresh")
        #expect(all.status == 0, "\(all.stderr)")
        network.settle()
        #expect(network.devices.isEmpty)
        let removes = try await queue(network, home: "fresh")
        #expect(removes.map(\.action) == ["remove"] && removes[0].state.hasPrefix("applied"), "\(all.stdout)")
        let after = try await network.push(["status"], home: "b")
        #expect(after.stdout.contains("chain: unregistered"), "\(after.stdout)")
    }

    /// From the registration to the bubble: a message to the account makes adamant-ns push to
    /// the device, and `adm-fetch --payload` shows that push's carried transaction, asking no
    /// node for it and trusting none of the service's fixed placeholders.
    @Test func thePushAdamantNSSendsIsShownFromItsCarriedTransaction() async throws {
        let network = try OutboxDevnet(service: .ns)
        let register = try await network.push(["register", "--token", Self.old, "--provider", "fcm"])
        #expect(register.status == 0, "\(register.stderr)")
        // Its polls read only the tip block, and this devnet's blocks come faster than the test
        // polls: read every block once instead, so the message's block is surely read.
        network.devnet.nsMode = .ordered
        _ = try network.devnet.fund(network.devnet.ans.address, amount: ADMAmount(units: ADMAmount.unitsPerADM))
        let sent = try network.devnet.send(
            from: network.devnet.ans.address, to: network.account.address, kind: .message, message: "Dinner at 8?")
        #expect(network.devnet.nsPushes.isEmpty, "nothing before the block")
        network.settle(blocks: 1)
        let push = try #require(network.devnet.nsPushes.first { $0.transactionID == sent })
        #expect(network.devnet.nsPushes.count == 1 && push.device.token == Self.old)

        for index in network.devnet.nodeURLs.indices { try network.devnet.clearRequests(toNode: index) }
        let fetched = try await run(
            "adm-fetch", ["--payload", "-", "--json", "--no-names", "--home", network.home + "/home"],
            environment: [
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase,
            ], input: Data(push.message.utf8))
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8)) as? [String: Any])
        #expect(object["id"] as? String == sent.description && object["text"] as? String == "Dinner at 8?")
        let asked = try network.devnet.nodeURLs.indices.flatMap { try network.devnet.requests(toNode: $0).map(\.path) }
        #expect(!asked.contains { $0.hasPrefix("/api/transactions") }, "\(asked)")
    }

    /// adamant-ns has no Apple sandbox (64, nothing written) and cannot push to APNs yet (a
    /// warning; the device is kept).
    @Test func theProvidersAdamantNSHas() async throws {
        let network = try OutboxDevnet(service: .ns)
        let sandbox = try await network.push([
            "register", "--token", String(repeating: "ab", count: 32), "--provider", "apns-sandbox",
        ])
        #expect(sandbox.status == 64, "\(sandbox.stderr)")
        #expect(sandbox.stderr.contains("adamant-ns has no apns-sandbox provider"), "\(sandbox.stderr)")
        #expect(!FileManager.default.fileExists(atPath: network.home + "/home/outbox.sqlite"), "nothing written")
        let apns = try await network.push([
            "register", "--token", String(repeating: "ab", count: 32), "--provider", "apns",
        ])
        #expect(apns.status == 0, "\(apns.stderr)")
        #expect(apns.stderr.contains("Warning: adamant-ns keeps an apns device but cannot push to it yet"))
        network.settle()
        #expect(network.devices.map(\.provider) == ["APNS"])
    }
}
