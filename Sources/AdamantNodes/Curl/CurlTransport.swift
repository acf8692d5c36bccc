import CCurl
import Synchronization

/// `HTTPTransport` on libcurl easy handles run by worker threads (see `CurlWorkerPool`).
public final class CurlTransport: HTTPTransport {
    /// Bounds on what one transport takes in and runs at once.
    public struct Configuration: Sendable {
        /// Answers larger than this (after decompression) are cut off with `.responseTooLarge`.
        public var maxResponseBytes: Int
        /// Transfers that may run at once, one thread and one keep-alive handle each.
        public var maxConcurrentRequests: Int

        /// At most 16 MiB an answer and 24 transfers at once.
        public init(maxResponseBytes: Int = 16 << 20, maxConcurrentRequests: Int = 24) {
            self.maxResponseBytes = maxResponseBytes
            self.maxConcurrentRequests = maxConcurrentRequests
        }
    }

    /// Starts loading libcurl and its libraries on a thread of its own, for a command about
    /// to make requests: the load (5-9 ms on a cold start, most of what a cold `adm-fetch`
    /// waits for) then runs beside the command's own work, the key derivation and the opening
    /// of its stores, instead of after it, when the first request needs libcurl. A request
    /// made before the load has ended waits for it. At most one load ever starts.
    public static func startLoading() {
        guard !loadStarted.exchange(true, ordering: .relaxed) else { return }
        DetachedThread.start { _ = ccurl_load_failure() }
    }

    private static let loadStarted = Atomic(false)

    private let workers: CurlWorkerPool
    private let maxResponseBytes: Int

    /// A transport with its own worker threads, started as transfers need them.
    public init(configuration: Configuration = .init()) {
        workers = CurlWorkerPool(maxWorkers: configuration.maxConcurrentRequests)
        maxResponseBytes = configuration.maxResponseBytes
    }

    /// Cancellation resumes the caller at once, and wakes the worker, which ends the transfer
    /// and frees itself.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPAnswer {
        let reply = OneShot<Result<HTTPAnswer, TransportError>>()
        let cancellation = CancellationFlag()
        let result = await reply.value(
            orOnCancel: .failure(.cancelled), onCancel: { cancellation.raise() },
            start: {
                workers.submit(for: request.url) { [maxResponseBytes] easy in
                    guard !reply.isDelivered else { return {} }  // cancelled while queued
                    let limit = min(maxResponseBytes, request.maxResponseBytes ?? .max)
                    let result = easy.map { $0.perform(request, sizeLimit: limit, cancellation: cancellation) }
                        .flatMap { $0 }
                    return { reply.deliver(result) }
                }
            })
        return try result.get()
    }
}
