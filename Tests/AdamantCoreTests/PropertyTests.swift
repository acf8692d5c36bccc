import AdamantCore
import Foundation
import Testing

/// Round trips over thousands of random keys and messages.
@Suite("Properties")
struct PropertyTests {
    static let rounds = 2_000

    @Test func signVerifyEncryptDecryptAndEncodeRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<Self.rounds {
            let sender = KeyPair.random()
            let recipient = KeyPair.random()
            let text = randomText(length: Int.random(in: 0...300, using: &generator), using: &generator)
            let asset = try ChatKey(secretKey: sender.secretKey, partner: recipient.publicKey)
                .seal(text, type: round % 2 == 0 ? .message : .rich)

            let amount = round % 3 == 0 ? Int64.random(in: 1...ADMAmount.totalSupply.units, using: &generator) : 0
            let transaction: Transaction
            if text.isEmpty || round % 5 == 0 {
                transaction = try .transfer(
                    amount: max(amount, 1), to: recipient.address,
                    timestamp: .random(in: 0...Int32.max, using: &generator),
                    signedBy: sender)
            } else {
                transaction = try .chat(
                    asset, amount: amount, to: recipient.address,
                    timestamp: .random(in: 0...Int32.max, using: &generator),
                    signedBy: sender)
                #expect(try transaction.decryptMessage(with: recipient, partner: sender.publicKey) == text)
                #expect(try transaction.decryptMessage(with: sender, partner: recipient.publicKey) == text)
            }
            #expect(try transaction.verify() == transaction.id)
            let decoded = try Transaction(json: Array(JSONEncoder().encode(transaction)))
            #expect(decoded == transaction)
        }
    }

    @Test func addressesParseBackFromTheirText() throws {
        for _ in 0..<Self.rounds {
            let address = KeyPair.random().address
            #expect(try Address(address.description) == address)
        }
    }

    @Test func amountsFormatAndParseBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<Self.rounds {
            let amount = ADMAmount(units: .random(in: 0...ADMAmount.totalSupply.units, using: &generator))
            #expect(try ADMAmount(amount.description) == amount)
        }
    }

    /// Letters, digits, punctuation, accents, CJK and emoji, so UTF-8 of every width is covered.
    private func randomText(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("abcXYZ019 .,!?\n\"\\{}éüß中文😀👍🏽")
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
