/// An account's key pair, perhaps still being derived from its passphrase on another thread.
/// PBKDF2's 2048 rounds are most of a cold `adm-fetch`'s own work; started early, they run
/// while the transaction is being found instead of before.
public struct AccountKeys: Sendable {
    private enum Source: Sendable {
        case ready(KeyPair)
        case deriving(Task<KeyPair, Never>)
    }

    private let source: Source

    /// Keys already derived.
    public init(_ keyPair: KeyPair) {
        source = .ready(keyPair)
    }

    /// Starts deriving the keys of `passphrase` now, off the caller's thread.
    public init(deriving passphrase: Passphrase) {
        source = .deriving(Task.detached(priority: .high) { KeyPair(passphrase: passphrase) })
    }

    /// The key pair, once derived.
    public var keyPair: KeyPair {
        get async {
            switch source {
            case .ready(let keyPair): keyPair
            case .deriving(let derivation): await derivation.value
            }
        }
    }
}
