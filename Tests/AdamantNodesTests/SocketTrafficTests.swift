import AdamantCore
import Testing

@testable import AdamantNodes

/// What a socket's traffic says of its node: a burst for the watched accounts paces the polls,
/// what no honest node sends ends the session, each past the window's limit.
@Suite struct SocketTrafficTests {
    static let limit = 20
    static let window: Duration = .seconds(10)

    static func at(_ millis: Int) -> AnyClock.Instant { AnyClock.Instant(offset: .milliseconds(millis)) }

    /// Distinct signed chats to the recipient (by timestamp), or from it with `outgoing`.
    static func chats(_ count: Int, from first: Int = 0, outgoing: Bool = false) -> [Transaction] {
        (first..<first + count).map { index in
            let asset = ChatAsset(
                message: [UInt8](repeating: 7, count: 20), nonce: [UInt8](repeating: 1, count: 24), type: .message)
            let (from, to) = outgoing ? (Fixtures.recipient, Fixtures.sender) : (Fixtures.sender, Fixtures.recipient)
            return try! Transaction.chat(asset, to: to.address, timestamp: Int32(1_000 + index), signedBy: from)
        }
    }

    static func traffic() -> SocketTraffic {
        SocketTraffic(addresses: [Fixtures.recipient.address], window: window, limit: limit)
    }

    @Test func aBurstForTheAccountsIsTakenWholeAndOnlyPacesThePolls() {
        var traffic = Self.traffic()
        var verdicts: [SocketTraffic.Verdict] = []
        var taken = 0
        // Five answers of ten in one second, incoming and outgoing: 50, over a limit of 20.
        for answer in 0..<5 {
            let (handed, verdict) = traffic.answered(
                with: Self.chats(10, from: answer * 10, outgoing: answer == 4), at: Self.at(answer * 200))
            taken += handed.count
            verdicts.append(verdict)
        }
        #expect(taken == 50, "every one handed on, the account's own replies too")
        #expect(verdicts[0] == .go && verdicts[1] == .go)
        guard case .pace(let first, let news?) = verdicts[2] else {
            Issue.record("\(verdicts)")
            return
        }
        #expect(news.limit == 20 && news.description.contains("more than 20 transactions for the watched accounts"))
        // 30 taken at 0.0, 0.2, 0.4: the answer at 0.0 leaving the window (at 10.0) is enough.
        #expect(first == .milliseconds(9_600))
        guard case .pace(let last, nil) = verdicts[4] else {
            Issue.record("said once: \(verdicts)")
            return
        }
        // 50: the three oldest answers must leave, the last of them at 10.4.
        #expect(last == .milliseconds(9_600))
        // Once the window has room again, polls go at once.
        #expect(traffic.answered(with: [], at: Self.at(10_900)).verdict == .go)
    }

    @Test func answersWithNothingForTheAccountsEndTheSessionPastTheLimit() {
        var traffic = Self.traffic()
        for index in 0..<Self.limit { #expect(traffic.answered(with: [], at: Self.at(index * 10)).verdict == .go) }
        let verdict = traffic.answered(with: [], at: Self.at(500)).verdict
        #expect(
            verdict
                == .abandon(
                    SocketProtocolError(
                        "the socket sent 21 answers with nothing for the watched accounts in 10.0 seconds, more than 20"
                    )))
    }

    @Test func otherAccountsTransactionsAreCountedAndRepeatsNotHandedOn() {
        var traffic = Self.traffic()
        let foreign = (0..<5).map { index in
            try! Transaction.transfer(
                amount: 1, to: Fixtures.sender.address, timestamp: Int32(index + 1),
                signedBy: KeyPair(passphrase: Passphrase(unvalidated: "other \(index)")))
        }
        let mine = Self.chats(3)
        let (first, ok) = traffic.answered(with: foreign + mine, at: Self.at(0))
        #expect(first.map(\.1) == mine.map { try! $0.verify() } && ok == .go)
        var verdict = SocketTraffic.Verdict.go
        for second in 1...3 {
            let (handed, said) = traffic.answered(with: mine + foreign, at: Self.at(second * 1_000))
            #expect(handed.isEmpty, "sent again: not handed on twice")
            verdict = said
        }
        // 5 × 4 = 20 of other accounts: at the limit, not past it.
        #expect(verdict == .go)
        let (_, past) = traffic.answered(with: [foreign[0]], at: Self.at(4_000))
        #expect(
            past
                == .abandon(
                    SocketProtocolError(
                        "the socket sent 21 transactions of other accounts in 10.0 seconds, more than 20")))
    }

    /// One transaction over and over is handed on once; the repeats pace the polls as the
    /// first did, and never end the session.
    @Test func repeatsPaceAndNeverEndTheSession() {
        var traffic = Self.traffic()
        let one = Self.chats(1)
        var (handed, paced) = (0, false)
        for index in 0..<100 {
            let (taken, verdict) = traffic.answered(with: one + one, at: Self.at(index * 10))
            handed += taken.count
            if case .abandon = verdict { Issue.record("ended at \(index)") }
            if case .pace = verdict { paced = true }
        }
        #expect(handed == 1 && paced)
    }

    @Test func oneForTheAccountsThatDoesNotVerifyEndsTheSessionAtOnce() {
        var traffic = Self.traffic()
        let (handed, verdict) = traffic.answered(
            with: Self.chats(2) + [Fixtures.tampered(Fixtures.chat())], at: Self.at(0))
        #expect(handed.isEmpty)
        guard case .abandon(let why) = verdict else {
            Issue.record("\(verdict)")
            return
        }
        #expect(why.reason.hasPrefix("the socket sent a transaction that does not verify"))
    }

    /// The window slides: noise spread thinner than the limit per window never ends a session.
    @Test func noiseBelowTheRateLastsForever() {
        var traffic = Self.traffic()
        for index in 0..<200 { #expect(traffic.answered(with: [], at: Self.at(index * 600)).verdict == .go) }
    }
}
