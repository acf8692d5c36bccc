/// Decides, for one hedged read over ranked candidates, whom to ask and when to stop. Pure:
/// the executor feeds it events and performs the actions it returns.
///
/// The best candidate is asked first. If it has not answered when the hedge timer fires, the
/// next one is asked too; a failure moves on at once. The first answer wins.
struct HedgedReadMachine: Sendable {
    enum Action: Sendable, Hashable {
        case ask(candidate: Int)
        /// Fire `hedgeTimerFired(generation:)` after the hedge delay.
        case armHedgeTimer(generation: Int)
        /// This candidate's answer is the result; stop the others.
        case finish(candidate: Int)
        /// Every candidate failed.
        case giveUp
    }

    private let candidateCount: Int
    private var nextCandidate = 0
    private var inFlight = Set<Int>()
    /// Each ask re-arms the timer; older timers are stale.
    private var timerGeneration = 0
    private var isDone = false

    init(candidateCount: Int) { self.candidateCount = candidateCount }

    mutating func start() -> [Action] {
        askNext(orElse: [.giveUp])
    }

    mutating func hedgeTimerFired(generation: Int) -> [Action] {
        guard !isDone, generation == timerGeneration else { return [] }
        return askNext(orElse: [])
    }

    mutating func attemptFailed(candidate: Int) -> [Action] {
        guard !isDone else { return [] }
        inFlight.remove(candidate)
        return askNext(orElse: inFlight.isEmpty ? [.giveUp] : [])
    }

    mutating func attemptAnswered(candidate: Int) -> [Action] {
        guard !isDone else { return [] }
        isDone = true
        return [.finish(candidate: candidate)]
    }

    private mutating func askNext(orElse exhausted: [Action]) -> [Action] {
        guard nextCandidate < candidateCount else {
            if exhausted.contains(.giveUp) { isDone = true }
            return exhausted
        }
        let candidate = nextCandidate
        nextCandidate += 1
        inFlight.insert(candidate)
        timerGeneration += 1
        let more = nextCandidate < candidateCount
        return [.ask(candidate: candidate)] + (more ? [.armHedgeTimer(generation: timerGeneration)] : [])
    }
}
