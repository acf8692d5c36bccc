/// One row of the report: this project's value next to its floor or peer measured in the same
/// run, the ratio of the two, and the goal docs/performance.md sets for it.
struct Figure: Sendable {
    enum Unit: String, Sendable, Encodable {
        case milliseconds = "ms"
        case perSecond = "tx/s"
        case mebibytes = "MiB"
        case seconds = "s"
        case count = "requests"
    }

    /// Either side of a goal.
    enum Comparison: String, Sendable, Encodable {
        case atMost = "<="
        case atLeast = ">="

        var symbol: String { self == .atMost ? "≤" : "≥" }

        func holds(_ value: Double, _ limit: Double) -> Bool { self == .atMost ? value <= limit : value >= limit }
    }

    /// A limit on the ratio to the floor, or on the value itself.
    struct Goal: Sendable, Encodable {
        enum Subject: String, Sendable, Encodable { case ratio, value }
        let subject: Subject
        let comparison: Comparison
        let limit: Double

        static func ratio(_ comparison: Comparison, _ limit: Double) -> Goal {
            Goal(subject: .ratio, comparison: comparison, limit: limit)
        }
        static func value(_ comparison: Comparison, _ limit: Double) -> Goal {
            Goal(subject: .value, comparison: comparison, limit: limit)
        }
    }

    /// What the value is measured against: a floor (the same work done directly), a peer
    /// (curl), a bound computed from other figures, or a smaller size of a curve.
    struct Floor: Sendable, Encodable {
        let name: String
        let value: Double
    }

    enum Status: String, Sendable, Encodable {
        case measured
        /// An executable it needs is missing; not a failure.
        case skipped
        /// The benchmark threw; the note says why.
        case failed
    }

    /// Set by the runner: the name the benchmark is selected by.
    var benchmark = ""
    let name: String
    let unit: Unit
    var value: Double?
    var floor: Floor?
    var goal: Goal?
    var status = Status.measured
    /// Detail: p99s, sample counts, why skipped.
    var note: String?

    init(_ name: String, _ unit: Unit, value: Double?, floor: Floor? = nil, goal: Goal? = nil, note: String? = nil) {
        self.name = name
        self.unit = unit
        self.value = value
        self.floor = floor
        self.goal = goal
        self.note = note
    }

    static func skipped(_ name: String, _ unit: Unit, goal: Goal? = nil, because reason: String) -> Figure {
        var figure = Figure(name, unit, value: nil, goal: goal, note: reason)
        figure.status = .skipped
        return figure
    }

    static func failed(_ benchmark: String, because reason: String) -> Figure {
        var figure = Figure("failed", .milliseconds, value: nil, note: reason)
        figure.benchmark = benchmark
        figure.status = .failed
        return figure
    }

    /// Value over floor: for throughputs above 1 is faster, for times and sizes below 1 is.
    var ratio: Double? {
        guard let value, let floor, floor.value > 0 else { return nil }
        return value / floor.value
    }

    /// Whether the goal holds; nil without a goal or without the numbers it needs.
    var met: Bool? {
        guard status == .measured, let goal else { return nil }
        switch goal.subject {
        case .ratio: return ratio.map { goal.comparison.holds($0, goal.limit) }
        case .value: return value.map { goal.comparison.holds($0, goal.limit) }
        }
    }
}

extension Figure: Encodable {
    private enum Keys: String, CodingKey { case benchmark, figure, unit, value, floor, ratio, goal, met, status, note }

    /// Every key is written, null when absent, so a reader can rely on the shape.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(benchmark, forKey: .benchmark)
        try c.encode(name, forKey: .figure)
        try c.encode(unit, forKey: .unit)
        // JSON has no infinity: a degenerate measurement is written as no number at all.
        try c.encode(value.flatMap(\.finite), forKey: .value)
        try c.encode(floor.flatMap { $0.value.isFinite ? $0 : nil }, forKey: .floor)
        try c.encode(ratio.flatMap(\.finite), forKey: .ratio)
        try c.encode(goal, forKey: .goal)
        try c.encode(met, forKey: .met)
        try c.encode(status, forKey: .status)
        try c.encode(note, forKey: .note)
    }
}

extension Double {
    var finite: Double? { isFinite ? self : nil }
}
