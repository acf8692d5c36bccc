import AdamantCore
import AdamantDevnet
import AdamantStore
import Foundation
import Testing

/// `adm-fetch watch --notify` and `adm-fetch TXN --notify` as processes, against the devnet
/// and a real desktop (`TestDesktop`), read back as the user sees it.
@Suite("adm-fetch --notify", .timeLimit(.minutes(4)))
struct WatchDesktopTests {
    static func file(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Three messages from one partner and a transfer from another: two bubbles, the chat's
    /// counting its three; a click runs the open command for its chat, without the
    /// passphrase in its environment, and is not held up by an open command still running
    /// (a browser stays for as long as the user likes).
    @Test func oneBubblePerChatAndAClickOpensIt() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let stranger = KeyPair(passphrase: Passphrase(unvalidated: "desktop stranger \(UUID())"))
            _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
            let opened = network.outbox.home + "/opened"
            let watch = try await WatchProcess(
                network,
                [
                    "--notify", "--open",
                    "echo \"$ADM_PARTNER $ADM_CHAT_URL ${ADM_PASSPHRASE:-none}\" >> '\(opened)'; exec sleep 20",
                ], name: "notify",
                environment: desktop.environment)
            for text in ["one", "two", "three"] {
                _ = try await network.submit(text, from: network.friend, to: network.me)
            }
            _ = try await network.transfer(2 * ADMAmount.unitsPerADM, from: stranger, to: network.me, signedAgo: .zero)
            try await watch.until("all four are printed") { watch.ids.count >= 4 }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await desktop.displayedCount() < 2 || !watch.stderr.contains("watch: notification: transfer") {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("two bubbles never showed:\n\(watch.stderr)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await desktop.displayedCount() == 2, "one bubble per chat")

            // A click on each, the top one first (a click closes it, and the next moves up):
            // each runs the open command for its own chat, the second while the first sleeps.
            let clicking = ContinuousClock.now + .seconds(10)
            for clicked in 1...2 {
                try await desktop.clickTopBubble()
                while Self.file(opened).split(separator: "\n").count < clicked {
                    guard ContinuousClock.now < clicking else {
                        throw DesktopFailure("the open command did not run:\n\(watch.stderr)")
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let lines = Set(Self.file(opened).split(separator: "\n").map(String.init))
            #expect(
                lines == [
                    "\(network.friend.address) https://msg.adamant.im/chats/\(network.friend.address)/ none",
                    "\(stranger.address) https://msg.adamant.im/chats/\(stranger.address)/ none",
                ])
            let result = try await watch.stop()
            #expect(result.status == 0, "\(watch.stderr)")
            #expect(watch.stderr.contains("desktop: notifications through dunst"))

            #expect(try await desktop.displayedCount() == 0, "a click closes the bubble")
            let shown = try await desktop.history()
            let chat = try #require(shown.first { $0["body"]?.hasPrefix("3 new messages") == true }, "\(shown)")
            #expect(
                chat["body"] == "3 new messages\nthree" && chat["appname"] == "ADAMANT"
                    && chat["category"] == "im.received")
            #expect(
                chat["icon_path"] == TestDesktop.packageData + "/icons/hicolor/scalable/apps/adm-push.svg",
                "the package's icon")
            #expect(shown.contains { $0["body"]?.contains("2 ADM") == true }, "\(shown)")
        }
    }

    /// The bubble's "Open" (dunst's menu, picked by a dmenu that chooses the action keyed
    /// `open`) runs the open command for its chat; what that command prints goes to standard
    /// error, so `--json`'s lines stay one JSON object each.
    @Test func theOpenButtonRunsTheOpenCommandWhoseOutputStaysOffTheLines() async throws {
        try await TestDesktop.with(picking: ",open]") { desktop in
            let network = try await FetchDevnet()
            let opened = network.outbox.home + "/opened"
            let watch = try await WatchProcess(
                network,
                [
                    "--notify", "--open",
                    "echo \"a browser's chatter about $ADM_CHAT_URL\"; echo \"$ADM_CHAT_URL\" >> '\(opened)'",
                ], name: "open",
                environment: desktop.environment)
            _ = try await network.submit("open me", from: network.friend, to: network.me)
            try await watch.until("it is printed") { watch.ids.count == 1 }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await desktop.displayedCount() < 1 {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("the bubble never showed:\n\(watch.stderr)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await desktop.pickFromMenu("the open command") { !Self.file(opened).isEmpty }
            _ = try await network.submit("and the next", from: network.friend, to: network.me)
            try await watch.until("the next is printed") { watch.ids.count == 2 }
            #expect(try await watch.stop().status == 0)
            #expect(Self.file(opened) == "https://msg.adamant.im/chats/\(network.friend.address)/\n")
            let lines = watch.stdout.split(separator: "\n")
            #expect(
                lines.count == 2
                    && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] },
                "\(watch.stdout)")
            #expect(watch.stderr.contains("a browser's chatter about https://msg.adamant.im/chats/"), "\(watch.stderr)")
        }
    }

