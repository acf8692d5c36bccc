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
/// The file is what the running watch keeps of itself, a line each: its holder, for the watch
/// that is refused; the block below which it had handed everything over ("block N"), a copy
/// outside the log, so that a log lost or replaced (its WAL gone with a backup, a damaged one
/// moved aside) tells a new one where to resume instead of the chain's tip; and how far it is
/// through the page each listing is handing over ("page STREAM SERIAL COUNT", the page the
/// log keeps as `HandingOver`). That count is rewritten after every notification, so it is
/// one write to this file, which no other process touches, where a commit of the log (which
/// others write to) cost a watch's backlog scan a quarter of its speed.
public final class WatchLease: Sendable {
    private let descriptor: Int32
    private let holder: String
    /// A watch of this account ran on this home before: its lease's file was there.
    public let heldBefore: Bool
    /// The block an earlier watch had handed everything over below, as it kept it here.
    public let keptHeight: Int64?
    /// How far the earlier watch got through each listing's page, as it wrote it here.
    private let earlier: [WatchStream: PageProgress]

    /// How many of the page `serial` a listing was handing over were handed over.
    struct PageProgress: Equatable {
        var serial: Int64
        var count: Int
    }

    private struct Kept {
        var height: Int64?
        var pages: [WatchStream: PageProgress]
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
        let lines = Self.lines(path).dropFirst()
        keptHeight = lines.lazy.compactMap(Self.height).first
        // Lines after the last write's end (a process ended before it cut the file) are older.
        earlier = Dictionary(lines.compactMap(Self.page)) { first, _ in first }
        holder = "process \(getpid()) on \(HostName.current)"
        self.descriptor = descriptor
        kept = Mutex(Kept(height: keptHeight, pages: earlier))
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

    /// The first `count` of page `serial`, which `stream` is handing over, were handed over.
    func handedOver(_ count: Int, ofPage serial: Int64, stream: WatchStream) {
        kept.withLock { kept in
            kept.pages[stream] = PageProgress(serial: serial, count: count)
            write(&kept)
        }
    }

    /// How far the earlier watch got through the page `stream` was handing over, until
    /// `settled(stream)` (then nil).
    func earlierProgress(of stream: WatchStream) -> PageProgress? {
        kept.withLock { kept in kept.pages[stream] == earlier[stream] ? earlier[stream] : nil }
    }

    /// What the earlier watch left of `stream`'s page is settled: its count is no longer kept.
    func settled(_ stream: WatchStream) {
        kept.withLock { kept in
            guard kept.pages[stream] != nil, kept.pages[stream] == earlier[stream] else { return }
            kept.pages[stream] = nil
            write(&kept)
        }
    }

    /// Lets go of the lease (closing its file releases the lock).
    deinit { close(descriptor) }

    private static func path(home: String, account: Address) -> String { home + "/watch-\(account).lock" }

    private func write(_ kept: inout Kept) {
        var text = holder + "\n"
        if let height = kept.height { text += "block \(height)\n" }
        for (stream, page) in kept.pages.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            text += "page \(stream.rawValue) \(page.serial) \(page.count)\n"
        }
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

    /// The page in a line "page STREAM SERIAL COUNT".
    private static func page(_ line: String) -> (WatchStream, PageProgress)? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "page", let stream = WatchStream(rawValue: String(parts[1])),
            let serial = Int64(parts[2]),
            let count = Int(parts[3]), count >= 0
        else { return nil }
        return (stream, PageProgress(serial: serial, count: count))
    }

    /// The height in a line "block N", N decimal digits only.
    private static func height(_ line: String) -> Int64? {
        guard line.hasPrefix("block "), case let digits = line.dropFirst(6), !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ ("0"..."9").contains($0) })
        else { return nil }
        return Int64(digits)
    }
}
