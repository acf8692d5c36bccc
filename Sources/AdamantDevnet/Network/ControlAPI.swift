import AdamantCore

/// The control endpoint: JSON over HTTP for tests and demos.
///
/// - `GET /`: the same summary `adm-devnet start` prints
/// - `POST /mine`: forge a block now → `{"height"}`
/// - `POST /fund` `{"address","amount"}` (ADM) → `{"address","balance"}`; 400 once the devnet
///   would hold more than the total supply
/// - `POST /send` `{"from","to","kind":"message|rich|signal|transfer","message","amount"}` (amount
///   in ADM, transfers only) → `{"id"}`; signed as a devnet account and admitted as a node would
///   (400 with the node's error)
/// - `POST /contacts` `{"account","names":{"U…":"Alice"}}` → `{"id"}`: an encrypted `contact_list`
/// - `GET|POST|DELETE /nodes/N/faults`: list, add `{"fault":"KIND[:ARG][@/prefix]"}`, clear (`?kind=`)
/// - `GET|DELETE /nodes/N/requests`: the request log `[{"method","path","status"}]`, or clear it
/// - `GET|PUT /ans/mode` `{"mode":"csharp|ordered"}`, `POST /ans/poll`, `GET /ans/registry`, `GET /ans/pushes`
/// - `GET|PUT /ns/mode` `{"mode":"replay|ordered"}`, `POST /ns/poll`, `GET /ns/registry`, `GET /ns/pushes`
///   (each push with its FCM message as a JSON object)
///
/// A service's routes answer 404 when it does not run.
struct ControlAPI {
    let devnet: Devnet

    func handle(_ request: HTTPRequest) -> HTTPReply {
        do {
            return .respond(.json(try route(request)))
        } catch let failure as ControlFailure {
            return .respond(.json(["error": .string(failure.message)], status: failure.status))
        } catch {
            return .respond(.json(["error": .string("\(error)")], status: 400))
        }
    }

    private func route(_ request: HTTPRequest) throws -> JSONValue {
        let parts = request.path.split(separator: "/").map(String.init)
        if parts.count == 2, parts[0] == "ans" || parts[0] == "ns" {
            guard parts[0] == "ans" ? devnet.services.runsANS : devnet.services.runsNS else {
                throw ControlFailure(status: 404, message: "\(parts[0]) does not run (see adm-devnet start --service)")
            }
            if parts[0] == "ns" { return try nsRoute(request, resource: parts[1]) }
        }
        if parts.count == 3, parts[0] == "nodes" {
            guard let node = Int(parts[1]) else {
                throw ControlFailure.badRequest("node index must be a number: \(parts[1])")
            }
            return try nodeRoute(request, node: node, resource: parts[2])
        }
        switch (request.method, request.path) {
        case ("GET", "/"):
            return devnet.summary
        case ("POST", "/mine"):
            return ["height": .integer(devnet.mine())]
        case ("POST", "/fund"):
            let body = try Self.body(of: request)
            let address = try Self.parse(body["address"]?.string, as: "address") { try Address($0) }
            let amount = try Self.parse(body["amount"]?.string, as: "amount (ADM, as a string)") { try ADMAmount($0) }
            do {
                return [
                    "address": .string(address.description),
                    "balance": .string(try devnet.fund(address, amount: amount).description),
                ]
            } catch {
                throw ControlFailure.badRequest(error.description)
            }
        case ("POST", "/send"):
            return try send(try Self.body(of: request))
        case ("POST", "/contacts"):
            return try storeContacts(try Self.body(of: request))
        case ("PUT", "/ans/mode"):
            devnet.ansMode = try Self.parse(try Self.body(of: request)["mode"]?.string, as: "mode (csharp or ordered)")
            {
                guard let mode = ANSMode(rawValue: $0) else { throw ControlFailure.badRequest("") }
                return mode
            }
            return ["mode": .string(devnet.ansMode.rawValue)]
        case ("GET", "/ans/mode"):
            return ["mode": .string(devnet.ansMode.rawValue)]
        case ("POST", "/ans/poll"):
            devnet.pollANS()
            return ["registry": registry]
        case ("GET", "/ans/registry"):
            return ["registry": registry]
        case ("GET", "/ans/pushes"):
            return [
                "pushes": .array(
                    devnet.ansPushes.map { push in
                        [
                            "txn-id": .string(push.transactionID.description),
                            "push-recipient": .string(push.recipient.description),
                            "token": .string(push.token), "provider": .string(push.provider),
                        ]
                    })
            ]
        default:
            throw ControlFailure.notFound(request)
        }
    }

    /// `/ns/mode`, `/ns/poll`, `/ns/registry` and `/ns/pushes`.
    private func nsRoute(_ request: HTTPRequest, resource: String) throws -> JSONValue {
        switch (request.method, resource) {
        case ("PUT", "mode"):
            devnet.nsMode = try Self.parse(try Self.body(of: request)["mode"]?.string, as: "mode (replay or ordered)") {
                guard let mode = NSMode(rawValue: $0) else { throw ControlFailure.badRequest("") }
                return mode
            }
            return ["mode": .string(devnet.nsMode.rawValue)]
        case ("GET", "mode"):
            return ["mode": .string(devnet.nsMode.rawValue)]
        case ("POST", "poll"), ("GET", "registry"):
            if request.method == "POST" { devnet.pollNS() }
            return ["registry": .array(devnet.nsDevices.map(Self.json))]
        case ("GET", "pushes"):
            return [
                "pushes": .array(
                    devnet.nsPushes.map { push in
                        [
                            "transactionId": .string(push.transactionID.description),
                            "device": Self.json(push.device),
                            "message": JSONValue(parsing: push.message) ?? .string(push.message),
                        ]
                    })
            ]
        default:
            throw ControlFailure.notFound(request)
        }
    }

