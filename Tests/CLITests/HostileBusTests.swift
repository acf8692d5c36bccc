import AdamantCore
import AdamantDevnet
import Foundation
import Testing

@testable import AdamantBus
@testable import AdamantDesktop

/// `--notify` on a session bus that does not play along: one that never answers, a service
/// that hangs, an address no socket can have, and other clients that forge the service's
/// signals. Each ends within seconds with one line, or is ignored.
@Suite("adm-fetch --notify, hostile bus", .timeLimit(.minutes(4)))
struct HostileBusTests {
    /// `adm-fetch ARGUMENTS --notify` against `network` on the session bus `address`; what it
    /// printed, and how long it took.
    static func notify(
        _ arguments: [String], _ network: FetchDevnet, address: String, environment: [String: String] = [:]
    ) async throws -> (result: RunResult, took: Duration) {
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
        ]
        .merging(environment) { $1 }.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 }
        let result = try await run(
            "adm-fetch", arguments + ["--notify", "--home", network.outbox.home + "/home"], environment: environment,
            timeout: 120)
        // The process's own time: a loaded suite may resume this task late.
        return (result, result.elapsed)
    }

    /// The watch and a push hook's fetch, each against a bus that accepts the connection and
    /// never answers (sd-bus alone waits 90 s for the authentication): exit 69 within
    /// seconds, one line naming the bus.
    @Test func aBusThatNeverAnswersIsExit69WithinSecondsNamingIt() async throws {
        let network = try await FetchDevnet()
        let bus = try SilentBus()
        defer { bus.stop() }
        for arguments in [["watch"], ["12345", "--deadline", "10"]] {
            let before = bus.accepted
            let (result, took) = try await Self.notify(arguments, network, address: bus.address)
            #expect(bus.accepted > before, "\(arguments): it connected")
            #expect(result.status == 69, "\(arguments): \(result.stderr)")
            #expect(took < .seconds(15), "\(arguments): took \(took)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(result.stderr.contains("the session bus at \(bus.address) did not answer"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// A bus that stops answering once connected holds up a subscription (its AddMatch, which
    /// sd-bus calls with a 25 s timeout of its own) no longer than any other call.
    @Test func aBusThatStopsAnsweringHoldsASubscriptionNoLongerThanACall() async throws {
        try await TestDesktop.with(notificationServer: false) { desktop in
            let bus = try await SessionBus.connect(address: desktop.busAddress)
            desktop.pauseBus()
            defer { desktop.resumeBus() }
            let started = ContinuousClock.now
            await #expect(throws: BusError.self) {
                try await bus.subscribe(
                    to: DesktopNotifications.name, path: DesktopNotifications.path, interface: DesktopNotifications.name
                ) { _, _ in }
            }
            let took = ContinuousClock.now - started
            #expect(
                took >= SessionBus.callTimeout - .milliseconds(100) && took < SessionBus.callTimeout + .seconds(5),
                "took \(took)")
        }
    }

    /// A notification service that takes no call (dunst stopped) when the watch or a fetch
    /// starts: its first call waits out its 5 s, then exit 69 naming the call.
    @Test func aServiceThatHangsAtTheStartIsExit69WithinSeconds() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            desktop.pauseNotificationServer()
            defer { desktop.resumeNotificationServer() }
            for arguments in [["watch"], ["12345", "--deadline", "10"]] {
                let (result, took) = try await Self.notify(
                    arguments, network, address: desktop.busAddress, environment: desktop.environment)
                #expect(result.status == 69, "\(arguments): \(result.stderr)")
                #expect(took < .seconds(15), "\(arguments): took \(took)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
                #expect(
                    result.stderr.contains("the notification service failed: GetServerInformation failed"),
                    "\(result.stderr)")
            }
        }
    }

    /// A socket's path holds at most 107 bytes: a longer one is said as such, naming it
    /// (sd-bus would say "Argument list too long").
    @Test func aBusPathTooLongForASocketIsExit69SayingSo() async throws {
        let network = try await FetchDevnet()
        let path = "/tmp/" + String(repeating: "b", count: 195)
        for arguments in [["watch"], ["12345"]] {
            let (result, _) = try await Self.notify(arguments, network, address: "unix:path=" + path)
            #expect(result.status == 69, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "--notify: the session bus path \(path) is 200 bytes, too long for a Unix socket (at most 107)"),
                "\(result.stderr)")
            #expect(!result.stderr.contains("Argument list too long"), "\(result.stderr)")
        }
    }

    /// Any client of the bus can send signals that say they are the service's, to every
    /// listener or to the watch's connection alone: ActionInvoked and NotificationClosed
    /// forged for every id the bubble could have open nothing and close nothing. dunst's own
    /// still count: a click on the bubble opens its chat, once (and would open nothing had a
    /// forged close ended the bubble).
    @Test func signalsForgedByAnotherClientAreIgnored() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let opened = network.outbox.home + "/opened"
            let watch = try await WatchProcess(
                network, ["--notify", "--open", "echo \"$ADM_PARTNER\" >> '\(opened)'"], name: "forged",
                environment: desktop.environment)
            _ = try await network.submit("click me", from: network.friend, to: network.me)
            try await watch.until("it is printed") { watch.ids.count == 1 }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await desktop.displayedCount() < 1 {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("the bubble never showed:\n\(watch.stderr)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let watching = try await desktop.uniqueName(ofProcess: try #require(watch.processID))
            let service = "/org/freedesktop/Notifications org.freedesktop.Notifications."
            for destination in [[], ["--dest=" + watching]] {
                for id in 1...6 {
                    for signal in [
                        "ActionInvoked uint32:\(id) string:default", "ActionInvoked uint32:\(id) string:open",
                        "NotificationClosed uint32:\(id) uint32:2",
                    ] {
                        let sent = try await run(
                            "/usr/bin/dbus-send",
                            ["--session", "--type=signal"] + destination
                                + (service + signal).split(separator: " ").map(String.init),
                            environment: desktop.environment)
                        #expect(sent.status == 0, "\(sent.stderr)")
                    }
                }
            }
            // sd-bus answers a Ping itself, after what came before it: the watch has read the
            // forgeries, and acted on them if it would, before the click.
            let ping = try await run(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=" + watching, "/", "org.freedesktop.DBus.Peer.Ping"],
                environment: desktop.environment)
            #expect(ping.status == 0, "\(ping.stderr)")
            try await desktop.clickTopBubble()
            try await watch.until("the click opened the chat") { !WatchDesktopTests.file(opened).isEmpty }
            #expect(WatchDesktopTests.file(opened) == "\(network.friend.address)\n", "only the click opened it")
            #expect(try await watch.stop().status == 0, "\(watch.stderr)")
        }
    }
}
