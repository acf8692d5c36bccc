import AdamantCore
import AdamantStore

/// Paging through one listing of a node, pure. Nodes list by timestamp, not by height, and
/// `fromHeight` is the only height filter, so a scan keeps its starting height and pages on
/// by position until a short page says it is caught up. Only then does it move its height up,
/// keeping a margin of blocks (nodes of a pool may be that far apart), so a node that lags
/// or a block that lands late is read again, never skipped. Reading again costs only
/// verification: what was shown is filtered out by the log.
struct WatchScan: Sendable, Hashable {
    var cursor: WatchCursor
    /// The highest block seen since this process started the scan.
    var highestSeen: Int64?

    init(_ cursor: WatchCursor) { self.cursor = cursor }

    /// The scan after a page of `page` (in the node's order) was asked for with `limit`;
    /// `caughtUp` when the page was short.
    func advanced(past page: [Transaction], limit: Int, rereadBlocks: Int64) -> (scan: WatchScan, caughtUp: Bool) {
        var next = self
        if let top = page.compactMap(\.height).max() { next.highestSeen = max(highestSeen ?? top, top) }
        // Transactions tied with the last one may come in another order next time: they are
        // asked for again rather than risk stepping over one.
        let ties = Self.trailingTies(page)
        guard page.count >= limit else {
            let base = (next.highestSeen ?? cursor.height) - rereadBlocks
            if base > cursor.height {
                next.cursor = WatchCursor(height: base, skip: 0)
            } else {
                next.cursor.skip = cursor.skip + page.count - ties
            }
            return (next, true)
        }
        // A whole page of one tie must still move on.
        next.cursor.skip = cursor.skip + (ties < page.count ? page.count - ties : page.count)
        return (next, false)
    }

    static func trailingTies(_ page: [Transaction]) -> Int {
        guard let last = page.last else { return 0 }
        return page.reversed().prefix { $0.timestamp == last.timestamp && $0.timestampMs == last.timestampMs }.count
    }
}
