import AdamantCore

/// Words about what a node sent, safe to print: a node chooses its error messages, so they
/// may hold terminal escapes or line breaks, and they may be long.
enum AnswerText {
    static let maxCharacters = 300

    /// `text` on one line: control characters escaped (`\n`, `\u{1B}`), cut at `maxCharacters`.
    static func quoted(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < maxCharacters else { return result + "…" }
            count += 1
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format:
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// What is wrong with an answer that did not decode, in a user's words: which field, and
    /// what about it, never the decoder's type names.
    static func decoding(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return quoted("\(error)") }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) is null"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) is not \(kind(of: type))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The grammar broken: where, and what was expected there.
            if let grammar = context.underlyingError as? JSONReadError { return quoted(grammar.description) }
            // Foundation reports a number too large for its field the same way, with no path.
            return "malformed JSON or an out-of-range number"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(quoted(context.debugDescription))"
        @unknown default:
            return "undecodable"
        }
    }

    /// `network.height`, `transactions[2].id`.
    private static func path(_ keys: [any CodingKey]) -> String {
        var path = ""
        for key in keys {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return path.isEmpty ? "the answer" : quoted(path)
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is any BinaryInteger.Type: "an integer"
        case is any FloatingPoint.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is [Any].Type: "a list"
        case is [String: Any].Type: "an object"
        default: "of the expected kind"
        }
    }
}
