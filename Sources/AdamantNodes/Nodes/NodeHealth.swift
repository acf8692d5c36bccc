public import AdamantCore

/// Whether a node may be used, and if not, why.
public enum NodeHealth: Sendable, Hashable, CustomStringConvertible {
    /// Not checked yet.
    case unchecked
    /// Answers sensibly, on the expected network, in sync, recent enough, its clock agreeing: reads
    /// and stamps transactions.
    case usable
    /// Usable for reads, but its clock disagrees with the reference by `offsetMillis` (positive:
    /// the node is ahead), so it does not stamp transactions.
    case clockOff(offsetMillis: Int64, reference: ClockReference)
    /// No HTTP answer to the status request.
    case offline(reason: String)
    /// An HTTP answer that is not the node API (an HTML page, a proxy's error).
    case notANode(reason: String)
    /// Node JSON that gives no usable status: an error, a missing field, nonsense numbers.
    case badAnswer(reason: String)
    /// Older than the minimum version.
    case outdated(NodeVersion)
    /// On another network than the one the pool accepts.
    case wrongNetwork(Nethash)
    /// The nodes split evenly between networks (this one reports `Nethash`): a tie is not a
    /// majority, so the network must be pinned.
    case noMajorityNetwork(Nethash)
    /// Its height is outside the range most nodes agree on.
    case outOfSync(height: Int64, agreed: ClosedRange<Int64>)

    /// What a node's clock was compared with.
    public enum ClockReference: Sendable, Hashable {
        /// The clocks of the other nodes, most of which agree.
        case otherNodes
        /// This device's clock: the node was the only one to compare with.
        case device
    }

    /// May serve reads.
    public var isUsable: Bool {
        switch self {
        case .usable, .clockOff: true
        default: false
        }
    }

    /// May serve reads, and its clock may stamp transactions.
    public var canStamp: Bool { self == .usable }

    /// One word for a table column.
    public var name: String {
        switch self {
        case .unchecked: "unchecked"
        case .usable: "usable"
        case .clockOff: "clockOff"
        case .offline: "offline"
        case .notANode: "notANode"
        case .badAnswer: "badAnswer"
        case .outdated: "outdated"
        case .wrongNetwork: "wrongNetwork"
        case .noMajorityNetwork: "noMajority"
        case .outOfSync: "outOfSync"
        }
    }

    /// Why, in words.
    public var description: String {
        switch self {
        case .unchecked: "not checked yet"
        case .usable: "usable"
        case .clockOff(let offset, let reference):
            "clock \(Self.seconds(offset)) s \(offset > 0 ? "ahead of" : "behind") "
                + (reference == .otherNodes
                    ? "the other nodes" : "this device, and no other node to tell which is right")
                + ": not used to stamp transactions"
        case .offline(let reason): "offline: \(reason)"
        case .notANode(let reason): "not a node: \(reason)"
        case .badAnswer(let reason): "bad answer: \(reason)"
        case .outdated(let version): "outdated: version \(version) is older than \(NodeVersion.minimumSupported)"
        case .wrongNetwork(let nethash): "wrong network: nethash \(nethash.abbreviated)"
        case .noMajorityNetwork(let nethash):
            "nethash \(nethash.abbreviated), but the nodes split evenly between networks and a tie is not a majority: "
                + "pin the network with --nethash (or \"nethash\" in the config file)"
        case .outOfSync(let height, let agreed):
            "out of sync: height \(height), most nodes are at \(agreed.lowerBound)…\(agreed.upperBound)"
        }
    }

    /// `31536000.0`, from milliseconds.
    private static func seconds(_ millis: Int64) -> String {
        let magnitude = millis.magnitude
        return "\(magnitude / 1000).\(magnitude % 1000 / 100)"
    }
}

/// The pure rules of a health check (docs/node-api.md §3, improved): answered, right network,
/// recent enough, in the largest group of heights within `heightTolerance` blocks, and a
/// clock that agrees with the others within `clockToleranceMillis` before it stamps.
struct HealthRules: Sendable {
    var nethash: NethashRule
    var minimumVersion = NodeVersion.minimumSupported
    var heightTolerance: Int64 = 10
    /// The 0.10 past window: a transaction stamped further off is refused by the other nodes.
    var clockToleranceMillis: Int64 = 5_000

