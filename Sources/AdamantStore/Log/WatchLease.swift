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
/// names its holder, for the watch that is refused, and on a second line the block below
/// which the watch had handed everything over: a copy outside the log, so that a log lost
/// or replaced (its WAL gone with a backup, a damaged one moved aside) tells a new one where
/// to resume instead of the chain's tip.
public final class WatchLease: Sendable {
    private let descriptor: Int32
    private let holder: String
    /// A watch of this account ran on this home before: its lease's file was there.
    public let heldBefore: Bool
    /// The block an earlier watch had handed everything over below, as it kept it here.
    public let keptHeight: Int64?

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
        keptHeight = Self.lines(path).dropFirst().first.flatMap(Self.height)
        holder = "process \(getpid()) on \(HostName.current)"
        self.descriptor = descriptor
        // Who holds it is only for the message of the one refused, and the kept block stays
        // until this watch keeps its own: a failure here changes nothing.
        write(keptHeight)
    }

    /// Keeps `height` as the block below which this watch has handed everything over. Call it
    /// only once the log holding the same is whole in its main file (`NotificationLog.checkpoint`).
    public func keep(height: Int64) { write(max(0, height)) }

    /// Lets go of the lease (closing its file releases the lock).
    deinit { close(descriptor) }

    /// Runs `body` holding the lease of `account`'s watch in `home`, for what only a stopped
    /// watch leaves alone, writing nothing in its file; nil, without running it, while a watch
    /// holds it (or its file cannot be opened). A watch starting meanwhile is refused, as
    /// held by whoever the file names.
    static func whileFree<T>(home: String, account: Address, _ body: () throws(StoreError) -> T) throws(StoreError)
        -> T?
    {
        let descriptor = open(path(home: home, account: account), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return nil }
        }
        return try body()
    }

    private static func path(home: String, account: Address) -> String { home + "/watch-\(account).lock" }

    private func write(_ height: Int64?) {
        let bytes = Array((holder + (height.map { "\nblock \($0)" } ?? "") + "\n").utf8)
        // One write of less than a sector over the old text, then cut to length: a process
        // ended between the two leaves old bytes after the new lines, which are not read.
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        if written == bytes.count { _ = ftruncate(descriptor, off_t(bytes.count)) }
    }

    private static func lines(_ path: String) -> [String] {
        String(decoding: (try? SmallFile.read(atPath: path, limit: 256)) ?? [], as: UTF8.self).split(separator: "\n")
            .map(String.init)
    }

    /// The height in a line "block N", N decimal digits only.
    private static func height(_ line: String) -> Int64? {
        guard line.hasPrefix("block "), case let digits = line.dropFirst(6), !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ ("0"..."9").contains($0) })
        else { return nil }
        return Int64(digits)
    }
}
