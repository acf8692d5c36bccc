public import AdamantCore

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One watch per account and home: two would show every notification twice. An exclusive
/// `flock` on a small file of the home, held while the watch runs; the kernel lets go of it
/// when the process ends however it ends, so a killed watch never leaves it taken. The file
/// names its holder, for the watch that is refused.
public final class WatchLease: Sendable {
    private let descriptor: Int32

    /// Why a lease could not be had.
    public enum Refusal: Error, Sendable, Equatable {
        /// Another watch holds it; who, as it wrote itself down ("process 1234 on host").
        case held(by: String)
        /// The lease's file cannot be opened or locked.
        case unavailable(path: String, reason: String)
    }

    /// Takes the lease of `account`'s watch in `home`, or says who has it.
    public init(home: String, account: Address) throws(Refusal) {
        let path = home + "/watch-\(account).lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .unavailable(path: path, reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let reason = errno
            defer { close(descriptor) }
            guard reason == EWOULDBLOCK else { throw .unavailable(path: path, reason: String(cString: strerror(reason))) }
            let holder = String(decoding: (try? SmallFile.read(atPath: path, limit: 256)) ?? [], as: UTF8.self)
            throw .held(by: holder.isEmpty ? "another watch" : holder.escapingControlCharacters)
        }
        let holder = Array("process \(getpid()) on \(HostName.current)".utf8)
        // Who holds it is only for the message of the one refused: a failure here changes nothing.
        if ftruncate(descriptor, 0) == 0 { _ = holder.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } }
        self.descriptor = descriptor
    }

    /// Lets go of the lease (closing its file releases the lock).
    deinit { close(descriptor) }
}
