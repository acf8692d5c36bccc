import AdamantCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a database's WAL holds commits SQLite cannot read, looked at before SQLite opens it.
/// SQLite takes a WAL whose header fails its checks for an empty one and starts over, so the
/// commits in it would be gone without a word. The shared-memory file, as the last process left
/// it, says how many frames are in the WAL and how many a checkpoint copied into the main file;
/// only when some were not copied, and the WAL that should hold them is short or not a WAL, is
/// anything reported: a torn first write that no commit finished, or a WAL restarted by a
/// writer right now, never is.
/// (Formats: sqlite.org/walformat.html.)
enum WriteAheadLog {
    static let magic: ClosedRange<UInt32> = 0x377F_0682...0x377F_0683
    static let version: UInt32 = 3_007_000

    /// Why the commits the WAL of `database` should hold cannot be read; nil when it has none
    /// left or they can be.
    static func unreadableCommits(of database: String) -> String? {
        guard let index = prefix(of: database + "-shm", count: 100), index.count == 100,
            index[0..<48].elementsEqual(index[48..<96]),  // both copies agree: no writer mid-update
            nativeWord(index, at: 0) == version, index[12] == 1
        else { return nil }
        // Frames up to the checkpoint's mark are in the main file already.
        let frames = Int(nativeWord(index, at: 16))
        let copied = Int(nativeWord(index, at: 96))
        guard frames > copied else { return nil }
        let storedPageSize = Int(index[14]) | Int(index[15]) << 8
        let pageSize = storedPageSize == 1 ? 65_536 : storedPageSize
        let wal = prefix(of: database + "-wal", count: 32) ?? []
        let (expected, overflow) = frames.multipliedReportingOverflow(by: 24 + pageSize)
        guard wal.count == 32, !overflow, let size = SmallFile.size(atPath: database + "-wal"), size >= 32 + expected
        else {
            return
                "its write-ahead log is missing or shorter than the \(frames) pages the last commit left in it, \(frames - copied) not in the main file"
        }
        guard magic.contains(word(wal, at: 0, bigEndian: true)), word(wal, at: 4, bigEndian: true) == version,
            checksum(of: Array(wal[0..<24]), bigEndian: wal[3] & 1 == 1) == (
                word(wal, at: 24, bigEndian: true), word(wal, at: 28, bigEndian: true)
            )
        else {
            return "its write-ahead log holds \(frames - copied) pages of commits but is not a write-ahead log any more"
        }
        return nil
    }

    /// SQLite's checksum: 32-bit words in pairs, each sum feeding the other.
    static func checksum(of bytes: [UInt8], bigEndian: Bool) -> (UInt32, UInt32) {
        var (first, second): (UInt32, UInt32) = (0, 0)
        for offset in stride(from: 0, to: bytes.count - 7, by: 8) {
            first = first &+ word(bytes, at: offset, bigEndian: bigEndian) &+ second
            second = second &+ word(bytes, at: offset + 4, bigEndian: bigEndian) &+ first
        }
        return (first, second)
    }

    static func word(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        let four = bytes[offset..<offset + 4]
        return (bigEndian ? Array(four) : Array(four.reversed())).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The shared-memory file is in this machine's byte order.
    private static func nativeWord(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        word(bytes, at: offset, bigEndian: 1.bigEndian == 1)
    }

    /// Up to `count` bytes from the start of the file at `path`; nil when it cannot be read.
    private static func prefix(of path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        guard read >= 0 else { return nil }
        return Array(bytes.prefix(read))
    }
}
