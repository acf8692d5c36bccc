import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads `--payload`: a regular file or standard input, refused past `limit` bytes without
/// reading further, never blocking on a FIFO given as a file.
public enum PayloadInput {
    /// The bytes of `source` (a path, or - for standard input), at most `limit` of them.
    public static func read(_ source: String, limit: Int) throws(CLIError) -> [UInt8] {
        let descriptor: Int32
        if source == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw .invalidInput("cannot read --payload \(source.quoted): \(String(cString: strerror(errno)))")
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                throw .invalidInput("--payload \(source.quoted) is not a regular file (use - for standard input)")
            }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, into: $0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .invalidInput("cannot read --payload: \(String(cString: strerror(errno)))")
            }
            bytes += chunk[0..<count]
        }
        guard bytes.count <= limit else {
            throw .invalidInput("--payload is larger than a push can be (\(limit) bytes)")
        }
        return bytes
    }
}

/// The system call, which `PayloadInput.read` would shadow inside the enum.
private func readDescriptor(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
