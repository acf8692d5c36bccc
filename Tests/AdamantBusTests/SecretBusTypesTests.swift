import Testing

@testable import AdamantBus

/// The Secret Service's D-Bus types, written as a call writes them and read back as from a
/// peer (`PeerMessage`), and a wrong type an error, never a trap.
@Suite struct SecretBusTypesTests {
    @Test func eachTypeReadsBackAsWritten() throws {
        let secret: BusValue = .structure([
            .objectPath("/s/1"), .bytes([1, 2]), .bytes([0, 255, 7]), .string("text/plain"),
        ])
        let message = try PeerMessage(
            .reply(to: "GetSecrets"),
            [
                .bytes([]), .objectPath("/org/freedesktop/secrets"), .objectPaths(["/a", "/b/c"]),
                .stringPairs(["address": "U1", "application": "adm-push"]), .variant(.bytes([9, 8])),
                .variant(.stringPairs(["k": "v"])), secret, .boolean(true),
            ])
        let read = try message.read { reader throws(BusError) in
            let empty = try reader.bytes()
            let path = try reader.objectPath()
            let paths = try reader.objectPaths()
            let pairs = try reader.stringPairs()
            let key = try reader.variant("ay", "a key") { reader throws(BusError) in try reader.bytes() }
            let attributes = try reader.variant("a{ss}", "attributes") { reader throws(BusError) in
                try reader.stringPairs()
            }
            let fields = try reader.structure("oayays", "a secret") { reader throws(BusError) in
                (try reader.objectPath(), try reader.bytes(), try reader.bytes(), try reader.string())
            }
            return (empty, path, paths, pairs, key, attributes, fields, try reader.boolean())
        }
        #expect(read.0 == [] && read.1 == "/org/freedesktop/secrets" && read.2 == ["/a", "/b/c"])
        #expect(read.3 == ["address": "U1", "application": "adm-push"] && read.4 == [9, 8] && read.5 == ["k": "v"])
        #expect(read.6 == ("/s/1", [1, 2], [0, 255, 7], "text/plain") && read.7)
        let freed = message.free()
        #expect(freed)
    }

    @Test func aWrongTypeIsAnError() throws {
        let message = try PeerMessage(.reply(to: "OpenSession"), [.variant(.string(""))])
        let reads = message.read { reader in
            [(try? reader.variant("ay", "a key") { reader throws(BusError) in try reader.bytes() }) == nil]
        }
        #expect(reads == [true])
        let past = try PeerMessage(.reply(to: "SearchItems"), [.strings(["x"]), .boolean(false)])
        let answers = past.read { reader in
            [(try? reader.objectPaths()) == nil, (try? reader.stringPairs()) == nil, (try? reader.bytes()) == nil]
        }
        #expect(answers == [true, true, true])
        let freed = (message.free(), past.free())
        #expect(freed == (true, true))
    }
}
