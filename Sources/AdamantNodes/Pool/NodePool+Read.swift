import AdamantCore

/// What a read makes of one node's reply.
enum ReplyVerdict<Value: Sendable>: Sendable {
    case accept(Value)
    /// A considered error that any node would repeat: it ends the read.
    case refuse(String)
    /// Unusable (garbage, a failed verification, a node-side problem): ask another node.
    case reject(NodeFailure.Kind)
}

typealias ReplyHandler<Value: Sendable> = @Sendable (NodeReply) -> ReplyVerdict<Value>

extension NodePool {
    /// How long before its instant a hedged request is handed to a transport that can hold it:
    /// more than a task's sleep wakes late on a loaded machine, and short enough that a read
    /// whose leader answers in time seldom does it.
    static let hedgeLead: Duration = .milliseconds(2)

    /// A hedged GET: the best node first, the next one too whenever the hedge delay passes
    /// without an answer, the next one at once when one fails. The first accepted answer
    /// wins and the other requests are cancelled. Nothing outlasts `deadline`.
    ///
    /// On the system clock with a transport that can hold requests (`CurlTransport`), a hedged
    /// request is handed over `hedgeLead` before its instant and sent by the transport's thread
    /// at the instant (`StartGate`); the timer here then only tells the state machine.
    func read<Value: Sendable>(
        _ path: String, query: [(name: String, value: String)] = [], deadline: AnyClock.Instant,
        handler: @escaping ReplyHandler<Value>
    ) async throws(NodeError) -> Value {
        let nodes = try await usableNodes(until: deadline)
        let hedgeDelay = hedgeDelay(after: nodes[0])
        let holder = (transport as? any HoldingHTTPTransport).flatMap { holder in
            clock.continuousInstant(deadline).map { (transport: holder, cutOff: $0) }
        }

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
            /// Hedged requests handed to the transport ahead of their timer, which has not fired.
            var held: [Int: (gate: StartGate, generation: Int)] = [:]
            var askedAt = clock.now
            while true {
                for action in actions {
                    switch action {
                    case .ask(let candidate):
                        if let gate = held.removeValue(forKey: candidate)?.gate {
                            gate.open()
                            askedAt = gate.openedAt ?? clock.now  // at its instant, perhaps before its timer woke us
                        } else {
                            askedAt = clock.now
                            let url = nodes[candidate].url
                            group.addTask {
                                .settled(candidate, await self.attempt(url, path, query, deadline, handler))
                            }
                        }
                    case .armHedgeTimer(let generation):
                        let hedgeAt = askedAt + hedgeDelay
                        let holding = holder != nil ? clock.continuousInstant(hedgeAt) : nil
                        if let opensAt = holding {
                            let handOverAt = askedAt + (hedgeDelay - Self.hedgeLead)
                            group.addTask { [clock] in
                                try? await clock.sleep(until: handOverAt, tolerance: .zero)
                                return .hedgeNear(generation, opensAt)
                            }
                        }
                        // A held request goes out at its instant without this timer, which
                        // then only tells the machine (and opens the gate if nothing did): it
                        // waits `hedgeLead` longer so as not to take a CPU from the request in
                        // flight. Answers and failures that come first tell the machine anyway.
                        let timerAt = holding == nil ? hedgeAt : hedgeAt + Self.hedgeLead
                        group.addTask { [clock] in
                            // No tolerance: the default lets the timer fire up to a tenth of
                            // the delay late, and the hedge is what a silent node costs.
                            try? await clock.sleep(until: timerAt, tolerance: .zero)
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
                case .hedgeNear(let generation, let opensAt)?:
                    actions = []
                    if let holder, !Task.isCancelled, let candidate = machine.candidateToHedge(generation: generation) {
                        let gate = StartGate(opensAt: opensAt, clock: clock)
                        held[candidate] = (gate, generation)
                        let url = nodes[candidate].url
                        let hold = HeldRequest(transport: holder.transport, gate: gate, cutOff: holder.cutOff)
                        group.addTask {
                            .settled(candidate, await self.attempt(url, path, query, deadline, handler, heldBy: hold))
                        }
                    }
                case .hedgeTimer(let generation)?:
                    actions = machine.hedgeTimerFired(generation: generation)
                    if !actions.isEmpty { log.log(.debug, "no answer after \(hedgeDelay), asking another node too") }
                case .settled(let candidate, let verdict)?:
                    // A held request can answer before its timer wakes us: its instant came first.
                    // Only a failure needs the machine to know it was asked: an answer ends the read.
                    let isFailure = if case .reject = verdict { true } else { false }
                    let hedged = isFailure ? held[candidate].map { machine.hedgeTimerFired(generation: $0.generation) } ?? [] : []
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
                    actions = hedged + actions
                }
            }
        }
        return try result.get()
    }

    /// One node's part of a read. Records what it learned about the node's speed.
    private func attempt<Value: Sendable>(
        _ url: NodeURL, _ path: String, _ query: [(name: String, value: String)], _ deadline: AnyClock.Instant,
        _ handler: ReplyHandler<Value>, heldBy hold: HeldRequest? = nil
    ) async -> ReplyVerdict<Value> {
        let started = clock.now
        // A held request's time counts from its gate's opening; the transport cuts it to the deadline then.
        let timeout = hold == nil ? min(configuration.requestTimeout, started.duration(to: deadline)) : configuration.requestTimeout
        let request = HTTPRequest(url: url.endpoint(path, query: query), timeout: timeout, connectTimeout: configuration.connectTimeout)
        let answer: HTTPAnswer
        do throws(TransportError) {
            if let hold {
                answer = try await hold.transport.send(request, heldBy: hold.gate, cutOff: hold.cutOff)
            } else {
                answer = try await transport.send(request)
            }
        } catch .cancelled {
            // Never sent: the node was not asked.
            guard let sent = hold == nil ? started : hold?.gate.openedAt else { return .reject(.noAnswer(.cancelled)) }
            // Outrun by another node or the deadline: the wait so far is a lower bound.
            recordAnswer(from: url, after: sent.duration(to: clock.now))
            return .reject(.noAnswer(.cancelled))
        } catch {
            recordFailure(of: url, .noAnswer(error))
            return .reject(.noAnswer(error))
        }
        let verdict = handler(NodeReply(answer))
        if case .reject(let kind) = verdict {
            recordFailure(of: url, kind)
        } else {
            let sent = hold?.gate.openedAt ?? started
            recordAnswer(from: url, after: answer.wireTime ?? sent.duration(to: clock.now))
        }
        return verdict
    }
}

/// A hedged request handed over before its instant, and what holds it.
private struct HeldRequest: Sendable {
    let transport: any HoldingHTTPTransport
    let gate: StartGate
    let cutOff: ContinuousClock.Instant
}

private enum ReadEvent<Value: Sendable>: Sendable {
    case settled(Int, ReplyVerdict<Value>)
    /// The hedge of this timer generation is `NodePool.hedgeLead` away; it opens at the instant.
    case hedgeNear(Int, ContinuousClock.Instant)
    case hedgeTimer(Int)
    case deadline
}
