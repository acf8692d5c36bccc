import AdamantCore
import Foundation

/// A transaction as a node sends it (node-api §1.4): decoded, verified, its bytes, id and fee
/// worked out, and re-encoded, which must give back the same transaction. What the node-answer
/// reader (`Transaction(json:)`) accepts, `JSONDecoder` must decode to the same transaction:
/// the reader is the one that meets node answers, the decoder the one that defines them.
enum TransactionFuzz {
    static func run(_ data: [UInt8]) {
        let decoded = try? JSONDecoder().decode(Transaction.self, from: Data(data))
        if let read = try? JSONReader.read(data, { reader throws(JSONReadError) in try Transaction(json: &reader) }) {
            invariant(read == decoded, "the reader and JSONDecoder disagree: \(String(describing: decoded)) decoded, \(read) read")
        }
        guard let transaction = decoded else { return }
        _ = try? transaction.verify()
        _ = try? transaction.computedID()
        _ = try? Fee.of(transaction)
        _ = try? transaction.validate()
        _ = try? transaction.submissionBody()
        _ = transaction.submissionPath

        let encoded: Data
        do { encoded = try JSONEncoder().encode(transaction) } catch {
            return invariant(false, "a decoded transaction does not encode: \(error)")
        }
        let decodedAgain = try? JSONDecoder().decode(Transaction.self, from: encoded)
        invariant(decodedAgain == transaction, "a transaction changes on a round trip: \(String(decoding: encoded, as: UTF8.self))")
    }
}
