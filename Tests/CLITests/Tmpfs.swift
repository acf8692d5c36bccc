import Foundation
import Testing

/// A tmpfs of a test's own (a full disk, a read-only home), which needs root, as in CI.
enum Tmpfs {
    /// Runs `body` with a tmpfs mounted at `path` with `options`, and unmounts it after, whatever
    /// `body` did. `mount` and `umount` are waited for through `run`, on threads of their own:
    /// `Foundation.Process.waitUntilExit` on a task's thread held it for as long as any child
    /// spawned meanwhile lived (that child inherits the socket whose end it waits for), and with
    /// it a core's share of every in-process test.
    static func with<T>(at path: String, options: String, _ body: () async throws -> T) async throws -> T {
        let mounted = try await run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path])
        try #require(mounted.status == 0, "a tmpfs mounts at \(path): \(mounted.stderr)")
        let result: T
        do {
            result = try await body()
        } catch {
            _ = try? await run("/bin/umount", ["-l", path])
            throw error
        }
        _ = try await run("/bin/umount", ["-l", path])
        return result
    }
}
