/// BIP39 mnemonics as ADAMANT uses them: 12 English words, 128 bits of entropy and a 4-bit
/// checksum, turned into a 64-byte seed by PBKDF2-HMAC-SHA512 (2048 rounds, salt "mnemonic").
public enum BIP39 {
    /// Words in an ADAMANT passphrase.
    public static let wordCount = 12
    static let rounds = 2048
    static let salt = Array("mnemonic".utf8)

    /// The index of the word spelt by `utf8` in the list, by binary search (the list is
    /// sorted, and all ASCII, so byte order is its order).
    static func index(of utf8: some Collection<UInt8>) -> Int? {
        var low = 0
        var high = wordStarts.count - 2
        while low <= high {
            let middle = (low + high) / 2
            let order = withWord(at: middle) { candidate in
                candidate.lexicographicallyPrecedes(utf8) ? -1 : candidate.elementsEqual(utf8) ? 0 : 1
            }
            if order == 0 { return middle }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// Whether `texts` hold two or more words of the list between them, in any case, each
    /// standing apart as a typed word does (`--x=wrap track`, `"wrap", "track"`): perhaps a
    /// passphrase typed in the wrong place, so never to be repeated. One alone is an ordinary
    /// English word ('extra'), and words run into a path or a name by `/`, `-`, `_`, `.` or
    /// digits are not typed apart ('/tmp/adm-push-2FEE5CE5' spells 'push' and 'fee').
    public static func mayHoldAPassphrase(_ texts: some Collection<String>) -> Bool {
        let separates: (Character) -> Bool = { $0.isWhitespace || "=,;:\"'`".contains($0) }
        let words = texts.lazy.flatMap { $0.split(whereSeparator: separates) }.map { piece in
            var word = piece.drop(while: { !$0.isLetter })
            while let last = word.last, !last.isLetter { word = word.dropLast() }
            return word.lowercased()
        }
        return words.filter { index(of: $0.utf8) != nil }.prefix(2).count == 2
    }

    /// Checks a phrase given as UTF-8 bytes, returning the word indices.
    static func validate(_ phrase: UnsafeRawBufferPointer) throws(PassphraseError) -> [Int] {
        guard !phrase.isEmpty else { throw .empty }
        let space = UInt8(ascii: " ")
        let parts = phrase.split(separator: space, omittingEmptySubsequences: false)
        // Anything but single spaces between words: leading, trailing or double spaces, tabs, newlines.
        let isStray: (UInt8) -> Bool = { $0 == 0x09 || $0 == 0x0a || $0 == 0x0b || $0 == 0x0c || $0 == 0x0d }
        if parts.contains(where: \.isEmpty) || phrase.contains(where: isStray) { throw .strayWhitespace }
        guard parts.count == wordCount else { throw .wrongWordCount(parts.count) }

        var indices = [Int]()
        for (position, part) in parts.enumerated() {
            guard let index = index(of: part) else {
                throw .unknownWord(position: position + 1)
            }
            indices.append(index)
        }
        guard checksumMatches(indices) else { throw .badChecksum }
        return indices
    }

    /// A fresh 12-word phrase from 128 random bits. It is an ordinary `String`, which cannot be
    /// wiped: meant for test and devnet accounts, not for accounts that hold value.
    public static func randomMnemonic() -> String {
        var entropy = Sodium.randomBytes(16)
        defer { Sodium.zero(&entropy) }
        return mnemonic(entropy: entropy)
    }

    /// The phrase of 128 bits of entropy.
    static func mnemonic(entropy: [UInt8]) -> String {
        indices(entropy: entropy).map { wordList[$0] }.joined(separator: " ")
    }

    /// 128 bits of entropy followed by the first 4 bits of its SHA-256, read 11 bits a word.
    static func indices(entropy: [UInt8]) -> [Int] {
        precondition(entropy.count == 16)
        var bits = entropy.flatMap { byte in (0..<8).reversed().map { Int(byte >> $0 & 1) } }
        defer { bits.withUnsafeMutableBytes { Sodium.zero($0) } }
        let checksum = Digest.sha256(entropy)[0] >> 4
        bits += (0..<4).reversed().map { Int(checksum >> $0 & 1) }
        return stride(from: 0, to: bits.count, by: 11).map { bits[$0..<$0 + 11].reduce(0) { $0 << 1 | $1 } }
    }

    /// A phrase is valid when its first 128 bits give back all 12 words, checksum included.
    static func checksumMatches(_ indices: [Int]) -> Bool {
        let bits = indices.flatMap { index in (0..<11).reversed().map { index >> $0 & 1 } }
        var entropy = (0..<16).map { byte in UInt8(bits[byte * 8..<byte * 8 + 8].reduce(0) { $0 << 1 | $1 }) }
        defer { Sodium.zero(&entropy) }
        return Self.indices(entropy: entropy) == indices
    }

}

/// Why a passphrase is not 12 valid BIP39 words. No case quotes the passphrase or any word of it.
public enum PassphraseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing given.
    case empty
    /// Whitespace before, after, or more than one space between words.
    case strayWhitespace
    /// Not 12 words (the count given).
    case wrongWordCount(Int)
    /// `position` counts from 1. No word is ever repeated back, not even a corrected one: a
    /// suggestion for a mistyped word is the real secret word, and errors reach logs.
    case unknownWord(position: Int)
    /// Every word is in the list, but the checksum fails: a word is wrong or out of order.
    case badChecksum

    /// A stable name for each case, used by the vectors and in JSON output.
    public var kind: String {
        switch self {
        case .empty: "empty"
        case .strayWhitespace: "strayWhitespace"
        case .wrongWordCount: "wrongWordCount"
        case .unknownWord: "unknownWord"
        case .badChecksum: "badChecksum"
        }
    }

    /// What is wrong and how to put it right, without a word of the passphrase.
    public var description: String {
        switch self {
        case .empty:
            "the passphrase is empty: give the 12 words of the account"
        case .strayWhitespace:
            "the passphrase has stray whitespace: write the 12 words separated by single spaces, with nothing before or after"
        case .wrongWordCount(let count):
            "the passphrase has \(count) word\(count == 1 ? "" : "s"), an ADAMANT passphrase has 12"
        case .unknownWord(let position):
            "word \(position) of the passphrase is not in the BIP39 English list: check its spelling (lowercase a-z)"
        case .badChecksum:
            "the passphrase fails its BIP39 checksum: a word is wrong or out of order"
        }
    }
}
