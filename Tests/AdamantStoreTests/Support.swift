import AdamantCore
import AdamantStore
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

/// Runs blocking `body` on a new thread and waits for it without holding a cooperative thread.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// `account`'s watch lease on `home`, as the next process takes it after a watch ended: tried
/// again while it reads as held, for at most 10 s, since a child another test spawns at the
/// moment a lease is let go holds its lock until that child's exec closes it.
func nextLease(home: String, _ account: Address) async throws -> WatchLease {
    try await whileHeld { () throws(WatchLease.Refusal) in try WatchLease(home: home, account: account) }
}

/// The same, for the home of `log`.
func nextLease(_ log: NotificationLog, _ account: Address) async throws -> WatchLease {
    try await whileHeld { () throws(WatchLease.Refusal) in try log.leaseWatch(account: account) }
}

private func whileHeld(_ take: () throws(WatchLease.Refusal) -> WatchLease) async throws -> WatchLease {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
        do {
            return try take()
        } catch {
            guard case .held = error, ContinuousClock.now < deadline else { throw error }
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}
