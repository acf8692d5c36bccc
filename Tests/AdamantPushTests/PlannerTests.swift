import AdamantCore
import Testing

@testable import AdamantPush

/// Building blocks for outbox tests: signals and intents for one token.
enum Build {
    static let token = String(repeating: "ab", count: 32)

    static func signal(_ action: PushAction, _ provider: PushProvider = .apns, token: String = token) -> PushSignal {
        try! PushSignal(token: token, provider: provider, action: action)
    }

    static func own(
        _ action: PushAction, at height: Int64, _ provider: PushProvider = .apns, id: UInt64? = nil,
        token: String = token
    ) -> OwnSignal {
        OwnSignal(
            id: TransactionID(number: id ?? UInt64(height) * 10 + (action == .add ? 1 : 2)), height: height,
            timestamp: Int32(height * 5), signal: signal(action, provider, token: token))
    }

    static func intent(
        _ id: Int64, _ action: PushAction, _ provider: PushProvider = .apns, state: IntentState = .pending,
        attempts: [Attempt] = [], createdAt: Int64 = 1_000, notBefore: Int64 = 0, mustSend: Bool = false
    ) -> Intent {
        Intent(
            id: id, sequence: id, signal: signal(action, provider), createdAt: createdAt, state: state,
            attempts: attempts,
            notBefore: notBefore, mustSend: mustSend)
    }

    static func attempt(_ id: UInt64, _ action: PushAction, _ outcome: AttemptOutcome) -> Attempt {
        Attempt(
            id: TransactionID(number: id), action: action, node: "http://127.0.0.1:1", timestamp: 0, sentAt: 0,
            sentHeight: 1, outcome: outcome)
    }
}

@Suite("Chain fold")
struct ChainFoldTests {
    let fold = ChainFold(gap: 3)

    @Test func aTokenWithNoSignalWasNeverRegistered() {
        #expect(fold.state(of: []) == .never)
        #expect(fold.states(of: []).isEmpty)
    }

    @Test(arguments: [
        ([Build.own(.add, at: 5)], TokenState.Standing.registered),
        ([Build.own(.add, at: 5), Build.own(.remove, at: 9)], .unregistered),
        ([Build.own(.remove, at: 5), Build.own(.add, at: 8)], .atRisk),  // within 3 blocks
        ([Build.own(.remove, at: 5), Build.own(.add, at: 9)], .registered),  // clear of it
        ([Build.own(.add, at: 5), Build.own(.remove, at: 5)], .atRisk),  // one block, either order
        ([Build.own(.add, at: 5), Build.own(.remove, at: 7)], .atRisk),  // a remove can lose too
        ([Build.own(.add, at: 1), Build.own(.add, at: 2), Build.own(.add, at: 3)], .registered),
    ])
    func theLastSignalDecidesUnlessAnOppositeOneIsNear(_ signals: [OwnSignal], _ standing: TokenState.Standing) {
        #expect(fold.state(of: signals).standing == standing)
        #expect(fold.states(of: signals.reversed())[Build.token]?.standing == standing, "input order does not matter")
    }

    @Test func pagesThatOverlapCountEachSignalOnce() {
        let signals = [Build.own(.remove, at: 5), Build.own(.add, at: 20)]
        let state = fold.states(of: signals + signals + signals)[Build.token]
        #expect(state?.standing == .registered)
        #expect(state?.lastRemoveHeight == 5)
        #expect(state?.lastAddHeight == 20)
    }

    @Test func tokensAreFoldedApart() {
        let other = String(repeating: "cd", count: 32)
        let states = fold.states(of: [Build.own(.add, at: 5), Build.own(.remove, at: 20, token: other)])
        #expect(states[Build.token]?.standing == .registered)
        #expect(states[other]?.standing == .unregistered)
    }

