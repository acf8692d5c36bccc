import AdamantCore
import AdamantDevnet
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A process that holds a passphrase keeps it out of core dumps, as ssh-agent and gpg-agent
/// do: aborted with the core limit raised as far as it goes, a watch leaves no core, where a
/// process that does not guard itself leaves one.
@Suite("no passphrase in a core", .timeLimit(.minutes(3)))
struct CoreDumpTests {
    /// `command` started by a shell that raised its core limit and moved into `folder`, so
    /// that a core the kernel writes by the default pattern lands there.
    static func started(_ command: String, in folder: String, _ environment: [String: String], name: String) throws
        -> BackgroundProcess
    {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try BackgroundProcess(
            "/bin/sh", ["-c", "ulimit -c unlimited && cd '\(folder)' && exec \(command)"], environment: environment,
            folder: folder + "-output", name: name, timeout: 120)
    }

    static func cores(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("core") }
    }

    /// The soft core limit `/proc/PID/limits` says the process has ("0", "unlimited").
    static func coreLimit(of pid: pid_t) -> String? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        return line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first.map(String.init)
    }

    @Test func anAbortedWatchLeavesNoCore() async throws {
        let network = try await FetchDevnet()
        let base = network.outbox.home + "/cores"
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "PATH": "/usr/bin:/bin",
            "ADM_PASSPHRASE": network.outbox.passphrase,
            // The signal's own action, the kernel's dump, not the Swift runtime's backtracer,
            // which a test's child may have on and which then holds the process.
            "SWIFT_BACKTRACE": "enable=no",
        ]
        // A process that does not guard itself, under the same shell, limit and pattern.
        let control = try Self.started("sleep 60", in: base + "/control", environment, name: "control")
        try await control.until("it runs") {
            control.processIdentifier.map { Self.coreLimit(of: $0) == "unlimited" } ?? false
        }
        control.send(SIGABRT)
        _ = try await control.ended()
        let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? ""
        let writesHere = !Self.cores(in: base + "/control").isEmpty

        let watch = try Self.started(
            "'\(Binaries.url("adm-fetch").path)' watch --home '\(network.outbox.home)/home'", in: base + "/watch",
            environment, name: "watch")
        try await watch.until("it is watching") { watch.stderr.contains("Watching ") }
        let pid = try #require(watch.processIdentifier)
        #expect(Self.coreLimit(of: pid) == "0", "the watch's core limit")
        watch.send(SIGABRT)
        let ended = try await watch.ended()
        #expect(ended.status != 0)
        #expect(Self.cores(in: base + "/watch").isEmpty, "a core of the watch: \(Self.cores(in: base + "/watch"))")
        // Where the kernel pipes cores to a program (systemd-coredump), the limit above is
        // what that program honours; here it writes them where the control's went.
        #expect(writesHere || pattern.hasPrefix("|") || TraceTools.inCI == false, "no control core: \(pattern)")
    }
}
