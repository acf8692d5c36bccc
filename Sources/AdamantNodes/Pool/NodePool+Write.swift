public import AdamantCore

/// The fate of one submission: how the node that answered classified it, and where the bytes went.
public struct SubmitResult: Sendable, Hashable {
    /// The id computed from the signed bytes.
    public var transactionID: TransactionID
    /// What the node that answered made of it.
    public var outcome: WriteOutcome
    /// The node whose answer was classified; nil when no node answered.
    public var node: NodeURL?
    /// Every node the same signed bytes were sent to, in order.
    public var attempts: [NodeURL]
}

extension NodePool {
    /// Sends signed bytes to the best node (or `target`). Only when a node gave no HTTP answer
    /// at all do the same bytes go to the next node, and only while its clock says the
    /// timestamp window is still open. Any HTTP answer is classified and returned, never resent.
    ///
    /// Throws only when nothing was sent: no usable node, or the deadline passed first.
    ///
    /// - Parameters:
    ///   - body: `transaction.submissionBody()`; `id` is the id computed from its signed bytes.
    ///   - isResend: an earlier attempt for the same intent may have landed.
    func broadcast(
        _ transaction: Transaction, id: TransactionID, body: [UInt8], target: NodeURL?, avoiding: Set<NodeURL>,
        isResend: Bool, deadline: AnyClock.Instant
    ) async throws(NodeError) -> SubmitResult {
        // Only nodes whose clocks agree: a node judges the timestamp by its own clock.
        let usable = try await usableNodes(forStamping: true, until: deadline)
        let allowed = usable.filter { !avoiding.contains($0.url) }
        let candidates = allowed.filter { $0.url == target } + allowed.filter { $0.url != target }
        guard !candidates.isEmpty else { throw blamingTheProxy(.noUsableNode(reports)) }

        var attempts: [NodeURL] = []
        var failures: [NodeFailure] = []
        for node in candidates {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                failures.append(NodeFailure(node: node.url, kind: .notSent("the deadline has passed")))
                break
            }
            if !attempts.isEmpty {
                guard let nodeClock = node.clock,
                    ResendWindow.isOpen(for: transaction, nodeClock: nodeClock, localUnixMillis: localUnixMillis)
                else {
                    failures.append(NodeFailure(node: node.url, kind: .notSent("the timestamp window has closed")))
                    break
                }
            }
            attempts.append(node.url)
            let started = clock.now
            let request = HTTPRequest(
                method: .post, url: node.url.endpoint(transaction.submissionPath), body: body,
                timeout: min(allowing(configuration.requestTimeout), remaining),
                connectTimeout: allowing(configuration.connectTimeout),
                hop: configuration.route.hop(to: node.url), circuit: configuration.circuit)
            do throws(TransportError) {
                let answer = try await send(request)
                recordAnswer(from: node.url, after: answer.wireTime ?? started.duration(to: clock.now))
                let outcome = Self.classify(answer, id: id, isResend: isResend || attempts.count > 1)
                log.log(.info, "\(node.url) on \(id): \(outcome)")
                return SubmitResult(transactionID: id, outcome: outcome, node: node.url, attempts: attempts)
            } catch .cancelled {
                let outcome = WriteOutcome.ambiguous("cancelled while waiting for \(node.url); look the id up")
                return SubmitResult(transactionID: id, outcome: outcome, node: nil, attempts: attempts)
            } catch {
                recordFailure(of: node.url, .noAnswer(error))
                failures.append(NodeFailure(node: node.url, kind: .noAnswer(error)))
            }
        }
        guard !attempts.isEmpty else { throw blamingTheProxy(.deadlineExceeded(failures)) }
        if attempts.count == candidates.count { noteEveryNodeFailed() }
        let reasons = failures.map(\.description).joined(separator: "; ")
        return SubmitResult(
            transactionID: id, outcome: .ambiguous("no node answered; look the id up (\(reasons))"), node: nil,
            attempts: attempts)
    }

    static func classify(_ answer: HTTPAnswer, id: TransactionID, isResend: Bool) -> WriteOutcome {
        switch NodeReply(answer) {
        case .success(let body):
            struct Accepted: Decodable { var transactionId: String }
            let reported = (try? JSONCoding.decode(Accepted.self, from: body)).flatMap {
                TransactionID($0.transactionId)
            }
            guard let reported else { return .ambiguous("success without a transaction id") }
            return reported == id ? .accepted(id) : .ambiguous("the node reports id \(reported) for our \(id)")
        case .failure(let message, let status):
            return WriteOutcome(message: message, status: status, id: id, isResend: isResend)
        case .notFromNode(let reason), .malformed(let reason):
            return WriteOutcome(answerWithoutNodeJSON: reason, status: answer.status)
        }
    }
}
