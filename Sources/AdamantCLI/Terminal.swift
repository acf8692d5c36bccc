import Foundation

/// The controlling terminal on standard input, for asking a secret with echo off.
public struct Terminal: Sendable {
    let input: Int32

    public init(input: Int32 = 0) { self.input = input }

    public var isInteractive: Bool { isatty(input) == 1 }

    /// Prints `prompt` on stderr and reads one line with echo off. The bytes are returned for
    /// the caller to consume and zero; nil at end of input.
    public func readSecretLine(prompt: String) -> [UInt8]? {
        var saved = termios()
        let canHideEcho = tcgetattr(input, &saved) == 0
        if canHideEcho {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(input, TCSAFLUSH, &hidden)
        }
        defer {
            if canHideEcho {
                tcsetattr(input, TCSAFLUSH, &saved)
                _ = "\n".withCString { write(2, $0, 1) }  // the user's Enter was not echoed
            }
        }
        _ = prompt.withCString { write(2, $0, strlen($0)) }

        var line = [UInt8](repeating: 0, count: 4096)  // sized up front: no reallocated copies
        var length = 0
        while length < line.count {
            let count = line.withUnsafeMutableBytes { read(input, $0.baseAddress! + length, 1) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { if length == 0 { return nil } else { break } }
            if line[length] == UInt8(ascii: "\n") { break }
            length += 1
        }
        line.removeSubrange(length...)
        return line
    }
}
