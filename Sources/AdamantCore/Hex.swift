/// Canonical hex: lowercase, even length. Nodes emit this form and signatures cover the decoded
/// bytes, so anything else is rejected rather than silently normalised.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`, two characters a byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes canonical hex; nil for odd length, upper case or any other character.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Decodes canonical hex of exactly `length` bytes.
    public static func decode(_ text: some StringProtocol, length: Int) -> [UInt8]? {
        guard text.utf8.count == length * 2 else { return nil }
        return decode(text)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