    /// A remove near any add of the account may share a poll whose only adds are duplicates,
    /// which the C# service answers by dropping every remove in it.
    @Test(arguments: [(Int64(17), true), (23, true), (24, false), (16, false)])
    func aRemoveNearAnyAddOfTheAccountIsAtRisk(_ addHeight: Int64, _ atRisk: Bool) {
        let other = String(repeating: "cd", count: 32)
        let account = fold.account(of: [
            Build.own(.add, at: 2), Build.own(.remove, at: 20), Build.own(.add, at: addHeight, token: other),
        ])
        #expect(account[Build.token].standing == (atRisk ? .atRisk : .unregistered))
        #expect(account[other].standing == .registered, "an add is not harmed by another token's remove")
        #expect(account.activity.lastAddHeight == max(2, addHeight) && account.activity.lastRemoveHeight == 20)
    }

    @Test func registeredMeansWithThatProvider() {
        let state = fold.state(of: [Build.own(.add, at: 5, .fcm)])
        #expect(state.isRegistered(with: .fcm))
        #expect(!state.isRegistered(with: .apns))
        #expect(!state.isUnregistered)
    }
}

@Suite("Planner")
struct PlannerTests {
    let planner = Planner()
    func state(_ signals: OwnSignal...) -> TokenState { ChainFold(gap: 3).state(of: signals) }

