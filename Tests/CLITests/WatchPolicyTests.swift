import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// What the notification policy does to a running `watch --notify`, for the bubbles, the
/// `--json` lines and the `--exec` hooks, against the devnet and a real desktop.
@Suite("adm-fetch watch, the notification policy", .timeLimit(.minutes(4)))
struct WatchPolicyTests {
    static func file(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func objects(_ watch: WatchProcess) -> [[String: Any]] {
        watch.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Quiet hours from `start` to `end` minutes from now, in UTC (the watches here run with
    /// TZ=UTC).
    static func quietHours(from start: Int, to end: Int) -> String {
        let minute = Int(Date().timeIntervalSince1970 / 60) % 1440
        func clock(_ offset: Int) -> String {
            String(format: "%02d:%02d", (minute + offset + 1440) % 1440 / 60, (minute + offset + 1440) % 60)
        }
        return clock(start) + "-" + clock(end)
    }

    static func waitForBubbles(_ count: Int, on desktop: TestDesktop, _ watch: WatchProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await desktop.displayedCount() < count {
            guard ContinuousClock.now < deadline else {
                throw DesktopFailure("\(count) bubbles never showed:\n\(watch.stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `--preview none`: no word of the message and no name crosses the bus (a dbus-monitor
    /// capture of the whole exchange), the line and the hook get "ADAMANT" and "New message";
    /// a `--mute`d partner is not shown anywhere and runs no hook.
    @Test func previewNoneSaysNothingOnTheBusAndAMutedPartnerNothingAtAll() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let stranger = KeyPair(passphrase: Passphrase(unvalidated: "policy stranger \(UUID())"))
            _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
            let monitor = try BackgroundProcess(
                "/usr/bin/dbus-monitor", ["--address", desktop.busAddress], environment: desktop.environment,
                folder: desktop.folder, name: "monitor")
            let hooked = network.outbox.home + "/hooked"
            let watch = try await WatchProcess(
                network,
                [
                    "--notify", "--preview", "none", "--mute", stranger.address.description,
                    "--exec", "echo \"$ADM_TITLE|$ADM_BODY\" >> '\(hooked)'",
                ],
                name: "none", environment: desktop.environment)
            _ = try await network.submit("the vault code is swordfish", from: stranger, to: network.me)
            _ = try await network.submit("meet me at the pier at nine", from: network.friend, to: network.me)
            try await watch.until("the friend's message is printed") { Self.objects(watch).count >= 1 }
            try await Self.waitForBubbles(1, on: desktop, watch)
            try await watch.until("its hook ran") { !Self.file(hooked).isEmpty }
            try await watch.until("the muted one is handled") { watch.stderr.contains("watch: not shown") }
            #expect(try await watch.stop().status == 0)
            _ = try await monitor.stop()

            let lines = Self.objects(watch)
            #expect(lines.count == 1, "the muted partner's message is not printed: \(watch.stdout)")
            #expect(lines.first?["title"] as? String == "ADAMANT" && lines.first?["body"] as? String == "New message")
            #expect(lines.first?["text"] == nil, "no text in the line")
            #expect(Self.file(hooked) == "ADAMANT|New message\n", "one hook, for the friend only")
            let shown = try await desktop.shown()
            #expect(shown.map { [$0["summary"], $0["body"]] } == [["ADAMANT", "New message"]], "\(shown)")

            let capture = monitor.stdout
            #expect(
                capture.contains("member=Notify") && capture.contains("\"New message\""),
                "the capture holds the call: \(capture.prefix(2000))")
            for secret in [
                "pier", "nine", "swordfish", "vault", network.friend.address.description, stranger.address.description,
            ] {
                #expect(!capture.contains(secret), "\(secret) crossed the bus")
            }
        }
    }

    /// "Mute 1 hour" on a bubble (dunst's menu, picked by a dmenu that chooses it): the chat's
    /// next message is not shown, another chat's is, and a restart still mutes it.
    @Test func muteOneHourMutesTheChatAndOutlivesARestart() async throws {
        try await TestDesktop.with(picking: "Mute 1 hour") { desktop in
            let network = try await FetchDevnet()
            let stranger = KeyPair(passphrase: Passphrase(unvalidated: "policy stranger \(UUID())"))
            _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
            let watch = try await WatchProcess(network, ["--notify"], name: "mute", environment: desktop.environment)
            _ = try await network.submit("first", from: network.friend, to: network.me)
            try await Self.waitForBubbles(1, on: desktop, watch)
            try await desktop.pickFromMenu("the chat's mute") {
                watch.stderr.contains("\(network.friend.address) muted until")
            }
            _ = try await network.submit("second, muted", from: network.friend, to: network.me)
            _ = try await network.submit("from someone else", from: stranger, to: network.me)
            // The muted one is logged as not shown; the other is printed.
            try await watch.until("both are handled") {
                watch.stderr.contains("watch: not shown") && Self.objects(watch).count >= 2
            }
            #expect(
                Self.objects(watch).compactMap { $0["text"] as? String } == ["first", "from someone else"],
                "\(watch.stdout)")
            #expect(try await watch.stop().status == 0)

            let again = try await WatchProcess(
                network, ["--notify"], name: "mute-again", environment: desktop.environment)
            _ = try await network.submit("third, still muted", from: network.friend, to: network.me)
            _ = try await network.submit("someone else again", from: stranger, to: network.me)
            try await again.until("both are handled") {
                again.stderr.contains("watch: not shown") && Self.objects(again).count >= 1
            }
            #expect(
                Self.objects(again).compactMap { $0["text"] as? String } == ["someone else again"], "\(again.stdout)")
            #expect(try await again.stop().status == 0)
        }
    }

    /// In quiet hours (here the hour around now, in UTC) with the default mode, a bubble goes
    /// at low urgency with no sound: what the capture of the call says.
    @Test func aBubbleInQuietHoursIsLowUrgencyAndSilent() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let monitor = try BackgroundProcess(
                "/usr/bin/dbus-monitor", ["--address", desktop.busAddress], environment: desktop.environment,
                folder: desktop.folder, name: "monitor")
            let watch = try await WatchProcess(
                network, ["--notify", "--quiet", Self.quietHours(from: -30, to: 30)], name: "quiet",
                environment: desktop.environment.merging(["TZ": "UTC"]) { $1 })
            _ = try await network.submit("shh", from: network.friend, to: network.me)
            try await Self.waitForBubbles(1, on: desktop, watch)
            #expect(try await watch.stop().status == 0)
            _ = try await monitor.stop()
            let shown = try #require(try await desktop.shown().first)
            #expect(
                shown["message"]?.hasSuffix("<i>\(TestDesktop.lowUrgency)</i>") == true,
                "dunst showed it at low urgency: \(shown)")
            let call = try #require(
                monitor.stdout.components(separatedBy: "member=Notify").dropFirst().first,
                "\(monitor.stdout.prefix(2000))")
            #expect(call.contains("\"suppress-sound\"") && !call.contains("\"sound-name\""), "\(call)")
            let urgency = try #require(call.range(of: "\"urgency\""))
            #expect(call[urgency.upperBound...].drop { $0 != "b" }.hasPrefix("byte 0"), "urgency low: \(call)")
        }
    }

    /// Held through quiet hours, a notification is recorded as not yet on the desktop: a
    /// watch stopped before the hours end leaves it to the next, which shows it.
    @Test func whatQuietHoursHeldOutlivesAStoppedWatch() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let utc = desktop.environment.merging(["TZ": "UTC"]) { $1 }
            let first = try await WatchProcess(
                network, ["--notify", "--quiet", Self.quietHours(from: -30, to: 30), "--quiet-mode", "hold"],
                name: "held", environment: utc)
            _ = try await network.submit("held through the night", from: network.friend, to: network.me)
            try await first.until("it is held") { first.stderr.contains("desktop: held for the summary") }
            #expect(try await first.stop().status == 0)
            #expect(try await desktop.displayedCount() == 0)

            let next = try await WatchProcess(network, ["--notify"], name: "held-next", environment: utc)
            try await Self.waitForBubbles(1, on: desktop, next)
            #expect(next.stderr.contains("1 notification the desktop missed before, shown now"), "\(next.stderr)")
            #expect(next.ids.isEmpty, "not printed again: \(next.stdout)")
            #expect(try await next.stop().status == 0)
            #expect(try await desktop.shown().map { $0["body"] } == ["held through the night"])
        }
    }

    /// A message made to hurt a notifier: markup, bidi overrides, controls, newlines and
    /// 100 KB of text, ten times what a node admits, handed out by a lying node (the devnet
    /// admitting it unchecked: a client trusts no node, and the signature holds). The bubble
    /// holds one line of text, capped, with no control or bidi character, and its tags as text.
    @Test func hostileTextIsOneCappedLineOfTextInTheBubble() async throws {
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let hostile =
                "<b>bold</b> <a href=\"https://evil.example\">link</a> <img src=\"file:///etc/passwd\">\u{202E}txet desrever\u{202C}"
                + "\u{0007}\u{001B}[31mred\nsecond line\r\nthird" + String(repeating: "A", count: 100_000)
            let asset = try ChatKey(secretKey: network.friend.secretKey, partner: network.me.publicKey).seal(hostile)
            var oversized = Transaction(
                type: .chat, amount: 0, senderPublicKey: network.friend.publicKey, recipientId: network.me.address,
                timestamp: Int32(AdamantTime.timestamp(unixMillis: SystemWallClock().unixMillis())), chat: asset)
            try oversized.sign(with: network.friend)
            #expect(throws: TransactionError.self, "no honest node admits it") { try oversized.validate() }

            let watch = try await WatchProcess(network, ["--notify"], name: "hostile", environment: desktop.environment)
            try network.devnet.admitUnchecked(oversized)
            try await Self.waitForBubbles(1, on: desktop, watch)
            try await watch.until("it is printed") { Self.objects(watch).count == 1 }
            #expect(
                (Self.objects(watch).first?["text"] as? String)?.count == hostile.count,
                "the line carries the whole text")
            #expect(try await watch.stop().status == 0)
            let body = try #require(try await desktop.shown().first?["body"])
            #expect(body.count <= 500 + 40, "capped: \(body.count) characters")
            #expect(
                body.hasPrefix(
                    "&lt;b&gt;bold&lt;/b&gt; &lt;a href=\"https://evil.example\"&gt;link&lt;/a&gt; &lt;img src=\"file:///etc/passwd\"&gt;"
                ), "\(body.prefix(200))")
            #expect(body.contains("txet desrever") && body.contains("red↵ second line↵ third"), "\(body.prefix(300))")
            #expect(
                !body.unicodeScalars.contains {
                    $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
                }, "no control or format character")
            #expect(body.hasSuffix("…"))
        }
    }

    /// `--kinds messages`: a transfer is not shown, a message is.
    @Test func kindsNotAskedForAreNotShown() async throws {
        let network = try await FetchDevnet()
        let watch = try await WatchProcess(network, ["--kinds", "messages"], name: "kinds")
        _ = try await network.transfer(ADMAmount.unitsPerADM, from: network.friend, to: network.me, signedAgo: .zero)
        _ = try await network.submit("a message", from: network.friend, to: network.me)
        try await watch.until("both are handled") {
            watch.stderr.contains("notification: transfer") && watch.stderr.contains("notification: message")
        }
        try await watch.until("the message is printed") { Self.objects(watch).count >= 1 }
        #expect(Self.objects(watch).map { $0["kind"] as? String } == ["message"], "\(watch.stdout)")
        #expect(try await watch.stop().status == 0)
    }
}
