import AdamantCore

/// A push signal's plaintext as each notification service reads it. A signal read back from its
/// own canonical plaintext must be the same signal, in the grammar it was read in; what
/// adamant-ns takes must be a signal it can be sent again (a device id, no sandbox).
enum SignalFuzz {
    static func run(_ data: [UInt8]) {
        let text = String(decoding: data, as: UTF8.self)
        for kind in ServiceKind.allCases {
            guard let signal = try? kind.signal(plaintext: text) else { continue }
            let canonical = kind.plaintext(signal)
            invariant(
                (try? kind.signal(plaintext: canonical)) == signal,
                "a \(kind) signal does not survive its own plaintext: \(canonical)")
            if kind == .ns {
                invariant(
                    (try? NotificationService.adamantNS.check(signal)) != nil,
                    "adamant-ns read a signal it could not be sent: \(canonical)")
            }
        }
    }
}
