/// The order of a transaction list, by timestamp, for `ChatQuery` and `TransactionQuery`.
public enum ListOrder: Sendable, Hashable {
    /// Ascending or descending timestamps.
    case oldestFirst, newestFirst

    /// The `orderBy` parameter both list endpoints take.
    var orderBy: String { self == .oldestFirst ? "timestamp:asc" : "timestamp:desc" }
}
