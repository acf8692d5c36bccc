import AdamantCore
import Foundation

/// A JSON value whose objects keep their key order, so replies read like the node's.
enum JSON: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])

    subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// z-schema's name for the type, as in `Expected type integer but found type string`.
    var schemaType: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: schemaInteger == nil ? "number" : "integer"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }

    /// The value if z-schema takes it for an integer: any whole number, which JSON does not bound.
    /// Past Int64 it is clamped to Int64's ends, beyond every bound the devnet compares it with.
    var schemaInteger: Int64? {
        switch self {
        case .integer(let value): return value
        case .number(let value) where value.isFinite && value.rounded(.towardZero) == value:
            return Int64(exactly: value) ?? (value < 0 ? .min : .max)
        default: return nil
        }
    }

    /// A number as JavaScript prints it in an error: whole numbers in full below 1e21.
    var javaScriptNumber: String {
        switch self {
        case .integer(let value): String(value)
        case .number(let value) where schemaInteger != nil && abs(value) < 1e21: String(format: "%.0f", value)
        case .number(let value): "\(value)"
        default: text
        }
    }

    /// A copy with `key` set, appended if new.
    func setting(_ key: String, to value: JSON) -> JSON {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    init(nilLiteral: ()) { self = .null }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(stringLiteral value: String) { self = .string(value) }
    init(arrayLiteral elements: JSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements.map { (key: $0.0, value: $0.1) }) }
}

// MARK: - Writing

extension JSON {
    /// Compact UTF-8 JSON, keys in their stored order.
    var bytes: [UInt8] {
        var out = [UInt8]()
        write(to: &out)
        return out
    }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .integer(let value): out += Array(String(value).utf8)
        case .number(let value): out += Array((value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): JSONCoding.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONCoding.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

}

// MARK: - Reading

extension JSON {
    /// Parses a request body with the reader the clients' libraries use. Of a key named twice
    /// the first counts, as a lookup by key finds it.
    static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSON {
        try JSONReader.read(bytes) { reader throws(JSONReadError) in try JSON(json: &reader) }
    }

    private init(json reader: inout JSONReader) throws(JSONReadError) {
        switch reader.kind {
        case .object?:
            var members: [(key: String, value: JSON)] = []
            try reader.readObject { reader, key throws(JSONReadError) in members.append((key.text, try JSON(json: &reader))) }
            self = .object(members)
        case .array?:
            var elements: [JSON] = []
            try reader.readArray { reader throws(JSONReadError) in elements.append(try JSON(json: &reader)) }
            self = .array(elements)
        case .string?: self = .string(try reader.readString())
        case .number?:
            // An integer when it is a whole number Int64 holds (`1.0` and `1e3` too), as
            // `JSONDecoder` reads an `Int64`; else a finite double.
            let literal = try reader.readNumberLiteral()
            guard let value = Double(literal), value.isFinite else { throw reader.failure("\(reader.here): \(literal) is out of range") }
            self = Int64(literal).map(JSON.integer) ?? Int64(exactly: value).map(JSON.integer) ?? .number(value)
        case .bool?: self = .bool(try reader.readBool())
        case .null?, nil:
            try reader.skipValue()  // `null`, or the refusal of what is not a value
            self = .null
        }
    }
}
