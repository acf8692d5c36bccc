public import AdamantCore

/// Typed calls on the ADAMANT node API over a `NodePool`. Reads are hedged and every answer
/// is checked; writes are classified, never blindly repeated. Each call ends within `deadline`.
public struct NodeClient: Sendable {
    /// The nodes, their health and the request policies every call goes through.
    public let pool: NodePool
    /// The longest one call may take, whatever the nodes do.
    public var deadline: Duration
    /// Runs on every transaction a node returns, on a list's transactions at once. Throwing
    /// counts that node's answer as failed, and another node is asked. The default checks the
    /// signature, sender and reported id.
    public var verify: @Sendable (Transaction) throws -> Void

    /// A client over `pool`, each call within `deadline` (10 s), every returned transaction passed
    /// through `verify`.
    public init(
        pool: NodePool, deadline: Duration = .seconds(10),
        verify: @escaping @Sendable (Transaction) throws -> Void = { try $0.verify() }
    ) {
        self.pool = pool
        self.deadline = deadline
        self.verify = verify
    }

    /// When a call made now must end: after `deadline`, or sooner where the task's work
    /// must end (`endingBy(_:_:)`).
    var callDeadline: AnyClock.Instant {
        let own = pool.clock.now + deadline
        return Self.workEnds.map { min($0, own) } ?? own
    }

    /// The instant by which the task's work through any client must end, when there is one.
    @TaskLocal static var workEnds: AnyClock.Instant?

    /// Runs `work` so that no call it makes through any client (in its child tasks too)
    /// outlasts `instant`, whatever the client's own deadline: for work of many calls that
    /// must end by one deadline, as an outbox's flush.
    package static func endingBy<T: Sendable, Failure: Error>(
        _ instant: AnyClock.Instant, _ work: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result: Result<T, Failure> = await $workEnds.withValue(instant) {
            do throws(Failure) { return .success(try await work()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `/api/node/status` from the best node.
    public func status() async throws(NodeError) -> NodeStatus {
        try await get("/api/node/status", until: callDeadline) { (status: NodeStatus) in status }
    }

    /// The best node's chain height.
    public func height() async throws(NodeError) -> Int64 {
        try await get("/api/blocks/getHeight", until: callDeadline) { (body: HeightBody) in body.height }
    }

    // MARK: The one way reads are made

    /// A hedged GET whose success body decodes as `Body`; `accept` checks it and may throw to
    /// reject this node's answer. A node error containing one of `ifAbsent.messages` means
    /// "there is no such thing" and gives `ifAbsent.value`.
    func get<Body: Decodable & Sendable, Value: Sendable>(
        _ path: String, _ query: [(name: String, value: String)] = [], until deadline: AnyClock.Instant,
        ifAbsent: (messages: [String], value: Value)? = nil, _ accept: @escaping @Sendable (Body) throws -> Value
    ) async throws(NodeError) -> Value {
        try await get(
            path, query, until: deadline, ifAbsent: ifAbsent,
            decode: { bytes throws(UndecodedAnswer) in
                do { return try JSONCoding.decode(Body.self, from: bytes) } catch {
                    throw UndecodedAnswer(reason: AnswerText.decoding(error))
                }
            }, accept)
    }

    /// The same, its body read by `read` (`JSONReader`): for the answers read on every push,
    /// transactions and their lists.
    func get<Body: Sendable, Value: Sendable>(
        _ path: String, _ query: [(name: String, value: String)] = [], until deadline: AnyClock.Instant,
        ifAbsent: (messages: [String], value: Value)? = nil,
        reading read: @escaping @Sendable (inout JSONReader) throws(JSONReadError) -> Body,
        _ accept: @escaping @Sendable (Body) async throws -> Value
    ) async throws(NodeError) -> Value {
        try await get(
            path, query, until: deadline, ifAbsent: ifAbsent,
            decode: { bytes throws(UndecodedAnswer) in
                do throws(JSONReadError) { return try JSONReader.read(bytes, read) } catch {
                    throw UndecodedAnswer(reason: AnswerText.quoted(error.description))
                }
            }, accept)
    }

    private func get<Body: Sendable, Value: Sendable>(
        _ path: String, _ query: [(name: String, value: String)], until deadline: AnyClock.Instant,
        ifAbsent: (messages: [String], value: Value)?,
        decode: @escaping @Sendable ([UInt8]) throws(UndecodedAnswer) -> Body,
        _ accept: @escaping @Sendable (Body) async throws -> Value
    ) async throws(NodeError) -> Value {
        try await pool.read(path, query: query, deadline: deadline) { reply in
            switch reply {
            case .success(let bytes):
                let body: Body
                do throws(UndecodedAnswer) { body = try decode(bytes) } catch {
                    return .reject(.badAnswer(error.reason))
                }
                do { return .accept(try await accept(body)) } catch {
                    return .reject(.unverifiable(AnswerText.quoted("\(error)")))
                }
            case .failure(let message, let status):
                if let ifAbsent, ifAbsent.messages.contains(where: message.contains) { return .accept(ifAbsent.value) }
                let meaning = NodeErrorClass(message: message, status: status, isResend: false)
                return meaning.meansAnotherNodeMayAnswer
                    ? .reject(.nodeError(message: message, status: status)) : .refuse(message)
            case .notFromNode(let reason):
                return .reject(.notANode(reason))
            case .malformed(let reason):
                return .reject(.badAnswer(reason))
            }
        }
    }
}

/// `/api/blocks/getHeight`, its height range-checked.
private struct HeightBody: Decodable {
    var height: Int64

    private enum Keys: String, CodingKey { case height }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        height = try container.decode(Int64.self, forKey: .height)
        guard Plausible.heights.contains(height) else {
            throw DecodingError.dataCorruptedError(
                forKey: .height, in: container, debugDescription: "\(height) is not a block height")
        }
    }
}

/// Why a success body is not what the call expects, in `AnswerText` words.
private struct UndecodedAnswer: Error {
    var reason: String
}

/// Why an answer that decoded fine is still not acceptable.
struct AnswerRejection: Error, CustomStringConvertible {
    var description: String
}
