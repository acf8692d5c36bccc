import AdamantCore
import AdamantDevnet

extension Demo {
    /// adamant-ns, the web and Android apps' service, loses a device to the web branch's own
    /// token rotation (remove then add under one id, replayed newest first by its poll), where
    /// adm-push rotates with one add and keeps it.
    func adamantNS(alice: DevnetAccount, bob: DevnetAccount, devnet: Devnet, tools: DemoTools) async throws {
        let old = "demo-fcm-token-" + String(repeating: "a", count: 24)
        let new = "demo-fcm-token-" + String(repeating: "b", count: 24)
        let installation = "web-installation-1"
        func send(_ action: PushAction, _ token: String) throws -> TransactionID {
            let signal = try PushSignal(token: token, provider: .fcm, action: action, deviceId: installation)
            return try devnet.send(
                from: alice.address, to: devnet.ns.address, kind: .signal, message: ServiceKind.ns.plaintext(signal))
        }
        func devices(_ account: DevnetAccount) -> [NSDevice] {
            devnet.nsDevices.filter { $0.address == account.address }
        }

        _ = try send(.add, old)
        devnet.mine()
        devnet.pollNS()
        say(
            "10. The web and Android apps register with adamant-ns (\(devnet.ns.address)), which keys a device by its id"
        )
        say("    and hears each signal twice: as a node admits it, and again in its next poll, newest first.")
        say(
            "    alice's web app registers its installation's FCM token: adamant-ns holds \(devices(alice).count) device(s)."
        )
        // Both in the pool before the block is forged, as two sends a moment apart usually are.
        // Should the devnet's own timer forge between them, the app rotates once more.
        var block: Int64 = 0
        for (from, to) in zip([old, new, old], [new, old, new]) {
            let pair = [try send(.remove, from), try send(.add, to)]
            block = devnet.mine()
            devnet.pollNS()
            let heights = Set(devnet.confirmedTransactions.filter { pair.contains($0.id!) }.compactMap(\.height))
            if heights == [block] { break }
        }
        guard devices(alice).isEmpty else { throw DemoError("the rotation's two signals were never forged together") }
        say(
            "    Firebase rotates the token: the app sends remove(old) then add(new) under the same id (block \(block))."
        )
        say("    The poll applies them newest first, the remove last: alice holds \(devices(alice).count) device(s).")

        let register = ["register", "--provider", "fcm", "--json", "--token"]
        _ = try await tools.push(register + [old], as: bob, expecting: 0, service: .ns)
        devnet.pollNS()
        guard let device = devices(bob).first else { throw DemoError("adamant-ns holds no device of bob's") }
        say(
            "11. bob registers through adm-push --service ns: his home is device \(device.deviceId.prefix(8))…, a random 128-bit id."
        )
        let rotated = try await tools.push(register + [new], as: bob, expecting: 0, service: .ns)
        devnet.pollNS()
        guard devices(bob).map(\.token) == [new], rotated.nothingInFlight else {
            throw DemoError("adamant-ns does not hold bob's new token: \(rotated.output)")
        }
        say("    His token rotates: adm-push sends one add for the same device, some seconds clear of the last")
        say("    signal so that no poll reads both, and never a remove: adamant-ns holds his new token.")
    }
}
