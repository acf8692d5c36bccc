import AdamantCore
import Foundation
import Testing

@testable import AdamantPush

/// One random history: what the user does, what the network does to each send, blocks,
/// strangers' registrations, crashes.
struct Schedule {
    enum Event {
        case user(UserAction, SendConditions, crash: CrashPoint?)
        case run(SendConditions, crash: CrashPoint?, coldLaunch: Bool)
        case forge
        case strangerRegisters
    }

    let seed: UInt64
    let mode: ANSModeModel
    let version010: Bool
    let events: [Event]

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        self.seed = seed
        mode = random.chance(0.5) ? .csharp : .ordered
        version010 = random.chance(0.7)
        func conditions() -> SendConditions {
            SendConditions(
                offline: random.chance(0.15), answerLost: random.chance(0.15), dropped: random.chance(0.08),
                delay: random.chance(0.1)
                    ? Int64.random(in: 5...20, using: &random) : Int64.random(in: 1...3, using: &random),
                staleLookups: random.chance(0.2))
        }
        func crash() -> CrashPoint? { random.chance(0.06) ? CrashPoint.allCases.randomElement(using: &random) : nil }
        var events: [Event] = []
        for _ in 0..<Int.random(in: 10...60, using: &random) {
            switch Double.random(in: 0..<1, using: &random) {
            case ..<0.18:
                let roll = Double.random(in: 0..<1, using: &random)
                let action: UserAction =
                    roll < 0.5 ? .login(Self.token("t1")) : roll < 0.65 ? .login(Self.token("t2")) : .logout
                events.append(.user(action, conditions(), crash: crash()))
            case ..<0.5: events.append(.run(conditions(), crash: crash(), coldLaunch: random.chance(0.3)))
            case ..<0.92: events.append(.forge)
            default: events.append(.strangerRegisters)
            }
        }
        self.events = events
    }

    /// What the service must end with for the user: the last login's token, or nothing.
    var expected: [String: Set<PushProvider>] {
        for case .user(let action, _, _) in events.reversed() {
            if case .login(let token) = action { return [token: [.apns]] }
            return [:]
        }
        return [:]
    }

    static func token(_ name: String) -> String { String(repeating: name == "t1" ? "a1" : "b2", count: 32) }
}

/// Runs a schedule through this project's algorithm and through the iOS app's, then lets the
/// network go quiet and reads what the service holds for the user.
struct ScheduleRun {
    let ours: [String: Set<PushProvider>]
    let iOS: [String: Set<PushProvider>]
    let doubleLandings: Int
    /// Our signals on chain, in order: (height, token prefix, action), for replaying a failure.
    let ourSignals: [(Int64, String, PushAction)]

    init(_ schedule: Schedule) {
        let me = 1
        var ourNetwork = SimulatedNetwork(mode: schedule.mode, pollEvery: 2)
        var theirNetwork = ourNetwork
        var outbox = ModelOutbox(me: me)
        var app = ModelIOSApp(me: me, version010: schedule.version010)
        var strangers = 100
        var clock: Int64 = 0
        func now(_ network: SimulatedNetwork) -> Int64 { network.height * 5_000 + clock }

        func stranger(_ network: inout SimulatedNetwork, _ id: Int) {
            let token = String(repeating: String(format: "%02x", id % 256), count: 32)
            network.accept(
                SimSignal(id: network.newID(), sender: id, token: token, provider: .apns, action: .add), delay: 1)
        }

        for event in schedule.events {
            clock += 1
            switch event {
            case .user(let action, let conditions, let crash):
                outbox.user(action, now: now(ourNetwork))
                outbox.run(on: &ourNetwork, conditions, crash: crash, now: now(ourNetwork))  // register flushes at once
                app.user(action, on: &theirNetwork, conditions, crash: crash, now: now(theirNetwork))
            case .run(let conditions, let crash, let coldLaunch):
                outbox.run(on: &ourNetwork, conditions, crash: crash, now: now(ourNetwork))
                if coldLaunch { app.coldLaunch(on: &theirNetwork, conditions, now: now(theirNetwork)) }
            case .forge:
                ourNetwork.forge()
                theirNetwork.forge()
            case .strangerRegisters:
                strangers += 1
                stranger(&ourNetwork, strangers)
                stranger(&theirNetwork, strangers)
            }
        }
        // Quiet: every node answers, time passes, both clients keep running.
        for round in 0..<80 {
            if !outbox.isIdle(on: ourNetwork) {
                outbox.run(on: &ourNetwork, SendConditions(), crash: nil, now: now(ourNetwork))
            }
            if round % 5 == 0 { app.coldLaunch(on: &theirNetwork, SendConditions(), now: now(theirNetwork)) }
            ourNetwork.forge()
            theirNetwork.forge()
        }
        ours = ourNetwork.registrations(of: me)
        ourSignals = ourNetwork.signals(from: me).sorted { $0.height < $1.height }.map {
            ($0.height, String($0.signal.token.prefix(2)), $0.signal.action)
        }
        iOS = theirNetwork.registrations(of: me)
        doubleLandings =
            outbox.intents.filter { intent in
                intent.attempts.filter { ourNetwork.blockHeight(of: $0.id.number) != nil }.count > 1
            }.count
    }
}

