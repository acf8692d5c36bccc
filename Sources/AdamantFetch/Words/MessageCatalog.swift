/// A catalog as msgfmt compiles it (a GNU `.mo` file), read whole: its translations found by
/// binary search in the table of originals msgfmt sorts, and its plural rule from the header's
/// `Plural-Forms`. Every offset and length is checked against the bytes: a damaged or hostile
/// file is refused, never read past its end.
package struct MessageCatalog: Sendable {
    /// Why a file is not a catalog.
    package struct Malformed: Error, Sendable, Equatable {
        package let reason: String
    }

    private let bytes: [UInt8]
    /// Each entry's original and translation, as ranges of `bytes`, in the file's order.
    private let originals: [Range<Int>]
    private let translations: [Range<Int>]

    /// The header's rule, or English's when the header names none: read when a count needs
    /// it, as most notifications need none.
    package var plural: PluralRule {
        Self.lookUp(bytes, originals, translations, []).flatMap {
            PluralRule(header: String(decoding: bytes[$0], as: UTF8.self))
        } ?? .english
    }

    package init(bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= 28 else { throw Malformed(reason: "shorter than a header") }
        let magic = Self.word(bytes, at: 0, bigEndian: false)
        let bigEndian: Bool
        switch magic {
        case 0x9504_12de: bigEndian = false
        case 0xde12_0495: bigEndian = true
        default: throw Malformed(reason: "not a .mo file (magic \(String(magic, radix: 16)))")
        }
        func word(_ offset: Int) -> Int { Int(Self.word(bytes, at: offset, bigEndian: bigEndian)) }
        guard word(4) >> 16 == 0 else { throw Malformed(reason: "revision \(word(4)) is not one this reads") }
        let count = word(8)
        func table(at offset: Int) throws(Malformed) -> [Range<Int>] {
            guard count <= (bytes.count - offset) / 8, offset <= bytes.count else {
                throw Malformed(reason: "a table runs past the end")
            }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(count)
            for index in 0..<count {
                let (length, start) = (word(offset + 8 * index), word(offset + 8 * index + 4))
                guard start <= bytes.count, length < bytes.count - start else {
                    throw Malformed(reason: "string \(index) runs past the end")
                }
                ranges.append(start..<(start + length))
            }
            return ranges
        }
        originals = try table(at: word(12))
        translations = try table(at: word(16))
        self.bytes = bytes
    }

    /// The translation of `msgid`; nil when the catalog has none.
    package func text(_ msgid: String) -> String? {
        Self.lookUp(bytes, originals, translations, Array(msgid.utf8)).map {
            String(decoding: bytes[$0], as: UTF8.self)
        }
    }

    /// The form of `msgid` / `plural` the rule picks for `count`; nil when the catalog has no
    /// such entry, or not that form.
    package func text(_ msgid: String, plural: String, count: Int) -> String? {
        let key = Array(msgid.utf8) + [0] + Array(plural.utf8)
        guard let forms = Self.lookUp(bytes, originals, translations, key) else { return nil }
        let form = self.plural.form(for: UInt64(clamping: count))
        let texts = bytes[forms].split(separator: 0, omittingEmptySubsequences: false)
        return form < texts.count ? String(decoding: texts[form], as: UTF8.self) : nil
    }

    /// Binary search of the sorted originals; the range of the translation of `key`.
    private static func lookUp(
        _ bytes: [UInt8], _ originals: [Range<Int>], _ translations: [Range<Int>], _ key: [UInt8]
    )
        -> Range<Int>?
    {
        var (low, high) = (0, originals.count)
        while low < high {
            let middle = (low + high) / 2
            let original = bytes[originals[middle]]
            if original.elementsEqual(key) { return translations[middle] }
            if original.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    private static func word(_ bytes: [UInt8], at offset: Int, bigEndian: Bool) -> UInt32 {
        guard offset >= 0, offset <= bytes.count - 4 else { return .max }
        let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        return bigEndian ? value.byteSwapped : value
    }
}
