import AdamantCore

/// An HTTP answer read as the node API defines it (docs/node-api.md §1.1): HTTP status is not a
/// success signal, the JSON `success` field is.
enum NodeReply: Sendable, Hashable {
    /// HTTP 200 with `success: true`; the whole body, for the caller to decode.
    case success([UInt8])
    /// A node's JSON error at any HTTP status: 200 with `success: false` from a handler, or
    /// 500/404/403 without `nodeTimestamp` from the node's middleware. The message is the
    /// node's, made printable (`AnswerText.quoted`).
    case failure(message: String, status: Int)
    /// Not the node API talking: an HTML page, plain text, a redirect.
    case notFromNode(reason: String)
    /// A body labelled JSON that is not a node's envelope: garbage from the node itself, or
    /// from something that speaks JSON in front of it.
    case malformed(reason: String)

    init(_ answer: HTTPAnswer) {
        if answer.status == 200, Self.opensWithSuccess(answer.body) {
            self = .success(answer.body)
            return
        }
        guard let head = try? JSONReader.read(answer.body, Head.init(json:)) else {
            if let type = answer.contentType, type.lowercased().contains("json") {
                self = .malformed(reason: "HTTP \(answer.status) with JSON that is not a node's answer")
            } else {
                let kind = answer.contentType.map { " (\(AnswerText.quoted($0)))" } ?? ""
                self = .notFromNode(reason: "HTTP \(answer.status) with a body that is not node JSON\(kind)")
            }
            return
        }
        switch (head.success, answer.status) {
        case (true, 200): self = .success(answer.body)
        case (true, _): self = .notFromNode(reason: "HTTP \(answer.status) with success: true")
        case (false, _): self = .failure(message: AnswerText.quoted(head.error ?? ""), status: answer.status)
        }
    }

    /// Whether the body opens as every node's success does, `{"success":true` (blanks allowed).
    /// The rest is then left to the call that asked for it, which reads the whole body with a
    /// strict reader and refuses it as a bad answer if it is not JSON: a page of 100
    /// transactions is not read twice.
    private static func opensWithSuccess(_ body: [UInt8]) -> Bool {
        var index = 0
        func skipBlanks() {
            while index < body.count, [0x20, 0x0A, 0x0D, 0x09].contains(body[index]) { index += 1 }
        }
        for token in ["{", "\"success\"", ":", "true"] {
            skipBlanks()
            guard body[index...].starts(with: token.utf8) else { return false }
            index += token.utf8.count
        }
        skipBlanks()
        return index < body.count && (body[index] == UInt8(ascii: ",") || body[index] == UInt8(ascii: "}"))
    }

    /// `success` and `error` of the envelope, with the rest of the body checked on the way: for
    /// the answers that do not open as a success.
    private struct Head {
        var success: Bool
        var error: String?

        private enum Key: Int { case success, error }

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var success: Bool?
            var error: String?
            var seen = SeenKeys<Key>()
            try reader.readObject { reader, key throws(JSONReadError) in
                switch key {
                case "success":
                    try seen.first(.success, reader)
                    success = try reader.readBool()
                // "Normally a string"; anything else is no message.
                case "error" where reader.kind == .string:
                    try seen.first(.error, reader)
                    error = try reader.readString()
                default: try reader.skipValue()
                }
            }
            guard let success else { throw reader.missing("success") }
            self.success = success
            self.error = error
        }
    }
}
