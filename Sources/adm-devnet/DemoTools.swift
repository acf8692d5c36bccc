import AdamantCLI
import AdamantCore
import AdamantDevnet
import Foundation

/// adm-push and adm-fetch as a user runs them, on the demo's devnet: the executables installed
/// (or built) beside this adm-devnet, each account's passphrase in a file only its owner can
/// read, never in an argument or a child's environment, and every file in a private directory
/// removed at the end.
struct DemoTools {
    private let directory: String
    private let work: String
    private let nodes: [String]
    private let services: [ServiceKind: [String]]
    /// Only what the tools need: no config file, proxy or home of the user's applies.
    private let environment: [String: String]

    init(devnet: Devnet) throws {
        guard let executable = Bundle.main.executablePath else { throw DemoError("this program's path is unknown") }
        directory = (executable as NSString).deletingLastPathComponent
        for tool in ["adm-push", "adm-fetch"]
        where !FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)") {
            throw DemoError(
                "the demo runs \(tool) from beside adm-devnet, and \(directory) has none: build or install them together"
            )
        }
        work =
            FileManager.default.temporaryDirectory.appendingPathComponent("adm-devnet-demo-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(
            atPath: work, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        nodes = devnet.nodeURLs.flatMap { ["--node", $0] } + ["--nethash", devnet.nethash]
        services = [
            .ans: [
                "--service-address", devnet.ans.address.description, "--service-public-key",
                devnet.ans.publicKey.description,
            ],
            .ns: [
                "--service", "ns", "--service-address", devnet.ns.address.description, "--service-public-key",
                devnet.ns.publicKey.description,
            ],
        ]
        environment = ["HOME": work, "XDG_CONFIG_HOME": work + "/config", "XDG_STATE_HOME": work + "/state"]
    }

    func remove() { try? FileManager.default.removeItem(atPath: work) }

    /// Runs `adm-push ARGUMENTS` as `account` with the devnet's `service`, in its own home;
    /// throws unless it exits with `expecting`.
    func push(_ arguments: [String], as account: DevnetAccount, expecting status: Int32, service: ServiceKind = .ans)
        async throws -> PushRun
    {
        let options = ["--home", "\(work)/push-\(account.address)", "--passphrase-file", try passphraseFile(account)]
        let run = try await PipedProcess.run(
            "\(directory)/adm-push", arguments + options + nodes + (services[service] ?? []), environment: environment)
        guard run.outcome == .exited(status) else {
            throw DemoError("adm-push \(arguments[0]) \(run.outcome), not with status \(status): \(run.error)")
        }
        return PushRun(output: run.output)
    }

    /// Starts `adm-fetch watch --json ARGUMENTS` as `account`, in a home of its own (`home`).
    func watch(as account: DevnetAccount, arguments: [String], home: String) throws -> DemoWatch {
        let options = ["--home", "\(work)/\(home)", "--passphrase-file", try passphraseFile(account)]
        let process = try PipedProcess(
            "\(directory)/adm-fetch", ["watch", "--json"] + arguments + options + nodes, environment: environment)
        return DemoWatch(process, name: (["adm-fetch watch"] + arguments).joined(separator: " "))
    }

    /// The account's passphrase in a file of mode 600, made once.
    private func passphraseFile(_ account: DevnetAccount) throws -> String {
        let path = "\(work)/\(account.address).passphrase"
        if FileManager.default.fileExists(atPath: path) { return path }
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(account.passphrase.utf8), attributes: [.posixPermissions: 0o600])
        else { throw DemoError("\(path) cannot be written") }
        return path
    }
}

/// What `adm-push register --json` said of its token.
struct PushRun {
    let output: String
    private let token: [String: Any]?

    init(output: String) {
        self.output = output
        let report = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
        token = (report?["tokens"] as? [[String: Any]])?.first
    }

    /// The block of the signal that applied the token's newest intent.
    var appliedHeight: Int64? {
        guard token?["state"] as? String == "applied" else { return nil }
        return (token?["height"] as? NSNumber)?.int64Value
    }

    /// No signal of the intent is waiting to land.
    var nothingInFlight: Bool { (token?["attemptsInFlight"] as? [Any])?.isEmpty == true }
}
