import AdamantCore
import Synchronization
import Testing

@testable import AdamantNodes

@Suite(.timeLimit(.minutes(1))) struct CurlTransportTests {
    let transport = CurlTransport(configuration: .init(maxResponseBytes: 64 * 1024))
    private let servers = Servers()

    /// Keeps each test's servers open until the test ends: a server used only for its port
    /// would be closed right after that use, and the port could be another test's server by
    /// the time the request reaches it.
    private final class Servers: Sendable {
        let started = Mutex<[LoopbackServer]>([])
    }

    func serving(_ mode: LoopbackServer.Mode) -> LoopbackServer {
        let server = LoopbackServer(mode)
        servers.started.withLock { $0.append(server) }
        return server
    }

    func get(_ url: String, timeout: Duration = .seconds(5)) -> HTTPRequest {
        HTTPRequest(url: url, timeout: timeout, connectTimeout: .seconds(2))
    }

    @Test func answersAnyStatusWithItsBody() async throws {
        let body = #"{"success":false,"error":"API endpoint not found"}"#
        let server = serving(
            .canned(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            ))
        let answer = try await transport.send(get("http://127.0.0.1:\(server.port)/api/chats/foo"))
        #expect(answer.status == 500 && answer.contentType == "application/json" && answer.body == Array(body.utf8))
        #expect(answer.wireTime.map { $0 > .zero && $0 < .seconds(5) } == true)
    }

    /// Bytes that are not HTTP at all, or nothing: a broken answer, not an "invalid request".
    @Test(arguments: ["garbage, not HTTP\r\n\r\n", ""])
    func aBrokenAnswerIsNotAnInvalidRequest(response: String) async {
        let server = serving(.canned(response))
        do {
            _ = try await transport.send(get("http://127.0.0.1:\(server.port)/api/node/status"))
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("broken HTTP answer: "), "\(error)")
        }
    }

    @Test func postsTheBodyAsJSON() async throws {
        let server = serving(.canned("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        let body = Array(#"{"transaction":{}}"#.utf8)
        let request = HTTPRequest(
            method: .post, url: "http://127.0.0.1:\(server.port)/api/chats/process", body: body, timeout: .seconds(5),
            connectTimeout: .seconds(2))
        _ = try await transport.send(request)
        let received = try #require(server.requests.first)
        #expect(received.hasPrefix("POST /api/chats/process HTTP/1.1\r\n"))
        #expect(received.contains("Content-Type: application/json\r\n") && received.hasSuffix(#"{"transaction":{}}"#))
    }

    /// Nodes compress their answers when asked; the transport asks, and decodes.
    @Test func acceptsAndDecodesGzip() async throws {
        // gzip of {"success":true,"height":7}
        let gzipped = Hex.decode(
            "1f8b0800000000000203ab562a2e4d4e4e2d2e56b22a292a4dd551ca48cd4ccf2851b232af0500c22106af1b000000")!
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: \(gzipped.count)\r\n\r\n"
        let server = serving(.cannedBytes(Array(head.utf8) + gzipped))
        let answer = try await transport.send(get("http://127.0.0.1:\(server.port)/api/blocks/getHeight"))
        #expect(answer.body == Array(#"{"success":true,"height":7}"#.utf8))
        #expect(
            try #require(server.requests.first).lowercased().contains("accept-encoding:")
                && server.requests[0].contains("gzip"))
    }

    /// A redirect could lead to a host the user never chose: it is returned, never followed.
    @Test func redirectsAreNotFollowed() async throws {
        let elsewhere = serving(.canned("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        let redirecting = serving(
            .canned(
                "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(elsewhere.port)/api/node/status\r\nContent-Length: 0\r\n\r\n"
            ))
        for method in [HTTPRequest.Method.get, .post] {
            let request = HTTPRequest(
                method: method, url: "http://127.0.0.1:\(redirecting.port)/api/node/status",
                body: method == .post ? [] : nil,
                timeout: .seconds(5), connectTimeout: .seconds(2))
            #expect(try await transport.send(request).status == 302)
        }
        #expect(elsewhere.requests.isEmpty)
    }

    /// Said without the milliseconds libcurl adds, so every node refused reads the same.
    @Test func connectionRefusedIsATransportError() async {
        let port = LoopbackServer.closedPort()
        do {
            _ = try await transport.send(get("http://127.0.0.1:\(port)/api/node/status"))
            Issue.record("expected an error")
        } catch {
            guard case .unreachable(let detail) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(detail == "Failed to connect to 127.0.0.1 port \(port): Couldn't connect to server")
        }
    }

    @Test(arguments: ["http://exa mple.com/", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func invalidRequests(url: String) async {
        do {
            _ = try await transport.send(get(url))
            Issue.record("expected an error")
        } catch {
            guard case .invalidRequest = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }

    @Test func aSilentPeerTimesOut() async {
        let server = serving(.silent)
        await #expect(throws: TransportError.timedOut) {
            try await transport.send(get("http://127.0.0.1:\(server.port)/", timeout: .milliseconds(300)))
        }
    }

    @Test func cancellationEndsTheWaitAtOnce() async {
        let server = serving(.mute)
        let request = Task { try await transport.send(get("http://127.0.0.1:\(server.port)/", timeout: .seconds(30))) }
        #expect(await eventually { !server.requests.isEmpty }, "the request reached the server")
        let cancelled = ContinuousClock.now
        request.cancel()
        await #expect(throws: TransportError.cancelled) { try await request.value }
        #expect(cancelled.duration(to: .now) < .seconds(10))  // the request would run 30 s
    }

    /// The cancelled transfer's worker is woken and freed at once, though its server holds
    /// it: with one worker, the next request is answered long before the held one's 30 s.
    @Test func aCancelledTransferFreesItsWorkerAtOnce() async throws {
        let single = CurlTransport(configuration: .init(maxResponseBytes: 64 * 1024, maxConcurrentRequests: 1))
        let held = serving(.mute)
        let request = Task { try await single.send(get("http://127.0.0.1:\(held.port)/", timeout: .seconds(30))) }
        #expect(await eventually { !held.requests.isEmpty }, "the request reached the server")
        request.cancel()
        let answering = serving(.canned("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
        let asked = ContinuousClock.now
        #expect(try await single.send(get("http://127.0.0.1:\(answering.port)/", timeout: .seconds(25))).status == 200)
        #expect(asked.duration(to: .now) < .seconds(10))
    }

    @Test func aStreamingPeerIsCutOffAtTheCap() async {
        let server = serving(.endlessBody)
        await #expect(throws: TransportError.responseTooLarge(limit: 64 * 1024)) {
            try await transport.send(get("http://127.0.0.1:\(server.port)/"))
        }
    }
}
