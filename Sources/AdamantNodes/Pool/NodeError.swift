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
    case cancelled

    public var description: String {
        switch self {
        case .noUsableNode(let reports):
            let reasons = reports.map { "\($0.url): \($0.health)" }
            return "no usable node" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))")
        case .allNodesFailed(let failures):
            return "every node failed: " + failures.map(\.description).joined(separator: "; ")
        case .deadlineExceeded(let failures):
            return "deadline exceeded" + (failures.isEmpty ? "" : " (\(failures.map(\.description).joined(separator: "; ")))")
        case .refused(let message, let node):
            return "\(node) refused: \(message)"
        case .cancelled:
            return "cancelled"
        }
    }
}

/// One node's failed attempt.
public struct NodeFailure: Sendable, Hashable, CustomStringConvertible {
    public var node: NodeURL
    public var reason: String

    public init(node: NodeURL, reason: String) {
        self.node = node
        self.reason = reason
    }

    public var description: String { "\(node): \(reason)" }
}
