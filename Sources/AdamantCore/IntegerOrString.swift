/// An integer that nodes send either as a JSON number or as a string of digits (balances,
/// counts and heights differ between node versions and endpoints), for `Decodable` types;
/// `JSONReader.readIntegerOrString` reads the same shape.
package struct IntegerOrString<Value: FixedWidthInteger & Decodable & Sendable>: Decodable, Sendable {
    package let value: Value

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Value.self) {
            value = number
            return
        }
        let text = try container.decode(String.self)
        // `Value(text)` would also take "+5"; nodes never send a sign, so neither do we.
        guard text.first != "+", let number = Value(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected an integer, got a string that is not one")
        }
        value = number
    }
}
