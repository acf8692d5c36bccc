import AdamantBus

/// What a notification server, or any client of the bus, can send the watch: a signal or an
/// answer whose arguments are of its choosing, read by `BusReader` as the receiving code reads
/// it, in order, up to the first read that throws (see `BusInput` for the format). Every
/// value appends; a read of the type appended gives exactly the value (a string as D-Bus
/// carries it: a NUL and each noncharacter U+FFFD); a read of another type, or past the end,
/// throws; and the message and its bus are freed.
enum BusFuzz {
    /// What a read gives.
    enum Answer: Equatable {
        case string(String)
        case uint32(UInt32)
        case strings([String])
        case boolean(Bool)
        case bytes([UInt8])
        case objectPaths([String])
        case stringPairs([String: String])
        case secret(session: String, parameters: [UInt8], value: [UInt8], contentType: String)
    }

    static func run(_ data: [UInt8]) {
        let input = BusInput(data)
        let message: PeerMessage
        do { message = try PeerMessage(input.kind, input.values) } catch {
            fatalError(
                "invariant broken: \(input.values.count) values (\(input.values.prefix(8))…) could not be sent: \(error)"
            )
        }
        message.read { reader in
            for (index, read) in input.reads.enumerated() {
                let value = index < input.values.count ? input.values[index] : nil
                let given = answer(read, reader)
                let expected = value.flatMap { expectedAnswer(read, $0) }
                invariant(
                    given == expected,
                    "read \(index), \(read) of \(value.map { "\($0)" } ?? "nothing"): \(given.map { "\($0)" } ?? "thrown"), not \(expected.map { "\($0)" } ?? "thrown")"
                )
                if given == nil { return }
            }
        }
        invariant(message.free(), "the message or its bus was kept")
    }

    private static func answer(_ read: BusInput.Read, _ reader: BusReader) -> Answer? {
        switch read {
        case .string: (try? reader.string()).map(Answer.string)
        case .uint32: (try? reader.uint32()).map(Answer.uint32)
        case .strings: (try? reader.strings()).map(Answer.strings)
        case .boolean: (try? reader.boolean()).map(Answer.boolean)
        case .bytes: (try? reader.bytes()).map(Answer.bytes)
        case .objectPath: (try? reader.objectPath()).map(Answer.string)
        case .objectPaths: (try? reader.objectPaths()).map(Answer.objectPaths)
        case .stringPairs: (try? reader.stringPairs()).map(Answer.stringPairs)
        case .variantOfBytes:
            (try? reader.variant("ay", "bytes") { reader throws(BusError) in try reader.bytes() }).map(Answer.bytes)
        case .secret:
            try? reader.structure("oayays", "a secret") { reader throws(BusError) in
                Answer.secret(
                    session: try reader.objectPath(), parameters: try reader.bytes(), value: try reader.bytes(),
                    contentType: try reader.string())
            }
        }
    }

    /// What `read` gives of `value`: nil when it must throw.
    private static func expectedAnswer(_ read: BusInput.Read, _ value: BusValue) -> Answer? {
        switch (read, value) {
        case (.string, .string(let text)): .string(carried(text))
        case (.uint32, .uint32(let number)): .uint32(number)
        case (.strings, .strings(let texts)): .strings(texts.map(carried))
        case (.boolean, .boolean(let flag)): .boolean(flag)
        case (.bytes, .bytes(let bytes)), (.variantOfBytes, .variant(.bytes(let bytes))): .bytes(bytes)
        case (.objectPath, .objectPath(let path)): .string(path)
        case (.objectPaths, .objectPaths(let paths)): .objectPaths(paths)
        case (.stringPairs, .stringPairs(let pairs)): .stringPairs(pairs)
        case (
            .secret,
            .structure(let fields)
        ):
            secret(fields)
        default: nil
        }
    }

    /// What a secret read gives of a structure: its four fields when they are `(oayays)`.
    private static func secret(_ fields: [BusValue]) -> Answer? {
        guard fields.count == 4, case .objectPath(let session) = fields[0], case .bytes(let parameters) = fields[1],
            case .bytes(let value) = fields[2], case .string(let contentType) = fields[3]
        else { return nil }
        return .secret(session: session, parameters: parameters, value: value, contentType: carried(contentType))
    }

    /// A NUL would end a D-Bus string, and sd-bus refuses the noncharacters.
    static func carried(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0 == "\0" || $0.properties.isNoncharacterCodePoint ? "\u{FFFD}" : $0 }))
    }
}
