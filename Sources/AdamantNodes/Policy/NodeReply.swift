import AdamantCore

/// An HTTP answer read as the node API defines it (node-api.md §1.1): HTTP status is not a
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

    /// `success` and `error` of the envelope; the rest of the body is only checked here (every
    /// answer is, a page of 100 transactions too), read by the call that asked for it.
    private struct Head {
        var success: Bool
        var error: String?

        private enum Key: Int { case success, error }

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var success: Bool?, error: String?, seen = SeenKeys<Key>()
            try reader.readObject { reader, key throws(JSONReadError) in
                switch key {
                case "success": try seen.first(.success, reader); success = try reader.readBool()
                // "Normally a string"; anything else is no message.
                case "error" where reader.kind == .string: try seen.first(.error, reader); error = try reader.readString()
                default: try reader.skipValue()
                }
            }
            guard let success else { throw reader.missing("success") }
            self.success = success
            self.error = error
        }
    }
}
