/// What a read makes of one node's reply.
enum ReplyVerdict<Value: Sendable>: Sendable {
    case accept(Value)
    /// A considered error that any node would repeat: it ends the read.
    case refuse(String)
    /// Unusable (garbage, a failed verification, a node-side problem): ask another node.
    case reject(String)
}

typealias ReplyHandler<Value: Sendable> = @Sendable (NodeReply) -> ReplyVerdict<Value>

extension NodePool {
    /// A hedged GET: the best node first, the next one too whenever the hedge delay passes
    /// without an answer, the next one at once when one fails. The first accepted answer
    /// wins and the other requests are cancelled. Nothing outlasts `deadline`.
    func read<Value: Sendable>(
        _ path: String, query: [(name: String, value: String)] = [], deadline: ContinuousClock.Instant,
        handler: @escaping ReplyHandler<Value>
    ) async throws(NodeError) -> Value {
        let nodes = try await usableNodes(until: deadline)
        let hedgeDelay = hedgeDelay(after: nodes[0])

        let result = await withTaskGroup(of: ReadEvent<Value>.self) { group -> Result<Value, NodeError> in
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return .deadline
            }
            defer { group.cancelAll() }

            var machine = HedgedReadMachine(candidateCount: nodes.count)
            var actions = machine.start()
            var failures: [NodeFailure] = []
            var answer: Result<Value, NodeError>?
            while true {
                for action in actions {
                    switch action {
                    case .ask(let candidate):
                        let url = nodes[candidate].url
                        group.addTask {
                            .settled(candidate, await self.attempt(url, path, query, deadline, handler))
                        }
                    case .armHedgeTimer(let generation):
                        group.addTask {
                            try? await Task.sleep(for: hedgeDelay)
                            return .hedgeTimer(generation)
                        }
                    case .finish:
                        if let answer { return answer }
                    case .giveUp:
                        noteEveryNodeFailed()
                        // Requests are cut to the deadline, so the last ones may time out just as it passes.
                        let expired = ContinuousClock.now >= deadline
                        return .failure(expired ? .deadlineExceeded(failures) : .allNodesFailed(failures))
                    }
                }
                switch await group.next() {
                case .deadline?, nil:
                    return .failure(Task.isCancelled ? .cancelled : .deadlineExceeded(failures))
                case .hedgeTimer(let generation)?:
                    actions = machine.hedgeTimerFired(generation: generation)
                    if !actions.isEmpty { log.log(.debug, "no answer after \(hedgeDelay), asking another node too") }
                case .settled(let candidate, let verdict)?:
                    switch verdict {
                    case .accept(let value):
                        answer = .success(value)
                        actions = machine.attemptAnswered(candidate: candidate)
                    case .refuse(let message):
                        answer = .failure(.refused(message: message, node: nodes[candidate].url))
                        actions = machine.attemptAnswered(candidate: candidate)
                    case .reject(let reason):
                        failures.append(NodeFailure(node: nodes[candidate].url, reason: reason))
                        actions = machine.attemptFailed(candidate: candidate)
                    }
                }
            }
        }
        return try result.get()
    }

    /// One node's part of a read. Records what it learned about the node's speed.
    private func attempt<Value: Sendable>(
        _ url: NodeURL, _ path: String, _ query: [(name: String, value: String)], _ deadline: ContinuousClock.Instant,
        _ handler: ReplyHandler<Value>
    ) async -> ReplyVerdict<Value> {
        let started = ContinuousClock.now
        let request = HTTPRequest(
            url: url.endpoint(path, query: query), timeout: min(configuration.requestTimeout, started.duration(to: deadline)),
            connectTimeout: configuration.connectTimeout)
        let verdict: ReplyVerdict<Value>
        do throws(TransportError) {
            verdict = handler(NodeReply(try await transport.send(request)))
        } catch .cancelled {
            // Outrun by another node or the deadline: the wait so far is a lower bound.
            recordAnswer(from: url, after: started.duration(to: .now))
            return .reject("cancelled")
        } catch {
            verdict = .reject(error.description)
        }
        if case .reject(let reason) = verdict {
            recordFailure(of: url, reason: reason)
        } else {
            recordAnswer(from: url, after: started.duration(to: .now))
        }
        return verdict
    }
}

private enum ReadEvent<Value: Sendable>: Sendable {
    case settled(Int, ReplyVerdict<Value>)
    case hedgeTimer(Int)
    case deadline
}
