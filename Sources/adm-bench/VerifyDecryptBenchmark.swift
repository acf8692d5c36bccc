import AdamantCore
import CSodium
import Foundation

/// 5,000 chat transactions from 20 partners to one account, verified and decrypted with the
/// shared key cached per partner, as a poller does: through AdamantCore, and as the same
/// libsodium calls on bytes prepared beforehand (the floor). A debug build, which only shows
/// the report's shape, takes 500: its unoptimized sealing alone took seconds of a loaded CPU.
func verifyDecryptBenchmark() async throws -> [Figure] {
    #if DEBUG
        let count = 500
    #else
        let count = 5_000
    #endif
    let me = KeyPair.random()
    let partners = (0..<20).map { _ in KeyPair.random() }
    let transactions = try (0..<count).map { i in
        let partner = partners[i % partners.count]
        let asset = try ChatKey(secretKey: partner.secretKey, partner: me.publicKey).seal("message number \(i)")
        return try Transaction.chat(asset, to: me.address, timestamp: Int32(i), signedBy: partner)
    }
    let floor = try LibsodiumVerifyDecrypt(transactions, partners: partners.map(\.publicKey), me: me)

    func ours() throws {
        var keys: [PublicKey: ChatKey] = [:]
        for transaction in transactions {
            try transaction.verify()
            let partner = transaction.senderPublicKey
            let key = try keys[partner] ?? ChatKey(secretKey: me.secretKey, partner: partner)
            keys[partner] = key
            _ = try key.open(transaction.chat!)
        }
    }
    // Each round is a whole pass over them all; the cache starts empty each time.
    let (oursTime, floorTime) = try await pairedTimings(Budget(iterations: 5, seconds: 4, minimum: 3)) {
        try ours()
    } floor: {
        try floor.run()
    }
    let rate = { (t: Timing) in Double(transactions.count) / t.median * 1e3 }
    return [
        Figure(
            "verify + decrypt, key per partner", .perSecond, value: rate(oursTime),
            floor: Figure.Floor(name: "libsodium", value: rate(floorTime)),
            goal: .ratio(.atLeast, 0.9),
            note:
                "median of \(oursTime.runs) passes over \(Table.grouped(count)); floor: SHA-256 ×3, crypto_sign_verify_detached, "
                + "crypto_box_beforenm once per partner, crypto_box_open_easy_afternm"),
        Figure("verify + decrypt, absolute", .perSecond, value: rate(oursTime), goal: .value(.atLeast, 15_000)),
    ]
}

/// The libsodium calls `Transaction.verify` and `ChatKey.open` make, straight: SHA-256 of the
/// signed bytes, the signature check, SHA-256 of the key (the sender's address) and of bytes
/// and signature (the id), then the box opened with the partner's shared key.
struct LibsodiumVerifyDecrypt {
    struct Prepared {
        let signed: [UInt8]
        let signedAndSignature: [UInt8]
        let signature: [UInt8]
        let publicKey: [UInt8]
        let partner: Int
        let sealed: [UInt8]
        let nonce: [UInt8]
    }

    let transactions: [Prepared]
    let partnerKeys: [[UInt8]]
    let curveSecret: [UInt8]

    init(_ transactions: [Transaction], partners: [PublicKey], me: KeyPair) throws {
        _ = sodium_init()
        self.transactions = try transactions.map { transaction in
            let signed = try transaction.unsignedBytes()
            return Prepared(
                signed: signed, signedAndSignature: signed + transaction.signature, signature: transaction.signature,
                publicKey: transaction.senderPublicKey.bytes,
                partner: partners.firstIndex(of: transaction.senderPublicKey)!,
                sealed: transaction.chat!.message, nonce: transaction.chat!.nonce)
        }
        partnerKeys = partners.map(\.bytes)
        var curve = [UInt8](repeating: 0, count: 32)
        me.secretKey.withUnsafeBytes { secret in
            _ = crypto_sign_ed25519_sk_to_curve25519(&curve, secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        curveSecret = curve
    }

    func run() throws {
        var shared = [[UInt8]?](repeating: nil, count: partnerKeys.count)
        var hash = [UInt8](repeating: 0, count: 32)
        var plaintext = [UInt8](repeating: 0, count: 4_096)
        for t in transactions {
            crypto_hash_sha256(&hash, t.signed, UInt64(t.signed.count))
            guard crypto_sign_verify_detached(t.signature, hash, 32, t.publicKey) == 0 else {
                throw BenchmarkError(description: "a signature failed")
            }
            crypto_hash_sha256(&hash, t.publicKey, 32)
            crypto_hash_sha256(&hash, t.signedAndSignature, UInt64(t.signedAndSignature.count))
            if shared[t.partner] == nil {
                var curvePartner = [UInt8](repeating: 0, count: 32)
                var key = [UInt8](repeating: 0, count: 32)
                _ = crypto_sign_ed25519_pk_to_curve25519(&curvePartner, partnerKeys[t.partner])
                _ = crypto_box_beforenm(&key, curvePartner, curveSecret)
                shared[t.partner] = key
            }
            guard
                crypto_box_open_easy_afternm(&plaintext, t.sealed, UInt64(t.sealed.count), t.nonce, shared[t.partner]!)
                    == 0
            else {
                throw BenchmarkError(description: "a message failed to open")
            }
        }
    }
}
