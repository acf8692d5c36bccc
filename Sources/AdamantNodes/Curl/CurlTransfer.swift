import CCurl
import Synchronization

/// Raised from any thread to abort a transfer; curl's progress callback polls it on the worker.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .relaxed) }
    var isRaised: Bool { raised.load(ordering: .relaxed) }
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
    static func write(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ opaque: UnsafeMutableRawPointer?) -> Int {
        let sink = from(opaque)
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, length <= sink.limit - sink.body.count else {
            sink.exceededLimit = true
            return 0
        }
        if let data { sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
        return length
    }

    /// CURLOPT_XFERINFOFUNCTION: non-zero aborts with CURLE_ABORTED_BY_CALLBACK, when the
    /// caller gave up.
    static func progress(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
        from(opaque).cancellation.isRaised ? 1 : 0
    }
}