    private static func json(_ device: NSDevice) -> JSONValue {
        [
            "deviceId": .string(device.deviceId), "address": .string(device.address.description),
            "token": .string(device.token), "provider": .string(device.provider),
        ]
    }

    /// `/nodes/N/faults` and `/nodes/N/requests`.
    private func nodeRoute(_ request: HTTPRequest, node: Int, resource: String) throws -> JSONValue {
        switch (request.method, resource) {
        case ("GET", "faults"):
            break
        case ("POST", "faults"):
            let text = try Self.parse(try Self.body(of: request)["fault"]?.string, as: "fault") { $0 }
            try devnet.add(Fault(parsing: text), toNode: node)
        case ("DELETE", "faults"):
            try devnet.clearFaults(ofNode: node, kind: request.parameter("kind"))
        case ("GET", "requests"), ("DELETE", "requests"):
            if request.method == "DELETE" { try devnet.clearRequests(toNode: node) }
            return [
                "requests": .array(
                    try devnet.requests(toNode: node).map { record in
                        [
                            "method": .string(record.method), "path": .string(record.path),
                            "status": record.status.map { .integer(Int64($0)) } ?? .null,
                        ]
                    })
            ]
        default:
            throw ControlFailure.notFound(request)
        }
        return ["faults": .array(try devnet.faults(ofNode: node).map { .string($0.description) })]
    }

    private func send(_ body: JSONValue) throws(ControlFailure) -> JSONValue {
        let from = try Self.parse(body["from"]?.string, as: "from (a devnet account's address)") { try Address($0) }
        let to = try Self.parse(body["to"]?.string, as: "to (an address)") { try Address($0) }
        let kind = try Self.parse(body["kind"]?.string, as: "kind (message, rich, signal or transfer)") {
            guard let kind = DevnetMessageKind(rawValue: $0) else { throw ControlFailure.badRequest("") }
            return kind
        }
        let message = try Self.optionalString(body, "message")
        let amount = try Self.optionalString(body, "amount").map { text throws(ControlFailure) in
            try Self.parse(text, as: "amount (ADM, as a string)") { try ADMAmount($0) }
        }
        do {
            return [
                "id": .string(
                    try devnet.send(from: from, to: to, kind: kind, message: message, amount: amount).description)
            ]
        } catch {
            throw .badRequest(error.description)
        }
    }

    private func storeContacts(_ body: JSONValue) throws(ControlFailure) -> JSONValue {
        let account = try Self.parse(body["account"]?.string, as: "account (a devnet account's address)") {
            try Address($0)
        }
        guard case .object(let members)? = body["names"] else {
            throw .badRequest(#"missing or invalid names ({"U…": "name"})"#)
        }
        var names: [Address: String] = [:]
        for (key, value) in members {
            let address = try Self.parse(key, as: "address in names") { try Address($0) }
            names[address] = try Self.parse(value.string, as: "name of \(key) (a string)") { $0 }
        }
        do {
            return ["id": .string(try devnet.storeContacts(of: account, names: names).description)]
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// Absent or null is nil; anything but a string is an error.
    private static func optionalString(_ body: JSONValue, _ key: String) throws(ControlFailure) -> String? {
        switch body[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .badRequest("\(key) must be a string")
        }
    }

    private var registry: JSONValue {
        .array(
            devnet.ansRegistrations.map { registration in
                [
                    "address": .string(registration.address.description), "token": .string(registration.token),
                    "provider": .string(registration.provider),
                ]
            })
    }

    private static func body(of request: HTTPRequest) throws(ControlFailure) -> JSONValue {
        guard let body = try? JSONValue.parse(request.body), case .object = body else {
            throw .badRequest("the body must be a JSON object")
        }
        return body
    }

    private static func parse<T>(_ text: String?, as name: String, _ make: (String) throws -> T) throws(ControlFailure)
        -> T
    {
        guard let text, let value = try? make(text) else { throw .badRequest("missing or invalid \(name)") }
        return value
    }

}

private struct ControlFailure: Error {
    let status: Int
    let message: String

    static func badRequest(_ message: String) -> ControlFailure { ControlFailure(status: 400, message: message) }
    static func notFound(_ request: HTTPRequest) -> ControlFailure {
        ControlFailure(status: 404, message: "no control endpoint \(request.method) \(request.path)")
    }
}

extension Devnet {
    /// `{"nodes","control","nethash","ans":{…},"ns":{…},"accounts":[…]}`, balances in ADM; a
    /// service that does not run is left out.
    var summary: JSONValue {
        let identity = { (account: DevnetAccount) -> JSONValue in
            [
                "address": .string(account.address.description), "publicKey": .string(account.publicKey.hex),
                "passphrase": .string(account.passphrase),
            ]
        }
        var services: [(key: String, value: JSONValue)] = []
        if self.services.runsANS { services.append(("ans", identity(ans))) }
        if self.services.runsNS { services.append(("ns", identity(ns))) }
        let head: JSONValue = [
            "nodes": .array(nodeURLs.map(JSONValue.string)),
            "control": .string(controlURL),
            "nethash": .string(nethash),
        ]
        let tail: JSONValue = [
            "accounts": .array(
                accounts.map { funded in
                    [
                        "passphrase": .string(funded.account.passphrase),
                        "address": .string(funded.account.address.description),
                        "balance": .string(funded.balance.description),
                    ]
                })
        ]
        return .object(head.members + services + tail.members)
    }

    /// The summary as one line of JSON: what `adm-devnet start` prints when ready.
    public var readyLine: String { summary.text }
}
