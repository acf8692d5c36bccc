import AdamantCore

/// What came of the pool's requests through each proxy since something last came through it:
/// when nothing has, and every request went through a proxy, a failed operation failed for
/// the proxy, and says so instead of blaming each node.
struct ProxyTrail: Sendable {
    private struct Record: Sendable {
        /// The first request sent since the proxy last carried one.
        var waitingSince: AnyClock.Instant?
        /// The proxy's own failure, the last since it last carried a request.
        var failure: String?
    }

    private var records: [String: Record] = [:]
    /// A request went straight to a node: a failure is then not the proxy's alone.
    private var wentDirect = false

    mutating func sent(_ request: HTTPRequest, at now: AnyClock.Instant) {
        guard let proxy = request.hop.proxy?.description else {
            wentDirect = true
            return
        }
        if records[proxy, default: Record()].waitingSince == nil {
            records[proxy, default: Record()].waitingSince = now
        }
    }

    mutating func ended(_ request: HTTPRequest, _ outcome: Result<HTTPAnswer, TransportError>) {
        guard let proxy = request.hop.proxy?.description else { return }
        switch outcome {
        case .failure(.proxyFailed(_, let reason)): records[proxy, default: Record()].failure = reason
        // No answer, and no word from the proxy either: nothing came through.
        case .failure(.timedOut), .failure(.cancelled), .failure(.invalidRequest), .failure(.failed): break
        // An answer, or the proxy's word about the node: the proxy carried the request.
        case .success, .failure: records[proxy] = nil
        }
    }

    /// The proxy's fault when every request went through one and nothing came through it
    /// since `waitingSince`; nil when the nodes may be to blame.
    func fault(at now: AnyClock.Instant) -> ProxyFault? {
        guard !wentDirect, records.count == 1, let (proxy, record) = records.first, let since = record.waitingSince
        else { return nil }
        switch record.failure {
        case TransportError.proxyRefusal?: return ProxyFault(proxy: proxy, kind: .refused)
        case let reason?: return ProxyFault(proxy: proxy, kind: .failed(reason))
        case nil: return ProxyFault(proxy: proxy, kind: .silent(since.duration(to: now)))
        }
    }
}

/// A failure of the proxy every request goes through: nothing came through it.
public struct ProxyFault: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy failed.
    public enum Kind: Sendable, Hashable {
        /// Nothing listens where it should be.
        case refused
        /// It was reached, and failed in these words.
        case failed(String)
        /// It said nothing for this long.
        case silent(Duration)
    }

    /// The proxy's URL.
    public var proxy: String
    /// How it failed.
    public var kind: Kind

    /// What went wrong, and what to do.
    public var description: String {
        switch kind {
        case .refused: "the proxy \(proxy) refused the connection: start it, or give another --proxy"
        case .failed(let reason): "the proxy \(proxy) failed: \(reason): check it, or give another --proxy"
        case .silent(let wait):
            "the proxy \(proxy) did not answer within \(Self.seconds(wait)) s: check that it is running and reaches the nodes, or give another --proxy"
        }
    }

    /// Whole seconds, rounded: the wait is the deadline's, give or take the moment it took.
    private static func seconds(_ duration: Duration) -> Int64 {
        (duration + .milliseconds(500)).components.seconds
    }
}
