import AdamantBus
import AdamantKeyring
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A keyring of a test's own: a private session bus (dbus-daemon, which starts no service by
/// itself unless given `services`) and on it a real gnome-keyring-daemon serving the Secret
/// Service, its login keyring unlocked with a password and kept in a temporary home. Both are
/// killed, and the home removed, when the test is done.
public final class TestKeyring: Sendable {
    public let folder: String
    public let busAddress: String
    private let bus: KeyringChild?
    private let daemon: KeyringChild?

    /// The login keyring's password.
    public static let password = "test-password"

    /// What the keyring's tools run with: this bus, this home, nothing of the user's.
    public var environment: [String: String] { Self.environment(folder, busAddress) }

    /// `body` with a bus and, unless `gnomeKeyring` is false, gnome-keyring on it. Each name
    /// of `neverStarting` the bus can start a service for, which starts (a process that writes
    /// its id to never-NAME.pid, so that it is killed with the rest) and never comes up.
    /// `onBus`: gnome-keyring on that bus (a test desktop's) instead of one of its own.
    public static func with<Value>(
        gnomeKeyring: Bool = true, neverStarting: [String] = [], onBus: String? = nil,
        _ body: (TestKeyring) async throws -> Value
    ) async throws -> Value {
        // Short: the bus's socket path must fit a Unix socket address.
        let folder = "/tmp/kr-" + UUID().uuidString.prefix(8)
        for part in ["home", "data", "config", "run", "services"] {
            try FileManager.default.createDirectory(
                atPath: folder + "/" + part, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "echo $$ > \"$1\"\nexec sleep 120\n".write(toFile: folder + "/never.sh", atomically: true, encoding: .utf8)
        for name in neverStarting {
            try "[D-BUS Service]\nName=\(name)\nExec=/bin/sh \(folder)/never.sh \(folder)/never-\(name).pid\n".write(
                toFile: "\(folder)/services/\(name).service", atomically: true, encoding: .utf8)
        }
        defer { killNeverStarting(folder, neverStarting) }
        try busConfiguration(folder).write(toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        let bus =
            onBus == nil
            ? try KeyringChild(
                "/usr/bin/dbus-daemon", ["--config-file=\(folder)/bus.conf", "--nofork", "--print-address=1"],
                environment: ["PATH": "/usr/bin:/bin"], folder: folder, name: "bus") : nil
        defer { bus?.stop() }
        var address = onBus ?? ""
        if let bus { address = try await firstLine(of: bus, "the bus's address") }
        var daemon: KeyringChild?
        if gnomeKeyring {
            // --unlock reads the login keyring's password on standard input (creating the
            // keyring with it); in the foreground it stays this test's child, and with
            // --components=secrets it serves the Secret Service on the bus by itself.
            daemon = try KeyringChild(
                "/usr/bin/gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"],
                environment: Self.environment(folder, address), input: password, folder: folder,
                name: "gnome-keyring")
        }
        defer { daemon?.stop() }
        let keyring = TestKeyring(folder: folder, busAddress: address, bus: bus, daemon: daemon)
        if gnomeKeyring { try await keyring.untilServed() }
        return try await body(keyring)
    }

    /// Whether the bus started the never-starting `name`.
    public func started(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(folder)/never-\(name).pid")
    }

    private static func killNeverStarting(_ folder: String, _ names: [String]) {
        for name in names {
            guard let text = try? String(contentsOfFile: "\(folder)/never-\(name).pid", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            kill(pid, SIGKILL)
        }
    }

    private init(folder: String, busAddress: String, bus: KeyringChild?, daemon: KeyringChild?) {
        (self.folder, self.busAddress, self.bus, self.daemon) = (folder, busAddress, bus, daemon)
    }

    private static func environment(_ folder: String, _ address: String) -> [String: String] {
        [
            "PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": address, "HOME": folder + "/home",
            "XDG_DATA_HOME": folder + "/data", "XDG_CONFIG_HOME": folder + "/config",
            "XDG_RUNTIME_DIR": folder + "/run",
        ]
    }

    /// Polls the bus, up to 20 s, until `org.freedesktop.secrets` has an owner.
    private func untilServed() async throws {
        let bus = try await SessionBus.connect(address: busAddress)
        let deadline = ContinuousClock.now + .seconds(20)
        while try await !bus.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
            [.string(SecretService.name)], read: { reader throws(BusError) in try reader.boolean() })
        {
            guard ContinuousClock.now < deadline else {
                throw KeyringChild.Failure("gnome-keyring never served the Secret Service: \(daemon?.stderr ?? "")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func firstLine(of child: KeyringChild, _ what: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        while !child.stdout.contains("\n") {
            guard ContinuousClock.now < deadline else { throw KeyringChild.Failure("no \(what): \(child.stderr)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        return String(child.stdout.prefix { $0 != "\n" })
    }

    /// Runs secret-tool on this keyring: its exit status and what it printed.
    public func secretTool(_ arguments: [String], input: String = "") async throws -> (status: Int32, stdout: String) {
        let tool = try KeyringChild(
            "/usr/bin/secret-tool", arguments, environment: environment, input: input, folder: folder,
            name: "secret-tool-" + UUID().uuidString.prefix(8))
        let status = try await tool.exitStatus(within: 20)
        return (status, tool.stdout)
    }

    /// A session bus for this test's processes alone, on which anyone may call anything.
    private static func busConfiguration(_ folder: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(folder)</listen>
          <servicedir>\(folder)/services</servicedir>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }
}
