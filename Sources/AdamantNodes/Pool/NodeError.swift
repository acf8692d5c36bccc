/// Why a read gave no value. A write that reached any node returns a `SubmitResult` instead.
public enum NodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The health check left no node to use; each report says why.
    case noUsableNode([NodeReport])
    /// Every usable node was asked and none gave an acceptable answer.
    case allNodesFailed([NodeFailure])
    /// The operation's deadline came first; what each node did until then.
    case deadlineExceeded([NodeFailure])
    /// A node answered with an error any other node would repeat (for example a bad filter).
    case refused(message: String, node: NodeURL)
    /// The calling task was cancelled.
    case cancelled
    /// Every request went through a proxy and nothing came through it: the proxy failed, and
    /// nothing is known of the nodes.
    case proxyFailed(ProxyFault)

    /// True when nodes did answer and every answer failed verification (a bad signature, id
    /// or address): the network's data could not be verified (exit 65), which is not the same
    /// as no node answering usefully (exit 69).
    public var everyAnswerFailedVerification: Bool {
        switch self {
        case .allNodesFailed(let failures), .deadlineExceeded(let failures):
            let answers = failures.filter(\.kind.isAnswer)
            return !answers.isEmpty && answers.allSatisfy { if case .unverifiable = $0.kind { true } else { false } }
        case .noUsableNode, .refused, .cancelled, .proxyFailed:
            return false
        }
    }

    /// What went wrong, node by node.
    public var description: String {
        switch self {
        case .noUsableNode(let reports):
            // One cause for all (a proxy that is down, say) is said once.
            if reports.count > 1, let health = reports.first?.health, reports.allSatisfy({ $0.health == health }) {
                return "no usable node (every one \(health))"
            }
            let reasons = reports.map { "\($0.url): \($0.health)" }
            return "no usable node" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
        case .allNodesFailed(let failures):
            return "every node failed: " + failures.map(\.description).joined(separator: "; ")
        case .deadlineExceeded(let failures):
            return "deadline exceeded"
                + (failures.isEmpty ? "" : " (\(failures.map(\.description).joined(separator: "; ")))")
        case .refused(let message, let node):
            return "\(node) refused: \(message)"
        case .cancelled:
            return "cancelled"
        case .proxyFailed(let fault):
            return fault.description
        }
    }
}

/// One node's failed attempt: what the node did, typed, and in words.
public struct NodeFailure: Sendable, Hashable, CustomStringConvertible {
    /// What a node did instead of giving an acceptable answer.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// No HTTP answer: refused, timed out, unreachable, or not a whole HTTP answer.
        case noAnswer(TransportError)
        /// An HTTP answer that is not the node API: an HTML page, plain text, a redirect.
        case notANode(String)
        /// The node's own error, one another node may not repeat.
        case nodeError(message: String, status: Int)
        /// Node JSON that is not what the API promises: a missing field, a number out of range.
        case badAnswer(String)
        /// A well-formed answer that failed verification: a signature, id or address.
        case unverifiable(String)
        /// Never sent to this node: the deadline or the transaction's timestamp window had passed.
        case notSent(String)

        /// Whether the node answered at all.
        public var isAnswer: Bool {
            switch self {
            case .noAnswer, .notSent: false
            case .notANode, .nodeError, .badAnswer, .unverifiable: true
            }
        }

        /// The failure in words.
        public var description: String {
            switch self {
            case .noAnswer(let error): "\(error)"
            case .notANode(let detail): "not a node: \(detail)"
            case .nodeError(let message, let status):
                "the node answered with an error (HTTP \(status)): \(message.isEmpty ? "no message" : message)"
            case .badAnswer(let detail): "bad answer: \(detail)"
            case .unverifiable(let detail): "failed verification: \(detail)"
            case .notSent(let detail): "not sent: \(detail)"
            }
        }
    }

    /// The node asked.
    public var node: NodeURL
    /// What it did.
    public var kind: Kind

    /// A failure of `node`.
    public init(node: NodeURL, kind: Kind) {
        self.node = node
        self.kind = kind
    }

    /// What the node did, in words.
    public var reason: String { kind.description }

    /// The node and what it did.
    public var description: String { "\(node): \(reason)" }
}
