public import AdamantCore
public import AdamantNodes
public import AdamantStore

/// A sign, from local records and the user's nodes alone, that the push service does not hold
/// what the chain says it should. Nothing else tells a user that pushes stopped.
public enum PushEvidence: Sendable, Hashable, CustomStringConvertible {
    /// The chain says a token is registered, but incoming transactions older than the grace
    /// period came without a push since the last one that did.
    case pushesMissing(count: Int, sinceUnixMillis: Int64, tokens: Set<String>)
    /// Every token's last signal is a remove, yet pushes kept arriving after it: the service
    /// never applied the remove (the C# ANS drops a poll's removes when its adds are all
    /// duplicates).
    case pushesAfterRemove(count: Int, tokens: Set<String>)

    /// What `repair` sends again.
    public var tokensToResend: Set<String> {
        switch self {
        case .pushesMissing(_, _, let tokens), .pushesAfterRemove(_, let tokens): tokens
        }
    }

    /// What the user should know, and the command that fixes it.
    public var description: String {
        switch self {
        case .pushesMissing(let count, let since, _):
            "pushes are probably not arriving: \(count) transaction\(count == 1 ? "" : "s") since \(Self.time(since)) came without a push; run 'adm-push repair'"
        case .pushesAfterRemove(let count, _):
            "pushes still arrive (\(count) since the last remove landed) though no token is registered on chain: the service never applied the remove; run 'adm-push repair'"
        }
    }

    /// `HH:MM` UTC: the log's times are wall-clock milliseconds.
    static func time(_ unixMillis: Int64) -> String {
        let minutes = (unixMillis / 60_000) % (24 * 60)
        let (hour, minute) = (minutes / 60, minutes % 60)
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute) UTC"
    }
}

/// Compares what the chain says the service holds with the pushes this home received.
public struct PushEvidenceCheck: Sendable {
    /// A transaction younger than this may still be on its way as a push.
    public var grace: Duration = .seconds(600)
    /// The account whose pushes are judged.
    public let account: Address
    /// The home's record of what was shown, and which of it came by push.
    public let log: NotificationLog
    /// Lists the account's incoming transactions, to set against the pushes.
    public let client: NodeClient
    /// Dates the grace period.
    public let wallClock: any WallClock

    /// A check of `account`'s pushes in `log` against the chain as `client` reads it.
    public init(
        account: Address, log: NotificationLog, client: NodeClient, wallClock: any WallClock
    ) {
        self.account = account
        self.log = log
        self.client = client
        self.wallClock = wallClock
    }

    /// Nil when there is nothing to say, and always when no push ever reached this home (then
    /// this home is not where pushes are received, and silence proves nothing).
    public func assess(_ tokens: [String: TokenState]) async throws -> PushEvidence? {
        let pushes = try await log.pushes(to: account)
        guard let lastPush = pushes.last else { return nil }
        let now = wallClock.unixMillis()
        let graceMillis = grace / .milliseconds(1)
        let registered = tokens.filter { $0.value.standing == .registered }
        if !registered.isEmpty {
            let since = max(lastPush.height ?? 0, registered.values.compactMap(\.lastAddHeight).max() ?? 0)
            let missing = try await unpushedIncoming(
                afterHeight: since, before: now - Int64(graceMillis), pushed: Set(pushes.map(\.id)))
            guard missing > 0 else { return nil }
            return .pushesMissing(count: missing, sinceUnixMillis: lastPush.shownAt, tokens: Set(registered.keys))
        }
        let removed = tokens.filter { $0.value.standing == .unregistered }
        guard
            let lastRemove = removed.values.compactMap({
                $0.last.map { AdamantTime.unixMillis(timestamp: Int64($0.timestamp)) }
            }).max()
        else {
            return nil
        }
        let after = pushes.filter { $0.shownAt > lastRemove + Int64(graceMillis) }.count
        return after > 0 ? .pushesAfterRemove(count: after, tokens: Set(removed.keys)) : nil
    }

    /// Incoming transactions (messages and transfers, not signals) above `afterHeight`, sent
    /// before `before` (Unix ms), that no push brought. One page: enough to say so.
    private func unpushedIncoming(afterHeight: Int64, before: Int64, pushed: Set<TransactionID>) async throws -> Int {
        let query = ChatQuery(
            party: .recipient(account), afterHeight: afterHeight >= 1 ? afterHeight : nil, limit: 100,
            order: .oldestFirst,
            includeDirectTransfers: true)
        var count = 0
        for transaction in try await client.chats(query).transactions {
            guard transaction.recipientId == account, transaction.senderPublicKey.address != account,
                transaction.chat?.type != .signal, let id = transaction.id,
                AdamantTime.unixMillis(timestamp: Int64(transaction.timestamp)) < before
            else { continue }
            if !pushed.contains(id) { count += 1 }
        }
        return count
    }
}
