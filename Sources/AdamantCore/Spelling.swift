/// "Did you mean" support for passphrase words and command-line options.
public enum Spelling {
    /// Levenshtein distance over characters.
    public static func distance(_ a: some StringProtocol, _ b: some StringProtocol) -> Int {
        let b = Array(b)
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let above = row[j + 1]
                row[j + 1] = min(above + 1, row[j] + 1, diagonal + (x == y ? 0 : 1))
                diagonal = above
            }
        }
        return row[b.count]
    }

    /// The first candidate at the smallest distance, if that distance is at most `maxDistance`.
    public static func nearest(to word: some StringProtocol, in candidates: some Sequence<String>, maxDistance: Int = 2)
        -> String?
    {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let d = distance(word, candidate)
            if d <= maxDistance && d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.candidate
    }
}