    @Test func noSessionBusIsExit69AtTheStartNamingWhatIsMissing() async throws {
        let network = try await FetchDevnet()
        let result = try await run(
            "adm-fetch", ["watch", "--notify", "--home", network.outbox.home + "/home"],
            environment: [
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","),
                "ADM_PASSPHRASE": network.outbox.passphrase,
            ])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(
            result.stderr.contains(
                "--notify: no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set"),
            "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// Bad input is exit 64 whether or not there is a desktop: it is checked before the bus
    /// is looked for.
    @Test func badInputIsExit64BeforeTheMissingBusIsExit69() async throws {
        let network = try await FetchDevnet()
        let environment = [
            "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.outbox.passphrase,
        ]
        let home = ["--home", network.outbox.home + "/home"]
        for (arguments, input, error) in [
            (["12345", "--notify", "--quiet", "25:00-01:00"], "", "--quiet takes local hours"),
            (["--payload", "-", "--notify"], "not a push", "--payload: "),
            (["watch", "--notify", "--quiet", "25:00-01:00"], "", "--quiet takes local hours"),
        ] {
            let result = try await run("adm-fetch", arguments + home, environment: environment, input: Data(input.utf8))
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains(error) && !result.stderr.contains("session bus"),
                "\(arguments): \(result.stderr)")
        }
    }

