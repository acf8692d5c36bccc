/// A time from outside (seconds or milliseconds), clamped before any arithmetic to ±2^52: far
/// beyond every clock and timestamp the devnet compares it with, so no answer changes, while
/// `× 1000` or `±` an epoch stays well inside Int64.
enum OutsideTime {
    static let bound: Int64 = 1 << 52

    static func clamped(_ value: Int64) -> Int64 { min(max(value, -bound), bound) }
}
