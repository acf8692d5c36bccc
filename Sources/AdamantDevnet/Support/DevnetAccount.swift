public import AdamantCore

/// A devnet account with its passphrase, which is reported in clear: devnet accounts are
/// throwaway test accounts.
public struct DevnetAccount: Sendable, Hashable {
    public let passphrase: String
    public let address: Address
    public let publicKey: PublicKey

    /// - Throws: `PassphraseError` when `passphrase` is not a valid 12-word BIP39 phrase.
    public init(passphrase: String) throws(PassphraseError) {
        let keyPair = KeyPair(passphrase: try Passphrase(validating: passphrase))
        self.passphrase = passphrase
        self.address = keyPair.address
        self.publicKey = keyPair.publicKey
    }

    public static func random() -> DevnetAccount {
        try! DevnetAccount(passphrase: BIP39.randomMnemonic())  // a generated phrase always validates
    }

    /// The keys, derived again on demand (PBKDF2, about a millisecond).
    public var keyPair: KeyPair { KeyPair(passphrase: try! Passphrase(validating: passphrase)) }
}
