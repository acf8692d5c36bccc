/// An object's key as the document spells it (escapes decoded), matched against the names a
/// reader expects: `switch key { case "height": … }`.
package struct JSONKey {
    let bytes: ArraySlice<UInt8>
    /// Where the key's opening quote stands in the document.
    package let offset: Int

    /// The key as text (keys are checked UTF-8 when read).
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether `key` is spelled `name`, byte for byte.
    package static func ~= (name: StaticString, key: JSONKey) -> Bool {
        name.withUTF8Buffer { expected in
            guard key.bytes.count == expected.count else { return false }
            // Byte by byte on the buffers: `elementsEqual` on a slice took ~400 instructions a key.
            return key.bytes.withUnsafeBufferPointer { actual in
                for index in 0..<expected.count where actual[index] != expected[index] { return false }
                return true
            }
        }
    }
}
