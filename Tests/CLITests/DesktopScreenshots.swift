import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// The pictures of docs/screenshots, taken from the real pipeline (the devnet, `adm-fetch
/// watch --notify`, dunst under Xvfb) by `scripts/desktop-screenshots`, which names the folder
/// in ADM_SCREENSHOTS; without it these do not run. Each checks that what it captured is what
/// the picture is of: the bubbles dunst had on screen, and a picture of them.
@Suite(
    "desktop screenshots", .enabled(if: ProcessInfo.processInfo.environment["ADM_SCREENSHOTS"] != nil),
    .timeLimit(.minutes(3)))
struct DesktopScreenshots {
    static let folder = ProcessInfo.processInfo.environment["ADM_SCREENSHOTS"] ?? ""

    /// Runs `watch --notify` with `arguments`, lets `send` make its notifications, waits for
    /// all `notifications` of them printed and sent to dunst (the watch sends its bubbles
    /// after it prints, on its own: a dbus-monitor counts the calls) and `bubbles` on
    /// screen, saves dunst's window as `name`.png, and checks that dunst showed `shows` (each
    /// bubble's summary and body, given the network and the stranger) and that the picture
    /// holds them.
    static func take(
        _ name: String, _ arguments: [String] = [], environment: [String: String] = [:], notifications: Int = 1,
        bubbles: Int,
        shows: (FetchDevnet, KeyPair, [[String]]) -> Bool, send: (FetchDevnet, KeyPair) async throws -> Void
    ) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await TestDesktop.with { desktop in
            let network = try await FetchDevnet()
            let stranger = KeyPair(passphrase: Passphrase(unvalidated: "screenshot stranger \(UUID())"))
            _ = try network.devnet.fund(stranger.address, amount: ADMAmount(units: 10 * ADMAmount.unitsPerADM))
            let monitor = try BackgroundProcess(
                "/usr/bin/dbus-monitor",
                ["--address", desktop.busAddress, "interface=org.freedesktop.Notifications,member=Notify"],
                environment: desktop.environment, folder: desktop.folder, name: "monitor")
            let watch = try await WatchProcess(
                network, ["--notify"] + arguments, name: name,
                environment: desktop.environment.merging(environment) { $1 })
            try await send(network, stranger)
            let deadline = ContinuousClock.now + .seconds(30)
            while try await desktop.displayedCount() < bubbles || watch.ids.count < notifications
                || monitor.stdout.components(separatedBy: "member=Notify").count - 1 < notifications
            {
                guard ContinuousClock.now < deadline else {
                    throw DesktopFailure("the bubbles never showed:\n\(watch.stderr)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .milliseconds(300))  // dunst draws after it counts
            let path = folder + "/\(name).png"
            try await desktop.screenshot(to: path, bubblesOnly: true)
            _ = try await watch.stop()
            _ = try await monitor.stop()
            let shown = try await desktop.shown().map { [$0["summary"] ?? "", $0["body"] ?? ""] }
            #expect(shows(network, stranger, shown), "\(name).png: dunst showed \(shown)")
            let picture = try Data(contentsOf: URL(fileURLWithPath: path))
            // A PNG, and more than a blank window's few hundred bytes.
            #expect(picture.starts(with: [0x89, 0x50, 0x4E, 0x47]) && picture.count > 2_000, "\(picture.count) bytes")
        }
    }

    @Test func aMessage() async throws {
        try await Self.take(
            "message", bubbles: 1,
            shows: { network, _, shown in
                shown == [[network.friend.address.description, "Are you at your desk? The build is green 🎉"]]
            },
            send: { network, _ in
                _ = try await network.submit(
                    "Are you at your desk? The build is green 🎉", from: network.friend, to: network.me)
            })
    }

    @Test func aTransfer() async throws {
        try await Self.take(
            "transfer", bubbles: 1,
            shows: { _, stranger, shown in shown == [[stranger.address.description, "Sent you 2.5 ADM"]] },
            send: { network, stranger in
                _ = try await network.transfer(
                    25 * ADMAmount.unitsPerADM / 10, from: stranger, to: network.me, signedAgo: .zero)
            })
    }

    @Test func aChatWithThreeMessages() async throws {
        try await Self.take(
            "chat", notifications: 3, bubbles: 1,
            shows: { network, _, shown in
                shown == [[network.friend.address.description, "3 new messages\nSee you at noon"]]
            },
            send: { network, _ in
                for text in ["Lunch?", "The usual place", "See you at noon"] {
                    _ = try await network.submit(text, from: network.friend, to: network.me)
                }
            })
    }

    /// Russian: the count line's plural form, the text as the sender wrote it.
    @Test func aChatInRussian() async throws {
        try await Self.take(
            "chat-ru", environment: ["LANG": "ru_RU.UTF-8"], notifications: 3, bubbles: 1,
            shows: { network, _, shown in
                shown == [[network.friend.address.description, "3 новых сообщения\nВстретимся в полдень"]]
            },
            send: { network, _ in
                for text in ["Обед?", "Там же, где обычно", "Встретимся в полдень"] {
                    _ = try await network.submit(text, from: network.friend, to: network.me)
                }
            })
    }

    /// Arabic, right to left: the amount and the comment, left-to-right values inside the
    /// sentence, each isolated so it reads whole where it stands.
    @Test func aTransferInArabic() async throws {
        try await Self.take(
            "transfer-ar", environment: ["LANG": "ar_EG.UTF-8"], bubbles: 1,
            shows: { network, _, shown in
                shown == [
                    [
                        network.friend.address.description,
                        "تم إرسال \u{2068}2.5 ADM\u{2069} إليك: \u{2068}for the tickets\u{2069}",
                    ]
                ]
            },
            send: { network, _ in
                _ = try await network.send(
                    "for the tickets", from: network.friend, to: network.me, amount: 25 * ADMAmount.unitsPerADM / 10)
            })
    }

    @Test func previewNone() async throws {
        try await Self.take(
            "preview-none", ["--preview", "none"], bubbles: 1,
            shows: { _, _, shown in shown == [["ADAMANT", "New message"]] },
            send: { network, _ in
                _ = try await network.submit("The code is 4321", from: network.friend, to: network.me)
            })
    }

    @Test func hostileText() async throws {
        // Escaped, on one line, capped: WatchPolicyTests checks the text itself.
        try await Self.take(
            "hostile", bubbles: 1,
            shows: { network, _, shown in
                shown.count == 1 && shown[0][0] == network.friend.address.description
                    && shown[0][1].hasPrefix("&lt;b&gt;bold&lt;/b&gt;") && shown[0][1].count <= 540
            },
            send: { network, _ in
                let text =
                    "<b>bold</b> <a href=\"https://evil.example\">link</a> <img src=\"file:///etc/passwd\"> \u{202E}txet desrever\u{202C}"
                    + "\u{0007}\u{001B}[31m red\nsecond line\r\nthird " + String(repeating: "long ", count: 400)
                _ = try await network.submit(text, from: network.friend, to: network.me)
            })
    }
}
