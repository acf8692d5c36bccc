import Foundation

/// Writes whole lines to file descriptors 1 and 2, unbuffered, so nothing is lost at exit and
/// output never interleaves mid-line.
public struct Output: Sendable {
    let standardOutput: Int32
    let standardError: Int32

    public init(standardOutput: Int32 = 1, standardError: Int32 = 2) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    public func print(_ line: String) { emit(line + "\n", to: standardOutput) }
    public func error(_ line: String) { emit(line + "\n", to: standardError) }

    /// One JSON object on one line, keys sorted so output is stable.
    public func printJSON(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own plain value types cannot fail.
        print(String(decoding: try! encoder.encode(value), as: UTF8.self))
    }

    private func emit(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // EPIPE (a closed pager): nothing more to say
            bytes = bytes.dropFirst(written)
        }
    }
}
