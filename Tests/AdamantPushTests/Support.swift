import Foundation

/// A directory of its own per test, removed when the test's value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("adm-push-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    /// One only this user can enter, as a store's home must be.
    static func privateHome() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o700)
        return directory
    }
}
