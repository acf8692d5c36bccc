package import AdamantCore
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The page of one listing that `watch` is handing over, in a small file of the home: the
/// page's notifications and the cursor before it, written before the page is recorded in the
/// log, then the count handed over, rewritten in place after each one. A plain `pwrite` per
/// notification, no fsync: what it guards against is a process killed outright, whose writes
/// the kernel still has. A restart takes out of the log what the file shows was recorded but
/// never handed over, so only the notification being handed over at the kill can come twice.
///
/// The file is written over, never truncated: on ext4 a file truncated to nothing is written
/// out to disk when closed (`auto_da_alloc`) and its blocks discarded at the next truncation,
/// disk work on every page and every notification a socket brings.
package struct WatchJournal {
    /// What the file says.
    package struct Page: Hashable {
        /// The cursor before the page, where a restart reads again from.
        package var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        package var ids: [TransactionID]
        /// Those handed over so far: the first of `ids`.
        package var delivered: [TransactionID] = []

        /// Recorded but not handed over, in page order.
        package var undelivered: [TransactionID] {
            let done = Set(delivered)
            return ids.filter { !done.contains($0) }
        }
    }

    /// "AWJ2", then the count handed over and the number of ids (UInt32), the cursor's height
    /// and skip (Int64), the ids (UInt64), all little-endian. What follows the ids is an
    /// earlier, longer page's and is not read.
    package static let magic: [UInt8] = Array("AWJ2".utf8)
    package static let headerSize = 28
    /// Where the count handed over stands.
    static let handedOverOffset: off_t = 4
    /// The first format: "AWJ1", the number of ids, the cursor, the ids, then each id handed
    /// over appended. A file an earlier version left behind is still settled.
    static let appendingMagic: [UInt8] = Array("AWJ1".utf8)
    /// Far more than a page of the nodes' 100; a larger file is not one this code wrote.
    static let sizeLimit = 1 << 20

    let path: String

    /// The journal of `account`'s listing `stream` in `home`.
    init(home: String, account: Address, stream: String) {
        path = home + "/watch-\(account)-\(stream).journal"
    }

    /// The page the file holds; nil for none, or for a file this code did not write (which
    /// then guards nothing, as before the journal existed).
    func read() -> Page? {
        guard let bytes = try? SmallFile.read(atPath: path, limit: Self.sizeLimit) else { return nil }
        return Self.decode(bytes)
    }

    /// Starts the journal of a page read from `from`, with its `ids`, none delivered, and
    /// returns the open file, in which `Delivery.recordNext` counts them.
    func start(from: WatchCursor, ids: [TransactionID]) throws(StoreError) -> Delivery {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .failed(.watchJournal, path: path, StoreFailure(errno: errno)) }
        let delivery = Delivery(descriptor: descriptor)
        let bytes = Self.encode(Page(from: from, ids: ids))
        // The ids first: killed before the header, the file still shows the last page, which
        // was handed over whole (a page left in the middle clears the file).
        guard delivery.write(bytes[Self.headerSize...], at: off_t(Self.headerSize)),
            delivery.write(bytes[..<Self.headerSize], at: 0)
        else {
            throw .failed(.watchJournal, path: path, StoreFailure(errno: errno))
        }
        return delivery
    }

    /// Removes the file: nothing of its page is left to settle.
    func clear() { unlink(path) }

    /// The open journal of the page being handed over; closed when released. Sendable, as it is
    /// written with the page's record, on the log's queue.
    final class Delivery: Sendable {
        private let descriptor: Int32
        private let handedOver = Atomic<UInt32>(0)

        fileprivate init(descriptor: Int32) { self.descriptor = descriptor }

        /// Notes that the next of the page's notifications was handed over. A failed write is
        /// not an error: the restart after a kill would then hand that notification over again,
        /// never lose it.
        func recordNext() {
            let count = handedOver.wrappingAdd(1, ordering: .relaxed).newValue
            _ = write(WatchJournal.littleEndian(count)[...], at: WatchJournal.handedOverOffset)
        }

        /// One `pwrite` of all of `bytes` (the journal's pieces are far smaller than a page of
        /// memory, so a kill leaves each written whole or not at all), through signals.
        fileprivate func write(_ bytes: ArraySlice<UInt8>, at offset: off_t) -> Bool {
            while true {
                let count = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
                if count < 0 && errno == EINTR { continue }
                return count == bytes.count
            }
        }

        deinit { close(descriptor) }
    }

    // MARK: The format

    /// The page in the current format; its `delivered` must be the first of its `ids`.
    package static func encode(_ page: Page) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize + 8 * page.ids.count)
        bytes += littleEndian(UInt32(truncatingIfNeeded: page.delivered.count))
        bytes += littleEndian(UInt32(truncatingIfNeeded: page.ids.count))
        bytes += littleEndian(UInt64(bitPattern: page.from.height))
        bytes += littleEndian(UInt64(page.from.skip))
        for id in page.ids { bytes += littleEndian(id.number) }
        return bytes
    }

    /// The page in `bytes`, or nil when they are not a journal: a wrong magic, fewer ids than
    /// the header counts, more handed over than there are, a negative cursor.
    package static func decode(_ bytes: [UInt8]) -> Page? {
        if bytes.starts(with: appendingMagic) { return decodeAppending(bytes) }
        guard bytes.count >= headerSize, bytes.starts(with: magic), let from = cursor(in: bytes, at: 12) else {
            return nil
        }
        let handedOver = Int(number(in: bytes, at: 4, size: 4))
        let count = Int(number(in: bytes, at: 8, size: 4))
        guard handedOver <= count, count <= (bytes.count - headerSize) / 8 else { return nil }
        let ids = ids(in: bytes, at: headerSize, count: count)
        return Page(from: from, ids: ids, delivered: Array(ids[..<handedOver]))
    }

    /// A page in the first format, whose ids handed over follow its ids to the end of the
    /// file; nil too when one of those is not the page's.
    private static func decodeAppending(_ bytes: [UInt8]) -> Page? {
        let header = 24
        guard bytes.count >= header, let from = cursor(in: bytes, at: 8) else { return nil }
        let count = Int(number(in: bytes, at: 4, size: 4))
        let records = (bytes.count - header) / 8
        guard count <= records else { return nil }
        let all = ids(in: bytes, at: header, count: records)
        let page = Page(from: from, ids: Array(all[..<count]), delivered: Array(all[count...]))
        return Set(page.delivered).isSubset(of: page.ids) ? page : nil
    }

    private static func cursor(in bytes: [UInt8], at offset: Int) -> WatchCursor? {
        let height = Int64(bitPattern: number(in: bytes, at: offset, size: 8))
        let skip = Int64(bitPattern: number(in: bytes, at: offset + 8, size: 8))
        guard height >= 0, skip >= 0, let skipCount = Int(exactly: skip) else { return nil }
        return WatchCursor(height: height, skip: skipCount)
    }

    /// `count` ids packed 8 bytes each, little-endian, from `offset` (the watch's pages in the
    /// log are packed alike).
    static func ids(in bytes: [UInt8], at offset: Int, count: Int) -> [TransactionID] {
        (0..<count).map { TransactionID(number: number(in: bytes, at: offset + 8 * $0, size: 8)) }
    }

    private static func number(in bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (offset..<offset + size).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
