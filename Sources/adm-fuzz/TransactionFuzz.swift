import AdamantCore
import Foundation

/// A transaction as a node sends it (docs/node-api.md §1.4): read, verified, its bytes, id and fee
/// worked out, and re-encoded, which must read back as the same transaction. Foundation's
/// `JSONSerialization` stands beside the reader: its rewriting of a document the reader took
/// (escapes decoded, whitespace dropped, members reordered) must read as the same transaction.
/// Which documents are JSON at all is the coding target's question: Foundation refuses some
/// the reader rightly passes over (a skipped `1e400`, a skipped string that is not UTF-8).
enum TransactionFuzz {
    static func run(_ data: [UInt8]) {
        guard let transaction = try? Transaction(json: data) else { return }
        if let object = try? JSONSerialization.jsonObject(with: Data(data)),
            JSONSerialization.isValidJSONObject(object),
            let rewritten = try? JSONSerialization.data(withJSONObject: object)
        {
            let again = try? Transaction(json: Array(rewritten))
            invariant(
                again == transaction,
                "Foundation's rewriting reads differently: \(String(decoding: rewritten, as: UTF8.self))")
        }
        _ = try? transaction.verify()
        _ = try? transaction.computedID()
        _ = try? Fee.of(transaction)
        _ = try? transaction.validate()
        _ = try? transaction.submissionBody()
        _ = transaction.submissionPath

        let encoded: Data
        do { encoded = try JSONEncoder().encode(transaction) } catch {
            return invariant(false, "a read transaction does not encode: \(error)")
        }
        let readAgain = try? Transaction(json: Array(encoded))
        invariant(
            readAgain == transaction,
            "a transaction changes on a round trip: \(String(decoding: encoded, as: UTF8.self))")
    }
}
