import AdamantCore
import Foundation
import Testing

@testable import AdamantPush
@testable import AdamantStore

/// A home written by an earlier adm-push opens with every intent intact.
@Suite("Outbox store migrations")
struct OutboxMigrationTests {
    @Test func aVersionOneStoreKeepsItsIntentsAndGainsMustSend() async throws {
        let home = try TemporaryDirectory.privateHome()
        let keyPair = KeyPair(passphrase: Passphrase(unvalidated: "migration test"))
        let scope = StoreScope(
            account: keyPair.address, service: NotificationService.adamantIOS,
            key: LocalSealingKey(keyPair: keyPair, purpose: "outbox v1"))
        let signal = try PushSignal(token: String(repeating: "ab", count: 32), provider: .apns, action: .add)
        do {
            // An intent as the first release wrote it: schema 1 only.
            let old = try SQLiteConnection(path: home.file(OutboxStore.fileName), create: true)
            try old.migrate(Array(Schema.migrations.prefix(1)))
            let tag = scope.tag(signal.token)
            try old.query(
                """
                INSERT INTO intents (account, service, token_tag, sequence, action, sealed, created_at, active_since, state)
                VALUES (?1, ?2, ?3, 1, 'add', ?4, 5, 5, 'pending')
                """,
                [
                    .text(scope.account.description), .text(scope.service.description), .blob(tag),
                    .blob(SealedSignal.seal(signal, key: scope.key, context: scope.intentContext(tag: tag))),
                ])
        }
        let store = try OutboxStore(directory: home.path)
        _ = try await store.addIntent(signal, scope: scope, now: 6, mustSend: true)
        let intents = Array(try await store.intents(scope: scope, includeSettled: true).joined())
        #expect(intents.map { $0.mustSend } == [false, true])
        #expect(intents.map { $0.signal } == [signal, signal])
        #expect(intents.map { $0.sequence } == [1, 2])
        let reopened = try SQLiteConnection(path: home.file(OutboxStore.fileName), create: false)
        #expect(try reopened.userVersion == Int64(Schema.migrations.count))
    }
}
