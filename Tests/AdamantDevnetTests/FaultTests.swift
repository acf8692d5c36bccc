import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// Each fault kind, set and cleared through the control endpoint.
@Suite(.ownThreads, .timeLimit(.minutes(1)))
struct FaultTests {
    let network: TestNetwork
    init() throws { network = try TestNetwork() }

    func setFault(_ fault: String, node: Int = 0) throws {
        let reply = try network.control("POST", "/nodes/\(node)/faults", ["fault": .string(fault)])
        try #require(reply.status == 200, "\(reply.text)")
    }

    func clearFaults(node: Int = 0) throws {
        _ = try network.control("DELETE", "/nodes/\(node)/faults")
    }

    /// Faults given at start, on several nodes and of several kinds, each take effect.
    @Test func faultsAtStart() throws {
        let network = try TestNetwork(nodes: 3) { configuration in
            configuration.faults = [
                .init(node: 1, fault: try! Fault(parsing: "nethash:" + String(repeating: "ab", count: 32))),
                .init(node: 2, fault: try! Fault(parsing: "refuse")),
            ]
        }
        #expect(try network.get("/api/node/status").json["network"]?["nethash"]?.string == DevnetNethash.value)
        #expect(
            try network.get("/api/node/status", node: 1).json["network"]?["nethash"]?.string
                == String(repeating: "ab", count: 32))
        #expect(throws: HTTPClientError.refused) { try network.get("/api/node/status", node: 2) }
    }

    /// A node started refused must not close its port again after binding it, or another
    /// server (another test's devnet) could take the port and answer in its place. The
    /// port stays held, never listening, from the first instant; clearing the fault serves there.
    @Test func aRefusedNodeHoldsItsPortAndNeverServes() throws {
        let network = try TestNetwork(nodes: 2) { $0.faults = [.init(node: 1, fault: try! Fault(parsing: "refuse"))] }
        let port = try #require(UInt16(network.devnet.nodeURLs[1].split(separator: ":").last!))
        #expect(bindError(port) == EADDRINUSE)
        #expect(throws: HTTPClientError.refused) { try network.get("/api/node/status", node: 1) }
        #expect(try network.devnet.requests(toNode: 1).isEmpty)

        try network.devnet.clearFaults(ofNode: 1)
        #expect(try network.get("/api/node/status", node: 1).status == 200)
        try network.devnet.add(Fault(.refuse), toNode: 1)
        #expect(bindError(port) == EADDRINUSE)
        #expect(throws: HTTPClientError.refused) { try network.get("/api/node/status", node: 1) }
    }

    /// A child process started while a node serves inherits every descriptor not marked
    /// close-on-exec. Had it a copy of the listening socket, the port would go on listening
    /// after `refuse`, with nobody accepting: connections would hang instead of being refused,
    /// and after the fault is cleared the kernel would share new ones between that orphan and
    /// the new listener. Checked on the sockets themselves: the child holds none of the port's
    /// listeners.
    @Test func aChildStartedMeanwhileHoldsNoListeningSocket() throws {
        #expect(try network.get("/api/node/status").status == 200)
        let port = try #require(UInt16(network.devnet.nodeURLs[0].split(separator: ":").last!))
        // /proc/net/tcp: local address as hex IP:PORT, state 0A for LISTEN, the inode tenth.
        // Read to its end: a /proc file says it is empty, and a busy table is many pages long.
        let table = try #require(FileHandle(forReadingAtPath: "/proc/net/tcp")).readDataToEndOfFile()
        let listening = String(decoding: table, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(String(format: ":%04X", port)), fields[3] == "0A" else {
                return nil
            }
            return "socket:[\(fields[9])]"
        }
        try #require(!listening.isEmpty, "the node listens on \(port)")
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { for pointer in argv { free(pointer) } }
        try #require(posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0)
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        // Its descriptors are settled once it runs sleep: exec closed the close-on-exec ones.
        let folder = "/proc/\(child)/fd"
        #expect(
            eventually(within: 10) {
                ((try? String(contentsOfFile: "/proc/\(child)/cmdline", encoding: .utf8)) ?? "").hasPrefix("/bin/sleep")
            })
        let held = try FileManager.default.contentsOfDirectory(atPath: folder).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
        }
        #expect(Set(held).isDisjoint(with: listening), "the child holds \(Set(held).intersection(listening))")
    }

    /// Every fault given at start is in force for the node's first request.
    @Test func faultsAtStartHoldForTheFirstRequest() throws {
        let network = try TestNetwork(nodes: 2) { configuration in
            configuration.faults = [
                .init(node: 0, fault: Fault(.status(503))), .init(node: 1, fault: Fault(.blackhole)),
            ]
        }
        #expect(try network.get("/api/node/status").status == 503)
        #expect(throws: HTTPClientError.timedOut(receivedBytes: 0)) {
            try HTTPConnection(url: network.devnet.nodeURLs[1]).send("GET", "/api/node/status", timeout: 0.3)
        }
        #expect(
            try network.devnet.requests(toNode: 1) == [
                RequestRecord(method: "GET", path: "/api/node/status", status: nil)
            ])
    }

    @Test func refuseClosesThePortAndClearingReopensIt() throws {
        try setFault("refuse")
        #expect(throws: HTTPClientError.refused) { try network.get("/api/blocks/getHeight") }
        #expect(try network.get("/api/blocks/getHeight", node: 1).status == 200)
        try clearFaults()
        #expect(try network.get("/api/blocks/getHeight").status == 200)
    }

    @Test func blackholeAcceptsAndNeverAnswers() throws {
        try setFault("blackhole")
        let connection = try HTTPConnection(url: network.node)
        #expect(throws: HTTPClientError.timedOut(receivedBytes: 0)) {
            try connection.send("GET", "/api/node/status", timeout: 0.3)
        }
        #expect(try network.get("/api/node/status", node: 1).status == 200)
        #expect(
            try network.devnet.requests(toNode: 0).last
                == RequestRecord(method: "GET", path: "/api/node/status", status: nil))
    }

    @Test func delayIsScopedToItsPathPrefix() throws {
        try setFault("delay:300@/api/chats")
        let start = Date()
        #expect(try network.get("/api/blocks/getHeight").status == 200)
        #expect(Date().timeIntervalSince(start) < 0.25)
        #expect(try network.get("/api/chats/get").status == 200)
        #expect(Date().timeIntervalSince(start) >= 0.3)
        #expect(
            try network.control("GET", "/nodes/0/faults").json["faults"]?.arrayValue.first?.string
                == "delay:300@/api/chats")
    }

    @Test func statusCodesWithTheNodesBodies() throws {
        for (code, body) in [
            (500, #"{"success":false,"error":"API error: Connection terminated unexpectedly"}"#),
            (403, #"{"success":false,"error":"API access denied"}"#),
            (429, "Too many requests, please try again later."), (503, #"{"success":false}"#),
        ] {
            try setFault("status:\(code)")
            let reply = try network.get("/api/node/status")
            #expect(reply.status == code && reply.text == body)
        }
        try clearFaults()
        try setFault("html404")
        #expect(try network.get("/api/node/status").text.contains("Cannot GET /api/node/status"))
    }

    @Test func garbageTruncateAndTrickle() throws {
        try setFault("garbage")
        let garbage = try network.get("/api/node/status")
        #expect(garbage.status == 200 && garbage.json.isNull && !garbage.body.isEmpty)
        try clearFaults()

        try setFault("truncate")
        let truncated = try network.get("/api/node/status")
        #expect(!truncated.complete && truncated.body.count < Int(truncated.headers["content-length"]!)!)
        try clearFaults()

        try setFault("trickle:100")
        let trickled = try HTTPConnection(url: network.node).send("GET", "/api/node/status", timeout: 0.5)
        #expect(!trickled.complete && (1...8).contains(trickled.body.count))
    }

    @Test func lagNethashVersionAndSkew() throws {
        for _ in 0..<3 { network.devnet.mine() }
        try setFault("lag:2")
        try setFault("nethash:\(String(repeating: "ab", count: 32))")
        try setFault("version:0.8.3")
        try setFault("skew:-120")
        let status = try network.get("/api/node/status").json
        let healthy = try network.get("/api/node/status", node: 1).json
        #expect(status["network"]?["height"]?.int64 == 2 && healthy["network"]?["height"]?.int64 == 4)
        #expect(status["network"]?["nethash"]?.string == String(repeating: "ab", count: 32))
        #expect(status["version"]?["version"]?.string == "0.8.3" && status["loader"] == nil)
        let skew = healthy["nodeTimestamp"]!.int64! - status["nodeTimestamp"]!.int64!
        #expect((119...121).contains(skew))
    }

    @Test func laggingNodeDoesNotServeRecentBlocks() throws {
        let sent = try message("recent")
        _ = try network.submit(sent)
        network.devnet.mine()
        try network.devnet.add(Fault(.lag(blocks: 1)), toNode: 0)
        #expect(try network.get("/api/transactions/get?id=\(try sent.computedID())").error == "Transaction not found")
        #expect(
            try network.get("/api/transactions/get?id=\(try sent.computedID())", node: 1).json["transaction"] != nil)
    }

    @Test func tamperedTransactionsFailVerification() throws {
        let sent = try message("secret")
        _ = try network.submit(sent)
        network.devnet.mine()
        try setFault("tamper")
        let json = try network.get("/api/transactions/get?id=\(try sent.computedID())&returnAsset=1").json[
            "transaction"]!
        #expect(throws: TransactionError.self) { try JSONDecoderForTests.transaction(json).verify() }
        let listed = try network.get("/api/chats/get").json["transactions"]!.arrayValue[0]
        #expect(throws: TransactionError.self) { try JSONDecoderForTests.transaction(listed).verify() }
    }

    @Test func dropAnswersSuccessAndForgets() throws {
        try setFault("drop")
        let sent = try transfer(1)
        #expect(try network.submit(sent).json["transactionId"]?.string == (try sent.computedID().description))
        network.devnet.mine()
        #expect(try network.get("/api/transactions/get?id=\(try sent.computedID())").error == "Transaction not found")
    }

    @Test func timeoutAfterAcceptPoolsTheTransaction() throws {
        try setFault("timeout-after-accept")
        let sent = try transfer(1)
        let connection = try HTTPConnection(url: network.node)
        #expect(throws: HTTPClientError.self) {
            try connection.send("POST", sent.submissionPath, body: try sent.submissionBody(), timeout: 0.3)
        }
        // The client is still waiting (a client that leaves is let go); on a loaded machine the
        // node may take a moment to read the request.
        let queued = "/api/transactions/queued/get?id=\(try sent.computedID())"
        #expect(try eventually { try network.get(queued, node: 1).json["transaction"] != nil })
        withExtendedLifetime(connection) {}
    }

    @Test func requestLogRecordsEachNodeSeparately() throws {
        _ = try network.get("/api/node/status")
        _ = try network.get("/api/foo", node: 1)
        let first = try network.control("GET", "/nodes/0/requests").json["requests"]!.arrayValue
        let second = try network.control("GET", "/nodes/1/requests").json["requests"]!.arrayValue
        #expect(first.map { $0["path"]?.string } == ["/api/node/status"] && first[0]["status"]?.int64 == 200)
        #expect(second.map { $0["path"]?.string } == ["/api/foo"] && second[0]["status"]?.int64 == 404)
        _ = try network.control("DELETE", "/nodes/0/requests")
        #expect(try network.devnet.requests(toNode: 0).isEmpty)
    }

    @Test func invalidFaultsAreRefused() throws {
        #expect(try network.control("POST", "/nodes/0/faults", ["fault": "status:404"]).status == 400)
        #expect(try network.control("POST", "/nodes/7/faults", ["fault": "drop"]).status == 400)
        #expect(throws: FaultError.self) { try Fault(parsing: "refuse@/api") }
    }
}

/// The errno of binding a plain socket to 127.0.0.1:port, or 0 if it could bind.
private func bindError(_ port: UInt16) -> Int32 {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(port.bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return bound == 0 ? 0 : errno
}
