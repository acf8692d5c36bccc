import AdamantCore
import Foundation

/// `JSONCoding`, the commands' stand-in for Foundation's coders, held to them: `selector ‖
/// document`. Whatever it decodes, `JSONDecoder` decodes to the same value (leniently too), and
/// what it writes back is byte for byte what `JSONEncoder` writes with sorted keys. Numbers are
/// compared as doubles: for integers past 2^53 written with a fraction or an exponent,
/// `JSONDecoder` goes through `Decimal` and truncates (`12345678901234567.5` is
/// 12345678901234567), where `JSONCoding` takes only what holds an integer exactly (the unit
/// tests pin that down).
enum CodingFuzz {
    static func run(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        let document = Array(data.dropFirst())
        let lenient = selector & 1 == 1
        guard let ours = try? JSONCoding.decode(Tree.self, from: document, lenient: lenient) else { return }
        let theirs: Tree
        do { theirs = try JSONDecoder().decode(Tree.self, from: Data(document)) } catch {
            // JSONDecoder cannot read some numbers JSON allows as a Double, `0e3` among them.
            if let path = (error as? DecodingError)?.path, case .number? = ours.value(at: path) { return }
            invariant(
                false,
                "JSONCoding reads what JSONDecoder refuses (\(error)): \(String(decoding: document, as: UTF8.self).debugDescription)"
            )
            return
        }
        invariant(ours == theirs, "JSONCoding reads \(ours), JSONDecoder \(theirs)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard ours.isWrittenAlike, let written = try? JSONCoding.encode(ours), let expected = try? encoder.encode(ours)
        else { return }
        invariant(
            written == Array(expected),
            "JSONCoding writes \(String(decoding: written, as: UTF8.self)), JSONEncoder \(String(decoding: expected, as: UTF8.self))"
        )
    }

    /// Any JSON value through `Codable`'s own containers.
    indirect enum Tree: Codable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Tree])
        case object([String: Tree])

        /// Integers below 2^53 are written as integers; other doubles each coder writes its own
        /// way, and the commands write none.
        var isWrittenAlike: Bool {
            switch self {
            case .number(let value): Self.integer(value) != nil
            case .array(let elements): elements.allSatisfy(\.isWrittenAlike)
            case .object(let members): members.values.allSatisfy(\.isWrittenAlike)
            case .null, .bool, .string: true
            }
        }

        func value(at path: [any CodingKey]) -> Tree? {
            guard let first = path.first else { return self }
            switch self {
            case .array(let elements):
                return first.intValue.flatMap {
                    elements.indices.contains($0) ? elements[$0].value(at: Array(path.dropFirst())) : nil
                }
            case .object(let members): return members[first.stringValue]?.value(at: Array(path.dropFirst()))
            default: return nil
            }
        }

        static func integer(_ value: Double) -> Int64? { value.magnitude < 0x1p53 ? Int64(exactly: value) : nil }

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: Key.self) {
                var members: [String: Tree] = [:]
                for key in container.allKeys { members[key.stringValue] = try container.decode(Tree.self, forKey: key) }
                self = .object(members)
            } else if var container = try? decoder.unkeyedContainer() {
                var elements: [Tree] = []
                while !container.isAtEnd { elements.append(try container.decode(Tree.self)) }
                self = .array(elements)
            } else {
                let value = try decoder.singleValueContainer()
                if value.decodeNil() {
                    self = .null
                } else if let flag = try? value.decode(Bool.self) {
                    self = .bool(flag)
                } else if let number = try? value.decode(Double.self) {
                    self = .number(number)
                } else {
                    self = .string(try value.decode(String.self))
                }
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .null:
                var c = encoder.singleValueContainer()
                try c.encodeNil()
            case .bool(let flag):
                var c = encoder.singleValueContainer()
                try c.encode(flag)
            case .number(let value):
                var c = encoder.singleValueContainer()
                if let integer = Self.integer(value) { try c.encode(integer) } else { try c.encode(value) }
            case .string(let text):
                var c = encoder.singleValueContainer()
                try c.encode(text)
            case .array(let elements):
                var c = encoder.unkeyedContainer()
                for element in elements { try c.encode(element) }
            case .object(let members):
                var c = encoder.container(keyedBy: Key.self)
                for (key, value) in members { try c.encode(value, forKey: Key(stringValue: key)) }
            }
        }

        struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
    }
}

extension DecodingError {
    fileprivate var path: [any CodingKey] {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.codingPath
        @unknown default: []
        }
    }
}
