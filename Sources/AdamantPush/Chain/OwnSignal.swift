public import AdamantCore

/// One of the account's own registration signals to the service, as the chain holds it, read
/// back by decrypting it as its sender.
public struct OwnSignal: Sendable, Hashable {
    /// The signal transaction's id.
    public let id: TransactionID
    /// The block it is in: only confirmed signals reach the service.
    public let height: Int64
    /// When the account signed it (ADAMANT seconds).
    public let timestamp: Int32
    /// What it asked of the service, decrypted.
    public let signal: PushSignal

    /// A signal as read from the chain.
    public init(id: TransactionID, height: Int64, timestamp: Int32, signal: PushSignal) {
        self.id = id
        self.height = height
        self.timestamp = timestamp
        self.signal = signal
    }

    /// Chain order: by block, then by timestamp, then by id, so a fold is deterministic even
    /// for signals in one block (whose relative order the service ignores anyway).
    static func inChainOrder(_ a: OwnSignal, _ b: OwnSignal) -> Bool {
        (a.height, a.timestamp, a.id.number) < (b.height, b.timestamp, b.id.number)
    }
}
