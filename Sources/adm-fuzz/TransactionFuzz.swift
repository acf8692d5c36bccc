import AdamantCore
import Foundation

/// A transaction as a node sends it (node-api §1.4): decoded, verified, its bytes, id and fee
/// worked out, and re-encoded, which must give back the same transaction.
enum TransactionFuzz {
    static func run(_ data: [UInt8]) {
        guard let transaction = try? JSONDecoder().decode(Transaction.self, from: Data(data)) else { return }
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
