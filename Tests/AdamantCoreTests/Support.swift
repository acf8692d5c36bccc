import AdamantCore
import Foundation

/// Any JSON value, kept exact: integers stay `Int64` (amounts reach 9.8e15, past a Double's
/// exact range), so a vector's node JSON can be re-encoded and decoded as a node would send it.
enum JSONValue: Codable, Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let v = try? c.decode(Bool.self) {
            self = .bool(v)
        } else if let v = try? c.decode(Int64.self) {
            self = .integer(v)
        } else if let v = try? c.decode(Double.self) {
            self = .number(v)
        } else if let v = try? c.decode(String.self) {
            self = .string(v)
        } else if let v = try? c.decode([JSONValue].self) {
            self = .array(v)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let v): try c.encode(v)
        case .integer(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .array(let v): try c.encode(v)
        case .object(let v): try c.encode(v)
        }
    }

    var data: Data { try! JSONEncoder().encode(self) }

    var string: String? { if case .string(let s) = self { s } else { nil } }

    subscript(key: String) -> JSONValue? { if case .object(let o) = self { o[key] } else { nil } }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: data) }
}

/// The vector files in the repository's `Vectors/` folder.
enum Vectors {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    /// The vectors of one file; none if it cannot be read, which each suite's coverage test
    /// then reports (argument lists cannot throw).
    static func load<T: Decodable>(_ name: String) -> [T] {
        let url = folder.appendingPathComponent(name)
        do {
            return try JSONDecoder().decode([T].self, from: Data(contentsOf: url))
        } catch {
            print("cannot load \(url.path): \(error)")
            return []
        }
    }
}

func keyPair(passphrase: String) throws -> KeyPair {
    KeyPair(passphrase: try Passphrase(validating: passphrase))
}

func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { fatalError("bad hex in a vector: \(text.prefix(40))") }
    return bytes
}