@Suite("Simulation")
struct SimulationTests {
    static let schedules = 10_000

    /// Every random schedule ends with the service holding the user's last intent; the iOS
    /// app's algorithm, run through the same schedules, is the baseline.
    @Test func everyScheduleEndsAtTheLastIntent() async {
        // Seconds of CPU: on a thread of its own, so the cooperative pool (two threads here)
        // keeps serving the suites that run alongside.
        let (ourFailures, iOSFailures, doubleLandings) = await onOwnThread { () -> ([UInt64], Int, Int) in
            var ourFailures: [UInt64] = []
            var iOSFailures = 0
            var doubleLandings = 0
            for seed in 1...UInt64(Self.schedules) {
                let schedule = Schedule(seed: seed)
                let run = ScheduleRun(schedule)
                if run.ours != schedule.expected { ourFailures.append(seed) }
                if run.iOS != schedule.expected { iOSFailures += 1 }
                doubleLandings += run.doubleLandings
            }
            return (ourFailures, iOSFailures, doubleLandings)
        }
        print(
            "simulation: \(Self.schedules) schedules; adm-push wrong \(ourFailures.count), iOS algorithm wrong \(iOSFailures) (\(String(format: "%.1f", Double(iOSFailures) * 100 / Double(Self.schedules)))%); intents landed twice: \(doubleLandings)"
        )
        #expect(ourFailures.isEmpty, "first failing seeds: \(ourFailures.prefix(10))")
        #expect(iOSFailures > 0, "the baseline model must meet the races it is known to lose")
    }

    /// Two homes of one account: the first runs a random schedule and settles; then the second
    /// says a newer word (`unregister --all`, or a login with a token) through random faults
    /// while the first keeps running; then, half the time, the first's user logs in or out
    /// again. The service ends at the words in the order they were said: the first home never
    /// sends its old registration again over the second's newer signal, and never fights it.
    @Test func twoHomesOfOneAccountEndAtTheLastWordOfEither() async {
        let failures = await onOwnThread { () -> [UInt64] in
            (1...UInt64(Self.schedules / 5)).filter { seed in !TwoHomesRun(seed: seed).endsAtTheLastWord }
        }
        let wrong = failures.count
        #expect(wrong == 0, "first failing seeds: \(failures.prefix(10))")
    }

