/// The inline part of `Markdown`: `**x**`, `__x__`, `*x*`, `_x_`, `***x***`, `~~x~~`, `` `code` ``,
/// `[text](url)`, `![alt](url)` and backslash escapes, on one line. Linear: every look-ahead
/// is a table built once per line, and delimiters pair through one stack per kind.
enum MarkdownInline {
    static func text(of line: ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] {
        var reader = Reader(Array(line))
        reader.read()
        return reader.output()
    }

    private enum Piece {
        case text(Unicode.Scalar)
        case verbatim(ArraySlice<Unicode.Scalar>)
        case delimiter(Delimiter)
    }

    /// A run of `*`, `_` or `~` that may open or close emphasis (CommonMark's flanking rules;
    /// `_` also needs a word boundary, so `snake_case_name` keeps its underscores).
    private struct Delimiter {
        let mark: Unicode.Scalar
        let length: Int
        let canOpen: Bool
        let canClose: Bool
        var paired = false

        var kind: Int { Int(mark.value) &* 4 &+ length }
    }

    private struct Reader {
        let line: [Unicode.Scalar]
        var pieces: [Piece] = []
        /// Where each backtick run's matching run of the same length starts, by its start.
        let codeCloser: [Int: Int]
        /// The index of the next `]` and `)` at or after each index (`line.count` for none).
        let nextBracket: [Int], nextParen: [Int]
        /// Inside a link's text: where its `]` is, and where reading resumes after `)`.
        var link: (close: Int, resume: Int)?

        init(_ line: [Unicode.Scalar]) {
            self.line = line
            nextBracket = Self.nextIndex(of: "]", in: line)
            nextParen = Self.nextIndex(of: ")", in: line)
            codeCloser = Self.codeClosers(in: line)
        }

        mutating func read() {
            var index = 0
            while index < line.count {
                if let open = link, index >= open.close {
                    index = max(index, open.resume)
                    link = nil
                    continue
                }
                index = readPiece(at: index)
            }
            pairDelimiters()
        }

        /// Reads what starts at `index`; returns the index after it (always past `index`).
        private mutating func readPiece(at index: Int) -> Int {
            let scalar = line[index]
            switch scalar {
            case "\\":
                let next = index + 1
                guard next < line.count, next != link?.close, isASCIIPunctuation(line[next]) else { break }
                pieces.append(.text(line[next]))
                return next + 1
            case "`":
                let length = runLength(at: index)
                if let closer = codeCloser[index], closer + length <= (link?.close ?? line.count) {
                    // Plain text has no monospace: one backtick each side still says "code".
                    pieces += [.text("`"), .verbatim(line[(index + length)..<closer]), .text("`")]
                    return closer + length
                }
                pieces.append(.verbatim(line[index..<(index + length)]))
                return index + length
            case "!" where link == nil && index + 1 < line.count && line[index + 1] == "[":
                if let found = linkTarget(openingAt: index + 1) {
                    link = found
                    return index + 2
                }
            case "[" where link == nil:
                if let found = linkTarget(openingAt: index) {
                    link = found
                    return index + 1
                }
            case "*", "_", "~":
                let length = runLength(at: index)
                let isEmphasis = scalar == "~" ? length == 2 : length <= 3
                guard isEmphasis else {
                    pieces.append(.verbatim(line[index..<(index + length)]))
                    return index + length
                }
                pieces.append(.delimiter(delimiter(at: index, length: length)))
                return index + length
            default: break
            }
            pieces.append(.text(scalar))
            return index + 1
        }

        /// `[` at `open`, then the next `]` followed at once by `(`, then the next `)`.
        private func linkTarget(openingAt open: Int) -> (close: Int, resume: Int)? {
            let close = nextBracket[open + 1]
            guard close + 1 < line.count, line[close + 1] == "(" else { return nil }
            let paren = nextParen[close + 2]
            guard paren < line.count else { return nil }
            return (close, paren + 1)
        }

        private func runLength(at index: Int) -> Int {
            line[index...].prefix(while: { $0 == line[index] }).count
        }

        private func delimiter(at index: Int, length: Int) -> Delimiter {
            let before = index > 0 ? line[index - 1] : nil
            let after = index + length < line.count ? line[index + length] : nil
            let spaceBefore = before.map(isSpace) ?? true
            let spaceAfter = after.map(isSpace) ?? true
            let punctuationBefore = before.map(isPunctuation) ?? false
            let punctuationAfter = after.map(isPunctuation) ?? false
            let leftFlanking = !spaceAfter && (!punctuationAfter || spaceBefore || punctuationBefore)
            let rightFlanking = !spaceBefore && (!punctuationBefore || spaceAfter || punctuationAfter)
            let mark = line[index]
            if mark == "_" {
                return Delimiter(
                    mark: mark, length: length,
                    canOpen: leftFlanking && (!rightFlanking || punctuationBefore),
                    canClose: rightFlanking && (!leftFlanking || punctuationAfter))
            }
            return Delimiter(mark: mark, length: length, canOpen: leftFlanking, canClose: rightFlanking)
        }

        /// A closer pairs with the latest unpaired opener of its kind; both are dropped.
        private mutating func pairDelimiters() {
            var openers: [Int: [Int]] = [:]
            for position in pieces.indices {
                guard case .delimiter(let delimiter) = pieces[position] else { continue }
                if delimiter.canClose, let opener = openers[delimiter.kind]?.popLast() {
                    markPaired(opener)
                    markPaired(position)
                } else if delimiter.canOpen {
                    openers[delimiter.kind, default: []].append(position)
                }
            }
        }

        private mutating func markPaired(_ position: Int) {
            guard case .delimiter(var delimiter) = pieces[position] else { return }
            delimiter.paired = true
            pieces[position] = .delimiter(delimiter)
        }

        func output() -> [Unicode.Scalar] {
            var scalars: [Unicode.Scalar] = []
            scalars.reserveCapacity(line.count)
            for piece in pieces {
                switch piece {
                case .text(let scalar): scalars.append(scalar)
                case .verbatim(let run): scalars.append(contentsOf: run)
                case .delimiter(let delimiter) where !delimiter.paired:
                    scalars.append(contentsOf: repeatElement(delimiter.mark, count: delimiter.length))
                case .delimiter: break
                }
            }
            return scalars
        }

        private static func nextIndex(of target: Unicode.Scalar, in line: [Unicode.Scalar]) -> [Int] {
            var next = Array(repeating: line.count, count: line.count + 1)
            for index in line.indices.reversed() {
                next[index] = line[index] == target ? index : next[index + 1]
            }
            return next
        }

        private static func codeClosers(in line: [Unicode.Scalar]) -> [Int: Int] {
            var runs: [(start: Int, length: Int)] = []
            var index = 0
            while index < line.count {
                guard line[index] == "`" else {
                    index += 1
                    continue
                }
                let start = index
                while index < line.count, line[index] == "`" { index += 1 }
                runs.append((start, index - start))
            }
            var closers: [Int: Int] = [:]
            var laterRun: [Int: Int] = [:]
            for run in runs.reversed() {
                closers[run.start] = laterRun[run.length]
                laterRun[run.length] = run.start
            }
            return closers
        }
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }

    private static func isASCIIPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".unicodeScalars.contains(scalar)
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            true
        default: false
        }
    }
}
