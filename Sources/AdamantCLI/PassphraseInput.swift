public import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a passphrase may come from: a private file, the environment, or a no-echo prompt.
/// Never argv, which every user of the machine can read in /proc.
public enum PassphraseInput {
    public static let option = SingleOption(
        "passphrase-file", valueName: "path", valueKind: .file,
        help: "Read the passphrase from this file (mode 600 or stricter).")

    public static let help = """
        The passphrase is read from --passphrase-file PATH (a file only you can read), else from
        the ADM_PASSPHRASE environment variable, else asked for on the terminal with echo off.
        It is never accepted as an argument.
        """

    public static func passphrase(_ arguments: ParsedArguments, _ context: Context) throws(CLIError) -> Passphrase {
        try passphrase(file: arguments.value(option), context)
    }

    /// Refuses any positional argument of `command`, a command that reads a passphrase and
    /// takes no other argument: without quoting it back, as it may well be the passphrase's
    /// first word.
    public static func refuseArguments(_ arguments: ParsedArguments, of command: String) throws(CLIError) {
        guard arguments.positional.isEmpty else {
            throw .usage("\(command) takes no arguments (the passphrase is never an argument)")
        }
    }

    /// The passphrase in the private file at `path`, or with none the one from the
    /// environment or the terminal.
    public static func passphrase(file path: String?, _ context: Context) throws(CLIError) -> Passphrase {
        if let given = try given(file: path, context) { return given }
        if let typed = try typed(context) { return typed }
        throw .invalidInput(
            "no passphrase: set ADM_PASSPHRASE, use --passphrase-file PATH (mode 600), or run on a terminal to be asked"
        )
    }

    /// The passphrase given for this run: in the private file at `path`, else in
    /// `ADM_PASSPHRASE`; nil when neither is given.
    public static func given(file path: String?, _ context: Context) throws(CLIError) -> Passphrase? {
        var bytes: [UInt8]
        if let path {
            bytes = try readPrivateFile(path)
        } else if let variable = context.passphraseVariable {
            // Read once per process (the memory is wiped then); a command reads it once.
            guard let taken = variable.take() else {
                throw .invalidInput("ADM_PASSPHRASE was read already: a command reads its passphrase once")
            }
            bytes = taken
        } else {
            return nil
        }
        return try validated(&bytes)
    }

    /// The passphrase typed on the terminal with echo off; nil when there is no terminal.
    public static func typed(_ context: Context) throws(CLIError) -> Passphrase? {
        guard context.terminal.isInteractive else { return nil }
        guard var line = try context.terminal.readSecretLine(prompt: "Passphrase: ", output: context.output) else {
            throw .invalidInput("no passphrase entered")
        }
        return try validated(&line)
    }

    /// The passphrase in `bytes`, which are zeroed.
    private static func validated(_ bytes: inout [UInt8]) throws(CLIError) -> Passphrase {
        do {
            return try Passphrase(validating: &bytes)
        } catch {
            throw .invalidInput("invalid passphrase: \(error)")
        }
    }

    static let maxLength = 4096

    /// Reads a file that only its owner can read, dropping one trailing newline (editors add one).
    /// Opened without blocking and checked on the open descriptor, so a FIFO or a device is
    /// refused at once instead of hanging, and nothing can be swapped in between check and read.
    static func readPrivateFile(_ path: String) throws(CLIError) -> [UInt8] {
        let shown = path.quoted
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            throw .invalidInput("cannot read --passphrase-file \(shown): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .invalidInput("--passphrase-file \(shown) is not a regular file")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw .invalidInput(
                "refusing --passphrase-file \(shown): mode \(String(mode, radix: 8)) lets others read it; run chmod 600 \(shown)"
            )
        }
        guard info.st_size <= maxLength else {
            throw .invalidInput("--passphrase-file \(shown) is too large to hold a passphrase")
        }
        // One buffer sized up front: growing an array would leave copies of the secret behind.
        var bytes = [UInt8](repeating: 0, count: maxLength + 1)
        var length = 0
        while length < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + length, $0.count - length) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                let reason = String(cString: strerror(errno))
                SecureMemory.zero(&bytes)
                throw .invalidInput("cannot read --passphrase-file \(shown): \(reason)")
            }
            guard count > 0 else { break }
            length += count
        }
        guard length <= maxLength else {
            SecureMemory.zero(&bytes)
            throw .invalidInput("--passphrase-file \(shown) is too large to hold a passphrase")
        }
        bytes.removeSubrange(length...)
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }
}
