public import AdamantCore
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One watch per account and home: two would show every notification twice. An exclusive
/// `flock` on a small file of the home, held while the watch runs; the kernel lets go of it
/// when the process ends however it ends, so a killed watch never leaves it taken.
///
/// The file says who holds the lease, for the watch that is refused, and, on its second line,
/// where a watch of the account resumes if the log is lost ("block N", the block below which
/// the last watch had handed everything over): a copy outside the log, so that a log lost or
/// replaced (its WAL gone with a backup, a damaged one moved aside) tells a new one where to
/// resume instead of the chain's tip. What was handed over is the log's alone
/// (`HandingOver`).
public final class WatchLease: Sendable {
    private let descriptor: Int32
    private let holder: String
    /// A watch of this account ran on this home before: its lease's file was there.
    public let heldBefore: Bool
    /// The block an earlier watch had handed everything over below, as it kept it here.
    public let keptHeight: Int64?
    private struct Kept {
        var height: Int64?
        /// The length of the file's last write; unknown at first, so the first write cuts it.
        var length = Int.max
    }

    private let kept: Mutex<Kept>

    /// Why a lease could not be had.
    public enum Refusal: Error, Sendable, Equatable {
        /// Another watch holds it; who, as it wrote itself down ("process 1234 on host").
        case held(by: String)
        /// The lease's file cannot be opened or locked.
        case unavailable(path: String, reason: String)
    }

    /// Takes the lease of `account`'s watch in `home`, or says who has it.
    public init(home: String, account: Address) throws(Refusal) {
        let path = Self.path(home: home, account: account)
        heldBefore = access(path, F_OK) == 0
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .unavailable(path: path, reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let reason = errno
            defer { close(descriptor) }
            guard reason == EWOULDBLOCK else {
                throw .unavailable(path: path, reason: String(cString: strerror(reason)))
            }
            let holder = Self.lines(path).first ?? ""
            throw .held(by: holder.isEmpty ? "another watch" : holder.escapingControlCharacters)
        }
        // Lines after the last write's end (a process ended before it cut the file) are older.
        keptHeight = Self.lines(path).dropFirst().lazy.compactMap(Self.height).first
        holder = "process \(getpid()) on \(HostName.current)"
        self.descriptor = descriptor
        kept = Mutex(Kept(height: keptHeight))
        // Who holds it is only for the message of the one refused, and what the earlier watch
        // kept stays until this one keeps its own: a failure here changes nothing.
        kept.withLock { write(&$0) }
    }

    /// Keeps `height` as the block below which this watch has handed everything over. Call it
    /// only once the log holding the same is whole in its main file (`NotificationLog.checkpoint`).
    public func keep(height: Int64) {
        kept.withLock { kept in
            kept.height = max(0, height)
            write(&kept)
        }
    }

    /// Lets go of the lease (closing its file releases the lock).
    deinit { close(descriptor) }

    private static func path(home: String, account: Address) -> String { home + "/watch-\(account).lock" }

    private func write(_ kept: inout Kept) {
        var text = holder + "\n"
        if let height = kept.height { text += "block \(height)\n" }
        let bytes = Array(text.utf8)
        // One write of less than a sector over the old text, cut to length only when it is
        // shorter: a process ended between the two leaves old bytes after the new lines, and a
        // line cut short there is not read.
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else { return }
        if bytes.count < kept.length { _ = ftruncate(descriptor, off_t(bytes.count)) }
        kept.length = bytes.count
    }

    private static func lines(_ path: String) -> [String] {
        String(decoding: (try? SmallFile.read(atPath: path, limit: 1024)) ?? [], as: UTF8.self).split(
            separator: "\n"
        ).map(String.init)
    }

    /// The height in a line "block N", N decimal digits only.
    private static func height(_ line: String) -> Int64? {
        guard line.hasPrefix("block "), case let digits = line.dropFirst(6), !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ ("0"..."9").contains($0) })
        else { return nil }
        return Int64(digits)
    }
}
