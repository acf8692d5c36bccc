import Testing

@testable import AdamantBus

/// `BusReader` on messages sealed here as a peer's would arrive (`PeerMessage`): what the watch
/// reads of the notification service's signals and answers, and what it throws on.
@Suite struct BusReaderTests {
    @Test func aSignalReadsAsTheWatchReadsIt() throws {
        let message = try PeerMessage(.signal(member: "ActionInvoked"), [.uint32(7), .string("default")])
        let (id, key) = try message.read { reader throws(BusError) in (try reader.uint32(), try reader.string()) }
        #expect(id == 7 && key == "default")
        let freed = message.free()
        #expect(freed, "the message and its bus are freed")
    }

    @Test func anAnswerReadsAsTheWatchReadsIt() throws {
        let capabilities = ["actions", "body", "body-markup"]
        let message = try PeerMessage(.reply(to: "GetCapabilities"), [.strings(capabilities), .strings([])])
        let read = try message.read { reader throws(BusError) in (try reader.strings(), try reader.strings()) }
        #expect(read.0 == capabilities && read.1 == [])
        let freed = message.free()
        #expect(freed)
    }

    /// A server's answer of another type, or of fewer arguments, is an error the caller sees,
    /// whichever read meets it.
    @Test func anotherTypeOrNothingMoreThrows() throws {
        let message = try PeerMessage(
            .signal(member: "NotificationClosed"), [.int32(7), .variants(["k": .uint32(1)]), .string("s")])
        let reads = message.read { reader in
            [(try? reader.uint32()) == nil, (try? reader.strings()) == nil, (try? reader.string()) == nil]
        }
        #expect(reads == [true, true, true])
        let past = try PeerMessage(.reply(to: "Notify"), [.uint32(42)])
        let answers = past.read { reader in [try? reader.uint32(), try? reader.uint32()] }
        #expect(answers == [42, nil])
        let freed = (message.free(), past.free())
        #expect(freed == (true, true))
    }

    /// Fuzz/Crashes/bus/nul-in-a-string, found by the bus fuzz target, and
    /// noncharacter-in-a-string: a NUL ended the string there, hiding what followed, and sd-bus
    /// refuses a noncharacter (U+FFFE, U+FFFF, U+FDD0 to U+FDEF, and the last two of every
    /// plane), so no call holding one could be made: a chat message holding one held up every
    /// bubble after it. Each is U+FFFD instead, wherever a string goes.
    @Test func whatADBusStringCannotCarryIsAReplacementCharacter() throws {
        let texts = [
            "a\0b", "x\u{FFFE}y", "\u{FFFF}", scalars(0xFDD0, 0xFDEF), "\u{1FFFE}\u{10FFFF}",
            scalars(0xFDCF, 0xFDF0, 0xFFFD, 0xE9),
        ]
        let carried = [
            "a\u{FFFD}b", "x\u{FFFD}y", "\u{FFFD}", "\u{FFFD}\u{FFFD}", "\u{FFFD}\u{FFFD}",
            scalars(0xFDCF, 0xFDF0, 0xFFFD, 0xE9),
        ]
        let message = try PeerMessage(
            .reply(to: "GetServerInformation"),
            texts.map(BusValue.string) + [.strings(texts), .variants(["\u{FFFE}": .strings(texts)])])
        let read = try message.read { reader throws(BusError) in
            var strings: [String] = []
            for _ in texts { strings.append(try reader.string()) }
            return (strings, try reader.strings())
        }
        #expect(read.0 == carried && read.1 == carried)
        let freed = message.free()
        #expect(freed)
    }

    /// Swift's literals refuse U+FDD0 to U+FDEF; a string holds them.
    private func scalars(_ values: UInt32...) -> String {
        String(String.UnicodeScalarView(values.compactMap(Unicode.Scalar.init)))
    }
}
