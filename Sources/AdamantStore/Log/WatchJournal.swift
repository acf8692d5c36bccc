package import AdamantCore

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The page of one listing that `watch` is handing over, in a small file of the home: the
/// page's notifications and the cursor before it, written before the page is recorded in the
/// log, then each notification's id once it is handed over. A plain `write` per notification,
/// no fsync: what it guards against is a process killed outright, whose writes the kernel
/// still has. A restart takes out of the log what the file shows was recorded but never
/// handed over, so only the notification being handed over at the kill can come twice.
package struct WatchJournal {
    /// What the file says.
    package struct Page: Hashable {
        /// The cursor before the page, where a restart reads again from.
        package var from: WatchCursor
        /// The page's new notifications, in the order they are handed over.
        package var ids: [TransactionID]
        /// Those handed over so far.
        package var delivered: [TransactionID] = []

        /// Recorded but not handed over, in page order.
        package var undelivered: [TransactionID] {
            let done = Set(delivered)
            return ids.filter { !done.contains($0) }
        }
    }

    /// "AWJ1", then the number of ids (UInt32), the cursor's height and skip (Int64), the ids
    /// (UInt64), all little-endian; the delivered ids follow, 8 bytes each.
    static let magic: [UInt8] = Array("AWJ1".utf8)
    package static let headerSize = 24
    /// Far more than a page of the nodes' 100; a larger file is not one this code wrote.
    static let sizeLimit = 1 << 20

    let path: String

    /// The journal of `account`'s listing `stream` in `home`.
    init(home: String, account: Address, stream: String) {
        path = home + "/watch-\(account)-\(stream).journal"
    }

    /// The page the file holds; nil for none, or for a file this code did not write (which
    /// then guards nothing, as before the journal existed). A partly written last id is not read.
    func read() -> Page? {
        guard let bytes = try? SmallFile.read(atPath: path, limit: Self.sizeLimit) else { return nil }
        return Self.decode(bytes)
    }

    /// Starts the journal of a page read from `from`: replaces the file's contents with its
    /// `ids`, none delivered, and returns the open file, to which `Delivery.record` appends.
    func start(from: WatchCursor, ids: [TransactionID]) throws(StoreError) -> Delivery {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .failed(.watchJournal, path: path, StoreFailure(errno: errno)) }
        let delivery = Delivery(descriptor: descriptor)
        guard delivery.append(Self.encode(Page(from: from, ids: ids))) else {
            throw .failed(.watchJournal, path: path, StoreFailure(errno: errno))
        }
        return delivery
    }

    /// Removes the file: nothing of its page is left to settle.
    func clear() { unlink(path) }

    /// The open journal of the page being handed over; closed when released.
    final class Delivery {
        private let descriptor: Int32

        fileprivate init(descriptor: Int32) { self.descriptor = descriptor }

        /// Notes that `id` was handed over. A failed write is not an error: the restart after
        /// a kill would then hand that notification over again, never lose it.
        func record(_ id: TransactionID) {
            _ = append(WatchJournal.littleEndian(id.number))
        }

        fileprivate func append(_ bytes: [UInt8]) -> Bool { SmallFile.writeAll(bytes, to: descriptor) }

        deinit { close(descriptor) }
    }

    // MARK: The format

    package static func encode(_ page: Page) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize + 8 * (page.ids.count + page.delivered.count))
        bytes += littleEndian(UInt32(truncatingIfNeeded: page.ids.count))
        bytes += littleEndian(UInt64(bitPattern: page.from.height))
        bytes += littleEndian(UInt64(page.from.skip))
        for id in page.ids + page.delivered { bytes += littleEndian(id.number) }
        return bytes
    }

    /// The page in `bytes`, or nil when they are not a journal: a wrong magic, fewer ids than
    /// the header counts, a negative cursor, delivered ids that are not the page's.
    package static func decode(_ bytes: [UInt8]) -> Page? {
        guard bytes.count >= headerSize, bytes.starts(with: magic) else { return nil }
        let count = Int(number(in: bytes, at: 4, size: 4))
        let height = Int64(bitPattern: number(in: bytes, at: 8, size: 8))
        let skip = Int64(bitPattern: number(in: bytes, at: 16, size: 8))
        let records = (bytes.count - headerSize) / 8
        guard count <= records, height >= 0, skip >= 0, let skipCount = Int(exactly: skip) else { return nil }
        let ids = (0..<records).map { TransactionID(number: number(in: bytes, at: headerSize + 8 * $0, size: 8)) }
        let page = Page(from: WatchCursor(height: height, skip: skipCount), ids: Array(ids[..<count]), delivered: Array(ids[count...]))
        guard Set(page.delivered).isSubset(of: page.ids) else { return nil }
        return page
    }

    private static func number(in bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (offset..<offset + size).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
