import Testing

@testable import AdamantCore

/// The byte-level readers a node answer's fields go through first must accept exactly what
/// the `String` parsers accept, and decode it alike: what they refuse is read again as text.
@Suite("ASCII fields")
struct ASCIIFieldTests {
    /// Every byte, as either digit of the first, a middle or the last pair.
    @Test func hexAgreesWithHexDecodeOnEveryByte() {
        for byte in UInt8.min...UInt8.max {
            for position in [0, 1, 4, 9, 62, 63] {
                var digits = Array("00ff7a9b3c4d5e6f".utf8) + Array(repeating: UInt8(ascii: "8"), count: 48)
                digits[position] = byte
                let text = String(decoding: digits, as: UTF8.self)
                // a lone byte ≥ 0x80 is no text
                let expected = text.utf8.count == digits.count ? Hex.decode(text) : nil
                #expect(ASCIIField.hex(digits[...], length: nil) == expected, "byte \(byte) at \(position)")
                #expect(ASCIIField.hex(digits[...], length: 32) == expected, "byte \(byte) at \(position), 32 bytes")
            }
        }
    }

    @Test func hexChecksItsLength() {
        let digits = Array("00ff7a".utf8)
        #expect(ASCIIField.hex(digits[...], length: 3) == [0, 255, 122])
        #expect(ASCIIField.hex(digits[...], length: 2) == nil)
        #expect(ASCIIField.hex(digits[1...], length: nil) == nil, "odd")
        #expect(ASCIIField.hex(digits[2...], length: nil) == [255, 122], "a slice that starts inside its array")
        #expect(ASCIIField.hex([][...], length: nil) == [])
    }
}
