/// ADAMANT time: whole seconds since 2017-09-02 17:00:00 UTC (docs/protocol.md §2).
public enum AdamantTime {
    /// The epoch, 2017-09-02T17:00:00Z, in Unix milliseconds.
    public static let epochUnixMillis: Int64 = 1_504_371_600_000
    /// The length of a forging slot: a block every 5 seconds at most.
    public static let slotSeconds: Int64 = 5

    /// The timestamps a node can report or a transaction can carry: the node's schema makes them
    /// int32 seconds, and the chain starts at the epoch.
    public static let timestampRange: ClosedRange<Int64> = 0...Int64(Int32.max)
    /// The same range in milliseconds (`nodeTimestampMs`, `timestampMs`).
    public static let millisRange: ClosedRange<Int64> = 0...(Int64(Int32.max) * 1000 + 999)

    /// Milliseconds since the ADAMANT epoch. Saturates instead of trapping for a clock no
    /// device has (within ±292 million years of 1970).
    public static func epochMillis(unixMillis: Int64) -> Int64 { unixMillis.saturatingSubtract(epochUnixMillis) }

    /// The transaction timestamp for a Unix time: floor((unixMillis − epoch) / 1000).
    public static func timestamp(unixMillis: Int64) -> Int64 { floorDivide(epochMillis(unixMillis: unixMillis), 1000) }

    /// The Unix time of a transaction timestamp, saturating for any integer.
    public static func unixMillis(timestamp: Int64) -> Int64 {
        let millis = timestamp.saturatingMultiply(1000)
        let (sum, overflow) = millis.addingReportingOverflow(epochUnixMillis)
        return overflow ? (millis > 0 ? .max : .min) : sum
    }

    /// The 5-second forging slot of a timestamp.
    public static func slot(_ timestamp: Int64) -> Int64 { floorDivide(timestamp, slotSeconds) }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}

/// A node's clock as seen from here: `delta = local − node`, in milliseconds. Transactions are
/// stamped with the node's time, so a device clock minutes off is still accepted
/// (docs/protocol.md §2.2).
public struct NodeClock: Sendable, Hashable {
    /// This device's clock minus the node's, in milliseconds.
    public var deltaMillis: Int64

    /// A node clock this far from the device's (zero: the same).
    public init(deltaMillis: Int64 = 0) { self.deltaMillis = deltaMillis }

    /// From a node reply received at `localUnixMillis`. `nodeTimestampMs` (0.10+) is preferred;
    /// the whole-second `nodeTimestamp` is up to a second behind, which only makes us earlier.
    ///
    /// nil for a clock no node can have: a timestamp outside int32 seconds since the epoch, or
    /// milliseconds that disagree with the seconds by more than a second.
    public init?(localUnixMillis: Int64, nodeTimestampMs: Int64?, nodeTimestamp: Int64) {
        guard AdamantTime.timestampRange.contains(nodeTimestamp) else { return nil }
        let nodeEpochMillis: Int64
        if let nodeTimestampMs {
            guard AdamantTime.millisRange.contains(nodeTimestampMs),
                abs(AdamantTime.floorDivide(nodeTimestampMs, 1000) - nodeTimestamp) <= 1
            else { return nil }
            nodeEpochMillis = nodeTimestampMs
        } else {
            nodeEpochMillis = nodeTimestamp * 1000  // cannot overflow: int32 seconds
        }
        deltaMillis = AdamantTime.epochMillis(unixMillis: localUnixMillis).saturatingSubtract(nodeEpochMillis)
    }

    /// The node's epoch milliseconds now, less a safety margin so a stamp is never in its future.
    public func nodeEpochMillis(localUnixMillis: Int64, safetyMarginMillis: Int64 = 250) -> Int64 {
        AdamantTime.epochMillis(unixMillis: localUnixMillis).saturatingSubtract(deltaMillis).saturatingSubtract(
            safetyMarginMillis)
    }

    /// `(timestamp, timestampMs)` for a transaction signed now for this node.
    public func stamp(localUnixMillis: Int64, safetyMarginMillis: Int64 = 250) -> (timestamp: Int32, timestampMs: Int64)
    {
        let millis = nodeEpochMillis(localUnixMillis: localUnixMillis, safetyMarginMillis: safetyMarginMillis)
        return (Int32(clamping: AdamantTime.floorDivide(millis, 1000)), millis)
    }
}

/// What a node accepts at submission time, by version (docs/protocol.md §2.1).
public enum TimestampPolicy: Sendable, Hashable {
    /// ≤ 0.9: any later slot is in the future; no past limit.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case v0_9
    /// 0.10+: later slot and more than 500 ms ahead is future; chats and KVS may be at most
    /// about 5–10 s old.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case v0_10

    /// Why a node refuses a timestamp.
    public enum Rejection: Sendable, Hashable {
        /// `inFuture`: ahead of the node's clock. `tooOld`: too far behind it (0.10 nodes, chats
        /// and KVS values).
        case inFuture, tooOld

        /// The node's error text for this rejection under `policy`.
        public func message(under policy: TimestampPolicy) -> String {
            switch (self, policy) {
            case (.inFuture, .v0_9): "Invalid transaction timestamp. Timestamp is in the future"
            case (.inFuture, .v0_10): "Transaction timestamp is in the future"
            case (.tooOld, _): "Transaction timestamp is more than 5 seconds in the past"
            }
        }
    }

    /// nil when accepted. `nowEpochMillis` is the node's clock. Defined for every input: a
    /// submitted body can carry any integer, and the arithmetic saturates rather than traps.
    public func check(type: TransactionType, timestamp: Int64, timestampMs: Int64?, nowEpochMillis: Int64) -> Rejection?
    {
        let now = AdamantTime.floorDivide(nowEpochMillis, 1000)
        let laterSlot = AdamantTime.slot(timestamp) > AdamantTime.slot(now)
        switch self {
        case .v0_9:
            return laterSlot ? .inFuture : nil
        case .v0_10:
            let stampMillis = timestampMs ?? timestamp.saturatingMultiply(1000)
            if laterSlot && stampMillis.saturatingSubtract(nowEpochMillis) > 500 { return .inFuture }
            let windowed = type == .chat || type == .state
            if windowed && AdamantTime.slot(timestamp) < AdamantTime.slot(now.saturatingSubtract(5)) { return .tooOld }
            return nil
        }
    }
}

extension Int64 {
    /// `self − other`, clamped to the representable range instead of trapping.
    package func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    /// `self + other`, clamped to the representable range instead of trapping.
    package func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self × other`, clamped to the representable range instead of trapping.
    func saturatingMultiply(_ other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, clamped to `Int64` (a configured duration may be huge).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (millis, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, tooLarge) = millis.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return tooLarge ? .max : total
    }
}
