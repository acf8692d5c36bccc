// notifier --home DIR --node URL [--node URL…]: one JSON line on standard output for each
// notification of the account whose passphrase is in ADM_PASSPHRASE, each printed once across
// restarts on the same home. The libraries alone, as an app or a bot would use them.
import AdamantCore
import AdamantFetch
import AdamantNodes
import AdamantStore
import Foundation

/// Says `message` on standard error and exits with `status`, a sysexits(3) code.
func fail(_ message: String, _ status: Int32) -> Never {
    FileHandle.standardError.write(Data("notifier: \(message)\n".utf8))
    exit(status)
}

let usage = "usage: notifier --home DIR --node URL [--node URL…], with the passphrase in ADM_PASSPHRASE"
var home: String?
var nodes: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    guard option == "--home" || option == "--node", let value = arguments.popFirst() else { fail(usage, 64) }
    if option == "--home" { home = value } else { nodes.append(value) }
}
guard let home, !nodes.isEmpty else { fail(usage, 64) }
// Never from the arguments, which any local user can read (ps, /proc/PID/cmdline).
guard var passphrase = ProcessInfo.processInfo.environment["ADM_PASSPHRASE"].map({ Array($0.utf8) }) else {
    fail("ADM_PASSPHRASE is not set: it holds the account's passphrase", 64)
}

let keyPair: KeyPair
let pool: NodePool
do {
    keyPair = KeyPair(passphrase: try Passphrase(validating: &passphrase))
    pool = NodePool(nodes: try NodeList.resolve(arguments: nodes, environment: [:]))
} catch {
    fail("\(error)", 64)
}
// Keeps what was handed over, so a restart neither misses nor repeats a notification. It
// creates a missing home with mode 700, and refuses one that others can enter.
let log: NotificationLog
do throws(StoreError) { log = try NotificationLog(home: home) } catch {
    if case .home = error { fail("\(error)", 64) }
    fail("\(error)", 74)
}

let fetcher = Fetcher(keyPair: keyPair, client: NodeClient(pool: pool), publicKeys: log)
// `.resume`: where the last run on this home stopped; on a new home, the current block.
let notifications = Notifications(WatchGroup([Watcher(fetcher: fetcher, log: log)]), from: .resume)

/// One line of output: a notification as the policy (here the default: all of it) shows it.
struct Line: Encodable {
    let id, account, kind, title, body: String
}
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

// A signal ends it at once, with 0: as after a kill, the notification being handed over may come again.
signal(SIGINT) { _ in _exit(0) }
signal(SIGTERM) { _ in _exit(0) }

do throws(WatchGroup.Failure) {
    for try await notification in notifications {
        let shown = notification.result.notification
        let line = Line(
            id: notification.result.id.description, account: notification.account.description,
            kind: shown.kind.rawValue, title: shown.title, body: shown.body)
        // Written out before the loop asks for the next one, which is when this one counts as
        // handed over: one that cannot be written comes again at the next start.
        do { try FileHandle.standardOutput.write(contentsOf: encoder.encode(line) + Data("\n".utf8)) } catch {
            fail("standard output: \(error)", 74)
        }
    }
} catch {
    switch error.error {
    case .noUsableNode(let error): fail(error.description, 69)
    // Another notifier follows this account on this home.
    case .leaseRefused: fail("\(error.error)", 75)
    default: fail("\(error.error)", 74)
    }
}
