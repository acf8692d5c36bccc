import AdamantCore
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes whole lines to file descriptors 1 and 2, unbuffered, so nothing is lost at exit and
/// output never interleaves mid-line. A failed write is remembered: `Tool` turns it into exit 74,
/// since output that silently vanished (a full disk) is not success.
public struct Output: Sendable {
    public enum Stream: String, Sendable {
        case standardOutput = "standard output"
        case standardError = "standard error"
    }

    public struct WriteFailure: Sendable, Equatable {
        public let stream: Stream
        public let errorNumber: Int32
    }

    let standardOutput: Int32
    let standardError: Int32
    private let failures = FailureLog()

    public init(standardOutput: Int32 = 1, standardError: Int32 = 2) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The first write that failed, if any did.
    public var firstFailure: WriteFailure? { failures.first }

    /// Text for a terminal or a log: control characters are escaped, so nothing that came from
    /// outside (a node's error text, a URL) can forge lines or move the cursor. `text` may hold
    /// several lines. `print` tells whether the whole text was written.
    @discardableResult
    public func print(_ text: String) -> Bool { emit(Self.lines(text), to: .standardOutput) }
    public func error(_ text: String) { emit(Self.lines(text), to: .standardError) }

    /// A notification's own text (a title, a body), escaped as `print` escapes but for the
    /// isolation marks its wording put around each value (`escapingControlCharactersButIsolates`),
    /// so that a right-to-left sentence reads as it does in its bubble. Tells whether the whole
    /// text was written.
    @discardableResult
    public func printShown(_ text: String) -> Bool {
        emit(
            text.split(separator: "\n", omittingEmptySubsequences: false).map(\.escapingControlCharactersButIsolates)
                .joined(separator: "\n") + "\n", to: .standardOutput)
    }

    /// A prompt on standard error, without a newline.
    public func prompt(_ text: String) { emit(text.escapingControlCharacters, to: .standardError) }

    /// A progress line on standard error, drawn over the previous one: back to the line's
    /// start, the text, and the rest of the old line erased (ECMA-48 EL).
    func progress(_ text: String) { emit("\r" + text.escapingControlCharacters + "\u{1B}[K", to: .standardError) }
    func clearProgress() { emit("\r\u{1B}[K", to: .standardError) }

    /// One JSON object on one line, keys sorted so output is stable (the encoder escapes
    /// control characters itself). Tells whether the whole line was written.
    @discardableResult
    public func printJSON(_ value: some Encodable) -> Bool {
        // Encoding our own plain value types cannot fail.
        return emit(String(decoding: try! JSONCoding.encode(value), as: UTF8.self) + "\n", to: .standardOutput)
    }

    private static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(\.escapingControlCharacters).joined(
            separator: "\n") + "\n"
    }

    @discardableResult
    private func emit(_ text: String, to stream: Stream) -> Bool {
        let descriptor = stream == .standardOutput ? standardOutput : standardError
        let stop = StopNotice.descriptor
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // While a command stops on signals, each piece waits for room beside the stop
            // notice rather than in write(2), where no signal reaches it: a pipe or socket
            // that polls writable takes this much without blocking.
            var count = bytes.count
            if stop >= 0 {
                // stopped: not a failure of the output
                guard Self.writable(descriptor, unless: stop) else { return false }
                count = min(count, Self.pieceBytes)
            }
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            let number = written < 0 ? errno : EIO
            if number == EINTR { continue }
            if number == EAGAIN || number == EWOULDBLOCK {  // an inherited non-blocking descriptor
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, -1) >= 0 || errno == EINTR { continue }
            }
            failures.record(WriteFailure(stream: stream, errorNumber: number))
            return false
        }
        return true
    }

    /// PIPE_BUF on Linux: what a pipe with a free slot takes whole.
    private static let pieceBytes = 4_096

    /// Waits until `descriptor` takes bytes; false when `stop` became readable first.
    private static func writable(_ descriptor: Int32, unless stop: Int32) -> Bool {
        var watched = [
            pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if poll(&watched, 2, -1) < 0 {
                if errno == EINTR { continue }
                return true  // cannot wait: the write says what is wrong
            }
            if watched[0].revents != 0 { return true }  // room, or an error the write reports
            if watched[1].revents != 0 { return false }
        }
    }
}

private final class FailureLog: Sendable {
    private let state = Mutex<Output.WriteFailure?>(nil)

    var first: Output.WriteFailure? { state.withLock { $0 } }

    func record(_ failure: Output.WriteFailure) {
        state.withLock { first in if first == nil { first = failure } }
    }
}
