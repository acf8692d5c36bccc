import CCurl
import Synchronization

/// Raised from any thread to abort a transfer. The transfer's wait is woken at once: it
/// would otherwise sleep until its own timeout, which for a held socket poll is most of a minute.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    /// The multi handle of the transfer under way, if any; under the lock, so it is never woken
    /// after the transfer let go of it.
    private let running = Mutex<CurlMulti?>(nil)

    func raise() {
        raised.store(true, ordering: .sequentiallyConsistent)
        running.withLock { $0?.wake() }
    }

    var isRaised: Bool { raised.load(ordering: .sequentiallyConsistent) }

    /// Runs `transfer` on `multi`, which `raise` wakes meanwhile.
    func whileRunning<T>(on multi: CurlMulti, _ transfer: () -> T) -> T {
        running.withLock { $0 = multi }
        defer { running.withLock { $0 = nil } }
        return transfer()
    }
}

/// A libcurl multi handle, which any thread may wake (`curl_multi_wakeup` is thread-safe).
struct CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    func wake() { ccurl_multi_wakeup(handle) }
}

/// What curl's callbacks write into during one `curl_easy_perform`. They reach it through an
/// unretained pointer, so the performing frame keeps it alive (`withExtendedLifetime`).
final class TransferSink {
    let limit: Int
    let cancellation: CancellationFlag
    private(set) var body: [UInt8] = []
    private(set) var exceededLimit = false

    init(limit: Int, cancellation: CancellationFlag) {
        self.limit = limit
        self.cancellation = cancellation
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> TransferSink {
        Unmanaged<TransferSink>.fromOpaque(opaque!).takeUnretainedValue()
    }

    /// CURLOPT_WRITEFUNCTION. Returning anything but the length aborts the transfer, which is
    /// how the size cap cuts off a node that keeps streaming.
    static func write(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ opaque: UnsafeMutableRawPointer?
    ) -> Int {
        let sink = from(opaque)
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, length <= sink.limit - sink.body.count else {
            sink.exceededLimit = true
            return 0
        }
        if let data { sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
        return length
    }

    /// Asked by `ccurl_perform` before every wait: non-zero ends the transfer, when the caller
    /// gave up.
    static func isCancelled(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
        from(opaque).cancellation.isRaised ? 1 : 0
    }
}
