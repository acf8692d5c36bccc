public import AdamantCore

/// A network's identity: the hash of its genesis block, reported by `/api/node/status`.
public struct Nethash: Sendable, Hashable, StringCodable {
    /// The ADAMANT mainnet.
    public static let mainnet = Nethash(validated: "bd330166898377fb28743ceef5e43a5d9d0a3efd9b3451fb7bc53530bb0a6d64")

    /// 64 lowercase hex characters.
    public let hex: String

    /// Accepts 64 hex characters in either case.
    public init?(_ text: some StringProtocol) {
        let lowered = text.lowercased()
        guard lowered.utf8.count == 64, lowered.allSatisfy(\.isHexDigit) else { return nil }
        hex = lowered
    }

    private init(validated hex: String) { self.hex = hex }

    /// The 64 hex characters.
    public var description: String { hex }

    /// The same, throwing for text that is not a nethash (for `StringCodable`).
    public init(parsing text: String) throws {
        guard let nethash = Nethash(text) else { throw NotAValue("not a nethash") }
        self = nethash
    }

    /// The first and last characters, enough to tell networks apart in a table.
    public var abbreviated: String { "\(hex.prefix(6))…\(hex.suffix(4))" }
}

/// Which network the pool accepts nodes from.
public enum NethashRule: Sendable, Hashable {
    /// Only this network (the built-in list pins mainnet; `--nethash` pins any).
    case pinned(Nethash)
    /// The network more of the answering nodes are on than any other. A tie is no majority:
    /// a hostile node listed first must not pick the network.
    case majority

    /// The network to accept, given each answering node's nethash; nil when none answered or
    /// the leaders tie.
    func expected(among reported: [Nethash]) -> Nethash? {
        switch self {
        case .pinned(let nethash):
            return nethash
        case .majority:
            var counts: [Nethash: Int] = [:]
            for nethash in reported { counts[nethash, default: 0] += 1 }
            guard let top = counts.values.max() else { return nil }
            let leaders = counts.filter { $0.value == top }
            return leaders.count == 1 ? leaders.first?.key : nil
        }
    }
}
