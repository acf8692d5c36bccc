import AdamantCore
import Foundation
import Testing

struct InvalidVector: Codable, Sendable, CustomTestStringConvertible {
    let name, category, error: String
    let input: JSONValue
    let position: Int?
    let count: Int?
    var testDescription: String { "\(category): \(name)" }
}

/// Every input that must be rejected is rejected, for the stated reason.
@Suite("Invalid inputs")
struct InvalidVectorTests {
    static let vectors: [InvalidVector] = Vectors.load("invalid.json")

    @Test(arguments: vectors)
    func isRejectedForItsReason(_ vector: InvalidVector) throws {
        #expect(try rejection(of: vector) == vector.error)
    }

    @Test(arguments: vectors.filter { $0.error == "unknownWord" || $0.error == "wrongWordCount" })
    func passphraseErrorsCarryTheirDetails(_ vector: InvalidVector) throws {
        let text = try #require(vector.input.string)
        do throws(PassphraseError) {
            _ = try Passphrase(validating: text)
            Issue.record("accepted")
        } catch .unknownWord(let position) {
            #expect(position == vector.position)
        } catch .wrongWordCount(let count) {
            #expect(count == vector.count)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func coversEveryCategory() {
        let categories = Set(Self.vectors.map(\.category))
        #expect(
            categories == [
                "passphrase", "address", "amount", "publicKey", "transaction", "chat", "signal", "nsSignal", "service",
            ])
        #expect(Self.vectors.count >= 60)
    }

    /// The error kind the library gives, or "accepted".
    private func rejection(of vector: InvalidVector) throws -> String {
        let input = vector.input
        func text(_ key: String? = nil) throws -> String { try #require(key.map { input[$0]?.string } ?? input.string) }
        switch vector.category {
        case "passphrase":
            let phrase = try text()
            do throws(PassphraseError) { _ = try Passphrase(validating: phrase) } catch { return error.kind }
        case "address":
            let address = try text()
            do throws(AddressError) { _ = try Address(address) } catch { return error.kind }
        case "amount":
            let amount = try text()
            do throws(AmountError) { _ = try ADMAmount(amount) } catch { return error.kind }
        case "publicKey":
            let key = try text()
            do throws(KeyError) { _ = try PublicKey(hex: key) } catch { return error.kind }
        case "transaction":
            guard let transaction = try? Transaction(json: Array(input.data)) else { return "decoding" }
            do throws(TransactionError) {
                try transaction.validate()
                try transaction.verify()
            } catch { return error.kind }
        case "chat":
            let recipient = try keyPair(passphrase: try text("recipientPassphrase"))
            let sender = try PublicKey(hex: try text("senderPublicKey"))
            let asset = ChatAsset(message: hex(try text("message")), nonce: hex(try text("nonce")), type: .message)
            do throws(ChatCryptoError) {
                _ = try ChatKey(secretKey: recipient.secretKey, partner: sender).open(asset)
            } catch { return error.kind }
        case "signal":
            let plaintext = String(decoding: input.data, as: UTF8.self)
            do throws(SignalError) { _ = try PushSignal(plaintext: plaintext) } catch { return error.kind }
        case "nsSignal":
            let plaintext = String(decoding: input.data, as: UTF8.self)
            do throws(SignalError) { _ = try ServiceKind.ns.signal(plaintext: plaintext) } catch { return error.kind }
        case "service":
            let address = try Address(try text("address"))
            let key = try PublicKey(hex: try text("publicKey"))
            do throws(SignalError) { _ = try NotificationService(address: address, publicKey: key) } catch {
                return error.kind
            }
        default:
            Issue.record("unknown category \(vector.category)")
        }
        return "accepted"
    }
}
