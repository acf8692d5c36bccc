/// SHA-2 digests used by the protocol.
public enum Digest {
    /// SHA-256 of `bytes` (32 bytes): ids, addresses and what is signed.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { Sodium.sha256(bytes) }
    /// SHA-512 of `bytes` (64 bytes).
    public static func sha512(_ bytes: [UInt8]) -> [UInt8] { Sodium.sha512(bytes) }

    /// The first 8 bytes of a SHA-256 digest read as a little-endian integer: the shared
    /// construction behind addresses and transaction ids.
    package static func leadingUInt64(ofSHA256 bytes: [UInt8]) -> UInt64 { Sodium.leadingUInt64(ofSHA256: bytes) }
}
