public import AdamantCore

/// Whether a node may be used, and if not, why.
public enum NodeHealth: Sendable, Hashable, CustomStringConvertible {
    /// Not checked yet.
    case unchecked
    case usable
    /// No usable answer to the status request.
    case offline(reason: String)
    /// Older than the minimum version.
    case outdated(NodeVersion)
    /// On another network than the one the pool accepts.
    case wrongNetwork(Nethash)
    /// Its height is outside the range most nodes agree on.
    case outOfSync(height: Int64, agreed: ClosedRange<Int64>)

    public var isUsable: Bool { self == .usable }

    /// One word for a table column.
    public var name: String {
        switch self {
        case .unchecked: "unchecked"
        case .usable: "usable"
        case .offline: "offline"
        case .outdated: "outdated"
        case .wrongNetwork: "wrongNetwork"
        case .outOfSync: "outOfSync"
        }
    }

    /// Why, in words.
    public var description: String {
        switch self {
        case .unchecked: "not checked yet"
        case .usable: "usable"
        case .offline(let reason): "offline: \(reason)"
        case .outdated(let version): "outdated: version \(version) is older than \(NodeVersion.minimumSupported)"
        case .wrongNetwork(let nethash): "wrong network: nethash \(nethash.abbreviated)"
        case .outOfSync(let height, let agreed):
            "out of sync: height \(height), most nodes are at \(agreed.lowerBound)…\(agreed.upperBound)"
        }
    }
}

/// The pure rules of a health check (node-api.md §3, improved): answered, right network,
/// recent enough, and in the largest group of heights within `heightTolerance` blocks.
struct HealthRules: Sendable {
    var nethash: NethashRule
    var minimumVersion = NodeVersion.minimumSupported
    var heightTolerance: Int64 = 10

    /// One verdict per probe, in order. A probe is the node's status or why there was none.
    func assess(_ probes: [Result<NodeStatus, ProbeFailure>]) -> [NodeHealth] {
        let statuses = probes.map { try? $0.get() }
        let expected = nethash.expected(among: statuses.compactMap { $0?.nethash })
        let eligible = statuses.map { status in
            status.flatMap { $0.nethash == expected && $0.version >= minimumVersion ? $0 : nil }
        }
        let agreed = Self.agreedHeights(eligible.compactMap { $0?.height }, tolerance: heightTolerance)

        return zip(probes, statuses).map { probe, status in
            guard let status else {
                if case .failure(let failure) = probe { return .offline(reason: failure.reason) }
                return .offline(reason: "no status")
            }
            guard status.nethash == expected else { return .wrongNetwork(status.nethash) }
            guard status.version >= minimumVersion else { return .outdated(status.version) }
            // `agreed` exists: this node itself is eligible.
            if let agreed, !agreed.contains(status.height) { return .outOfSync(height: status.height, agreed: agreed) }
            return .usable
        }
    }

    /// The window `[h, h + tolerance]` holding the most heights; ties go to the higher window.
    static func agreedHeights(_ heights: [Int64], tolerance: Int64) -> ClosedRange<Int64>? {
        var best: (range: ClosedRange<Int64>, count: Int)?
        for low in Set(heights).sorted() {
            let range = low...(low + tolerance)
            let count = heights.count { range.contains($0) }
            if count >= best?.count ?? 0 { best = (range, count) }
        }
        return best?.range
    }
}

/// Why a status probe gave no status.
struct ProbeFailure: Error, Sendable, Hashable {
    var reason: String
}
