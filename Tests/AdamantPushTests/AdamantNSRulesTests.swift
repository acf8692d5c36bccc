import AdamantCore
import Testing

@testable import AdamantPush

/// adamant-ns's rules: a registration per device, a device's signals heard again by polls that
/// read a window of blocks newest first, and removes that delete the device whatever token
/// they name.
enum NS {
    static let device = "0123456789abcdef0123456789abcdef"
    static let other = "fedcba9876543210fedcba9876543210"
    static let oldToken = "old-token-" + String(repeating: "a", count: 20)
    static let newToken = "new-token-" + String(repeating: "b", count: 20)

    static func signal(_ action: PushAction, _ token: String = oldToken, device: String = device) -> PushSignal {
        try! PushSignal(token: token, provider: .fcm, action: action, deviceId: device)
    }

    /// A signal in block `height`, signed at that block's time on a chain of 5 s blocks.
    static func own(_ action: PushAction, at height: Int64, _ token: String = oldToken, device: String = device)
        -> OwnSignal
    {
        OwnSignal(
            id: TransactionID(number: UInt64(height) * 10 + (action == .add ? 1 : 2) + (token == newToken ? 5 : 0)),
            height: height, timestamp: Int32(height * 5), signal: signal(action, token, device: device))
    }

    static func intent(_ id: Int64, _ action: PushAction, _ token: String = oldToken) -> Intent {
        Intent(id: id, sequence: id, signal: signal(action, token), createdAt: signedAt(0))
    }

    /// Unix ms of the signing time of a signal `own` puts in block `height`.
    static func signedAt(_ height: Int64) -> Int64 { AdamantTime.unixMillis(timestamp: height * 5) }
}

@Suite("adamant-ns: the chain fold")
struct NSFoldTests {
    let fold = ChainFold(gap: 3, kind: .ns)

    @Test func signalsAreFoldedByDeviceNotByToken() {
        let states = fold.states(of: [
            NS.own(.add, at: 5), NS.own(.add, at: 20, NS.newToken), NS.own(.add, at: 6, device: NS.other),
        ])
        #expect(Set(states.keys) == [NS.device, NS.other])
        #expect(states[NS.device]?.standing == .registered)
        #expect(states[NS.device]?.last?.signal.token == NS.newToken, "a rotation is the device's newer add")
    }

    @Test(arguments: [
        ([NS.own(.add, at: 5)], TokenState.Standing.registered),
        ([NS.own(.add, at: 5), NS.own(.remove, at: 9)], .unregistered),
        // A poll reading both applies the newer first, so the older one may stand.
        ([NS.own(.remove, at: 5), NS.own(.add, at: 8)], .atRisk),
        ([NS.own(.add, at: 5), NS.own(.remove, at: 8)], .atRisk),
        ([NS.own(.add, at: 5), NS.own(.add, at: 7, NS.newToken)], .atRisk),  // a rotation can lose as well
        ([NS.own(.add, at: 5), NS.own(.add, at: 9, NS.newToken)], .registered),
        // A repeat leaves what the signal before it left, and is judged by the different one.
        ([NS.own(.remove, at: 5), NS.own(.add, at: 7), NS.own(.add, at: 9)], .registered),
        ([NS.own(.remove, at: 5), NS.own(.add, at: 7), NS.own(.add, at: 8)], .atRisk),
    ])
    func theLastSignalDecidesUnlessADifferentOneIsNear(_ signals: [OwnSignal], _ standing: TokenState.Standing) {
        #expect(fold.state(of: signals).standing == standing)
        #expect(fold.states(of: signals.reversed())[NS.device]?.standing == standing, "input order does not matter")
    }

    @Test func devicesDoNotPutEachOtherAtRisk() {
        // The ANS would call this remove at risk: an add of the account is a block away.
        let account = fold.account(of: [
            NS.own(.add, at: 5), NS.own(.remove, at: 9), NS.own(.add, at: 10, device: NS.other),
        ])
        #expect(account[NS.device].standing == .unregistered)
        #expect(account.activity == AccountActivity())
        let ans = ChainFold(gap: 3, kind: .ans).account(of: [
            Build.own(.add, at: 5), Build.own(.remove, at: 9),
            Build.own(.add, at: 10, token: String(repeating: "cd", count: 32)),
        ])
        #expect(ans[Build.token].standing == .atRisk)
    }

