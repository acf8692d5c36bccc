import AdamantCore

/// What a rich message (chat type 2, AIP-5) says, as far as its notification shows it; the
/// strings are still raw (hostile) and only cleaned when the body is made.
///
/// The shape is read in this order, the first match winning: a reaction (`reactto_id`), a reply
/// (`replyto_id`: text, or a crypto transfer or files as `reply_message`), files, a crypto
/// transfer (`type` = `<ticker>_transaction`). Ids and amounts may be strings or numbers, at
/// any level (the iOS extension's N6, docs/clients.md §2.6). Anything unrecognised, or a
/// recognised shape with a wrong-typed or malformed part, is `.unknown` with the sender's
/// `text_fallback` (N5, docs/clients.md §2.6).
enum RichMessage: Sendable, Hashable {
    /// AIP-12, or a reply carrying one. `amount` is a plain decimal as written; `ticker` is
    /// upper-cased ASCII letters and digits.
    case cryptoTransfer(ticker: String, amount: String, comment: String)
    /// AIP-16 with a text `reply_message` (also the comment of an ADM transfer sent as a reply).
    case textReply(String)
    /// AIP-17; an empty emoji removes the reaction.
    case reaction(String)
    /// AIP-18, or a reply carrying files: how many are photos or videos, how many other files.
    case files(photos: Int, documents: Int, comment: String)
    /// No shape shown here; `textFallback` is what the sender offers instead, if anything.
    case unknown(textFallback: String?)

    /// The longest amount shown: 30 digits each side of the point is beyond any coin's needs.
    static let maximumAmountLength = 40
    /// ERC-20 symbols are short; a longer "ticker" is not one.
    static let maximumTickerLength = 16

    /// Reads a plaintext; anything that is not a JSON object within `JSONValue`'s bounds is
    /// `.unknown` with no fallback text.
    init(plaintext: String) {
        guard let message = JSONValue(parsing: plaintext), case .object = message else {
            self = .unknown(textFallback: nil)
            return
        }
        self = Self.shape(of: message) ?? .unknown(textFallback: message["text_fallback"]?.string)
    }

    private static func shape(of message: JSONValue) -> RichMessage? {
        if isPresent(message["reactto_id"]) {
            return message["react_message"]?.string.map(RichMessage.reaction)
        }
        if isPresent(message["replyto_id"]) {
            switch message["reply_message"] {
            case .string(let text)?:
                return .textReply(text)
            case let nested?:
                // An unknown carried shape offers its own fallback text first, then the reply's.
                if let carried = content(of: nested) { return carried }
                return nested["text_fallback"]?.string.map { .unknown(textFallback: $0) }
            case nil:
                return nil
            }
        }
        return content(of: message)
    }

    /// What a message or a reply's `reply_message` carries: files or a crypto transfer.
    private static func content(of message: JSONValue) -> RichMessage? {
        guard case .object = message else { return nil }
        if let files = message["files"] {
            return fileCounts(files).map {
                .files(photos: $0.photos, documents: $0.documents, comment: message["comment"]?.string ?? "")
            }
        }
        guard let type = message["type"]?.string, let ticker = cryptoTicker(type),
            let amount = plainDecimal(message["amount"])
        else { return nil }
        return .cryptoTransfer(ticker: ticker, amount: amount, comment: message["comments"]?.string ?? "")
    }

    private static func isPresent(_ value: JSONValue?) -> Bool {
        guard let value else { return false }
        return value != .null
    }

    /// `<ticker>_transaction`, compared case-insensitively, for any ASCII-alphanumeric ticker
    /// except ADM: an ADM transfer is the transaction's own amount, never a claim in the text.
    static func cryptoTicker(_ type: String) -> String? {
        let suffix = "_transaction"
        guard type.utf8.allSatisfy({ $0 < 0x80 }), type.utf8.count <= maximumTickerLength + suffix.utf8.count else {
            return nil
        }
        let lowered = type.lowercased()
        guard lowered.hasSuffix(suffix) else { return nil }
        let ticker = lowered.dropLast(suffix.count)
        guard !ticker.isEmpty, ticker != "adm", ticker.utf8.allSatisfy(isASCIILetterOrDigit) else { return nil }
        return ticker.uppercased()
    }

    /// A string or JSON number that is digits, optionally `.` and more digits: nothing signed,
    /// no exponent, no separators, within `maximumAmountLength`.
    static func plainDecimal(_ value: JSONValue?) -> String? {
        let text: String
        switch value {
        case .string(let written)?, .number(let written)?: text = written
        default: return nil
        }
        guard text.utf8.count <= maximumAmountLength else { return nil }
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isASCIIDigit) }) else { return nil }
        return text
    }

    /// Object entries of a `files` array, by icon; nil when it is not an array or holds none.
    private static func fileCounts(_ files: JSONValue) -> (photos: Int, documents: Int)? {
        guard case .array(let entries) = files else { return nil }
        var photos = 0
        var documents = 0
        for entry in entries {
            guard case .object = entry else { continue }
            if FileKind.isPhotoOrVideo(entry) { photos += 1 } else { documents += 1 }
        }
        return photos + documents > 0 ? (photos, documents) : nil
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        isASCIIDigit(byte) || (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte)
    }
}

/// Which icon an AIP-18 file gets: the photo one for images and videos, by `mimeType`, else
/// by `extension`, else by the extension in `name`.
enum FileKind {
    static let photoAndVideoExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "heic", "heif", "webp", "bmp", "tif", "tiff", "svg",
        "mp4", "mov", "m4v", "avi", "mkv", "webm", "3gp",
    ]

    static func isPhotoOrVideo(_ file: JSONValue) -> Bool {
        if let mimeType = file["mimeType"]?.string?.lowercased(),
            mimeType.hasPrefix("image/") || mimeType.hasPrefix("video/")
        {
            return true
        }
        let written =
            file["extension"]?.string
            ?? file["name"]?.string.flatMap { name in
                name.lastIndex(of: ".").map { String(name[$0...]) }
            }
        guard let written else { return false }
        let bare = written.hasPrefix(".") ? written.dropFirst() : Substring(written)
        return photoAndVideoExtensions.contains(bare.lowercased())
    }
}
