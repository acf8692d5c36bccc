package import AdamantCore

/// What one node's socket brought over the last window, and what that says of the node, as a
/// pure machine fed each answered poll with the time it came.
///
/// What anyone can send the watched accounts, a transaction to or from one of them that
/// verifies, is never the node's fault: a burst of it (a few hundred messages cost well under
/// 1 ADM) only paces the polls once it passes the window's limit, so the node holds the rest
/// and nothing is lost. One sent again (a node emits an id once a minute at most) is not
/// handed on twice, and paces as the first did. What only a lying or broken node sends ends
/// the session past the same limit, and the node is set aside: answers with nothing for the
/// accounts (a real node holds a poll until it has something, or for its ping interval) and
/// transactions of other accounts. One for the accounts that does not verify ends it at once.
package struct SocketTraffic: Sendable {
    /// What to do before the next poll.
    package enum Verdict: Sendable, Equatable {
        /// Poll at once.
        case go
        /// Poll after `delay`; `news`, when pacing begins, says why.
        case pace(Duration, news: Pacing?)
        /// End the session: the node sent what no honest node sends.
        case abandon(SocketProtocolError)
    }

    /// Why a node's polls are paced: it brought more than `limit` transactions for the watched
    /// accounts in `window`.
    package struct Pacing: Sendable, Hashable, CustomStringConvertible {
        /// Transactions a window takes.
        package let limit: Int
        /// The window.
        package let window: Duration

        /// The reason, in a sentence's end.
        package var description: String {
            "it brought more than \(limit) transactions for the watched accounts in \(window): its polls are paced, and the node holds the rest"
        }
    }

    private struct Answer {
        let at: AnyClock.Instant
        /// Transactions for the accounts that verify, sent before or not.
        let taken: Int
        /// Nothing for the accounts in it; of other accounts.
        let empty: Bool, foreign: Int
        var noise: Int { (empty ? 1 : 0) + foreign }
    }

    private let addresses: Set<Address>
    private let window: Duration
    private let limit: Int
    /// The answers of the last `window`, oldest first.
    private var answers: [Answer] = []
    /// When each id handed on in the last `repeatWindow` came.
    private var seen: [TransactionID: AnyClock.Instant] = [:]
    /// Swept now and then, not every answer: an id kept a little longer is at worst one
    /// repeat more not handed on.
    private var sweptAt: AnyClock.Instant?
    private var pacing = false

    /// A node emits an id at most once in this long.
    static let repeatWindow: Duration = .seconds(60)

    /// Traffic for `addresses`, `limit` transactions taken (or as much noise) per `window`.
    package init(addresses: [Address], window: Duration, limit: Int) {
        self.addresses = Set(addresses)
        self.window = window
        self.limit = limit
    }

    /// Sorts one answer's transactions, and says what its node's traffic now calls for: the
    /// transactions to hand on, each verified, with its id.
    package mutating func answered(
        with transactions: [Transaction], at now: AnyClock.Instant
    ) -> (taken: [(Transaction, TransactionID)], verdict: Verdict) {
        answers.removeAll { $0.at.duration(to: now) >= window }
        if sweptAt.map({ $0.duration(to: now) >= Self.repeatWindow / 2 }) ?? true {
            seen = seen.filter { $0.value.duration(to: now) < Self.repeatWindow }
            sweptAt = now
        }
        var taken: [(Transaction, TransactionID)] = []
        var (foreign, verified) = (0, 0)
        for transaction in transactions {
            guard isForTheAccounts(transaction) else {
                foreign += 1
                continue
            }
            let id: TransactionID
            do { id = try transaction.verify() } catch {
                return (
                    [], .abandon(SocketProtocolError("the socket sent a transaction that does not verify: \(error)"))
                )
            }
            verified += 1
            if seen.updateValue(now, forKey: id) == nil { taken.append((transaction, id)) }
        }
        answers.append(Answer(at: now, taken: verified, empty: verified + foreign == 0, foreign: foreign))
        return (taken, verdict(at: now))
    }

    private func isForTheAccounts(_ transaction: Transaction) -> Bool {
        transaction.recipientId.map(addresses.contains) == true || transaction.senderId.map(addresses.contains) == true
    }

    private mutating func verdict(at now: AnyClock.Instant) -> Verdict {
        let noise = answers.reduce(0) { $0 + $1.noise }
        if noise > limit {
            let parts = [
                (answers.filter(\.empty).count, "answers with nothing for the watched accounts"),
                (answers.reduce(0) { $0 + $1.foreign }, "transactions of other accounts"),
            ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return .abandon(
                SocketProtocolError("the socket sent \(parts.joined(separator: ", ")) in \(window), more than \(limit)")
            )
        }
        let inWindow = answers.reduce(0) { $0 + $1.taken }
        var excess = inWindow - limit
        guard excess > 0 else {
            // Said again only after a window without any, not at each lull of one burst.
            if inWindow == 0 { pacing = false }
            return .go
        }
        // Until enough of the window's oldest answers have left it.
        var until = now
        for answer in answers where excess > 0 {
            excess -= answer.taken
            until = answer.at + window
        }
        let news = pacing ? nil : Pacing(limit: limit, window: window)
        pacing = true
        return .pace(now.duration(to: until), news: news)
    }
}
