import AdamantCore
import AdamantDevnet
import AdamantNodes
import Foundation

/// One `adm-fetch watch --json` of `size` accounts, live at the defaults, on a devnet of its own
/// with mainnet's 5 s blocks and real nodes' 25 s ping, and partners funded at genesis who
/// send the bursts.
final class AccountsWatch {
    let size: Int
    let devnet: Devnet
    let process: WatchingProcess
    private let watched: [DevnetAccount]
    private let partners: [KeyPair]
    private let client: NodeClient

    /// The accounts' passphrases are written to files of mode 600 under `folder`, named by
    /// --passphrase-file: never in the arguments, which any local user can read.
    init(size: Int, partners: Int, fetch: String, folder: String) throws {
        self.size = size
        devnet = try benchDevnet(freshAccounts: size + partners) { configuration in
            configuration.blockTime = .seconds(5)
            configuration.poolInterval = .seconds(1)
        }
        do {
            let funded = devnet.accounts.prefix(size + partners).map(\.account)
            watched = Array(funded.prefix(size))
            // Derived once here: DevnetAccount.keyPair runs PBKDF2 again at every use.
            self.partners = funded.dropFirst(size).map(\.keyPair)
            var arguments: [String] = []
            for (index, account) in watched.enumerated() {
                let path = folder + "/\(index).key"
                guard
                    FileManager.default.createFile(
                        atPath: path, contents: Data(account.passphrase.utf8), attributes: [.posixPermissions: 0o600])
                else { throw BenchmarkError(description: "cannot write \(path)") }
                arguments += ["--passphrase-file", path]
            }
            process = try WatchingProcess(
                fetch, arguments,
                environment: ["ADM_NODES": devnet.nodeURLs.joined(separator: ","), "ADM_PUSH_HOME": folder + "/home"])
            let nodes = try NodeList(
                endpoints: devnet.nodeURLs.map { NodeEndpoint(url: try NodeURL($0)) },
                nethash: .pinned(Nethash(devnet.nethash)!), source: .arguments)
            client = NodeClient(pool: NodePool(nodes: nodes))
        } catch {
            devnet.stop()
            throw error
        }
    }

    func stop() {
        process.stop()
        devnet.stop()
    }

    /// Waits until both sockets the watch keeps carry every account and the listings their
    /// coming up set off are read: no node has been asked anything for `quiet`. Returns when
    /// the nodes were last asked, which the listings every 60 s keep to.
    func settle(quiet: Duration, within limit: Duration) throws -> ContinuousClock.Instant {
        let all = Set(watched.map(\.address))
        try process.wait(within: limit, "sockets carrying all \(size) accounts") {
            let sessions = devnet.nodeURLs.indices.flatMap { (try? devnet.socketSubscriptions(ofNode: $0)) ?? [] }
            return sessions.filter { $0 == all }.count == 2
        }
        var last = (requests: -1, at: ContinuousClock.now)
        try process.wait(within: limit, "nodes left alone for \(quiet)") {
            let requests = devnet.nodeURLs.indices.reduce(0) { $0 + ((try? devnet.requests(toNode: $1).count) ?? 0) }
            if requests != last.requests { last = (requests, .now) }
            return last.at.duration(to: .now) >= quiet
        }
        return last.at
    }

    /// One message from each partner to an account no watch follows. The bench's own client
    /// then has its worker threads and connections before the first burst, which without this
    /// read 2 to 6 times the bursts after it, in every watch, the one of one account too.
    func warmUp() async throws {
        let nobody = devnet.accounts.last!.account  // the devnet's account with no funds
        _ = try await send("warm-up") { _ in nobody }
    }

    /// Sends one message from each partner at once, to the watched accounts in turn, and
    /// returns, for each, the milliseconds from its POST answer to its line.
    func burst(_ round: Int) async throws -> [Double] {
        let watched = watched
        let answered = try await send("burst \(round)") { watched[$0 % watched.count] }
        try process.waitForLines(Set(answered.keys), within: .seconds(60))
        let shown = process.lineTimes
        return answered.compactMap { id, at in shown[id].map { Double(Int64($0) - Int64(at)) / 1e6 } }
    }

    /// Posts one message from each partner at once, the `index`th to `recipient(index)`, and
    /// returns when each was answered.
    private func send(_ label: String, to recipient: @escaping @Sendable (Int) -> DevnetAccount) async throws
        -> [TransactionID: UInt64]
    {
        await client.pool.checkHealth()
        let client = client
        return try await withThrowingTaskGroup(of: (TransactionID, UInt64).self) { group in
            for (index, partner) in partners.enumerated() {
                let recipient = recipient(index)
                group.addTask {
                    let asset = try ChatKey(secretKey: partner.secretKey, partner: recipient.publicKey).seal(
                        "\(label), message \(index)")
                    let sent = try await client.submitChat(asset, to: recipient.address, signedBy: partner)
                    guard sent.outcome.isSuccess else {
                        throw BenchmarkError(description: "message \(index) was refused: \(sent.outcome)")
                    }
                    return (sent.transactionID, now())
                }
            }
            var answered: [TransactionID: UInt64] = [:]
            for try await (id, at) in group { answered[id] = at }
            return answered
        }
    }
}
