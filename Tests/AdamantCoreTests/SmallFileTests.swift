import Foundation
import Testing

@testable import AdamantCore

@Suite struct SmallFileTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "small-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    }

    @Test func readsAWholeFileUpToItsLimit() throws {
        let path = folder + "/f"
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try SmallFile.read(atPath: path, limit: 5000) == bytes)
        #expect(throws: SmallFile.ReadError.tooLarge) { try SmallFile.read(atPath: path, limit: 4999) }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try SmallFile.read(atPath: path, limit: 10) == [])
    }

    @Test func aMissingFileIsNoneAndAnythingButARegularFileIsRefused() throws {
        #expect(try SmallFile.read(atPath: folder + "/missing", limit: 10) == nil)
        #expect(try SmallFile.read(atPath: folder + "/missing/below", limit: 10) == nil)
        #expect(throws: SmallFile.ReadError.notRegular) { try SmallFile.read(atPath: folder, limit: 10) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // A FIFO with no writer would block an open for reading without O_NONBLOCK.
        #expect(throws: SmallFile.ReadError.notRegular) { try SmallFile.read(atPath: fifo, limit: 10) }
    }

    @Test func replacesAFileWholeAndForItsOwnerOnly() throws {
        let path = folder + "/cache.json"
        #expect(SmallFile.replace(atPath: path, with: Array("first".utf8)))
        #expect(SmallFile.replace(atPath: path, with: Array("second".utf8)))
        #expect(try SmallFile.read(atPath: path, limit: 100) == Array("second".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["cache.json"])  // no temporary left
        #expect(!SmallFile.replace(atPath: folder + "/missing/cache.json", with: [1]))
        #expect(
            SmallFile.exists(atPath: path) && SmallFile.exists(atPath: folder)
                && !SmallFile.exists(atPath: folder + "/none"))
    }
}
