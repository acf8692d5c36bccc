import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pty pair: the child gets the replica as its standard input, the test types and reads the
/// terminal's settings on the master side.
final class PseudoTerminal: Sendable {
    let master: Int32
    let replica: FileHandle

    init() throws {
        var master: Int32 = -1
        var replica: Int32 = -1
        guard openpty(&master, &replica, nil, nil, nil) == 0 else { throw POSIXError(.EIO) }
        self.master = master
        self.replica = FileHandle(fileDescriptor: replica, closeOnDealloc: true)
    }

    deinit { close(master) }

    /// Whether the terminal echoes what is typed (false while a passphrase is asked).
    var echoIsOn: Bool {
        var settings = termios()
        return tcgetattr(master, &settings) == 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }

    func type(_ text: String) {
        _ = text.withCString { write(master, $0, strlen($0)) }
    }

    /// What the terminal showed so far (echoed input included), without waiting.
    func screen() -> String {
        var shown = [UInt8](repeating: 0, count: 4096)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        let count = read(master, &shown, shown.count)
        return String(decoding: shown.prefix(max(count, 0)), as: UTF8.self)
    }
}

/// The one-letter state in /proc/PID/stat: "T" once a process is stopped.
func processState(_ pid: Int32) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(after: end)...].split(separator: " ").first.map(String.init)
}
