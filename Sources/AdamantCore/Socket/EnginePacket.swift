/// What a node's socket sent that this client cannot take: the session is given up and the
/// node is treated as one whose answers cannot be trusted.
package struct SocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}

/// One Engine.IO 4 packet as it travels over HTTP long-polling (docs/node-api.md §1.7): a type
/// digit and its data; a polling body holds several, separated by the byte 0x1E.
package enum EnginePacket: Sendable, Equatable {
    /// The first answer of a session.
    case open(EngineHandshake)
    /// The server ends the session.
    case close
    /// The server's heartbeat, to be answered with a pong.
    case ping
    /// The answer to a ping (the client sends these).
    case pong
    /// A Socket.IO packet, as text.
    case message([UInt8])
    /// Part of the switch to WebSocket, which this client never asks for; and the server's
    /// filler while that happens.
    case upgrade, noop

    static let separator: UInt8 = 0x1E

    /// The packets of one polling body. Binary packets (`b` and base64), which the node never
    /// sends on this socket, are left out; anything else that is not a packet is refused.
    package static func packets(inPollingBody body: [UInt8]) throws(SocketProtocolError) -> [EnginePacket] {
        var packets: [EnginePacket] = []
        for (position, piece) in body.split(separator: separator, omittingEmptySubsequences: false).enumerated() {
            guard let type = piece.first else {
                throw SocketProtocolError("packet \(position + 1) of the poll's answer is empty")
            }
            let data = piece.dropFirst()
            // Only pings and pongs carry data, and only the upgrade's "probe". A close followed by
            // digits is protocol 3's length prefix: a server that does not speak protocol 4.
            let carriesOnlyWhatItMay: Bool
            switch type {
            case UInt8(ascii: "2"), UInt8(ascii: "3"):
                carriesOnlyWhatItMay = data.isEmpty || data.elementsEqual("probe".utf8)
            case UInt8(ascii: "1"), UInt8(ascii: "5"), UInt8(ascii: "6"): carriesOnlyWhatItMay = data.isEmpty
            default: carriesOnlyWhatItMay = true
            }
            guard carriesOnlyWhatItMay else {
                throw SocketProtocolError(
                    "packet \(position + 1) of the poll's answer, of type \(Character(Unicode.Scalar(type))), carries data it cannot have"
                )
            }
            switch type {
            case UInt8(ascii: "0"): packets.append(.open(try EngineHandshake(json: Array(data))))
            case UInt8(ascii: "1"): packets.append(.close)
            case UInt8(ascii: "2"): packets.append(.ping)  // "probe" pings belong to upgrades only
            case UInt8(ascii: "3"): packets.append(.pong)
            case UInt8(ascii: "4"): packets.append(.message(Array(data)))
            case UInt8(ascii: "5"): packets.append(.upgrade)
            case UInt8(ascii: "6"): packets.append(.noop)
            case UInt8(ascii: "b"): continue
            default:
                throw SocketProtocolError(
                    "packet \(position + 1) of the poll's answer has no Engine.IO type (it starts with byte \(type))")
            }
        }
        return packets
    }

    /// A polling body that carries `packets`: a client's POST, or the devnet's answer to a poll.
    package static func pollingBody(_ packets: [EnginePacket]) -> [UInt8] {
        var body: [UInt8] = []
        for (position, packet) in packets.enumerated() {
            if position > 0 { body.append(separator) }
            switch packet {
            case .open(let handshake):
                body.append(UInt8(ascii: "0"))
                body += handshake.json
            case .close: body.append(UInt8(ascii: "1"))
            case .ping: body.append(UInt8(ascii: "2"))
            case .pong: body.append(UInt8(ascii: "3"))
            case .message(let data):
                body.append(UInt8(ascii: "4"))
                body += data
            case .upgrade: body.append(UInt8(ascii: "5"))
            case .noop: body.append(UInt8(ascii: "6"))
            }
        }
        return body
    }
}

/// The open packet: the session's id and its heartbeat.
package struct EngineHandshake: Sendable, Equatable {
    /// Goes into every later request's query, so it is held to the characters Engine.IO's own
    /// ids use (base64url), which need no escaping.
    package let sessionID: String
    /// How often the server pings; a poll is answered at least this often.
    package let pingInterval: Duration
    /// How long after a ping the server waits for the pong before it drops the session.
    package let pingTimeout: Duration

    /// Real nodes say 25 s and 20 s; a server that asks for more than this is not believed.
    static let longestHeartbeat = 300_000

    package init(sessionID: String, pingInterval: Duration, pingTimeout: Duration) {
        self.sessionID = sessionID
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
    }

    init(json: [UInt8]) throws(SocketProtocolError) {
        var sessionID: String?
        var interval: Int?
        var timeout: Int?
        do {
            try JSONReader.read(json) { reader throws(JSONReadError) in
                try reader.readObject { reader, key throws(JSONReadError) in
                    switch key {
                    case "sid": sessionID = try reader.readString()
                    case "pingInterval": interval = try reader.readInteger()
                    case "pingTimeout": timeout = try reader.readInteger()
                    default: try reader.skipValue()
                    }
                }
            }
        } catch {
            throw SocketProtocolError("the socket's open packet is not its JSON: \(error)")
        }
        guard let sessionID, (1...64).contains(sessionID.utf8.count),
            sessionID.utf8.allSatisfy({ Self.isSessionIDByte($0) })
        else { throw SocketProtocolError("the socket's open packet has no usable sid") }
        guard let interval, let timeout, (1...Self.longestHeartbeat).contains(interval),
            (1...Self.longestHeartbeat).contains(timeout)
        else {
            throw SocketProtocolError(
                "the socket's open packet has no pingInterval and pingTimeout between 1 and \(Self.longestHeartbeat) ms"
            )
        }
        self.init(sessionID: sessionID, pingInterval: .milliseconds(interval), pingTimeout: .milliseconds(timeout))
    }

    /// As a node writes it: no upgrade offered, since the devnet serves polling only.
    var json: [UInt8] {
        let object: JSONValue = [
            "sid": .string(sessionID), "upgrades": [], "pingInterval": .integer(pingInterval.wholeMilliseconds),
            "pingTimeout": .integer(pingTimeout.wholeMilliseconds), "maxPayload": 1_000_000,
        ]
        return object.bytes
    }

    private static func isSessionIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