    @Test func registeredMeansWithThatToken() {
        let state = fold.state(of: [NS.own(.add, at: 5)])
        #expect(state.isRegistered(as: NS.signal(.add)))
        #expect(!state.isRegistered(as: NS.signal(.add, NS.newToken)))
    }
}

@Suite("adamant-ns: the planner")
struct NSPlannerTests {
    let planner = Planner(kind: .ns)
    func state(_ signals: OwnSignal...) -> TokenState { ChainFold(gap: 3, kind: .ns).state(of: signals) }

    @Test func aRotationIsOneAddNeverARemoveFirst() {
        let chain = state(NS.own(.add, at: 5))
        let steps = planner.plan(
            intents: [NS.intent(1, .add, NS.newToken)], chain: chain, height: 30, now: NS.signedAt(30))
        #expect(steps == [.send(intent: 1, action: .add)])
        // The ANS removes a registration of another provider first; adamant-ns never does.
        let apns = NS.intent(2, .add, String(repeating: "cd", count: 32))
        let over = planner.plan(
            intents: [
                Intent(
                    id: 2, sequence: 2,
                    signal: try! PushSignal(
                        token: apns.signal.token, provider: .apns, action: .add, deviceId: NS.device),
                    createdAt: NS.signedAt(0))
            ],
            chain: chain, height: 30, now: NS.signedAt(30))
        #expect(over == [.send(intent: 2, action: .add)])
    }

    @Test(arguments: [(Int64(6), false), (7, false), (8, true)])
    func aSignalKeepsItsGapInBlocksFromTheDevicesLast(_ height: Int64, _ sends: Bool) {
        let chain = state(NS.own(.add, at: 5))
        // Time is no obstacle here: an hour after.
        let steps = planner.plan(
            intents: [NS.intent(1, .remove)], chain: chain, height: height, now: NS.signedAt(5) + 3_600_000)
        #expect((steps == [.send(intent: 1, action: .remove)]) == sends, "\(steps)")
        if !sends { #expect(steps == [.wait(intent: 1, .height(8))]) }
    }

    @Test func andInTimeWhereBlocksComeFasterThanPolls() {
        let chain = state(NS.own(.add, at: 5))
        let clear = NS.signedAt(5) + planner.policy.replayWindowMillis
        #expect(
            planner.plan(intents: [NS.intent(1, .remove)], chain: chain, height: 100, now: clear - 1) == [
                .wait(intent: 1, .replayWindow(clear))
            ])
        #expect(
            planner.plan(intents: [NS.intent(1, .remove)], chain: chain, height: 100, now: clear) == [
                .send(intent: 1, action: .remove)
            ])
    }

    @Test func anAddAtRiskIsSentOnceMoreClearOfTheRemove() {
        let chain = state(NS.own(.remove, at: 5), NS.own(.add, at: 7))
        #expect(chain.standing == .atRisk)
        let later = NS.signedAt(7) + planner.policy.replayWindowMillis
        #expect(
            planner.plan(intents: [NS.intent(1, .add)], chain: chain, height: 9, now: later) == [
                .wait(intent: 1, .height(10))
            ])
        #expect(
            planner.plan(intents: [NS.intent(1, .add)], chain: chain, height: 10, now: later) == [
                .send(intent: 1, action: .add)
            ])
    }

    @Test func otherDevicesInFlightDoNotHoldASignalBack() {
        let activity = AccountActivity(liveAdds: [TransactionID(number: 77)], liveRemoves: [TransactionID(number: 78)])
        let steps = planner.plan(
            intents: [NS.intent(1, .remove)], chain: state(NS.own(.add, at: 5)), account: activity, height: 20,
            now: NS.signedAt(20))
        #expect(steps == [.send(intent: 1, action: .remove)])
    }
}
