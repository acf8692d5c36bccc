import AdamantCore

/// A push signal's plaintext as a notification service reads it. A signal read back from its
/// own canonical plaintext must be the same signal.
enum SignalFuzz {
    static func run(_ data: [UInt8]) {
        guard let signal = try? PushSignal(plaintext: String(decoding: data, as: UTF8.self)) else { return }
        let canonical = signal.plaintext
        invariant(
            (try? PushSignal(plaintext: canonical)) == signal,
            "a signal does not survive its own plaintext: \(canonical)")
    }
}
