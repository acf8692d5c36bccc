import AdamantCore
import AdamantDevnet
import Foundation
import Testing

/// The privacy invariant, checked on the real process: every connection `adm-push` opens while
/// it registers, unregisters and reads status goes to a configured node's port on loopback.
@Suite(
    "privacy", .timeLimit(.minutes(2)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
struct PrivacyTests {
    @Test func theCommandsConnectOnlyToTheConfiguredNodes() async throws {
        let network = try OutboxDevnet()
        let ports = Set(network.devnet.nodeURLs.compactMap { URL(string: $0)?.port })
        let trace = network.home + "/connect.trace"
        try FileManager.default.createDirectory(atPath: network.home, withIntermediateDirectories: true)
        let token = String(repeating: "9a", count: 32)
        for command in [
            ["register", "--token", token, "--provider", "apns"], ["unregister", "--token", token], ["status"],
        ] {
            let common = [
                "--home", network.home + "/home", "--service-address", network.devnet.ans.address.description,
                "--service-public-key", network.devnet.ans.publicKey.hex,
            ]
            let result = try await run(
                "/usr/bin/strace",
                ["-f", "-qq", "-e", "trace=connect", "-o", trace, Binaries.url("adm-push").path] + command + common,
                environment: [
                    "ADM_NODES": network.devnet.nodeURLs.joined(separator: ","), "ADM_PASSPHRASE": network.passphrase,
                ], timeout: 60)
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
                $0.contains("connect(")
            }
            #expect(!calls.isEmpty, "strace saw the connections")
            for call in calls where call.contains("AF_INET") {
                let port = call.firstMatch(of: /htons\((\d+)\)/).flatMap { Int($0.1) }
                #expect(
                    call.contains("inet_addr(\"127.0.0.1\")") && port.map(ports.contains) == true,
                    "\(command[0]) connected elsewhere: \(call)")
            }
            #expect(!calls.contains { $0.contains("AF_INET6") }, "no IPv6 connection either")
        }
    }
}
