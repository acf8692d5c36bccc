import AdamantCore

/// What both list endpoints do once their filters are read: the confirmed transactions this
/// node can see, then, if asked, the unconfirmed pool; sorted, paged, and counted before paging.
struct TransactionListing {
    let order: ListOrder?
    let page: ListPage
    let includeUnconfirmed: Bool

    /// - Parameters:
    ///   - confirmed: which confirmed transactions match; `pooled`, which unconfirmed ones.
    ///   - render: a confirmed transaction as the endpoint writes it (pool entries have one form).
    ///   - sortKey: the value of `order.field` for a transaction.
    func run(
        on ledger: Ledger, profile: NodeProfile, confirmed: (Transaction) -> Bool, pooled: (Transaction) -> Bool,
        render: @escaping (TransactionJSON, Transaction) -> JSONValue, sortKey: (String, Transaction) -> SortKey
    ) -> (transactions: [JSONValue], count: Int) {
        let writer = TransactionJSON(profile: profile, ledger: ledger)
        let visible = profile.visibleHeight(of: ledger)
        var matches: [(transaction: Transaction, json: () -> JSONValue)] = ledger.chain
            .filter { ($0.height ?? .max) <= visible && confirmed($0) }
            .map { transaction in (transaction, { render(writer, transaction) }) }
        if includeUnconfirmed {
            matches += ledger.unconfirmed.filter { pooled($0.transaction) }
                .map { entry in (entry.transaction, { writer.pooled(entry) }) }
        }
        if let order {
            matches = order.sorted(matches) { sortKey(order.field, $0.transaction) }
        }
        return (page.of(matches).map { $0.json() }, matches.count)
    }
}
