import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A desktop of a test's own: a session bus (dbus-daemon, with no service it could start by
/// itself, so "no notification service" is a state a test can be in), an X server (Xvfb) and
/// dunst, the notification server, each a real process. What the user would see is read
/// through `dunstctl` and screenshots.
final class TestDesktop: Sendable {
    let folder: String
    let busAddress: String
    let display: String
    private let bus: BackgroundProcess
    private let xServer: BackgroundProcess
    private let dunst = Mutex<BackgroundProcess?>(nil)

    /// `DBUS_SESSION_BUS_ADDRESS` and `DISPLAY` for the processes of this desktop, and the
    /// package's own data files (its icon) first among the system's, as if installed (the
    /// system's MIME database is how dunst's image loader knows an SVG).
    var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "DISPLAY": display, "PATH": "/usr/bin:/bin",
            "XDG_DATA_DIRS": Self.packageData + ":/usr/local/share:/usr/share",
        ]
    }

    /// packaging/share of this checkout: what the package installs under /usr/share.
    static let packageData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("packaging/share").path

    /// Starts the bus and the X server, and dunst unless `notificationServer` is false.
    /// dunst's context menu, which picks an action, runs a dmenu that reads the actions' names
    /// on standard input and prints the first line holding `picking`; none picks nothing.
    /// With `refusingNotifications`, the bus answers every `Notify` with an AccessDenied error
    /// (its policy denies the call) until `allowNotifications()`: a service that refuses what
    /// it is sent.
    static func start(notificationServer: Bool = true, picking: String? = nil, refusingNotifications: Bool = false)
        async throws -> TestDesktop
    {
        let folder = NSTemporaryDirectory() + "desktop-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var dmenu = "/bin/false"
        if let picking {
            dmenu = folder + "/pick.sh"
            // What it picks is kept too: a menu picked from is dunst's part done.
            let script =
                "#!/bin/sh\nchoice=$(grep -m1 -F -- '\(picking)')\n[ -n \"$choice\" ] && echo \"$choice\" >> '\(folder)/picked'\necho \"$choice\"\n"
            try script.write(toFile: dmenu, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dmenu)
        }
        try busConfiguration(socketFolder: folder, refusingNotify: refusingNotifications).write(
            toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        let bus = try BackgroundProcess(
            "/usr/bin/dbus-daemon", ["--config-file=\(folder)/bus.conf", "--nofork", "--print-address=1"],
            folder: folder, name: "bus")
        let address = try await bus.firstLine("the bus's address")
        // -displayfd: the server picks a free display and prints its number when it is ready.
        let xServer = try BackgroundProcess(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"], folder: folder,
            name: "x")
        let display = ":" + (try await xServer.firstLine("the X server's display"))
        let desktop = TestDesktop(folder: folder, busAddress: address, display: display, bus: bus, xServer: xServer)
        try dunstConfiguration(dmenu: dmenu).write(toFile: folder + "/dunstrc", atomically: true, encoding: .utf8)
        if notificationServer { try await desktop.startNotificationServer() }
        return desktop
    }

    /// `body` on a desktop of its own, stopped after it whatever happens.
    @discardableResult
    static func with<Value>(
        notificationServer: Bool = true, picking: String? = nil, refusingNotifications: Bool = false,
        _ body: (TestDesktop) async throws -> Value
    ) async throws -> Value {
        let desktop = try await start(
            notificationServer: notificationServer, picking: picking, refusingNotifications: refusingNotifications)
        do {
            let value = try await body(desktop)
            await desktop.stop()
            return value
        } catch {
            await desktop.stop()
            throw error
        }
    }

    private init(
        folder: String, busAddress: String, display: String, bus: BackgroundProcess, xServer: BackgroundProcess
    ) {
        self.folder = folder
        self.busAddress = busAddress
        self.display = display
        self.bus = bus
        self.xServer = xServer
    }

    /// Starts dunst and waits until it owns the notification service's name.
    func startNotificationServer() async throws {
        let started = try BackgroundProcess(
            "/usr/bin/dunst", ["-config", folder + "/dunstrc"], environment: environment, folder: folder, name: "dunst")
        dunst.withLock { $0 = started }
        let deadline = ContinuousClock.now + .seconds(20)
        while try await dunstctl(["count"]).status != 0 {
            guard ContinuousClock.now < deadline else {
                throw DesktopFailure("dunst did not come up:\n\(started.stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops dunst: the bus stays, with no notification service on it.
    func stopNotificationServer() async throws {
        let running = dunst.withLock { server in
            defer { server = nil }
            return server
        }
        _ = try await running?.stop()
    }

    /// Stops dunst where it is (SIGSTOP): a service that hangs, answering no call, until
    /// `resumeNotificationServer()`.
    func pauseNotificationServer() { dunst.withLock { $0 }?.send(SIGSTOP) }

    func resumeNotificationServer() { dunst.withLock { $0 }?.send(SIGCONT) }

    /// Stops the dbus-daemon where it is (SIGSTOP): a bus that takes what its clients write
    /// and answers nothing, until `resumeBus()`.
    func pauseBus() { bus.send(SIGSTOP) }

    func resumeBus() { bus.send(SIGCONT) }

    /// The unique name of the bus connection process `pid` holds (the first, if it holds more).
    func uniqueName(ofProcess pid: pid_t) async throws -> String {
        func ask(_ method: String, _ arguments: [String] = []) async throws -> String {
            let answer = try await run(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus." + method,
                ] + arguments,
                environment: environment)
            guard answer.status == 0 else { throw DesktopFailure("\(method) failed: \(answer.stderr)") }
            return answer.stdout
        }
        // ListNames prints each as `string ":1.7"`; GetConnectionUnixProcessID as `uint32 1234`.
        let names = try await ask("ListNames").split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: "\"")
            return parts.count == 2 && parts[1].hasPrefix(":") ? String(parts[1]) : nil
        }
        for name in names {
            // A name may be gone by now (dbus-send's own, the first one's).
            if (try? await ask("GetConnectionUnixProcessID", ["string:" + name]))?.contains("uint32 \(pid)\n") == true {
                return name
            }
        }
        throw DesktopFailure("process \(pid) has no connection on the bus")
    }

    /// Lets `Notify` through again: the bus reads its configuration again, without the rule
    /// that denied it, and has done so when its `ReloadConfig` answers.
    func allowNotifications() async throws {
        try Self.busConfiguration(socketFolder: folder, refusingNotify: false).write(
            toFile: folder + "/bus.conf", atomically: true, encoding: .utf8)
        let reload = try await run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.ReloadConfig",
            ],
            environment: environment)
        guard reload.status == 0 else {
            throw DesktopFailure("the bus did not reload its configuration: \(reload.stderr)")
        }
    }

    /// Opens dunst's context menu until `done` holds, up to three menus: a loaded dunst at
    /// times opens none for a call. A menu that was picked from, after which nothing happened
    /// within 10 s, is the watch's failure, not dunst's: that ends it at once.
    func pickFromMenu(_ what: String, until done: @Sendable () -> Bool) async throws {
        for _ in 1...3 {
            _ = try await dunstctl(["context"])
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if done() { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            let picked = (try? String(contentsOfFile: folder + "/picked", encoding: .utf8)) ?? ""
            if !picked.isEmpty {
                throw DesktopFailure("\(what) never happened, though the menu was picked from: \(picked)")
            }
        }
        throw DesktopFailure("\(what) never happened: dunst opened no menu in three calls")
    }

    func dunstctl(_ arguments: [String]) async throws -> RunResult {
        try await run("/usr/bin/dunstctl", arguments, environment: environment, timeout: 20)
    }

    /// Every notification dunst has shown, newest first: `dunstctl close-all` moves those on
    /// screen into the history, which `dunstctl history` prints.
    func shown() async throws -> [ShownNotification] {
        _ = try await dunstctl(["close-all"])
        return try await history()
    }

    /// The notifications in dunst's history, newest first.
    func history() async throws -> [ShownNotification] {
        let answer = try await dunstctl(["history"])
        guard answer.status == 0,
            let document = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any],
            let data = document["data"] as? [[[String: Any]]], let entries = data.first
        else { throw DesktopFailure("dunstctl history printed what it should not:\n\(answer.stdout)\(answer.stderr)") }
        return entries.map { entry in
            ShownNotification(fields: entry.compactMapValues { ($0 as? [String: Any])?["data"].map { "\($0)" } })
        }
    }

    /// A left click on the top bubble, as the user's mouse would make it (xdotool): dunst
    /// runs its default action and closes it. (`dunstctl action` leaves it open, and in dunst
    /// 1.9 reaches only the top one.)
    func clickTopBubble() async throws {
        let window = try await run(
            "/usr/bin/xdotool", ["search", "--class", "Dunst"], environment: environment, timeout: 20)
        guard window.status == 0, let id = window.stdout.split(separator: "\n").first else {
            throw DesktopFailure("no dunst window: \(window.stderr)")
        }
        let click = try await run(
            "/usr/bin/xdotool", ["mousemove", "--window", String(id), "20", "20", "click", "1"],
            environment: environment, timeout: 20)
        guard click.status == 0 else { throw DesktopFailure("xdotool could not click: \(click.stderr)") }
    }

    /// How many bubbles are on screen.
    func displayedCount() async throws -> Int {
        Int(try await dunstctl(["count", "displayed"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A PNG of the whole screen, or of dunst's window (the bubbles) alone.
    func screenshot(to path: String, bubblesOnly: Bool = false) async throws {
        var window = "root"
        if bubblesOnly {
            let found = try await run(
                "/usr/bin/xdotool", ["search", "--class", "Dunst"], environment: environment, timeout: 20)
            guard found.status == 0, let id = found.stdout.split(separator: "\n").first else {
                throw DesktopFailure("no dunst window: \(found.stderr)")
            }
            window = String(id)
        }
        let result = try await run("/usr/bin/import", ["-window", window, path], environment: environment, timeout: 30)
        guard result.status == 0 else { throw DesktopFailure("import failed: \(result.stderr)") }
    }

    /// What a low or critical bubble's `message` ends with.
    static let lowUrgency = "low urgency", criticalUrgency = "critical urgency"

    /// What `message` holds for a bubble dunst showed at normal urgency.
    static func normalMessage(_ notification: ShownNotification) -> String {
        "<b>\(notification["appname"] ?? "")</b>\n<b>\(notification["summary"] ?? "")</b>\n\(notification["body"] ?? "")"
    }

    func stop() async {
        let running = dunst.withLock { server in
            defer { server = nil }
            return server
        }
        running?.send(SIGCONT)  // a paused one would not end
        _ = try? await running?.stop()
        _ = try? await xServer.stop()
        bus.send(SIGCONT)
        _ = try? await bus.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A session bus that only the test's processes use, that anyone on it may call and
    /// watch (`dbus-monitor` included), and that starts no service by itself.
    private static func busConfiguration(socketFolder: String, refusingNotify: Bool) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(socketFolder)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>\(refusingNotify ? "\n    <deny send_interface=\"org.freedesktop.Notifications\" send_member=\"Notify\"/>" : "")
          </policy>
        </busconfig>
        """
    }

    /// Bubbles that stay until a test closes them, the app's name, summary and body on
    /// three lines, and markup read (so that escaping is what keeps a message's tags text).
    /// A low or critical bubble says its urgency on a fourth line, which `dunstctl history`
    /// keeps in `message` (it has no urgency of its own).
    private static func dunstConfiguration(dmenu: String) -> String {
        """
        [global]
            font = DejaVu Sans 10
            width = 420
            origin = top-right
            offset = 10x10
            markup = full
            format = "<b>%a</b>\\n<b>%s</b>\\n%b"
            show_age_threshold = -1
            dmenu = \(dmenu)
            mouse_left_click = do_action, close_current
        [urgency_low]
            timeout = 0
            format = "<b>%a</b>\\n<b>%s</b>\\n%b\\n<i>\(lowUrgency)</i>"
        [urgency_normal]
            timeout = 0
        [urgency_critical]
            timeout = 0
            format = "<b>%a</b>\\n<b>%s</b>\\n%b\\n<i>\(criticalUrgency)</i>"
        """
    }
}

/// One entry of `dunstctl history`: `appname`, `summary`, `body`, `category`, `id`, …
struct ShownNotification: Sendable, CustomStringConvertible {
    let fields: [String: String]
    subscript(_ name: String) -> String? { fields[name] }
    var description: String { fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
}

struct DesktopFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
