#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few small files the commands keep or read (caches, the config file), through POSIX
/// calls: read whole with a size cap, replaced atomically.
package enum SmallFile {
    /// Why a file could not be read.
    package enum ReadError: Error, Sendable, Equatable {
        case cannotOpen(errno: Int32)
        case notRegular
        case tooLarge
        case cannotRead(errno: Int32)
        /// Its group or everyone may write it (the permission bits).
        case othersCanWrite(mode: UInt32)
        /// Another user owns it.
        case ownedByAnother(uid: UInt32)
    }

    /// The file's bytes, or nil when there is none at `path`. Anything but a regular file is
    /// refused without reading it (a FIFO would block), and anything over `limit` bytes. With
    /// `ownerWritesOnly`, so is a file that this user does not own or that others may write:
    /// for a file whose contents steer a command, as the config file does.
    package static func read(atPath path: String, limit: Int, ownerWritesOnly: Bool = false) throws(ReadError)
        -> [UInt8]?
    {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .cannotOpen(errno: errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotRead(errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular }
        if ownerWritesOnly {
            guard info.st_uid == geteuid() else { throw .ownedByAnother(uid: UInt32(info.st_uid)) }
            guard info.st_mode & 0o022 == 0 else { throw .othersCanWrite(mode: UInt32(info.st_mode & 0o7777)) }
        }
        guard info.st_size <= limit else { throw .tooLarge }

        // At most one byte past the cap, in case the file grew since fstat.
        var contents = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var filled = 0
        while filled <= limit {
            if filled == contents.count {
                contents += [UInt8](repeating: 0, count: min(contents.count, limit + 1 - filled))
            }
            let count = contents.withUnsafeMutableBytes {
                readSome(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count >= 0 else { throw .cannotRead(errno: errno) }
            guard count > 0 else { break }
            filled += count
        }
        guard filled <= limit else { throw .tooLarge }
        return Array(contents.prefix(filled))
    }

    /// Replaces the file at `path` with `bytes`: written beside it, then renamed over it, so
    /// a reader sees the old file or the new one, never a part; readable by the owner only.
    /// Returns whether it worked.
    @discardableResult
    package static func replace(atPath path: String, with bytes: [UInt8]) -> Bool {
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        let written = writeAll(bytes, to: descriptor)
        guard close(descriptor) == 0, written, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// Writes all of `bytes` to the open file, through short writes and signals; whether it did.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// Whether anything is at `path` (a directory too).
    package static func exists(atPath path: String) -> Bool { access(path, F_OK) == 0 }

    /// The size in bytes of what is at `path`; nil when nothing is there or it cannot be read.
    package static func size(atPath path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}

/// The system call, which `SmallFile.read` would shadow inside the enum.
private func readSome(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
