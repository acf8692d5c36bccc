@testable import AdamantDevnet
import AdamantCore
import Foundation
import Testing

/// Garbage sent through the real HTTP server to every endpoint: every request gets an answer
/// (or, where the node never answers, none), and the devnet keeps serving.
@Suite(.timeLimit(.minutes(2)))
struct HostileHTTPTests {
    let network: TestNetwork
    init() throws { network = try TestNetwork() }

    static let huge = ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999999",
                       "1e16", "1e400", "-1e400", "1.5", "-0", "NaN", "true", "null", "[]", "{}", "\"\""]

    /// Bodies that are not JSON, JSON of every wrong type, deep nesting, a megabyte of text,
    /// invalid UTF-8, and transactions whose every integer field is pushed past its range.
    static func bodies() throws -> [[UInt8]] {
        var bodies: [[UInt8]] = ["", "{", "null", "[]", "\"x\"", "1e400", "{\"transaction\":null}", "{\"transaction\":[]}",
                                 "{\"transaction\":{\"type\":8}}", "{\"address\":7,\"amount\":[],\"fault\":{},\"mode\":false}"]
            .map { Array($0.utf8) }
        bodies.append(Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
        bodies.append(Array((String(repeating: "{\"a\":", count: 50_000) + "1" + String(repeating: "}", count: 50_000)).utf8))
        bodies.append(Array("{\"transaction\":\"\(String(repeating: "a", count: 1_000_000))\"}".utf8))
        bodies.append([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0xC3, 0x28, 0x7D])
        bodies.append(Array("{\"transaction\":{\"signature\":\"\u{0}\(String(repeating: "é", count: 10))\"}}".utf8))
        let signed = [try transfer(1), try message("hostile")]
        for transaction in signed {
            let good = try JSON.parse(try transaction.submissionBody())["transaction"]!
            for key in ["type", "amount", "fee", "timestamp", "timestampMs", "senderId", "recipientId", "senderPublicKey", "signature", "asset"] {
                for value in huge {
                    bodies.append(Array("{\"transaction\":\(good.setting(key, to: .string("@@")).text)}".utf8)
                        .replacing(Array("\"@@\"".utf8), with: Array(value.utf8)))
                }
            }
            let chat = good["asset"]?["chat"] ?? [:]
            for key in ["type", "message", "own_message"] {
                for value in huge {
                    let asset: JSON = ["chat": chat.setting(key, to: .string("@@"))]
                    bodies.append(Array("{\"transaction\":\(good.setting("asset", to: asset).text)}".utf8)
                        .replacing(Array("\"@@\"".utf8), with: Array(value.utf8)))
                }
            }
        }
        return bodies
    }

    static let postPaths = ["/api/transactions/process", "/api/chats/process", "/api/transactions", "/api/chats/get"]
    static let getPaths = [
        "/api/node/status", "/api/blocks/getHeight", "/api/accounts/getBalance", "/api/accounts/getPublicKey", "/api/accounts",
        "/api/transactions/get", "/api/transactions/unconfirmed/get", "/api/transactions/queued/get",
        "/api/transactions/unconfirmed", "/api/transactions/queued", "/api/transactions/count", "/api/transactions",
        "/api/chats/get", "/api/loader/status/ping", "/api/peers/version",
    ]
    static let queryNames = [
        "limit", "offset", "fromHeight", "toHeight", "type", "types", "orderBy", "id", "address", "publicKey", "senderId",
        "recipientId", "isIn", "inId", "fromTimestamp", "toTimestamp", "fromUnixTime", "toUnixTime", "minAmount",
        "maxAmount", "minFee", "maxFee", "minConfirmations", "returnAsset", "returnUnconfirmed", "senderPublicKey",
        "and:fromHeight", "and:fromUnixTime", "or:toUnixTime", "and:minConfirmations", "blockId",
    ]

    /// POST bodies: a node that answers hangs up only on `POST /api/transactions` with a type it
    /// never answers, and that must not hold the test up.
    @Test func garbageBodiesOnEveryNodeEndpoint() throws {
        for path in Self.postPaths {
            for body in try Self.bodies() {
                guard path != "/api/transactions" else {
                    try HTTPConnection(url: network.node).sendWithoutWaiting("POST", path, body: body)
                    continue
                }
                let reply = try HTTPClient.send("POST", network.node + path, body: body)
                #expect([200, 500].contains(reply.status), "\(path): \(reply.status) \(reply.text.prefix(200))")
            }
            // Hundreds of abandoned requests may briefly fill the node past its connection cap.
            #expect(try eventually { try network.get("/api/blocks/getHeight").status == 200 })
        }
    }

    @Test func garbageQueriesOnEveryNodeEndpoint() throws {
        let values = Self.huge + ["", "-", "abc", "%00", "U", "U99999999999999999999999", String(repeating: "9", count: 4_000)]
        for path in Self.getPaths {
            for name in Self.queryNames {
                for value in values {
                    let query = "?" + Self.encoded(name) + "=" + Self.encoded(value)
                    let reply = try network.get(path + query)
                    #expect([200, 414, 431, 500, 503].contains(reply.status), "\(path)\(query): \(reply.status)")
                }
            }
        }
        #expect(try network.get("/api/blocks/getHeight").status == 200)
    }

    @Test func garbageOnEveryControlEndpoint() throws {
        let routes = [("POST", "/fund"), ("POST", "/mine"), ("PUT", "/ans/mode"), ("POST", "/ans/poll"), ("GET", "/ans/registry"),
                      ("POST", "/nodes/0/faults"), ("DELETE", "/nodes/0/faults"), ("DELETE", "/nodes/0/requests"),
                      ("POST", "/nodes/-9223372036854775808/faults"), ("GET", "/nodes/99999999999999999999/requests")]
        var bodies = try Self.bodies().prefix(20).map { $0 }
        for amount in Self.huge + ["\"98000000\"", "\"0.000000001\"", "\"-1\"", "\"99999999\""] {
            bodies.append(Array("{\"address\":\"\(Fixtures.bob.address)\",\"amount\":\(amount)}".utf8))
        }
        for fault in ["delay:99999999999999999999", "lag:-9223372036854775808", "skew:9223372036854775807", "trickle:0",
                      "status:-1", "refuse@/x", "nethash:zz", "version:99999999999999999999.0.0", "@", ":", ""] {
            bodies.append(Array("{\"fault\":\"\(fault)\"}".utf8))
        }
        for (method, path) in routes {
            for body in bodies {
                let reply = try HTTPClient.send(method, network.devnet.controlURL + path, body: body)
                #expect([200, 400, 404].contains(reply.status), "\(method) \(path): \(reply.status) \(reply.text.prefix(200))")
            }
        }
        #expect(try network.control("GET", "/").status == 200)
        #expect(try network.get("/api/blocks/getHeight").status == 200)
    }

    /// Issue 7 finding 3, the hostile loop: 942 × 98,000,000 ADM overflowed a balance and killed
    /// the devnet. Past the total supply the faucet answers 400 and the balance is unchanged.
    @Test func fundingPastTheTotalSupplyIsRefused() throws {
        let bob = Fixtures.bob.address
        for _ in 0..<942 {
            let reply = try network.control("POST", "/fund", ["address": .string(bob.description), "amount": "98000000"])
            #expect(reply.status == 400)
            #expect(reply.json["error"]?.stringValue?.contains("total supply of 98000000 ADM") == true, "\(reply.text)")
        }
        #expect(network.devnet.balance(of: bob) == ADMAmount(units: 0))
        let fits = try network.control("POST", "/fund", ["address": .string(bob.description), "amount": "97999900"])
        #expect(fits.status == 200 && fits.json["balance"]?.stringValue == "97999900")
        #expect(try network.control("POST", "/fund", ["address": .string(bob.description), "amount": "0.00000001"]).status == 400)
    }

    @Test func genesisPastTheTotalSupplyIsRefused() throws {
        #expect { try TestNetwork { $0.freshAccounts = 1; $0.freshAccountBalance = ADMAmount.totalSupply } } throws: { error in
            guard case DevnetError.pastTotalSupply(let reason) = error else { return false }
            return reason.contains("total supply of 98000000 ADM")
        }
        let child = try Child(["start", "--account", "\(Fixtures.alice.passphrase)=98000000", "--fund", "1"])
        #expect(child.waitForExit() == 64)
        #expect(child.readAllErrors().contains("past the total supply"))
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