    /// One verdict per probe, in order.
    func assess(_ probes: [StatusProbe]) -> [NodeHealth] {
        let statuses = probes.map { try? $0.result.get() }
        let expected = nethash.expected(among: statuses.compactMap { $0?.nethash })
        let eligible = statuses.map { status in
            status.flatMap { $0.nethash == expected && $0.version >= minimumVersion ? $0 : nil }
        }
        let agreed = Self.agreedHeights(eligible.compactMap { $0?.height }, tolerance: heightTolerance)

        var verdicts: [NodeHealth] = zip(probes, statuses).map { probe, status in
            guard let status else {
                if case .failure(let failure) = probe.result { return failure.health }
                return .badAnswer(reason: "no status")
            }
            guard let expected else { return .noMajorityNetwork(status.nethash) }
            guard status.nethash == expected else { return .wrongNetwork(status.nethash) }
            guard status.version >= minimumVersion else { return .outdated(status.version) }
            // `agreed` exists: this node itself is eligible.
            if let agreed, !agreed.contains(status.height) { return .outOfSync(height: status.height, agreed: agreed) }
            guard probe.clock != nil else {
                return .badAnswer(reason: "its clock cannot be compared with this device's")
            }
            return .usable
        }

        // A saturated delta says only that this device's clock is absurd: no comparison is possible.
        for index in verdicts.indices where verdicts[index] == .usable {
            guard let delta = probes[index].clock?.deltaMillis, delta == .min || delta == .max else { continue }
            verdicts[index] = .clockOff(offsetMillis: Self.difference(0, delta), reference: .device)
        }
        let voters = verdicts.indices.filter { verdicts[$0] == .usable }
        let deltas = voters.compactMap { probes[$0].clock?.deltaMillis }
        guard let trusted = Self.trustedClocks(deltas, tolerance: clockToleranceMillis) else { return verdicts }
        for (index, delta) in zip(voters, deltas) where !trusted.range.contains(delta) {
            // delta = local − node: a node ahead has the smaller delta.
            verdicts[index] = .clockOff(
                offsetMillis: Self.difference(trusted.referenceDelta, delta), reference: trusted.reference)
        }
        return verdicts
    }

    /// The window `[h, h + tolerance]` holding the most heights; ties go to the higher window.
    static func agreedHeights(_ heights: [Int64], tolerance: Int64) -> ClosedRange<Int64>? {
        var best: (range: ClosedRange<Int64>, count: Int)?
        for low in Set(heights).sorted() {
            let range = low...Self.sum(low, max(tolerance, 0))
            let count = heights.count { range.contains($0) }
            if count >= best?.count ?? 0 { best = (range, count) }
        }
        return best?.range
    }

    /// The clock deltas (local − node, ms) that may stamp: the window of `tolerance` holding
    /// the most nodes, a tie going to the window nearest this device's clock. A node alone is
    /// compared with this device.
    static func trustedClocks(
        _ deltas: [Int64], tolerance: Int64
    ) -> (range: ClosedRange<Int64>, referenceDelta: Int64, reference: NodeHealth.ClockReference)? {
        let tolerance = max(tolerance, 0)
        guard deltas.count > 1 else {
            return deltas.isEmpty ? nil : (-tolerance...tolerance, 0, .device)
        }
        var best: (range: ClosedRange<Int64>, members: [Int64])?
        for low in Set(deltas).sorted() {
            let range = low...Self.sum(low, tolerance)
            let members = deltas.filter { range.contains($0) }.sorted()
            guard let current = best else {
                best = (range, members)
                continue
            }
            let nearer = Self.distanceFromDevice(range) < Self.distanceFromDevice(current.range)
            if members.count > current.members.count || (members.count == current.members.count && nearer) {
                best = (range, members)
            }
        }
        guard let best else { return nil }
        return (best.range, best.members[best.members.count / 2], .otherNodes)
    }

    private static func distanceFromDevice(_ range: ClosedRange<Int64>) -> UInt64 {
        range.contains(0) ? 0 : min(range.lowerBound.magnitude, range.upperBound.magnitude)
    }

    /// Saturating: the inputs were range-checked, but a clamp costs nothing.
    private static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : value
    }

    private static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : value
    }
}

/// Why a status probe gave no status.
struct ProbeFailure: Error, Sendable, Hashable {
    var kind: NodeFailure.Kind

    /// The proxy failed: the node was never reached.
    var isTheProxys: Bool {
        if case .noAnswer(.proxyFailed) = kind { true } else { false }
    }

    /// The verdict for a node whose status probe failed this way.
    var health: NodeHealth {
        switch kind {
        case .noAnswer(.brokenAnswer): .badAnswer(reason: kind.description)  // it did answer, brokenly
        case .noAnswer, .notSent: .offline(reason: kind.description)
        case .notANode(let detail): .notANode(reason: detail)
        case .nodeError, .unverifiable: .badAnswer(reason: kind.description)
        case .badAnswer(let detail): .badAnswer(reason: detail)
        }
    }
}
