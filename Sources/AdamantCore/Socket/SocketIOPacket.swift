/// A Socket.IO 4 packet, carried in an Engine.IO message: a type digit, then for namespaces
/// other than `/` the namespace and a comma, then an optional acknowledgement id, then JSON.
package enum SocketIOPacket: Sendable, Equatable {
    /// Joins the namespace `/`: from a client, the asking (no id); from the server, the yes,
    /// with the socket's id.
    case connect(socketID: String?)
    /// The server left the namespace.
    case disconnect
    /// An event and its arguments.
    case event(SocketIOEvent)
    /// The server refused to join, in its words.
    case connectError(String)
    /// Not for this client: another namespace's packet, an acknowledgement, a binary event.
    case elsewhere

    /// The packet `message` (an Engine.IO message's data) holds.
    package init(message: [UInt8]) throws(SocketProtocolError) {
        guard let type = message.first else { throw SocketProtocolError("an empty Socket.IO packet") }
        var rest = message.dropFirst()
        if rest.first == UInt8(ascii: "/") {
            let namespace = rest.prefix { $0 != UInt8(ascii: ",") }
            guard namespace.elementsEqual("/".utf8) else {
                self = .elsewhere
                return
            }
            rest = rest.dropFirst(namespace.count + 1)
        }
        switch type {
        case UInt8(ascii: "0"):
            let socketID = try? JSONValue(document: Array(rest), keyNamedTwice: .firstCounts)["sid"]?.string
            self = .connect(socketID: socketID.map { String($0.prefix(64)) })
        case UInt8(ascii: "1"): self = .disconnect
        case UInt8(ascii: "2"):
            let acknowledgement = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            self = .event(try SocketIOEvent(json: Array(rest.dropFirst(acknowledgement.count))))
        case UInt8(ascii: "4"):
            let reason = try? JSONValue(document: Array(rest), keyNamedTwice: .firstCounts)["message"]?.string
            self = .connectError(reason.map { String($0.prefix(200)) } ?? "no reason given")
        case UInt8(ascii: "3"), UInt8(ascii: "5"), UInt8(ascii: "6"): self = .elsewhere
        default: throw SocketProtocolError("a Socket.IO packet of no known type (it starts with byte \(type))")
        }
    }

    /// The packet as an Engine.IO message's data.
    package var message: [UInt8] {
        switch self {
        case .connect(nil), .elsewhere: Array("0".utf8)
        case .connect(let socketID?): Array("0".utf8) + JSONValue.object([("sid", .string(socketID))]).bytes
        case .disconnect: Array("1".utf8)
        case .event(let event): Array("2".utf8) + event.json
        case .connectError(let reason): Array("4".utf8) + JSONValue.object([("message", .string(reason))]).bytes
        }
    }
}

/// A Socket.IO event: a JSON array whose first element is the event's name.
package struct SocketIOEvent: Sendable, Equatable {
    package let name: String
    /// The whole array, name included, as it was received or will be sent.
    package let json: [UInt8]

    package init(_ name: String, _ arguments: JSONValue...) {
        self.name = name
        json = JSONValue.array([.string(name)] + arguments).bytes
    }

    init(json: [UInt8]) throws(SocketProtocolError) {
        var name: String?
        do {
            try JSONReader.read(json) { reader throws(JSONReadError) in
                try reader.readArray { reader throws(JSONReadError) in
                    if name == nil, reader.kind == .string {
                        name = try reader.readString()
                    } else {
                        try reader.skipValue()
                    }
                }
            }
        } catch {
            throw SocketProtocolError("a Socket.IO event is not a JSON array: \(error)")
        }
        guard let name else { throw SocketProtocolError("a Socket.IO event has no name") }
        self.name = name
        self.json = json
    }

    /// The transaction a `newTrans` event carries, as the node wrote it: not yet verified.
    package func transaction() throws(SocketProtocolError) -> Transaction {
        var found: Transaction?
        do {
            try JSONReader.read(json) { reader throws(JSONReadError) in
                var position = 0
                try reader.readArray { reader throws(JSONReadError) in
                    if position == 1 { found = try Transaction(json: &reader) } else { try reader.skipValue() }
                    position += 1
                }
            }
        } catch {
            throw SocketProtocolError("the \(name) event holds no transaction: \(error)")
        }
        guard let found else { throw SocketProtocolError("the \(name) event holds no transaction") }
        return found
    }
}
