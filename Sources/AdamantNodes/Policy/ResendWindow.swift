import AdamantCore

/// Whether signed bytes that may not have arrived can still go to another node unchanged.
/// Chats and KVS writes are refused by 0.10+ nodes about 5–10 s after their timestamp; the
/// other types have no past window (docs/protocol.md §2.1).
enum ResendWindow {
    /// Time the bytes may spend in transit before the node judges them.
    static let transitAllowanceMillis: Int64 = 1_000

    /// Judged on the clock of the node that would receive them.
    static func isOpen(for transaction: Transaction, nodeClock: NodeClock, localUnixMillis: Int64) -> Bool {
        let (arrival, overflow) = localUnixMillis.addingReportingOverflow(transitAllowanceMillis)
        let nodeNow = nodeClock.nodeEpochMillis(localUnixMillis: overflow ? .max : arrival, safetyMarginMillis: 0)
        let rejection = TimestampPolicy.v0_10.check(
            type: transaction.type, timestamp: Int64(transaction.timestamp), timestampMs: nil, nowEpochMillis: nodeNow)
        return rejection != .tooOld
    }
}
