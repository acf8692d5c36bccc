import AdamantCore

/// own-signals' seeds, each history both as records (mode 1) and as the node's answer they make
/// (mode 0): signed and encrypted for the target's fixed keys by AdamantCore itself.
extension OwnSignalsFuzz {
    static func seeds() -> [Seed] {
        let first = String(repeating: "ab", count: 32)
        let second = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
        let fcm = "fcm-token:" + String(repeating: "Zz09_-", count: 8)
        typealias R = SignalRecords.Record
        func add(
            _ height: UInt8, _ token: String = first, _ provider: PushProvider = .apns, at timestamp: UInt8 = 0,
            flags: UInt8 = 0, deviceId: String? = nil
        ) -> R {
            R(flags: flags, height: height, timestamp: timestamp, plaintext: plaintext(token, provider, .add, deviceId))
        }
        func remove(
            _ height: UInt8, _ token: String = first, _ provider: PushProvider = .apns, at timestamp: UInt8 = 0,
            flags: UInt8 = 0
        ) -> R {
            R(flags: flags, height: height, timestamp: timestamp, plaintext: plaintext(token, provider, .remove, nil))
        }
        func text(_ height: UInt8, _ text: String) -> R { R(height: height, plaintext: Array(text.utf8)) }

        let histories: [(String, [R])] = [
            ("one add", [add(10)]),
            ("add then remove", [add(10), remove(20)]),
            ("remove within the gap of the add", [add(10), remove(12)]),
            ("add within the gap of the remove", [remove(10), add(11)]),
            ("one block timestamps decide", [remove(10, at: 5), add(10, at: 3)]),
            ("one block one second ids decide", [add(10, at: 3), remove(10, at: 3), add(10, at: 3)]),
            ("remove near another token's add", [add(1), add(10, fcm, .fcm), remove(12)]),
            (
                "several tokens and providers",
                [
                    add(5, second, .apnsSandbox), add(6, fcm, .fcm, deviceId: "pixel.7"),
                    remove(9, second, .apnsSandbox), add(30),
                ]
            ),
            (
                "others' transactions",
                [
                    add(10, flags: 1), add(11, flags: 2), add(12, flags: 4), add(13, flags: 8), add(14, flags: 16),
                    add(15, flags: 32), remove(16),
                ]
            ),
            ("highest block", [add(0, flags: 0x30), remove(3, flags: 0x30), add(9)]),
            ("a signal hung on a transfer", [add(10), remove(20), add(30, flags: 0x80)]),
            ("listed twice", [add(10, flags: 0x40), remove(11), add(12, flags: 0x40)]),
            (
                "lenient plaintexts",
                [
                    text(10, #"{ "action" : "ADD", "provider": "APNS", "token": "\#(first)" }"#),
                    text(11, #"{"token":"\#(fcm)","provider":"Fcm","action":"Remove","deviceId":"d.1","extra":[1]}"#),
                ]
            ),
            (
                "not signals",
                [
                    text(10, "hello"), text(11, #"{"token":"zz","provider":"apns","action":"add"}"#),
                    text(12, #"{"token":"\#(first)","provider":"apns"}"#),
                    text(13, #"{"token":"\#(first)","provider":"apns","action":"add","deviceId":""}"#),
                    R(height: 14, plaintext: [0xFF, 0xFE]),
                ]
            ),
            ("nothing", []),
        ]
        var seeds: [Seed] = []
        for (name, records) in histories {
            seeds.append(Seed(name: name + " records", bytes: [1] + SignalRecords.encode(records)))
            seeds.append(Seed(name: name, bytes: [0] + SignalRecords.answer(SignalRecords.transactions(records))))
        }
        var tampered = SignalRecords.transactions([add(10), remove(20)])
        tampered[1].timestamp += 1
        seeds.append(Seed(name: "a tampered signal", bytes: [0] + SignalRecords.answer(tampered)))
        let stamp = "\"nodeTimestamp\":\(OwnSignalsNode.nodeTimestamp)"
        for (name, answer) in [
            (
                "node error",
                #"{"success":false,\#(stamp),"error":"Failed to get transactions: Invalid limit. Maximum is 100"}"#
            ),
            ("count as a number", #"{"success":true,\#(stamp),"transactions":[],"count":0}"#),
            ("no count", #"{"success":true,\#(stamp),"transactions":[]}"#),
        ] {
            seeds.append(Seed(name: name, bytes: [0] + Array(answer.utf8)))
        }
        return seeds
    }

    private static func plaintext(_ token: String, _ provider: PushProvider, _ action: PushAction, _ deviceId: String?)
        -> [UInt8]
    {
        guard let signal = try? PushSignal(token: token, provider: provider, action: action, deviceId: deviceId) else {
            fatalError("a seed's signal is valid: \(token)")
        }
        return Array(signal.plaintext.utf8)
    }
}
