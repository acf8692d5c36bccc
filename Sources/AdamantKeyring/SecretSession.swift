package import AdamantBus
internal import AdamantCore

/// A session with the Secret Service, through which secrets travel: encrypted with an AES key
/// agreed by Diffie-Hellman when the service offers that, as they are when it refuses it.
package struct SecretSession: Sendable {
    /// Its object path, which every secret sent or received names.
    package let path: String
    let transport: KeyringTransport
    /// The AES-128 key, nil in a plain session.
    private let key: SecureBytes?
    /// Whether the shared secret's first byte was zero: the case where padding it or not
    /// makes another key (for the test that pins which gnome-keyring does).
    let sharedSecretHasLeadingZero: Bool

    /// What secrets are said to be; secret-tool and libsecret store passwords as such.
    static let contentType = "text/plain"

    /// Opens a session on `bus`: the encrypted one, or the plain one if the service refuses
    /// the algorithm (`org.freedesktop.DBus.Error.NotSupported`), and only then.
    /// Its calls wait at most `timeout`.
    static func open(on bus: SessionBus, within timeout: Duration = SessionBus.callTimeout) async throws(KeyringError)
        -> SecretSession
    {
        let pair = try DiffieHellman()
        let answer: Result<(output: [UInt8], path: String), KeyringError>
        do {
            answer = try await bus.secretAnswer(
                SecretService.path, SecretService.interface, "OpenSession",
                [.string(KeyringTransport.encrypted.rawValue), .variant(.bytes(pair.publicKey))], within: timeout
            ) { reader throws(BusError) in
                let output = try reader.variant("ay", "the service's public key") { reader throws(BusError) in
                    try reader.bytes()
                }
                return (output, try reader.objectPath())
            }
        } catch let error where error.name == SecretService.notSupported {
            return try await openPlain(on: bus, within: timeout)
        } catch {
            throw KeyringError(error, waited: timeout)
        }
        let opened = try answer.get()
        let secret = try pair.sharedSecret(with: opened.output)
        // gnome-keyring feeds HKDF the shared secret as all 128 bytes of the prime's length,
        // zeros first: with the zeros dropped, neither side could read what the other sent
        // (KeyringSessionTests pins this with a secret whose first byte is zero).
        let key = secret.withUnsafeBytes { HKDF.sha256(key: $0, count: 16) }
        let leadingZero = secret.withUnsafeBytes { $0[0] == 0 }
        return SecretSession(
            path: opened.path, transport: .encrypted, key: key, sharedSecretHasLeadingZero: leadingZero)
    }

    /// Opens a plain session on `bus`.
    package static func openPlain(on bus: SessionBus, within timeout: Duration = SessionBus.callTimeout)
        async throws(KeyringError) -> SecretSession
    {
        let path = try await bus.secretCall(
            SecretService.path, SecretService.interface, "OpenSession",
            [.string(KeyringTransport.plain.rawValue), .variant(.string(""))], within: timeout
        ) { reader throws(BusError) in
            _ = try reader.variant("s", "the plain session's output") { reader throws(BusError) in try reader.string() }
            return try reader.objectPath()
        }
        return SecretSession(path: path, transport: .plain, key: nil, sharedSecretHasLeadingZero: false)
    }

    /// `secret` as the Secret Service takes it, `(oayays)`: this session, the IV, the
    /// ciphertext and the content type (in a plain session no IV, and the secret as it is).
    package func encode(_ secret: [UInt8]) throws(KeyringError) -> BusValue {
        guard let key else {
            return .structure([.objectPath(path), .bytes([]), .bytes(secret), .string(Self.contentType)])
        }
        let iv = SessionRandom.bytes(16)
        let ciphertext = try AES128CBC.encrypt(secret, key: key, iv: iv)
        return .structure([.objectPath(path), .bytes(iv), .bytes(ciphertext), .string(Self.contentType)])
    }

    /// The secret of a `(oayays)` the service sent: `parameters` (the IV) and `value`.
    func decode(session: String, parameters: [UInt8], value: [UInt8]) throws(KeyringError) -> [UInt8] {
        guard session == path else {
            throw .malformedAnswer("a secret came in session \(session.prefix(100)), not this one's")
        }
        guard let key else { return value }
        guard let secret = try AES128CBC.decrypt(value, key: key, iv: parameters, { Array($0) }) else {
            throw .malformedAnswer("a secret the service sent does not decrypt with the session's key")
        }
        return secret
    }
}
