/// BIP39 mnemonics as ADAMANT uses them: 12 English words, 128 bits of entropy and a 4-bit
/// checksum, turned into a 64-byte seed by PBKDF2-HMAC-SHA512 (2048 rounds, salt "mnemonic").
public enum BIP39 {
    public static let wordCount = 12
    static let rounds = 2048
    static let salt = Array("mnemonic".utf8)

    /// The index of `word` in the list, by binary search (the list is sorted).
    static func index(of word: some StringProtocol) -> Int? {
        var low = 0, high = wordList.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = wordList[middle]
            if candidate == word { return middle }
            if candidate < word { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
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
            let word = String(decoding: part, as: UTF8.self)
            guard let index = index(of: word) else {
                throw .unknownWord(position: position + 1, suggestion: suggestion(for: word))
            }
            indices.append(index)
        }
        guard checksumMatches(indices) else { throw .badChecksum }
        return indices
    }

    /// 12 × 11 bits = 128 bits of entropy followed by the first 4 bits of its SHA-256.
    static func checksumMatches(_ indices: [Int]) -> Bool {
        var bits = [Bool]()
        for index in indices { for shift in (0..<11).reversed() { bits.append(index >> shift & 1 == 1) } }
        var entropy = [UInt8](repeating: 0, count: 16)
        for bit in 0..<128 where bits[bit] { entropy[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        defer { Sodium.zero(&entropy) }
        let checksum = Digest.sha256(entropy)[0] >> 4
        let expected = (0..<4).reduce(UInt8(0)) { $0 << 1 | (bits[128 + $1] ? 1 : 0) }
        return checksum == expected
    }

    /// The nearest list word: one sharing the first four letters (BIP39 words are unique by
    /// them), else the closest within two edits.
    static func suggestion(for word: String) -> String? {
        let typed = word.lowercased()
        if typed.count >= 4, let match = wordList.first(where: { $0.hasPrefix(typed.prefix(4)) }) { return match }
        return Spelling.nearest(to: typed, in: wordList)
    }
}

public enum PassphraseError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case strayWhitespace
    case wrongWordCount(Int)
    /// `position` counts from 1. The typed word itself is never repeated back.
    case unknownWord(position: Int, suggestion: String?)
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

    public var description: String {
        switch self {
        case .empty:
            "the passphrase is empty: give the 12 words of the account"
        case .strayWhitespace:
            "the passphrase has stray whitespace: write the 12 words separated by single spaces, with nothing before or after"
        case .wrongWordCount(let count):
            "the passphrase has \(count) word\(count == 1 ? "" : "s"), an ADAMANT passphrase has 12"
        case .unknownWord(let position, let suggestion?):
            "word \(position) of the passphrase is not in the BIP39 English list (did you mean \"\(suggestion)\"?)"
        case .unknownWord(let position, nil):
            "word \(position) of the passphrase is not in the BIP39 English list: check its spelling (lowercase a-z)"
        case .badChecksum:
            "the passphrase fails its BIP39 checksum: a word is wrong or out of order"
        }
    }
}
