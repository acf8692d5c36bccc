import AdamantCore
import AdamantStore
import Foundation

/// A watch's page journal that an earlier release left in the home, as opening the log reads
/// it to settle it: the file's bytes (perhaps cut short, damaged, or of the first format),
/// decoded, then put in a fresh home beside `StoreBaseline`'s log as the account's chats
/// journal, and the log opened.
///
/// Invariants: a page of the second format is the file's beginning, byte for byte, written
/// back; the ids it takes out of the log are the page's own and none handed over; opening the
/// log never fails for a journal and deletes it; the chats cursor is put back to the page's
/// start exactly when something was not handed over, and is left as it was otherwise; a push's
/// showing is never taken out.
enum JournalFuzz {
    static func run(_ data: [UInt8]) {
        // A larger file is not read at all.
        let page = data.count <= OldWatchJournal.sizeLimit ? OldWatchJournal.decode(data) : nil
        if let page {
            if data.starts(with: OldWatchJournal.magic) {
                invariant(data.starts(with: encode(page)), "the journal read is not the one written back")
            }
            let undelivered = page.undelivered
            invariant(Set(undelivered).isSubset(of: page.ids), "an id to take out that is not the page's")
            invariant(Set(undelivered).isDisjoint(with: page.delivered), "a delivered id taken out")
        }
        let home = ScratchHome.fresh()
        let account = OwnSignalsFuzz.account.address
        let journal = "\(home)/watch-\(account)-chats.journal"
        guard
            FileManager.default.createFile(
                atPath: "\(home)/\(NotificationLog.fileName)", contents: Data(StoreBaseline.shared.log),
                attributes: [.posixPermissions: 0o600]),
            FileManager.default.createFile(
                atPath: journal, contents: Data(data), attributes: [.posixPermissions: 0o600])
        else { fatalError("cannot write in \(home)") }
        runBlocking {
            do throws(StoreError) {
                let log = try NotificationLog(home: home)
                invariant(!FileManager.default.fileExists(atPath: journal), "the journal is left after it was settled")
                let cursor = try await log.watchCursor(account: account, stream: "chats")
                if let page, !page.undelivered.isEmpty {
                    invariant(cursor == page.from, "the cursor \(String(describing: cursor)) is not the page's start")
                } else {
                    invariant(cursor == StoreBaseline.chatsCursor, "a journal with nothing to settle moved the cursor")
                }
                let pushed = try await log.pushes(to: account).map(\.id.number)
                invariant(pushed == [11, 13], "the pushes read \(pushed)")
            } catch {
                invariant(false, "opening the log failed over a journal: \(error)")
            }
        }
    }

    /// The page in the second format, its `delivered` the first of its `ids`: what the
    /// release that read it wrote.
    private static func encode(_ page: OldWatchJournal.Page) -> [UInt8] {
        func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        var bytes = OldWatchJournal.magic
        bytes += littleEndian(UInt32(truncatingIfNeeded: page.delivered.count))
        bytes += littleEndian(UInt32(truncatingIfNeeded: page.ids.count))
        bytes += littleEndian(UInt64(bitPattern: page.from.height)) + littleEndian(UInt64(page.from.skip))
        for id in page.ids { bytes += littleEndian(id.number) }
        return bytes
    }
}
