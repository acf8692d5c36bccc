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

    /// - Throws: z-schema's minimum errors, then `<prefix>Invalid limit. Maximum is <maxLimit>`
    ///   above the endpoint's cap.
    init(_ request: HTTPRequest, maxLimit: Int64, errorPrefix: String) throws(Rejection) {
        let limit = try request.integer("limit", minimum: 1, errorPrefix: errorPrefix) ?? 100
        guard limit <= maxLimit else { throw Rejection(errorPrefix + "Invalid limit. Maximum is \(maxLimit)") }
        self.limit = Int(limit)
        offset = Int(try request.integer("offset", minimum: 0, errorPrefix: errorPrefix) ?? 0)
    }

    func of<Element>(_ elements: [Element]) -> ArraySlice<Element> { elements.dropFirst(offset).prefix(limit) }
}

/// A column value to sort on: numbers as numbers, text as text.
enum SortKey: Comparable {
    case number(Int64)
    case text(String)
}

/// Integer query parameters, rejected with z-schema's texts when they are not integers or are
/// outside the schema's bounds.
extension HTTPRequest {
    func integer(_ name: String, minimum: Int64? = nil, maximum: Int64? = nil, errorPrefix: String = "")
        throws(Rejection) -> Int64?
    {
        guard let text = parameter(name) else { return nil }
        return try Self.integer(text, minimum: minimum, maximum: maximum, errorPrefix: errorPrefix)
    }

    /// A value beyond Int64 is text to the devnet, as any other string that is not a number.
    static func integer(_ text: String, minimum: Int64? = nil, maximum: Int64? = nil, errorPrefix: String = "")
        throws(Rejection) -> Int64
    {
        guard let number = Int64(text) else {
            throw Rejection(errorPrefix + "Expected type integer but found type string")
        }
        if let minimum, number < minimum {
            throw Rejection(errorPrefix + "Value \(number) is less than minimum \(minimum)")
        }
        if let maximum, number > maximum {
            throw Rejection(errorPrefix + "Value \(number) is greater than maximum \(maximum)")
        }
        return number
    }

    func flag(_ name: String) -> Bool? {
        parameter(name).map { $0 == "1" || $0 == "true" }
    }
}