    @Test func aNewAddIsSent() {
        #expect(
            planner.plan(intents: [Build.intent(1, .add)], chain: .never, height: 10, now: 2_000) == [
                .send(intent: 1, action: .add)
            ])
    }

    @Test func anAddTheChainAlreadyHoldsIsAppliedAndNothingIsSent() {
        let steps = planner.plan(
            intents: [Build.intent(1, .add)], chain: state(Build.own(.add, at: 4)), height: 10, now: 2_000)
        #expect(steps == [.apply(intent: 1, height: 4)])
    }

    @Test func aRemoveOfATokenNeverRegisteredIsAppliedWithNoSignal() {
        #expect(
            planner.plan(intents: [Build.intent(1, .remove)], chain: .never, height: 10, now: 2_000) == [
                .apply(intent: 1, height: nil)
            ])
    }

    /// `repair` after evidence that the service lost what the chain shows (pushes stopped, or
    /// kept coming after a remove): the intent is sent although the chain seems to satisfy it,
    /// and is applied only once its own signal is the token's last.
    @Test(arguments: [PushAction.add, .remove])
    func aMustSendIntentIsSentUntilItsOwnSignalLands(_ action: PushAction) {
        let chain =
            action == .add ? state(Build.own(.add, at: 4)) : state(Build.own(.add, at: 2), Build.own(.remove, at: 4))
        let fresh = Build.intent(1, action, mustSend: true)
        #expect(
            planner.plan(intents: [fresh], chain: chain, height: 10, now: 2_000) == [.send(intent: 1, action: action)])

        let landed = Build.own(action, at: 11, id: 777)
        let sent = Build.intent(
            1, action, state: .inflight, attempts: [Build.attempt(777, action, .confirmed(height: 11))], mustSend: true)
        let after =
            action == .add
            ? state(Build.own(.add, at: 4), landed) : state(Build.own(.add, at: 2), Build.own(.remove, at: 4), landed)
        #expect(planner.plan(intents: [sent], chain: after, height: 12, now: 2_000) == [.apply(intent: 1, height: 11)])
    }

    @Test func anAddOverAnotherProviderRemovesFirst() {
        let steps = planner.plan(
            intents: [Build.intent(1, .add, .fcm)], chain: state(Build.own(.add, at: 4, .apns)), height: 10, now: 2_000)
        #expect(steps == [.send(intent: 1, action: .remove)])
    }

    /// An add waits until the chain is `gap` blocks past the last remove of its token.
    @Test(arguments: [(Int64(11), false), (12, false), (13, true), (40, true)])
    func anAddKeepsItsGapFromTheLastRemove(_ height: Int64, _ sends: Bool) {
        let steps = planner.plan(
            intents: [Build.intent(1, .add)], chain: state(Build.own(.add, at: 2), Build.own(.remove, at: 10)),
            height: height, now: 2_000)
        #expect(steps == [sends ? .send(intent: 1, action: .add) : .wait(intent: 1, .height(13))])
    }

    @Test func anAddAtRiskIsSentOnceMoreAfterTheGap() {
        let risky = state(Build.own(.remove, at: 10), Build.own(.add, at: 12))
        #expect(risky.standing == .atRisk)
        #expect(
            planner.plan(intents: [Build.intent(1, .add)], chain: risky, height: 12, now: 2_000) == [
                .wait(intent: 1, .height(13))
            ])
        #expect(
            planner.plan(intents: [Build.intent(1, .add)], chain: risky, height: 13, now: 2_000) == [
                .send(intent: 1, action: .add)
            ])
    }

    @Test func aRemoveKeepsItsGapFromTheLastAdd() {
        let steps = planner.plan(
            intents: [Build.intent(1, .remove)], chain: state(Build.own(.add, at: 10)), height: 11, now: 2_000)
        #expect(steps == [.wait(intent: 1, .height(13))])
    }

    /// Across tokens: a remove keeps its gap from every add of the account and never flies with
    /// one; an add that may be a duplicate (at risk) keeps away from every remove.
    @Test func oppositeSignalsOfTheAccountKeepApart() {
        let registered = state(Build.own(.add, at: 2))
        let recentAdd = AccountActivity(lastAddHeight: 10)
        #expect(
            planner.plan(
                intents: [Build.intent(1, .remove)], chain: registered, account: recentAdd, height: 12, now: 2_000) == [
                    .wait(intent: 1, .height(13))
                ])
        #expect(
            planner.plan(
                intents: [Build.intent(1, .remove)], chain: registered, account: recentAdd, height: 13, now: 2_000) == [
                    .send(intent: 1, action: .remove)
                ])
        let addInFlight = AccountActivity(lastAddHeight: 2, liveAdds: [TransactionID(number: 9)])
        #expect(
            planner.plan(
                intents: [Build.intent(1, .remove)], chain: registered, account: addInFlight, height: 40, now: 2_000)
                == [.wait(intent: 1, .attemptsInFlight([TransactionID(number: 9)]))])

        let risky = state(Build.own(.remove, at: 10), Build.own(.add, at: 12))
        let removeElsewhere = AccountActivity(lastRemoveHeight: 14, liveRemoves: [])
        #expect(
            planner.plan(
                intents: [Build.intent(1, .add)], chain: risky, account: removeElsewhere, height: 16, now: 2_000) == [
                    .wait(intent: 1, .height(17))
                ])
        let removeInFlight = AccountActivity(liveRemoves: [TransactionID(number: 8)])
        #expect(
            planner.plan(
                intents: [Build.intent(1, .add)], chain: risky, account: removeInFlight, height: 40, now: 2_000)
                == [.wait(intent: 1, .attemptsInFlight([TransactionID(number: 8)]))])
        #expect(
            planner.plan(
                intents: [Build.intent(1, .add)], chain: .never, account: removeInFlight, height: 40, now: 2_000)
                == [.send(intent: 1, action: .add)], "a fresh add goes out: it makes a poll apply its removes")
    }

    /// The seed's race: a remove queued, then an add of the same token. The remove is cancelled
    /// when none of its attempts can land, and waited for when one still can.
    @Test func aStaleRemoveIsCancelledUnlessItMayStillLand() {
        let removeNeverSent = Build.intent(1, .remove)
        #expect(
            planner.plan(
                intents: [removeNeverSent, Build.intent(2, .add)], chain: state(Build.own(.add, at: 3)), height: 10,
                now: 2_000)
                == [.supersede(intent: 1), .apply(intent: 2, height: 3)])

        let removeInAPool = Build.intent(
            1, .remove, state: .inflight, attempts: [Build.attempt(77, .remove, .accepted)])
        #expect(
            planner.plan(
                intents: [removeInAPool, Build.intent(2, .add)], chain: state(Build.own(.add, at: 3)), height: 10,
                now: 2_000)
                == [.wait(intent: 2, .attemptsInFlight([TransactionID(number: 77)]))])

        let removeProvenAbsent = Build.intent(
            1, .remove, state: .inflight, attempts: [Build.attempt(77, .remove, .absent)])
        #expect(
            planner.plan(intents: [removeProvenAbsent, Build.intent(2, .add)], chain: .never, height: 10, now: 2_000)
                == [.supersede(intent: 1), .send(intent: 2, action: .add)])
    }

    @Test(arguments: [AttemptOutcome.recorded, .accepted, .ambiguous])
    func anIntentWhoseAttemptMayLandWaitsForIt(_ outcome: AttemptOutcome) {
        let intent = Build.intent(1, .add, state: .inflight, attempts: [Build.attempt(5, .add, outcome)])
        #expect(
            planner.plan(intents: [intent], chain: .never, height: 10, now: 2_000) == [
                .wait(intent: 1, .attemptsInFlight([TransactionID(number: 5)]))
            ])
    }

    @Test(arguments: [AttemptOutcome.refused("Transaction timestamp is more than 5 seconds in the past"), .absent])
    func anIntentWhoseAttemptsAreDeadIsSentAgain(_ outcome: AttemptOutcome) {
        let intent = Build.intent(1, .add, state: .inflight, attempts: [Build.attempt(5, .add, outcome)])
        #expect(
            planner.plan(intents: [intent], chain: .never, height: 10, now: 2_000) == [.send(intent: 1, action: .add)])
    }

    @Test func aConfirmedAttemptAppliesItsIntent() {
        let intent = Build.intent(1, .add, state: .inflight, attempts: [Build.attempt(5, .add, .confirmed(height: 9))])
        #expect(
            planner.plan(intents: [intent], chain: state(Build.own(.add, at: 9, id: 5)), height: 10, now: 2_000) == [
                .apply(intent: 1, height: 9)
            ])
    }

    @Test func backingOffWaitsAndAnOldIntentFails() {
        let backingOff = Build.intent(1, .add, notBefore: 5_000)
        #expect(
            planner.plan(intents: [backingOff], chain: .never, height: 10, now: 4_999) == [
                .wait(intent: 1, .time(5_000))
            ])
        #expect(
            planner.plan(intents: [backingOff], chain: .never, height: 10, now: 5_000) == [
                .send(intent: 1, action: .add)
            ])
        let week = planner.policy.maxAgeMillis
        let steps = planner.plan(intents: [Build.intent(1, .add)], chain: .never, height: 10, now: 1_000 + week + 1)
        #expect(steps == [.fail(intent: 1, reason: "not applied within 7 days: every try failed")])
    }

    /// A remove of this home's that lands after the add was applied (its intent was superseded
    /// when the remove seemed lost): the add is reopened and sent again.
    @Test func aLateLandingOfThisHomesSignalReopensTheAppliedIntent() {
        let staleRemove = Build.intent(1, .remove, state: .superseded, attempts: [Build.attempt(302, .remove, .absent)])
        let applied = Build.intent(2, .add, state: .applied(height: 20), createdAt: 0)
        let late = state(Build.own(.add, at: 20), Build.own(.remove, at: 30, id: 302))
        let tenDaysLater = planner.policy.maxAgeMillis + 3 * 86_400_000
        #expect(
            planner.plan(intents: [staleRemove, applied], chain: late, height: 40, now: tenDaysLater) == [
                .reopen(intent: 2), .send(intent: 2, action: .add),
            ])
        #expect(
            planner.plan(
                intents: [staleRemove, applied], chain: state(Build.own(.add, at: 20)), height: 40, now: tenDaysLater)
                == [])
    }

    /// A signal this home never signed, after its intent was applied, is another client's newer
    /// word (`unregister --all` from another home, an app with the passphrase): the intent is
    /// settled as overridden by it and nothing is sent, whatever it did to the token.
    @Test(arguments: [
        (PushAction.add, Build.own(.remove, at: 30, id: 999)),
        (.add, Build.own(.add, at: 30, .fcm, id: 999)),  // registered elsewhere with another provider
        (.remove, Build.own(.add, at: 30, id: 999)),
    ])
    func anotherClientsNewerSignalOverridesTheAppliedIntent(_ action: PushAction, _ foreign: OwnSignal) {
        let sent = Build.own(action, at: 20, id: 555)
        let applied = Build.intent(
            2, action, state: .applied(height: 20), attempts: [Build.attempt(555, action, .confirmed(height: 20))])
        let chain = action == .add ? state(sent, foreign) : state(Build.own(.add, at: 10), sent, foreign)
        #expect(
            planner.plan(intents: [applied], chain: chain, height: 40, now: 2_000) == [.cede(intent: 2, to: foreign)])
        // Settled: later passes leave it, and an explicit new intent starts over.
        let overridden = Build.intent(2, action, state: .overridden(by: foreign), attempts: applied.attempts)
        #expect(planner.plan(intents: [overridden], chain: chain, height: 40, now: 2_000) == [])
        let again = Build.intent(3, action)
        #expect(
            planner.plan(intents: [overridden, again], chain: chain, height: 40, now: 2_000).last
                == .send(intent: 3, action: action == .add ? (foreign.signal.action == .add ? .remove : .add) : .remove)
        )
    }

    /// Applied with nothing to send (the chain already held it), then changed by a signal this
    /// home never sent: overridden too.
    @Test func anIntentAppliedWithNothingSentIsOverriddenAlike() {
        let applied = Build.intent(1, .remove, state: .applied(height: nil))
        let foreign = Build.own(.add, at: 30, id: 999)
        #expect(
            planner.plan(intents: [applied], chain: state(foreign), height: 40, now: 2_000) == [
                .cede(intent: 1, to: foreign)
            ])
    }

    /// Not yet applied, an intent is this home's user's word and is still sent over another
    /// client's signal.
    @Test func aPendingIntentIsSentOverAnotherClientsSignal() {
        let chain = state(Build.own(.add, at: 10, id: 5), Build.own(.remove, at: 20, id: 999))
        #expect(
            planner.plan(intents: [Build.intent(1, .add)], chain: chain, height: 40, now: 2_000) == [
                .send(intent: 1, action: .add)
            ])
    }

    /// The newest intent decides even when it is settled: an older one still open is never sent.
    @Test func aSettledNewestIntentLeavesNothingOlderToSend() {
        let intents = [Build.intent(1, .add), Build.intent(2, .remove, state: .failed("no"))]
        #expect(planner.plan(intents: intents, chain: .never, height: 10, now: 2_000) == [.supersede(intent: 1)])
    }

    @Test func settledIntentsAreLeftAlone() {
        let intents = [Build.intent(1, .add, state: .superseded), Build.intent(2, .remove, state: .failed("no"))]
        #expect(planner.plan(intents: intents, chain: .never, height: 10, now: 2_000) == [])
    }

    @Test func theBackoffDoublesUpToItsCapAndNeverOverflows() {
        let policy = Planner.Policy()
        #expect(policy.backoff(retries: 0) == 2_000)
        #expect(policy.backoff(retries: 3) == 16_000)
        #expect(policy.backoff(retries: 20) == policy.backoffCapMillis)
        #expect(policy.backoff(retries: .max) == policy.backoffCapMillis)
        #expect(policy.backoff(retries: -5) == 2_000)
    }
}
