#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The controlling terminal on standard input, for asking a secret with echo off.
public struct Terminal: Sendable {
    let input: Int32

    public init(input: Int32 = 0) { self.input = input }

    public var isInteractive: Bool { isatty(input) == 1 }

    /// Said before the prompt is repeated after Ctrl-Z and `fg`: the terminal dropped what was
    /// typed, and it was not shown, so without this the user would finish a passphrase whose
    /// start is gone.
    private static let discardedByStop = "What was typed before the stop was discarded: type it again from the start."

    /// Prints `prompt` on stderr and reads one line with echo off (see `HiddenEcho` for what
    /// signals do meanwhile). The bytes are returned for the caller to consume and zero; nil
    /// when nothing was entered (end of input, or an empty line).
    public func readSecretLine(prompt: String, output: Output) throws(CLIError) -> [UInt8]? {
        let line = HiddenEcho.run(on: input) { waiter -> [UInt8] in
            output.prompt(prompt)
            defer { output.error("") }  // the user's Enter was not echoed
            return readLine(waiter) {
                output.error(Self.discardedByStop)
                output.prompt(prompt)
            }
        }
        guard let line else {
            throw .invalidInput("cannot turn off echo on the terminal: \(String(cString: strerror(errno)))")
        }
        return line.isEmpty ? nil : line
    }

    private func readLine(_ waiter: HiddenEcho.Waiter, askAgain: () -> Void) -> [UInt8] {
        var line = [UInt8](repeating: 0, count: 4096)  // sized up front: no reallocated copies
        var length = 0
        while length < line.count {
            if waiter.next() == .resumed {
                // The rest of this line went with the stop, so its start goes too.
                for index in 0..<length { line[index] = 0 }
                length = 0
                askAgain()
                continue
            }
            let count = line.withUnsafeMutableBytes { read(input, $0.baseAddress! + length, 1) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0, line[length] != UInt8(ascii: "\n") else { break }
            length += 1
        }
        line.removeSubrange(length...)
        return line
    }
}
