import AdamantCore
import Foundation
import Synchronization

@testable import AdamantNodes

/// What a scripted node does with one request.
enum Behavior: Sendable {
    /// `late`: the asking task is given the answer this long after it arrived, as on a loaded device.
    case answer(
        status: Int = 200, body: String, contentType: String? = "application/json", after: Duration = .zero,
        late: Duration = .zero)
    case fail(TransportError, after: Duration = .zero)
    /// Accepts and never answers: only the request's timeout or cancellation ends it.
    case blackhole

    static func json(_ body: String, after delay: Duration = .zero) -> Behavior { .answer(body: body, after: delay) }
    static func nodeError(_ message: String, status: Int = 200) -> Behavior {
        .answer(status: status, body: #"{"success":false,"nodeTimestamp":1,"error":"\#(message)"}"#)
    }
    static let htmlPage = Behavior.answer(
        status: 502, body: "<html><body>Bad gateway</body></html>", contentType: "text/html")
}

/// An in-memory network: each node base URL maps requests to behaviours. Delays are sleeps on
/// `clock` (real time unless a test passes a `ManualClock`) that honour cancellation and the
/// request's timeout, like a real transport.
final class ScriptedTransport: HTTPTransport {
    private let clock: AnyClock
    private let nodes = Mutex<[String: @Sendable (HTTPRequest, _ path: String) -> Behavior]>([:])
    private let sent = Mutex<[HTTPRequest]>([])
    private let running = Mutex(0)
    private let (arrivals, arrived) = AsyncStream.makeStream(of: HTTPRequest.self)

    init(clock: AnyClock = .continuous) { self.clock = clock }

    /// Every request as it arrives, for tests that wait for background work.
    var requestStream: AsyncStream<HTTPRequest> { arrivals }

    func route(_ base: String, _ respond: @escaping @Sendable (HTTPRequest, _ path: String) -> Behavior) {
        nodes.withLock { $0[base] = respond }
    }

    /// A node that answers its status as given and every other path from `paths` (404 HTML otherwise).
    func node(_ base: String, _ status: FakeStatus = FakeStatus(), paths: [String: Behavior] = [:]) {
        route(base) { _, path in
            if let scripted = paths[path] { return scripted }
            if path == "/api/node/status" { return .json(status.json) }
            return .answer(status: 404, body: "<html>Cannot GET</html>", contentType: "text/html")
        }
    }

    var requests: [HTTPRequest] { sent.withLock { $0 } }

    /// Requests sent and not yet answered, failed or cancelled.
    var inFlight: Int { running.withLock { $0 } }

    func requests(to path: String) -> [HTTPRequest] { requests.filter { Self.split($0.url).path == path } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        sent.withLock { $0.append(request) }
        running.withLock { $0 += 1 }
        defer { running.withLock { $0 -= 1 } }
        arrived.yield(request)
        let (base, path) = Self.split(request.url)
        guard let respond = nodes.withLock({ $0[base] }) else { throw .unreachable("connection refused") }
        switch respond(request, path) {
        case .answer(let status, let body, let contentType, let delay, let late):
            try await wait(delay, within: request.timeout)
            return HTTPAnswer(
                status: status, contentType: contentType, body: Array(body.utf8), wireTime: delay,
                arrivedAt: .now - late)
        case .fail(let error, let delay):
            try await wait(delay, within: request.timeout)
            throw error
        case .blackhole:
            try await wait(.seconds(3600), within: request.timeout)
            throw .timedOut
        }
    }

    private func wait(_ delay: Duration, within timeout: Duration) async throws(TransportError) {
        do { try await clock.sleep(until: clock.now + min(delay, timeout)) } catch { throw .cancelled }
        if delay > timeout { throw .timedOut }
    }

    /// `http://host:port` and the path without its query.
    static func split(_ url: String) -> (base: String, path: String) {
        let parts = URLComponents(string: url)!
        let base = "\(parts.scheme!)://\(parts.host!)" + (parts.port.map { ":\($0)" } ?? "")
        return (base, parts.path)
    }

    static func query(_ request: HTTPRequest) -> [String: String] {
        let items = URLComponents(string: request.url)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }
}

/// A `/api/node/status` body in the 0.10.3 shape (0.9 without `nodeTimestampMs`).
struct FakeStatus: Sendable {
    var height: Int64 = 1_000
    var version = "0.10.3"
    var nethash = Nethash.mainnet.hex
    /// The node's clock, ms since the ADAMANT epoch.
    var epochMillis: Int64 = Fixtures.nodeEpochMillis
    var reportsMillis = true

    var json: String {
        let millis = reportsMillis ? #","nodeTimestampMs":\#(epochMillis)"# : ""
        return #"""
            {"success":true,"nodeTimestamp":\#(epochMillis / 1000),"network":{"height":\#(height),"nethash":"\#(nethash)"},"version":{"build":"","commit":"c32e74","version":"\#(version)"}\#(millis)}
            """#
    }
}

/// Hands out 0, 1, 2, … to requests in arrival order, so a test can script "the first node
/// asked" without depending on which node ranks first.
final class ArrivalOrder: Sendable {
    private let next = Mutex(0)

    func take() -> Int {
        next.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
