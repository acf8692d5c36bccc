#if canImport(CUnistring)
    import CSodium
    import CUnistring
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif
#else
    import Foundation
#endif

/// Unicode NFKD, which every ADAMANT implementation applies to a passphrase before PBKDF2.
/// On Linux it comes from libunistring rather than Foundation, whose ICU would be the
/// largest part of every command's start.
enum CompatibilityDecomposition {
    /// The UTF-8 bytes of `text` in NFKD; the caller zeroes them.
    static func utf8(of text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes }  // ASCII is its own NFKD
        defer { Sodium.zero(&bytes) }
        #if canImport(CUnistring)
            var length = 0
            let normalized = bytes.withUnsafeBufferPointer {
                u8_normalize(cunistring_nfkd(), $0.baseAddress, $0.count, nil, &length)
            }
            // A String is valid UTF-8, so only memory can run out; a key from unnormalized text
            // would silently be another account's.
            guard let normalized else { fatalError("out of memory normalizing a passphrase") }
            defer {
                sodium_memzero(normalized, length)
                free(normalized)
            }
            return Array(UnsafeBufferPointer(start: normalized, count: length))
        #else
            return Array(text.decomposedStringWithCompatibilityMapping.utf8)
        #endif
    }
}
