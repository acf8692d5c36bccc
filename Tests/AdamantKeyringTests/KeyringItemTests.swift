import AdamantBus
import Foundation
import KeyringTestSupport
import Testing

@testable import AdamantKeyring

/// Items in a real gnome-keyring: found by their attributes, deleted one by one, and what a
/// locked collection does to them.
@Suite(.serialized) struct KeyringItemTests {
    @Test func aSearchFindsExactlyTheItemWithTheAttributes() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            let first = try await client.store(
                secret: Array("one".utf8), label: "ADAMANT U1",
                attributes: ["application": "adm-push", "address": "U1"])
            try await client.store(
                secret: Array("two".utf8), label: "ADAMANT U2",
                attributes: ["application": "adm-push", "address": "U2"])
            let found = try await client.search(attributes: ["address": "U1"])
            #expect(found.map(\.path) == [first.path] && found.allSatisfy { !$0.isLocked })
            // The service may add attributes of its own (gnome-keyring an `xdg:schema` once it
            // has written the item out), never drop or change ours.
            #expect(
                found.first.map { item in first.attributes.allSatisfy { item.attributes[$0.key] == $0.value } } == true)
            #expect(try await client.search(attributes: ["application": "adm-push"]).count == 2)
            #expect(try await client.search(attributes: ["address": "U3"]).isEmpty)
        }
    }

    @Test func storingTheSameAttributesAgainReplacesTheItem() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            try await client.store(secret: Array("old".utf8), label: "L", attributes: ["address": "U1"])
            try await client.store(secret: Array("new".utf8), label: "L", attributes: ["address": "U1"])
            let found = try await client.search(attributes: ["address": "U1"])
            #expect(found.count == 1)
            #expect(try await client.secret(of: try #require(found.first)) == Array("new".utf8))
        }
    }

    @Test func deletingOneItemLeavesTheOther() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            let first = try await client.store(secret: Array("one".utf8), label: "L1", attributes: ["address": "U1"])
            let second = try await client.store(secret: Array("two".utf8), label: "L2", attributes: ["address": "U2"])
            try await client.delete(first)
            #expect(try await client.search(attributes: ["address": "U1"]).isEmpty)
            #expect(try await client.search(attributes: ["address": "U2"]).map(\.path) == [second.path])
            #expect(try await client.secret(of: second) == Array("two".utf8))
            let lookup = try await keyring.secretTool(["lookup", "address", "U1"])
            #expect(lookup.status != 0 && lookup.stdout.isEmpty)
            for gone in [{ try await client.delete(first) }, { _ = try await client.secret(of: first) }] {
                do {
                    try await gone()
                    Issue.record("a deleted item is still there")
                } catch {
                    guard case .noSuchItem = error as? KeyringError else {
                        Issue.record("not noSuchItem: \(error)")
                        continue
                    }
                }
            }
        }
    }

    /// Locked, with no display and so no prompter: each call that needs the secret says
    /// `locked` within seconds (the prompt's own bound is far longer), and the item is still
    /// found, as locked.
    @Test func aLockedCollectionIsLockedWithinSeconds() async throws {
        try await TestKeyring.with { keyring in
            let client = try await Keyring.connect(address: keyring.busAddress)
            let item = try await client.store(secret: Array("s".utf8), label: "L", attributes: ["address": "U1"])
            try await client.lockDefaultCollection()
            let found = try await client.search(attributes: ["address": "U1"])
            #expect(found.map(\.isLocked) == [true] && found.first?.path == item.path)
            try await Self.expectLockedQuickly { try await client.secret(of: item) }
            try await Self.expectLockedQuickly { try await client.unlock(found) }
            try await Self.expectLockedQuickly { try await client.unlockDefaultCollection() }
            try await Self.expectLockedQuickly {
                try await client.store(secret: Array("t".utf8), label: "L", attributes: ["address": "U2"])
            }
            try await keyring.unlockWithPassword()
            #expect(try await client.secret(of: item) == Array("s".utf8), "unlocked again by its password")
        }
    }

    private static func expectLockedQuickly<Value>(
        _ body: () async throws -> Value, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let start = ContinuousClock.now
        do {
            _ = try await body()
            Issue.record("a locked keyring gave what was asked", sourceLocation: sourceLocation)
        } catch {
            guard case .locked = error as? KeyringError else {
                Issue.record("not locked: \(error)", sourceLocation: sourceLocation)
                return
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(5), "locked after \(elapsed)", sourceLocation: sourceLocation)
    }
}
