import AdamantCore
import Foundation

/// How the node's JavaScript and its z-schema validator see a value the devnet was sent.
extension JSONValue {
    /// Parses a request body. Of a key named twice the first counts, as `JSONDecoder` takes
    /// it; a number no double holds (`1e400`) is refused, as it is no number the node can check.
    static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        let value = try JSONValue(document: bytes, keyNamedTwice: .firstCounts)
        if let literal = value.infiniteNumber { throw JSONReadError("\(literal) is out of range") }
        return value
    }

    /// The first number in the value whose double is infinite.
    private var infiniteNumber: String? {
        switch self {
        case .number(let literal): Double(literal)?.isFinite == false ? literal : nil
        case .array(let elements): elements.lazy.compactMap(\.infiniteNumber).first
        case .object(let members): members.lazy.compactMap(\.value.infiniteNumber).first
        default: nil
        }
    }

    /// The number as an `Int64` when it is a whole number Int64 holds (`1.0` and `1e3` too),
    /// as `JSONDecoder` reads an `Int64`.
    var int64: Int64? {
        guard case .number(let literal) = self else { return nil }
        return Int64(literal) ?? Double(literal).flatMap { Int64(exactly: $0) }
    }

    /// z-schema's name for the type, as in `Expected type integer but found type string`.
    var schemaType: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: schemaInteger == nil ? "number" : "integer"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value if z-schema takes it for an integer: any whole number, which JSON does not bound.
    /// Past Int64 it is clamped to Int64's ends, beyond every bound the devnet compares it with.
    var schemaInteger: Int64? {
        if let value = int64 { return value }
        guard case .number(let literal) = self, let value = Double(literal), value.isFinite,
            value.rounded(.towardZero) == value
        else {
            return nil
        }
        return value < 0 ? .min : .max
    }

    /// A number as JavaScript prints it in an error: whole numbers in full below 1e21.
    var javaScriptNumber: String {
        if let value = int64 { return String(value) }
        guard case .number(let literal) = self, let value = Double(literal) else { return text }
        return schemaInteger != nil && abs(value) < 1e21 ? String(format: "%.0f", value) : "\(value)"
    }

    /// A copy with `key` set, appended if new.
    func setting(_ key: String, to value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }

    /// An object's members, to extend an envelope.
    var members: [(key: String, value: JSONValue)] {
        if case .object(let members) = self { members } else { [] }
    }
}
