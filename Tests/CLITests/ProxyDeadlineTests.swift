import AdamantCore
import Foundation
import Synchronization
import Testing

/// A command's deadline holds through a proxy that fails, and the error names the proxy: one
/// that refuses at once (a port with nothing listening), and one that takes the connection and
/// never says a word (a listener that accepts and never writes, where even the SOCKS greeting
/// goes unanswered).
@Suite("proxy deadlines", .timeLimit(.minutes(3)))
struct ProxyDeadlineTests {
    /// Past the deadline, what starting and ending a process may take on a machine loaded by
    /// the rest of the suite; what it guards against took 30 s and more.
    static let margin = Duration.seconds(5)
    static let token = String(repeating: "3c", count: 32)

    /// `body`'s result and how long its process ran.
    static func timed(_ body: () async throws -> RunResult) async throws -> (RunResult, Duration) {
        let result = try await body()
        return (result, result.elapsed)
    }

    @Test func aRegisterThroughAProxyThatRefusesEndsByItsDeadlineNamingTheProxy() async throws {
        let network = try await FetchDevnet()
        let held = try ClosedPort()
        let url = "socks5h://127.0.0.1:\(held.port)"
        let (register, elapsed) = try await Self.timed {
            try await network.outbox.push([
                "register", "--token", Self.token, "--provider", "apns", "--deadline", "5", "--proxy", url,
            ])
        }
        #expect(register.status == 75, "\(register.stderr)")
        #expect(elapsed < .seconds(5) + Self.margin, "the 5 s deadline held: \(elapsed)")
        #expect(
            register.stderr.contains(
                "Error: the proxy \(url) refused the connection: start it, or give another --proxy\n"),
            "\(register.stderr)")
        let queue = try await network.outbox.push(["queue", "--json"])
        #expect(queue.stdout.contains(#""action":"add""#), "the intent is kept: \(queue.stdout)")
    }

    /// A register makes many calls, each of its own deadline: every one ends by the command's.
    @Test func aRegisterThroughAProxyThatNeverAnswersEndsByItsDeadlineNamingTheProxy() async throws {
        let network = try await FetchDevnet()
        let silent = try SilentListener()
        defer { silent.stop() }
        let url = "socks5h://127.0.0.1:\(silent.port)"
        let (register, elapsed) = try await Self.timed {
            try await network.outbox.push([
                "register", "--token", Self.token, "--provider", "apns", "--deadline", "5", "--proxy", url,
            ])
        }
        #expect(register.status == 75, "\(register.stderr)")
        #expect(elapsed < .seconds(5) + Self.margin, "the 5 s deadline held: \(elapsed)")
        #expect(register.stderr.contains("Error: the proxy \(url) did not answer within 5 s: "), "\(register.stderr)")
        #expect(silent.accepted > 0, "the proxy was asked")
    }

    @Test func aFetchThroughAProxyThatNeverAnswersEndsByItsDeadlineNamingTheProxy() async throws {
        let network = try await FetchDevnet()
        let silent = try SilentListener()
        defer { silent.stop() }
        let url = "socks5h://127.0.0.1:\(silent.port)"
        let (fetched, elapsed) = try await Self.timed {
            try await network.fetch(["12345", "--deadline", "5", "--no-names", "--proxy", url])
        }
        #expect(fetched.status == 69, "\(fetched.stderr)")
        #expect(elapsed < .seconds(5) + Self.margin, "the 5 s deadline held: \(elapsed)")
        #expect(
            fetched.stderr.contains(
                "Error: the proxy \(url) did not answer within 5 s: check that it is running and reaches the nodes"),
            "\(fetched.stderr)")
    }

    /// With no --deadline, a fetch's is 25 s whatever the route, until the route's latency is
    /// measured: a first circuit's allowance is each request's, not the user's wait.
    @Test func aFetchsDefaultDeadlineHoldsThroughAProxyThatNeverAnswers() async throws {
        let network = try await FetchDevnet()
        let silent = try SilentListener()
        defer { silent.stop() }
        let url = "socks5h://127.0.0.1:\(silent.port)"
        let (fetched, elapsed) = try await Self.timed {
            try await network.fetch(["12345", "--no-names", "--proxy", url])
        }
        #expect(fetched.status == 69, "\(fetched.stderr)")
        #expect(elapsed < .seconds(25) + Self.margin, "the 25 s deadline held: \(elapsed)")
        #expect(fetched.stderr.contains("Error: the proxy \(url) did not answer within 25 s: "), "\(fetched.stderr)")
    }
}

/// A loopback port that takes every connection and never writes a byte, until stopped: a
/// proxy that hangs before even its greeting.
final class SilentListener: Sendable {
    let port: Int
    private let listener: Int32
    private let held = Mutex<[Int32]>([])

    init() throws {
        (listener, port) = try ClosedPort.loopback(listening: true)
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                held.withLock { $0.append(client) }
            }
        }
    }

    /// How many connections it took.
    var accepted: Int { held.withLock { $0.count } }

    /// Stops taking connections and closes those it took.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in held.withLock({ $0 }) { close(fd) }
    }
}
