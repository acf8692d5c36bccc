import AdamantBus
import AdamantCore
import Foundation
import KeyringTestSupport
import Testing

@testable import AdamantKeyring

/// The encrypted session with a real gnome-keyring, both ways: what is stored here
/// `secret-tool` reads, and what `secret-tool` stored is read here.
@Suite(.serialized) struct KeyringSessionTests {
    static let secret = Array("correct horse battery staple é 🙂".utf8)

    @Test func gnomeKeyringIsSpokenToInTheEncryptedSession() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            #expect(client.transport == .encrypted)
            #expect(client.session.transport.rawValue == "dh-ietf1024-sha256-aes128-cbc-pkcs7")
        }
    }

    @Test func whatIsStoredSecretToolReads() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            #expect(client.transport == .encrypted)
            try await client.store(secret: Self.secret, label: "ADAMANT U1", attributes: ["adm-test": "U1"])
            let lookup = try await keyring.secretTool(["lookup", "adm-test", "U1"])
            #expect(lookup.status == 0)
            #expect(Array(lookup.stdout.utf8) == Self.secret)
        }
    }

    @Test func whatSecretToolStoredIsRead() async throws {
        try await TestKeyring.with { keyring in
            let stored = try await keyring.secretTool(
                ["store", "--label=L", "adm-test", "U2"], input: String(decoding: Self.secret, as: UTF8.self))
            #expect(stored.status == 0)
            let client = try await Keyring.connect(address: keyring.busAddress)
            let items = try await client.search(attributes: ["adm-test": "U2"])
            #expect(items.count == 1)
            let secret = try await client.secret(of: try #require(items.first))
            #expect(secret == Self.secret)
        }
    }

    /// gnome-keyring pads the shared secret to the prime's 128 bytes before HKDF: a secret
    /// whose first byte is zero (about one session in 256, so sessions are opened until one
    /// has it) makes another key when the zero is dropped, and only the padded one is read
    /// back by the other side, either way.
    @Test func aSharedSecretWithALeadingZeroStillAgrees() async throws {
        try await TestKeyring.with { keyring in
            let bus = try await SessionBus.connect(address: keyring.busAddress)
            var session = try await SecretSession.open(on: bus)
            for _ in 0..<4000 where !session.sharedSecretHasLeadingZero {
                try await Self.close(session, on: bus)
                session = try await SecretSession.open(on: bus)
            }
            try #require(
                session.sharedSecretHasLeadingZero, "no session of 4000 had a shared secret starting with zero")
            try await Self.expectBothWays(Keyring(bus: bus, session: session), keyring, storing: "U3", reading: "U4")
        }
    }

    /// The plain session, which a service that refuses the encrypted one gets: gnome-keyring
    /// offers both, so it is opened here by name.
    @Test func thePlainSessionCarriesSecretsBothWays() async throws {
        try await TestKeyring.with { keyring in
            let bus = try await SessionBus.connect(address: keyring.busAddress)
            let client = Keyring(bus: bus, session: try await SecretSession.openPlain(on: bus))
            #expect(client.transport == .plain)
            try await Self.expectBothWays(client, keyring, storing: "U5", reading: "U6")
        }
    }

    /// What `client` stores under `storing`, secret-tool reads; what secret-tool stores under
    /// `reading`, `client` reads.
    static func expectBothWays(
        _ client: Keyring, _ keyring: TestKeyring, storing: String, reading: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await client.store(secret: secret, label: "L", attributes: ["adm-test": storing])
        let lookup = try await keyring.secretTool(["lookup", "adm-test", storing])
        #expect(lookup.status == 0 && Array(lookup.stdout.utf8) == secret, sourceLocation: sourceLocation)
        let stored = try await keyring.secretTool(["store", "--label=L", "adm-test", reading], input: "other")
        #expect(stored.status == 0, sourceLocation: sourceLocation)
        let item = try #require(
            try await client.search(attributes: ["adm-test": reading]).first, sourceLocation: sourceLocation)
        #expect(try await client.secret(of: item) == Array("other".utf8), sourceLocation: sourceLocation)
    }

    static func close(_ session: SecretSession, on bus: SessionBus) async throws {
        try await bus.secretCall(session.path, "org.freedesktop.Secret.Session", "Close", []) { _ throws(BusError) in ()
        }
    }
}