    /// The seed's race, spelled out: logout while the answer is lost (the node took the remove),
    /// log in again, the remove lands later. The iOS algorithm ends unregistered; this one heals.
    @Test func theSeedsRaceBreaksTheIOSAlgorithmOnly() {
        var network = SimulatedNetwork(mode: .csharp, pollEvery: 2)
        var app = ModelIOSApp(me: 1, version010: false)
        var outbox = ModelOutbox(me: 1)
        var ours = network
        let token = Schedule.token("t1")
        app.user(.login(token), on: &network, SendConditions(), crash: nil, now: 0)
        outbox.user(.login(token), now: 0)
        outbox.run(on: &ours, SendConditions(), crash: nil, now: 0)
        for _ in 0..<4 {
            network.forge()
            ours.forge()
        }
        let late = SendConditions(answerLost: true, delay: 8)
        app.user(.logout, on: &network, late, crash: nil, now: 20_000)
        outbox.user(.logout, now: 20_000)
        outbox.run(on: &ours, late, crash: nil, now: 20_000)
        app.user(.login(token), on: &network, SendConditions(), crash: nil, now: 21_000)
        outbox.user(.login(token), now: 21_000)
        for round in 0..<40 {
            outbox.run(on: &ours, SendConditions(), crash: nil, now: 25_000 + Int64(round) * 5_000)
            network.forge()
            ours.forge()
        }
        #expect(network.registrations(of: 1).isEmpty, "iOS: the late remove deleted the live registration")
        #expect(ours.registrations(of: 1) == [token: [.apns]])
    }
}

/// Runs CPU-bound `body` on a new thread and waits for it without holding a cooperative thread.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// One history of two homes of one account (see `twoHomesOfOneAccountEndAtTheLastWordOfEither`).
struct TwoHomesRun {
    let expected: Set<String>
    let held: Set<String>
    /// Signals our two homes sent after the last word was said and everything went quiet.
    let sentWhenQuiet: Int

    var endsAtTheLastWord: Bool { held == expected && sentWhenQuiet == 0 }

    init(seed: UInt64) {
        let schedule = Schedule(seed: seed)
        var random = SeededGenerator(seed: seed &* 31)
        var network = SimulatedNetwork(mode: schedule.mode, pollEvery: 2)
        var first = ModelOutbox(me: 1)
        var second = ModelOutbox(me: 1)
        var clock: Int64 = 0
        func now() -> Int64 { network.height * 5_000 + clock }
        func faults() -> SendConditions {
            SendConditions(
                offline: random.chance(0.2), answerLost: random.chance(0.2), dropped: random.chance(0.1),
                delay: Int64.random(in: 1...6, using: &random), staleLookups: random.chance(0.2))
        }
        func quiet(_ rounds: Int) {
            for _ in 0..<rounds {
                first.run(on: &network, SendConditions(), crash: nil, now: now())
                second.run(on: &network, SendConditions(), crash: nil, now: now())
                network.forge()
            }
        }

        for event in schedule.events {
            clock += 1
            switch event {
            case .user(let action, let conditions, let crash):
                first.user(action, now: now())
                first.run(on: &network, conditions, crash: crash, now: now())
            case .run(let conditions, let crash, _): first.run(on: &network, conditions, crash: crash, now: now())
            case .forge: network.forge()
            case .strangerRegisters: break
            }
        }
        quiet(60)
        var expected = Set(schedule.expected.keys)

        // The second home's word.
        if random.chance(0.5) {
            second.unregisterAll(seenOn: network, now: now())
            expected = []
        } else {
            let token = Schedule.token(random.chance(0.5) ? "t1" : "t2")
            second.user(.login(token), now: now())
            expected.insert(token)
        }
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            second.run(on: &network, faults(), crash: nil, now: now())
            first.run(on: &network, faults(), crash: nil, now: now())
            network.forge()
        }
        quiet(60)

        // Half the time, the first home's user again: that explicit word starts over there.
        if random.chance(0.5) {
            let before = first.current
            if random.chance(0.7) {
                let token = Schedule.token(random.chance(0.5) ? "t1" : "t2")
                first.user(.login(token), now: now())
                if let before, before != token { expected.remove(before) }
                expected.insert(token)
            } else {
                first.user(.logout, now: now())
                if let before { expected.remove(before) }
            }
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                first.run(on: &network, faults(), crash: nil, now: now())
                second.run(on: &network, faults(), crash: nil, now: now())
                network.forge()
            }
        }
        quiet(60)
        let signalsBefore = network.signals(from: 1).count
        quiet(20)
        sentWhenQuiet = network.signals(from: 1).count - signalsBefore
        self.expected = expected
        held = Set(network.registrations(of: 1).keys)
    }
}
