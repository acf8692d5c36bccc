/// A value JSON carries as a string (an address, an id, a key, a version): decoded by parsing
/// the string, encoded as its `description`.
public protocol StringCodable: Codable, CustomStringConvertible {
    /// The value `text` spells, or an error that says why it spells none.
    init(parsing text: String) throws
}

extension StringCodable {
    /// Decodes a JSON string through `init(parsing:)`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\": \(error)")
        }
    }

    /// Encodes `description` as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Why a string is not a value, for types whose parser only says yes or no.
public struct NotAValue: Error, Sendable, CustomStringConvertible {
    /// Why, in a few words.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
