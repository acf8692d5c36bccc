/// Trimming as the protocol's inputs need it, without Foundation.
extension StringProtocol {
    /// Without the spaces and tabs at either end (what Foundation calls `.whitespaces`:
    /// tab and the Unicode space separators; line breaks stay).
    public var trimmingSpaces: String {
        func isSpace(_ character: Character) -> Bool {
            character == "\t"
                || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
