import AdamantBus

/// bus's seeds: what the notification service sends, read as the watch reads it, and the
/// same with an argument of another type, missing, or more of them.
extension BusFuzz {
    static func seeds() -> [Seed] {
        let signal = UInt8(0)
        let actionInvoked = signal
        let closed = signal | 2
        let notify = UInt8(1)
        let information = notify | 2
        let capabilities = notify | 4
        let hints: [String: BusValue] = [
            "urgency": .byte(1), "category": .string("im.received"), "desktop-entry": .string("adm-fetch"),
            "suppress-sound": .boolean(true),
            "image-data": .variants(["width": .int32(1), "nested": .variants(["deeper": .strings(["x"])])]),
        ]
        let seeds: [(String, UInt8, [BusValue], String)] = [
            ("action invoked", actionInvoked, [.uint32(7), .string("default")], "us"),
            ("action invoked open", actionInvoked, [.uint32(4_294_967_295), .string("adm-open")], "us"),
            ("action invoked key first", actionInvoked, [.string("default"), .uint32(7)], "us"),
            ("action invoked no key", actionInvoked, [.uint32(7)], "us"),
            ("action invoked key as array", actionInvoked, [.uint32(7), .strings(["default"])], "us"),
            ("notification closed", closed, [.uint32(7), .uint32(2)], "uu"),
            ("notification closed reason signed", closed, [.uint32(7), .int32(-1)], "uu"),
            ("notification closed reason a byte", closed, [.uint32(7), .byte(2)], "uu"),
            ("notification closed reason a boolean", closed, [.uint32(7), .boolean(true)], "uu"),
            (
                "notification closed and more", closed, [.uint32(7), .uint32(2), .string("extra"), .variants(hints)],
                "uusa"
            ),
            (
                "server information", information,
                [.string("dunst"), .string("dunst-project"), .string("1.9.0"), .string("1.2")], "ssss"
            ),
            (
                "server information unicode", information,
                [.string("Plasma ✓"), .string("KDE"), .string("6.0 – β"), .string("")], "ssss"
            ),
            (
                "server information three", information,
                [.string("dunst"), .string("dunst-project"), .string("1.9.0")], "ssss"
            ),
            (
                "capabilities", capabilities, [.strings(["actions", "body", "body-markup", "persistence", "sound"])],
                "a"
            ),
            ("capabilities none", capabilities, [.strings([])], "a"),
            ("capabilities as hints", capabilities, [.variants(hints)], "a"),
            ("capabilities as a string", capabilities, [.string("actions")], "a"),
            ("notify answer", notify, [.uint32(42)], "u"),
            ("notify answer signed", notify, [.int32(42)], "u"),
            ("notify answer empty", notify, [], "u"),
            (
                "notify arguments", notify,
                [
                    .string("adm-fetch"), .uint32(0), .string("adamant"), .string("U1234"), .string("hello &amp; <b>"),
                    .strings(["default", "Open", "adm-mute", "Mute 1 hour"]), .variants(hints), .int32(-1),
                ], "susssaau"
            ),
            // What the Secret Service answers, read as the keyring reads it.
            (
                "open session", notify, [.variant(.bytes(Array(repeating: 0x5a, count: 128))), .objectPath("/s/1")],
                "vo"
            ),
            ("open session plain", notify, [.variant(.string("")), .objectPath("/s/2")], "vo"),
            ("search items", notify, [.objectPaths(["/c/login/1", "/c/login/2"]), .objectPaths([])], "OO"),
            (
                "secret", notify,
                [.structure([.objectPath("/s/1"), .bytes([1, 2]), .bytes([3]), .string("text/plain")])],
                "r"
            ),
            ("secret short", notify, [.structure([.objectPath("/s/1"), .bytes([1, 2])])], "r"),
            ("attributes", notify, [.stringPairs(["address": "U1", "xdg:schema": "im.adamant"])], "p"),
            ("prompt completed", signal, [.boolean(true), .variant(.objectPaths(["/c/login/1"]))], "bv"),
        ]
        return seeds.map { Seed(name: $0.0, bytes: BusInput.encode($0.1, $0.2, reads: $0.3)) }
    }
}
