extension KeyPair {
    /// The SOCKS username this account's requests carry through a proxy. Tor gives different
    /// usernames different circuits (`IsolateSOCKSAuth`, on by default), so two accounts of
    /// one device never leave by one exit a node could link them by. A keyed hash of the
    /// secret seed: the same on every run, and nothing anyone without the key can compute,
    /// from the address or the public key alike.
    public var circuitName: String {
        let digest = secretKey.storage.withUnsafeBytes { secret in
            AEAD.keyedHash(Array("adm-push circuit".utf8), key: UnsafeRawBufferPointer(rebasing: secret.prefix(32)))
        }
        return digest.withUnsafeBytes { Hex.encode(Array($0.prefix(16))) }
    }
}
