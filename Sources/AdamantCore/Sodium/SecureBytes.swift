/// Heap bytes for secrets: zeroed with `sodium_memzero` when released and never printed. Immutable after initialisation, hence `@unchecked Sendable`.
package final class SecureBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    /// How many bytes it holds.
    package let count: Int

    /// Allocates `count` bytes and lets `initialize` write them in place, so a secret never
    /// passes through an ordinary array.
    package init<E: Error>(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try initialize(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
        } catch {
            Sodium.zero(storage)
            storage.deallocate()
            throw error
        }
        self.storage = storage
        self.count = count
    }

    /// Copies `bytes` in and zeroes the caller's array.
    package convenience init(consuming bytes: inout [UInt8]) {
        let count = bytes.count
        self.init(count: count) { buffer in
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        Sodium.zero(&bytes)
    }

    deinit {
        Sodium.zero(storage)
        storage.deallocate()
    }

    /// The bytes, readable inside `body` only.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}

/// Wiping secrets that had to pass through an ordinary array (input buffers, for example).
public enum SecureMemory {
    /// `sodium_memzero`: a wipe the optimiser may not remove.
    public static func zero(_ bytes: inout [UInt8]) { Sodium.zero(&bytes) }
    /// The same for memory that is not an array's (a C string's bytes).
    package static func zero(_ buffer: UnsafeMutableRawBufferPointer) { Sodium.zero(buffer) }
}
