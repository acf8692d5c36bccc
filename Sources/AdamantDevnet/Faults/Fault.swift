public import AdamantCore

/// A misbehaviour injected into one node, optionally only for paths under a prefix. Written
/// `KIND[:ARG][@/path/prefix]`, the same on the command line and on the control endpoint.
public struct Fault: Sendable, Hashable, CustomStringConvertible {
    public enum Effect: Sendable, Hashable {
        /// The port is closed.
        case refuse
        /// Connections are accepted and never answered (each is let go when its client leaves
        /// or the connection timeout passes).
        case blackhole
        case delay(milliseconds: Int)
        /// 500, 403, 429 or 503, with the body the node (or its middleware) sends.
        case status(Int)
        /// Express's HTML 404 page.
        case html404
        /// A body that is not JSON.
        case garbage
        /// Half the announced body, then the connection closes.
        case truncate
        /// The body one byte at a time.
        case trickle(millisecondsPerByte: Int)
        /// The node is this many blocks behind.
        case lag(blocks: Int)
        case nethash(String)
        case version(NodeVersion)
        /// The node's clock, and so `nodeTimestamp` and its timestamp checks, are off.
        case skew(seconds: Int)
        /// Returned transactions have one byte changed in the message or signature.
        case tamper
        /// Submissions are answered with success and never reach a block.
        case drop
        /// Submissions enter the pool and the POST is never answered (as with `blackhole`, the
        /// connection is let go when its client leaves or times out).
        case timeoutAfterAccept
        /// The client socket's port is closed; the API answers as before.
        case socketRefuse
        /// The socket takes clients and pings them, and never announces a transaction.
        case socketSilent
        /// Each socket session is forgotten this long after it opened (its next poll is refused).
        case socketDrop(seconds: Int)
        /// Every announcement is sent twice.
        case socketDuplicate
        /// Announced transactions have one byte changed; the API's answers do not.
        case socketForge
        /// Announcements are held this long before they are sent.
        case socketSlow(milliseconds: Int)
        /// Every poll is held unanswered, the handshake's too, with no ping; posts are answered.
        case socketHold
        /// Every poll of a session is answered with one packet of 10 MB.
        case socketHuge
        /// Every poll of a session is answered at once with 200 events of no meaning.
        case socketFlood
    }

    public static let statusCodes: Set<Int> = [500, 403, 429, 503]
    public static let defaultTrickleMilliseconds = 200

    public let effect: Effect
    /// Only requests whose path starts with this are affected; nil for all.
    public let pathPrefix: String?

    public init(_ effect: Effect, pathPrefix: String? = nil) {
        self.effect = effect
        self.pathPrefix = pathPrefix
    }

    /// The kinds written with no argument, by name: `kind` names them, so parsing cannot spell one
    /// differently.
    private static let argumentless: [String: Effect] = Dictionary(
        uniqueKeysWithValues: [
            Effect.refuse, .blackhole, .html404, .garbage, .truncate, .tamper, .drop, .timeoutAfterAccept,
            .socketRefuse, .socketSilent, .socketDuplicate, .socketForge, .socketHold, .socketHuge, .socketFlood,
        ].map { (Fault($0).kind, $0) })

    /// Parses `KIND[:ARG][@/path/prefix]`.
    public init(parsing text: String) throws(FaultError) {
        let scoped = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        if scoped.count == 2, !scoped[1].hasPrefix("/") {
            throw .invalid(text, "the scope after @ must be a path such as /api/chats")
        }
        let parts = scoped[0].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let kind = String(parts[0])
        let argument = parts.count == 2 ? String(parts[1]) : nil
        func integer(_ range: ClosedRange<Int>) throws(FaultError) -> Int {
            guard let argument, let value = Int(argument), range.contains(value) else {
                throw .invalid(text, "\(kind) takes a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func noArgument() throws(FaultError) {
            if argument != nil { throw .invalid(text, "\(kind) takes no argument") }
        }

        let effect: Effect
        switch kind {
        case "delay": effect = .delay(milliseconds: try integer(0...600_000))
        case "status":
            let code = try integer(100...599)
            guard Self.statusCodes.contains(code) else { throw .invalid(text, "status takes 500, 403, 429 or 503") }
            effect = .status(code)
        case "trickle":
            effect = .trickle(
                millisecondsPerByte: argument == nil ? Self.defaultTrickleMilliseconds : try integer(1...60_000))
        case "lag": effect = .lag(blocks: try integer(0...1_000_000))
        case "nethash":
            guard let argument, Hex.decode(argument, length: 32) != nil else {
                throw .invalid(text, "nethash takes 64 lowercase hex characters")
            }
            effect = .nethash(argument)
        case "version":
            guard let argument, let version = NodeVersion(argument) else { throw .invalid(text, "version takes X.Y.Z") }
            effect = .version(version)
        case "skew": effect = .skew(seconds: try integer(-31_536_000...31_536_000))
        case "socket-drop": effect = .socketDrop(seconds: try integer(1...3600))
        case "socket-slow": effect = .socketSlow(milliseconds: try integer(1...600_000))
        default:
            guard let plain = Self.argumentless[kind] else { throw .invalid(text, "unknown fault \"\(kind)\"") }
            try noArgument()
            effect = plain
        }
        if effect == .refuse, scoped.count == 2 {
            throw .invalid(text, "refuse closes the port, it cannot be scoped to a path")
        }
        if kind.hasPrefix("socket-"), scoped.count == 2 {
            throw .invalid(text, "\(kind) is the socket's, it cannot be scoped to a path")
        }
        self.init(effect, pathPrefix: scoped.count == 2 ? String(scoped[1]) : nil)
    }

    /// The kind's name, as written before the colon.
    public var kind: String {
        switch effect {
        case .refuse: "refuse"
        case .blackhole: "blackhole"
        case .delay: "delay"
        case .status: "status"
        case .html404: "html404"
        case .garbage: "garbage"
        case .truncate: "truncate"
        case .trickle: "trickle"
        case .lag: "lag"
        case .nethash: "nethash"
        case .version: "version"
        case .skew: "skew"
        case .tamper: "tamper"
        case .drop: "drop"
        case .timeoutAfterAccept: "timeout-after-accept"
        case .socketRefuse: "socket-refuse"
        case .socketSilent: "socket-silent"
        case .socketDrop: "socket-drop"
        case .socketDuplicate: "socket-duplicate"
        case .socketForge: "socket-forge"
        case .socketSlow: "socket-slow"
        case .socketHold: "socket-hold"
        case .socketHuge: "socket-huge"
        case .socketFlood: "socket-flood"
        }
    }

    public var description: String {
        let argument: String? =
            switch effect {
            case .delay(let milliseconds): String(milliseconds)
            case .status(let code): String(code)
            case .trickle(let milliseconds): String(milliseconds)
            case .lag(let blocks): String(blocks)
            case .nethash(let hash): hash
            case .version(let version): version.description
            case .skew(let seconds): String(seconds)
            case .socketDrop(let seconds): String(seconds)
            case .socketSlow(let milliseconds): String(milliseconds)
            default: nil
            }
        return kind + (argument.map { ":" + $0 } ?? "") + (pathPrefix.map { "@" + $0 } ?? "")
    }

    func applies(to path: String) -> Bool { pathPrefix.map(path.hasPrefix) ?? true }
}

public enum FaultError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalid(String, String)
    case noSuchNode(Int)

    public var description: String {
        switch self {
        case .invalid(let text, let reason): "invalid fault \"\(text)\": \(reason)"
        case .noSuchNode(let index): "there is no node \(index)"
        }
    }
}
