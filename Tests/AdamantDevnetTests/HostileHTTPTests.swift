import AdamantCore
import Foundation
import Testing

@testable import AdamantDevnet

/// Garbage sent through the real HTTP server to every endpoint: every request gets an answer
/// (or, where the node never answers, none), and the devnet keeps serving. Thousands of short
/// blocking requests: each test yields between them, so parallel suites keep the pool.
// One test at a time: each loads the machine enough on its own.
@Suite(.serialized, .ownThreads, .timeLimit(.minutes(2)))
struct HostileHTTPTests {
    let network: TestNetwork
    init() throws { network = try TestNetwork() }

    static let huge = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999999",
        "1e16", "1e400", "-1e400", "1.5", "-0", "NaN", "true", "null", "[]", "{}", "\"\"",
    ]

    /// Bodies that are not JSON, JSON of every wrong type, deep nesting, a megabyte of text and
    /// invalid UTF-8 (the first `genericBodyCount`), then transactions with each field in turn
    /// pushed past its range or given the wrong type.
    static let bodies = try! makeBodies()
    static let genericBodyCount = 15

    private static func makeBodies() throws -> [[UInt8]] {
        var bodies: [[UInt8]] = [
            "", "{", "null", "[]", "\"x\"", "1e400", "{\"transaction\":null}", "{\"transaction\":[]}",
            "{\"transaction\":{\"type\":8}}", "{\"address\":7,\"amount\":[],\"fault\":{},\"mode\":false}",
        ]
        .map { Array($0.utf8) }
        bodies.append(Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
        bodies.append(
            Array((String(repeating: "{\"a\":", count: 50_000) + "1" + String(repeating: "}", count: 50_000)).utf8))
        bodies.append(Array("{\"transaction\":\"\(String(repeating: "a", count: 1_000_000))\"}".utf8))
        bodies.append([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0xC3, 0x28, 0x7D])
        bodies.append(Array("{\"transaction\":{\"signature\":\"\u{0}\(String(repeating: "é", count: 10))\"}}".utf8))
        let signed = [try transfer(1), try message("hostile")]
        for transaction in signed {
            let good = try JSONValue.parse(try transaction.submissionBody())["transaction"]!
            for key in [
                "type", "amount", "fee", "timestamp", "timestampMs", "senderId", "recipientId", "senderPublicKey",
                "signature", "asset",
            ] {
                for value in huge {
                    bodies.append(
                        Array("{\"transaction\":\(good.setting(key, to: .string("@@")).text)}".utf8)
                            .replacing(Array("\"@@\"".utf8), with: Array(value.utf8)))
                }
            }
            let chat = good["asset"]?["chat"] ?? [:]
            for key in ["type", "message", "own_message"] {
                for value in huge {
                    let asset: JSONValue = ["chat": chat.setting(key, to: .string("@@"))]
                    bodies.append(
                        Array("{\"transaction\":\(good.setting("asset", to: asset).text)}".utf8)
                            .replacing(Array("\"@@\"".utf8), with: Array(value.utf8)))
                }
            }
        }
        return bodies
    }

    /// Each GET endpoint with the parameters it reads (the list endpoints read them all).
    static let queries: [(path: String, names: [String])] = [
        ("/api/node/status", ["x"]), ("/api/blocks/getHeight", ["x"]), ("/api/loader/status/ping", ["x"]),
        ("/api/peers/version", ["x"]), ("/api/transactions/count", ["x"]),
        ("/api/accounts/getBalance", ["address"]), ("/api/accounts/getPublicKey", ["address"]),
        ("/api/accounts", ["address", "publicKey"]), ("/api/transactions/get", ["id", "returnAsset"]),
        ("/api/transactions/unconfirmed/get", ["id"]), ("/api/transactions/queued/get", ["id"]),
        ("/api/transactions/unconfirmed", ["senderPublicKey", "address"]),
        ("/api/transactions/queued", ["senderPublicKey", "address"]),
        (
            "/api/transactions",
            [
                "limit", "offset", "orderBy", "type", "types", "blockId", "senderId", "recipientId", "senderPublicKeys",
                "inId",
                "fromHeight", "toHeight", "fromTimestamp", "toTimestamp", "fromUnixTime", "toUnixTime", "minAmount",
                "maxAmount",
                "minFee", "maxFee", "minConfirmations", "returnAsset", "returnUnconfirmed", "and:fromHeight",
                "and:fromUnixTime",
                "or:toUnixTime", "and:minConfirmations",
            ]
        ),
        (
            "/api/chats/get",
            [
                "limit", "offset", "orderBy", "type", "fromHeight", "senderId", "recipientId", "isIn", "inId",
                "includeDirectTransfers", "withoutDirectTransfers", "returnUnconfirmed",
            ]
        ),
        (
            "/api/states/get",
            [
                "limit", "offset", "orderBy", "type", "key", "keyIds", "senderId", "senderIds", "fromHeight", "blockId",
                "senderPublicKeys", "and:senderId", "or:limit",
            ]
        ),
    ]

    /// POST bodies: a node that answers hangs up only on `POST /api/transactions` with a type it
    /// never answers, and that must not hold the test up.
    @Test func garbageBodiesOnEveryNodeEndpoint() async throws {
        for path in ["/api/transactions/process", "/api/chats/process", "/api/states/store"] {
            for body in Self.bodies {
                let reply = try Self.send("POST", network.node + path, body: body)
                #expect([200, 500].contains(reply.status), "\(path): \(reply.status) \(reply.text.prefix(200))")
                await Task.yield()
            }
        }
        for body in Self.bodies.prefix(Self.genericBodyCount) {
            try HTTPConnection(url: network.node).sendWithoutWaiting("POST", "/api/transactions", body: body)
            #expect(try Self.send("POST", network.node + "/api/chats/get", body: body).status == 500)
        }
        // Abandoned requests may briefly fill the node past its connection cap.
        #expect(
            await eventually(within: 20) {
                (try? HTTPClient.send("GET", network.node + "/api/blocks/getHeight"))?.status == 200
            })
    }

    @Test func garbageQueriesOnEveryNodeEndpoint() async throws {
        let values =
            Self.huge + ["", "-", "abc", "%00", "U", "U99999999999999999999999", String(repeating: "9", count: 4_000)]
        for (path, names) in Self.queries {
            for name in names {
                for value in values {
                    let query = "?" + Self.encoded(name) + "=" + Self.encoded(value)
                    let reply = try Self.send("GET", network.node + path + query)
                    #expect([200, 414, 431, 500].contains(reply.status), "\(path)\(query): \(reply.status)")
                    await Task.yield()
                }
            }
        }
        #expect(try Self.send("GET", network.node + "/api/blocks/getHeight").status == 200)
    }

    @Test func garbageOnEveryControlEndpoint() async throws {
        let routes = [
            ("POST", "/fund"), ("POST", "/mine"), ("PUT", "/ans/mode"), ("POST", "/ans/poll"), ("GET", "/ans/registry"),
            ("POST", "/nodes/0/faults"), ("DELETE", "/nodes/0/faults"), ("DELETE", "/nodes/0/requests"),
            ("POST", "/nodes/-9223372036854775808/faults"), ("GET", "/nodes/99999999999999999999/requests"),
            ("POST", "/send"), ("POST", "/contacts"),
        ]
        var bodies = Array(Self.bodies.prefix(Self.genericBodyCount))
        for amount in Self.huge + ["\"98000000\"", "\"0.000000001\"", "\"-1\"", "\"99999999\""] {
            bodies.append(Array("{\"address\":\"\(Fixtures.bob.address)\",\"amount\":\(amount)}".utf8))
        }
        let alice = Fixtures.alice.address
        let bob = Fixtures.bob.address
        for kind in ["\"message\"", "\"transfer\"", "\"rich\"", "\"signal\"", "\"nope\"", "7", "null"] {
            for amount in Self.huge + ["\"98000000\"", "\"0.000000001\"", "\"-1\"", "\"1\""] {
                bodies.append(
                    Array(
                        #"{"from":"\#(alice)","to":"\#(bob)","kind":\#(kind),"message":"hi","amount":\#(amount)}"#.utf8)
                )
            }
        }
        for names in [
            "[]", "7", #"{"x":"y"}"#, #"{"\#(bob)":7}"#, #"{"\#(bob)":"\#(String(repeating: "n", count: 30_000))"}"#,
        ] {
            bodies.append(Array(#"{"account":"\#(alice)","names":\#(names)}"#.utf8))
        }
        for fault in [
            "delay:99999999999999999999", "lag:-9223372036854775808", "skew:9223372036854775807", "trickle:0",
            "status:-1", "refuse@/x", "nethash:zz", "version:99999999999999999999.0.0", "@", ":", "",
        ] {
            bodies.append(Array("{\"fault\":\"\(fault)\"}".utf8))
        }
        for (method, path) in routes {
            for body in bodies {
                let reply = try Self.send(method, network.devnet.controlURL + path, body: body)
                #expect(
                    [200, 400, 404].contains(reply.status),
                    "\(method) \(path): \(reply.status) \(reply.text.prefix(200))")
                await Task.yield()
            }
        }
        #expect(try Self.send("GET", network.devnet.controlURL + "/").status == 200)
        #expect(try Self.send("GET", network.node + "/api/blocks/getHeight").status == 200)
    }

    /// A hostile loop of 942 × 98,000,000 ADM must not overflow a balance and kill the
    /// devnet. Past the total supply the faucet answers 400 and the balance is unchanged.
    @Test func fundingPastTheTotalSupplyIsRefused() async throws {
        let bob = Fixtures.bob.address
        for _ in 0..<942 {
            let reply = try Self.send(
                "POST", network.devnet.controlURL + "/fund",
                body: Array(#"{"address":"\#(bob)","amount":"98000000"}"#.utf8))
            #expect(reply.status == 400)
            #expect(reply.json["error"]?.string?.contains("total supply of 98000000 ADM") == true, "\(reply.text)")
            await Task.yield()
        }
        #expect(network.devnet.balance(of: bob) == ADMAmount(units: 0))
        let fits = try network.control("POST", "/fund", ["address": .string(bob.description), "amount": "97999900"])
        #expect(fits.status == 200 && fits.json["balance"]?.string == "97999900")
        #expect(
            try network.control("POST", "/fund", ["address": .string(bob.description), "amount": "0.00000001"]).status
                == 400)
    }

    @Test func genesisPastTheTotalSupplyIsRefused() throws {
        #expect {
            try TestNetwork {
                $0.freshAccounts = 1
                $0.freshAccountBalance = ADMAmount.totalSupply
            }
        } throws: { error in
            guard case DevnetError.pastTotalSupply(let reason) = error else { return false }
            return reason.contains("total supply of 98000000 ADM")
        }
        let child = try Child(["start", "--account", "\(Fixtures.alice.passphrase)=98000000", "--fund", "1"])
        #expect(child.waitForExit() == 64)
        #expect(child.readAllErrors().contains("past the total supply"))
    }

    /// One request, with a timeout for a loaded machine and the request named when it fails.
    static func send(_ method: String, _ url: String, body: [UInt8]? = nil) throws -> HTTPResult {
        do {
            return try HTTPClient.send(method, url, body: body, timeout: 20)
        } catch {
            Issue.record(
                "\(method) \(url.prefix(200)) with \(String(decoding: (body ?? []).prefix(120), as: UTF8.self)): \(error)"
            )
            throw error
        }
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
