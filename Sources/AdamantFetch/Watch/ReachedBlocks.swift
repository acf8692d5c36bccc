import AdamantCore

/// Where a watch's listings read over the last minutes (each a floor: the lowest cursor less
/// the reread margin), by this machine's time: a transaction admitted at some time lands in no
/// block below where they read then, however late its socket brings it.
struct ReachedBlocks {
    private var samples: [(unixMillis: Int64, floor: Int64)] = []
    /// Samples older than this are dropped, but for the newest of them.
    static let kept: Int64 = 600_000

    /// The listings read from `floor` at `unixMillis`.
    mutating func add(_ floor: Int64, at unixMillis: Int64) {
        samples.append((unixMillis, floor))
        // The newest older than the span stays: it answers for everything before the span.
        if let cut = samples.lastIndex(where: { $0.unixMillis < unixMillis.saturatingSubtract(Self.kept) }), cut > 0 {
            samples.removeFirst(cut)
        }
    }

    /// The floor the listings read from at `unixMillis`: the last sample taken by then, or the
    /// first when it is older than all (a socket brings only what was admitted since the
    /// watch began); nil before any.
    func floor(at unixMillis: Int64) -> Int64? {
        samples.last(where: { $0.unixMillis <= unixMillis })?.floor ?? samples.first?.floor
    }
}
