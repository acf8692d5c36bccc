/// `orderBy=field[:asc|:desc]` as the node's helper reads it: no suffix means descending, any
/// suffix but `desc` ascending. Ties keep chain order.
struct ListOrder {
    let field: String
    let descending: Bool

    /// - Throws: `<prefix>Invalid sort field` for a field outside `fields`.
    init?(_ text: String?, fields: Set<String>, errorPrefix: String) throws(Rejection) {
        guard let text else { return nil }
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard fields.contains(String(parts[0])) else { throw Rejection(errorPrefix + "Invalid sort field") }
        field = String(parts[0])
        descending = parts.count == 1 || parts[1] == "desc"
    }

    /// Sorts by `key`, stable in the given order, reversing the whole for descending so ties
    /// come newest first as well.
    func sorted<Element>(_ elements: [Element], by key: (Element) -> SortKey) -> [Element] {
        let ascending = elements.enumerated()
            .sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }
            .map(\.element)
        return descending ? ascending.reversed() : ascending
    }
}

/// `limit` (default 100) and `offset` as the node's list helpers read them.
struct ListPage {
    let limit: Int, offset: Int

    /// - Throws: `<prefix>Invalid limit. Maximum is <maxLimit>` above the endpoint's cap.
    init(_ request: HTTPRequest, maxLimit: Int64, errorPrefix: String) throws(Rejection) {
        let limit = try request.integer("limit", errorPrefix: errorPrefix) ?? 100
        guard limit <= maxLimit else { throw Rejection(errorPrefix + "Invalid limit. Maximum is \(maxLimit)") }
        self.limit = Int(max(0, limit))
        offset = Int(max(0, try request.integer("offset", errorPrefix: errorPrefix) ?? 0))
    }

    func of<Element>(_ elements: [Element]) -> ArraySlice<Element> { elements.dropFirst(offset).prefix(limit) }
}

/// A column value to sort on: numbers as numbers, text as text.
enum SortKey: Comparable {
    case number(Int64)
    case text(String)
}

/// Integer query parameters, rejected with z-schema's text when they are not integers.
extension HTTPRequest {
    func integer(_ name: String, errorPrefix: String = "") throws(Rejection) -> Int64? {
        guard let text = parameter(name) else { return nil }
        guard let number = Int64(text) else {
            throw Rejection(errorPrefix + "Expected type integer but found type string")
        }
        return number
    }

    func flag(_ name: String) -> Bool? {
        parameter(name).map { $0 == "1" || $0 == "true" }
    }
}
