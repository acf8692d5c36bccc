internal import AdamantBus

/// An item of the keyring: a secret with a label and attributes, as a search found it.
public struct KeyringItem: Sendable, Hashable {
    /// Its D-Bus object path, which names it while it exists
    /// (`/org/freedesktop/secrets/collection/login/7`).
    public let path: String
    /// The attributes it is found by.
    public let attributes: [String: String]
    /// Whether it was locked when found: its secret cannot be read until it is unlocked.
    public let isLocked: Bool

    /// An item as the service names it.
    public init(path: String, attributes: [String: String], isLocked: Bool) {
        (self.path, self.attributes, self.isLocked) = (path, attributes, isLocked)
    }
}

/// How secrets travel between the keyring and this process, the algorithm of the Secret
/// Service session it opened.
public enum KeyringTransport: String, Sendable, Hashable {
    /// `dh-ietf1024-sha256-aes128-cbc-pkcs7`: each secret encrypted with a key agreed by
    /// Diffie-Hellman. Always used when the service offers it.
    case encrypted = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    /// `plain`: secrets as they are, readable by whoever can watch the bus. Used only when the
    /// service refuses the encrypted session.
    case plain
}
