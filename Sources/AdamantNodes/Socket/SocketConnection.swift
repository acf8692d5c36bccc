package import AdamantCore

/// A node's client socket kept open: runs a `SocketSession` on an `HTTPTransport`, its retry
/// timer on the given clock, and hands on what comes of it, for as long as `run` is let run.
/// The GETs and POSTs of each session are children of a task of that session's own, which ends
/// with the session and cancels what is still out: a long poll of a session that ended would
/// otherwise hold its connection until its timeout. Each group discards a child as it finishes:
/// a plain one keeps every result until it is read, which a connection open for months never
/// does.
package struct SocketConnection: Sendable {
    /// What the watch is told.
    package enum Event: Sendable {
        /// Subscribed: the node's events now arrive.
        case live
        /// A transaction to or from the addresses that the node admitted, verified (its id),
        /// and not sent before.
        case received(Transaction, TransactionID)
        /// The node brings more than a window's worth for the addresses: polls wait (why).
        case paced(SocketTraffic.Pacing)
        /// The session ended (events may be lost until `live` again), and a new one is tried.
        case down(SessionEnd)
    }

    /// `http://host:port` of the socket, as the node's `wsClient` places it.
    package let origin: String
    let addresses: [Address]
    let types: [Int]
    let transport: any HTTPTransport
    let clock: AnyClock
    let configuration: SocketSession.Configuration
    /// The proxy and circuit of each request, as the pool's for the socket's node.
    let hop: ProxyHop
    let circuit: String?

    package init(
        origin: String, addresses: [Address], types: [Int], transport: any HTTPTransport, clock: AnyClock = .continuous,
        configuration: SocketSession.Configuration = .init(), hop: ProxyHop = .direct, circuit: String? = nil
    ) {
        self.hop = hop
        self.circuit = circuit
        self.origin = origin
        self.addresses = addresses
        self.types = types
        self.transport = transport
        self.clock = clock
        self.configuration = configuration
    }

    /// One GET or POST, and the handing on of its answer.
    private typealias Exchange = @Sendable () async -> Void

    private enum Completion: Sendable {
        case polled(epoch: Int, Result<HTTPAnswer, TransportError>)
        case sent(epoch: Int, Result<HTTPAnswer, TransportError>)
        case retry(generation: Int)
    }

    /// Keeps the socket open, handing each event to `handle` as it comes, until `handle`
    /// returns false or the calling task is cancelled; every request and timer of the
    /// connection has ended when this returns.
    package func run(_ handle: (Event) -> Bool) async {
        var session = SocketSession(addresses: addresses, types: types, configuration: configuration)
        let (completions, sink) = AsyncStream.makeStream(of: Completion.self)
        var handling = true
        func output(_ event: Event) { handling = handling && handle(event) }
        // A node answering every poll at once, with anything, would otherwise keep this busy
        // without end; one bringing a burst for the addresses is only slowed down.
        var traffic = SocketTraffic(
            addresses: addresses, window: configuration.floodWindow, limit: configuration.maximumArrivalsPerWindow)
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                var requests: (epoch: Int, sink: AsyncStream<Exchange>.Continuation)?
                /// Runs `exchange` as a child of its session's task, started with the session's
                /// first request; a request of a new epoch ends the task of the one before.
                func inSession(_ epoch: Int, _ exchange: @escaping Exchange) {
                    if requests?.epoch != epoch {
                        requests?.sink.finish()
                        let (exchanges, sink) = AsyncStream.makeStream(of: Exchange.self)
                        requests = (epoch, sink)
                        group.addTask {
                            await withDiscardingTaskGroup { session in
                                for await exchange in exchanges { session.addTask { await exchange() } }
                                session.cancelAll()
                            }
                        }
                    }
                    requests?.sink.yield(exchange)
                }
                func perform(_ actions: [SocketSession.Action], answered: Bool = false) {
                    var pause = Duration.zero
                    if answered {
                        let arrived = actions.compactMap {
                            if case .received(let transaction) = $0 { transaction } else { nil }
                        }
                        let (taken, verdict) = traffic.answered(with: arrived, at: clock.now)
                        if case .abandon(let why) = verdict { return perform(session.abandon(why)) }
                        for (transaction, id) in taken { output(.received(transaction, id)) }
                        if case .pace(let delay, let news) = verdict {
                            pause = delay
                            if let news { output(.paced(news)) }
                        }
                    }
                    for action in actions {
                        switch action {
                        case .poll(let epoch, let sid, let timeout):
                            let request = HTTPRequest(
                                url: url(sid), timeout: timeout, connectTimeout: configuration.requestTimeout,
                                maxResponseBytes: configuration.maximumAnswerBytes, hop: hop, circuit: circuit)
                            inSession(epoch) { [transport, clock, pause] in
                                if pause > .zero, (try? await clock.sleep(for: pause)) == nil { return }
                                sink.yield(.polled(epoch: epoch, await Self.exchange(request, transport)))
                            }
                        case .send(let epoch, let sid, let body):
                            let request = HTTPRequest(
                                method: .post, url: url(sid), body: body, timeout: configuration.requestTimeout,
                                connectTimeout: configuration.requestTimeout, hop: hop, circuit: circuit)
                            inSession(epoch) { [transport] in
                                sink.yield(.sent(epoch: epoch, await Self.exchange(request, transport)))
                            }
                        case .live: output(.live)
                        case .received: continue  // taken above, sorted
                        case .down(let end, let delay, let generation):
                            requests?.sink.finish()
                            requests = nil
                            output(.down(end))
                            group.addTask { [clock] in
                                guard (try? await clock.sleep(for: delay)) != nil else { return }
                                sink.yield(.retry(generation: generation))
                            }
                        }
                    }
                }
                perform(session.start())
                for await completion in completions {
                    guard handling, !Task.isCancelled else { break }
                    switch completion {
                    case .polled(let epoch, .success(let answer)):
                        perform(
                            session.pollAnswered(epoch: epoch, status: answer.status, body: answer.body), answered: true
                        )
                    case .polled(let epoch, .failure(.responseTooLarge(let limit))):
                        // Cut off as it came, so a huge answer costs no more memory than the cap.
                        perform(
                            session.abandon(
                                SocketProtocolError("the socket sent more than \(limit) bytes in one answer"),
                                epoch: epoch))
                    case .polled(let epoch, .failure(let error)): perform(session.pollFailed(epoch: epoch, error))
                    case .sent(let epoch, .success(let answer)):
                        perform(session.sendAnswered(epoch: epoch, status: answer.status, body: answer.body))
                    case .sent(let epoch, .failure(let error)): perform(session.sendFailed(epoch: epoch, error))
                    case .retry(let generation): perform(session.retryTimerFired(generation: generation))
                    }
                    if !handling { break }
                }
                group.cancelAll()
            }
        } onCancel: {
            sink.finish()
        }
    }

    private func url(_ sid: String?) -> String {
        origin + "/socket.io/?EIO=4&transport=polling" + (sid.map { "&sid=" + $0 } ?? "")
    }

    private static func exchange(_ request: HTTPRequest, _ transport: any HTTPTransport) async -> Result<
        HTTPAnswer, TransportError
    > {
        do throws(TransportError) { return .success(try await transport.send(request)) } catch {
            return .failure(error)
        }
    }
}
