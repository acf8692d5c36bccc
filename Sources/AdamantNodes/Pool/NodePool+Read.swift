import AdamantCore

/// What a read makes of one node's reply.
enum ReplyVerdict<Value: Sendable>: Sendable {
    case accept(Value)
    /// A considered error that any node would repeat: it ends the read.
    case refuse(String)
    /// Unusable (garbage, a failed verification, a node-side problem): ask another node.
    case reject(NodeFailure.Kind)
}

typealias ReplyHandler<Value: Sendable> = @Sendable (NodeReply) async -> ReplyVerdict<Value>

extension NodePool {
    /// A hedged GET: the best node first, the next one too whenever the hedge delay passes
    /// without an answer, the next one at once when one fails. The first accepted answer
    /// wins and the other requests are cancelled. Nothing outlasts `deadline`.
    func read<Value: Sendable>(
        _ path: String, query: [(name: String, value: String)] = [], deadline: AnyClock.Instant,
        handler: @escaping ReplyHandler<Value>
    ) async throws(NodeError) -> Value {
        let nodes = try await usableNodes(until: deadline)
        let hedgeDelay = hedgeDelay(after: nodes[0])

        let result = await withTaskGroup(of: ReadEvent<Value>.self) { group -> Result<Value, NodeError> in
            group.addTask { [clock] in
                try? await clock.sleep(until: deadline)
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
                        group.addTask { [clock] in
                            // No tolerance: the default lets the timer fire up to a tenth of
                            // the delay late, and the hedge is what a silent node costs.
                            try? await clock.sleep(until: clock.now + hedgeDelay, tolerance: .zero)
                            return .hedgeTimer(generation)
                        }
                    case .finish:
                        if let answer { return answer }
                    case .giveUp:
                        noteEveryNodeFailed()
                        // Requests are cut to the deadline, so the last ones may time out just as it passes.
                        let expired = clock.now >= deadline
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
                    case .reject(let kind):
                        failures.append(NodeFailure(node: nodes[candidate].url, kind: kind))
                        actions = machine.attemptFailed(candidate: candidate)
                    }
                }
            }
        }
        return try result.mapError(blamingTheProxy).get()
    }

    /// One node's part of a read. Records what it learned about the node's speed.
    private func attempt<Value: Sendable>(
        _ url: NodeURL, _ path: String, _ query: [(name: String, value: String)], _ deadline: AnyClock.Instant,
        _ handler: ReplyHandler<Value>
    ) async -> ReplyVerdict<Value> {
        let started = clock.now
        let request = HTTPRequest(
            url: url.endpoint(path, query: query),
            timeout: min(allowing(configuration.requestTimeout), started.duration(to: deadline)),
            connectTimeout: allowing(configuration.connectTimeout), hop: configuration.route.hop(to: url),
            circuit: configuration.circuit)
        let answer: HTTPAnswer
        do throws(TransportError) {
            answer = try await send(request)
        } catch .cancelled {
            // Outrun by another node or the deadline: the wait so far is a lower bound.
            recordAnswer(from: url, after: started.duration(to: clock.now))
            return .reject(.noAnswer(.cancelled))
        } catch {
            recordFailure(of: url, .noAnswer(error))
            return .reject(.noAnswer(error))
        }
        let verdict = await handler(NodeReply(answer))
        if case .reject(let kind) = verdict {
            recordFailure(of: url, kind)
        } else {
            recordAnswer(from: url, after: answer.wireTime ?? started.duration(to: clock.now))
        }
        return verdict
    }
}

private enum ReadEvent<Value: Sendable>: Sendable {
    case settled(Int, ReplyVerdict<Value>)
    case hedgeTimer(Int)
    case deadline
}