    @Test func noNotificationServiceIsExit69AtTheStart() async throws {
        try await TestDesktop.with(notificationServer: false) { desktop in
            let network = try await FetchDevnet()
            let environment = desktop.environment.merging([
                "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","),
                "ADM_PASSPHRASE": network.outbox.passphrase,
            ]) { $1 }
            for arguments in [
                ["watch", "--notify", "--home", network.outbox.home + "/home"],
                ["12345", "--notify", "--home", network.outbox.home + "/home"],
            ] {
                let result = try await run("adm-fetch", arguments, environment: environment)
                #expect(result.status == 69, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("no notification service on the session bus"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            }
        }
    }

    /// A push hook's `adm-fetch TXN --notify`: one bubble, and the same push again shows none.
    @Test func aFetchedPushIsOneBubbleAndNotTwice() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let sent = try await network.send("pushed to the desktop", from: network.friend, to: network.me)
            for _ in 0..<2 {
                let result = try await network.fetch(
                    [sent.id!.description, "--notify", "--no-names"], environment: desktop.environment)
                #expect(result.status == 0, "\(result.stderr)")
            }
            let shown = try await desktop.shown()
            #expect(shown.map { $0["body"] } == ["pushed to the desktop"], "\(shown)")
            #expect(shown.first?["summary"] == network.friend.address.description)
        }
    }

    /// A chat muted for an hour by a bubble's "Mute 1 hour" (kept in the home) stays muted for
    /// a push hook's fetch too: printed, as the extension's output, and no bubble; another
    /// chat's push is one.
    @Test func aFetchedPushOfAMutedChatShowsNoBubble() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let stranger = KeyPair(passphrase: Passphrase(unvalidated: "muted fetch stranger \(UUID())"))
            _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
            try await NotificationLog(home: network.outbox.home + "/home")
                .mute(
                    network.friend.address, account: network.me.address,
                    until: SystemWallClock().unixMillis() + 3_600_000)
            let muted = try await network.send("from a muted chat", from: network.friend, to: network.me)
            let other = try await network.send("from another chat", from: stranger, to: network.me)
            for sent in [muted, other] {
                let result = try await network.fetch(
                    [sent.id!.description, "--notify", "--no-names", "--json"], environment: desktop.environment)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try network.object(result)["id"] as? String == sent.id?.description)
            }
            #expect(try await desktop.shown().map { $0["body"] } == ["from another chat"])
        }
    }

    /// A watch that ends while the service is away leaves what it missed recorded in the
    /// home; the next watch, with a service there, puts it on the desktop, once.
    @Test func whatTheDesktopMissedIsShownByTheNextWatch() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let first = try await WatchProcess(network, ["--notify"], name: "missed", environment: desktop.environment)
            try await desktop.stopNotificationServer()
            _ = try await network.submit("sent while the desktop was away", from: network.friend, to: network.me)
            try await first.until("it is printed and kept") {
                first.ids.count == 1 && first.stderr.contains("kept until the service is back")
            }
            #expect(try await first.stop().status == 0)

            try await desktop.startNotificationServer()
            let next = try await WatchProcess(
                network, ["--notify"], name: "missed-next", environment: desktop.environment)
            let deadline = ContinuousClock.now + .seconds(30)
            while try await desktop.displayedCount() < 1 {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("the missed one never showed:\n\(next.stderr)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(next.ids.isEmpty, "not printed again: \(next.stdout)")
            #expect(next.stderr.contains("1 notification the desktop missed before, shown now"), "\(next.stderr)")
            #expect(try await next.stop().status == 0)
            #expect(try await desktop.shown().map { $0["body"] } == ["sent while the desktop was away"])

            // Shown, it is forgotten: a third watch shows nothing.
            let third = try await WatchProcess(
                network, ["--notify"], name: "missed-third", environment: desktop.environment)
            try await third.until("it is live") { third.stderr.contains("watch: live on") }
            #expect(!third.stderr.contains("missed before"), "\(third.stderr)")
            #expect(try await third.stop().status == 0)
            #expect(try await desktop.history().count == 1)
        }
    }

    /// libsystemd (sd-bus) is loaded only by --notify: a fetch without it opens none of the
    /// bus's libraries (glibc's loader says what it opens under LD_DEBUG=files).
    @Test func onlyNotifyLoadsTheBusLibrary() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let sent = try await network.send("loaded or not", from: network.friend, to: network.me)
            let id = try #require(sent.id).description
            let loader = desktop.environment.merging(["LD_DEBUG": "files"]) { $1 }
            let plain = try await network.fetch([id, "--json", "--no-names"], environment: loader)
            #expect(plain.status == 0 && plain.stderr.contains("file=libcurl.so"), "\(plain.stderr)")
            #expect(!plain.stderr.contains("libsystemd"), "loaded with no --notify")
            let notified = try await network.fetch([id, "--json", "--no-names", "--notify"], environment: loader)
            #expect(notified.status == 0 && notified.stderr.contains("file=libsystemd.so.0"), "\(notified.stderr)")
        }
    }

    /// A service that hangs (dunst stopped by SIGSTOP: each call waits out its 5 s) holds up
    /// no line: the bubbles are delivered on their own, and the lines go on at once.
    @Test func aHungServiceHoldsUpNoLine() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let watch = try await WatchProcess(network, ["--notify"], name: "hung", environment: desktop.environment)
            try await watch.until("it is live") { watch.stderr.contains("watch: live on") }
            desktop.pauseNotificationServer()
            defer { desktop.resumeNotificationServer() }
            for text in ["one", "two", "three"] {
                _ = try await network.submit(text, from: network.friend, to: network.me)
            }
            try await watch.until("the first is printed") { watch.ids.count >= 1 }
            let first = ContinuousClock.now
            try await watch.until("all three are printed") { watch.ids.count == 3 }
            #expect(ContinuousClock.now - first < .seconds(4), "a line waited for the hung service")
            // A call that timed out is a service away, not a refusal: kept, not counted.
            try await watch.until("a call timed out") {
                watch.stderr.contains("kept until the service is back: Notify failed")
            }
            #expect(!watch.stderr.contains("refused"))
            desktop.resumeNotificationServer()
            #expect(try await watch.stop().status == 0, "\(watch.stderr)")
        }
    }

    /// The service goes away while the watch runs: the message is printed, the bubble waits,
    /// and it is shown once a service is back.
    @Test func aServiceThatGoesAwayGetsWhatItMissedWhenBack() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let watch = try await WatchProcess(network, ["--notify"], name: "away", environment: desktop.environment)
            try await desktop.stopNotificationServer()
            _ = try await network.submit("while it was away", from: network.friend, to: network.me)
            try await watch.until("it is printed and kept") {
                watch.ids.count == 1 && watch.stderr.contains("kept until the service is back")
            }
            try await desktop.startNotificationServer()
            let deadline = ContinuousClock.now + .seconds(40)
            while try await desktop.displayedCount() < 1 {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("the kept one never showed:\n\(watch.stderr)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await desktop.shown().map { $0["body"] } == ["while it was away"])
            #expect(try await watch.stop().status == 0)
        }
    }
}
