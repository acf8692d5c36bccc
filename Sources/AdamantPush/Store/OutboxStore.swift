import AdamantCore
import AdamantStore

/// Which account's records, for which service, opened with which local key. Every query is
/// scoped by it, so several accounts can share one home.
struct StoreScope: Sendable {
    let account: Address
    let service: Address
    /// What a registration is keyed by (`ServiceKind.key(of:)`).
    let kind: ServiceKind
    let key: LocalSealingKey
    /// What binds a sealed value to its row: the kind of row, the scope, and the row's key.
    private let intentPrefix: [UInt8]
    private let signalPrefix: [UInt8]
    let deviceContext: [UInt8]

    init(account: Address, service: NotificationService, key: LocalSealingKey) {
        self.account = account
        self.service = service.address
        self.kind = service.kind
        self.key = key
        intentPrefix = Array("intent \(account) \(service.address) ".utf8)
        signalPrefix = Array("signal \(account) \(service.address) ".utf8)
        deviceContext = Array("device \(account) \(service.address)".utf8)
    }

    /// The keyed tag of a registration's key (a token, or a device id).
    func tag(_ key: String) -> [UInt8] { self.key.tag(Array(key.utf8)) }
    /// The tag of the registration a signal is about.
    func tag(of signal: PushSignal) -> [UInt8] { tag(kind.key(of: signal)) }

    func intentContext(tag: [UInt8]) -> [UInt8] { intentPrefix + tag }
    func signalContext(id: TransactionID) -> [UInt8] {
        var context = signalPrefix
        withUnsafeBytes(of: id.number.littleEndian) { context.append(contentsOf: $0) }
        return context
    }
}

/// The outbox's durable state: intents, attempts, leases and the cache of own signals. Every
/// write is one `BEGIN IMMEDIATE` transaction, committed with `synchronous=FULL` before it
/// returns.
final class OutboxStore: Sendable {
    static let fileName = "outbox.sqlite"
    private let database: SerialDatabase
    /// The file, which every error names.
    private var path: String { database.path }

    /// Opens (creating if needed) the store in `directory`, which is made 0700 with a 0600 file.
    /// The tables that decide what is sent are checked whole first (they stay small: a row per
    /// wish and per send); the cache of own signals, which can hold 10,000, is not.
    init(directory: String) throws(OutboxError) {
        do {
            database = try SerialDatabase.openPrivately(
                Self.fileName, of: .outbox, in: directory, migrations: Schema.migrations,
                checked: ["intents", "attempts"])
        } catch { throw .store(error) }
    }

    // MARK: Intents

    /// A new intent for the signal's key, numbered after every earlier one.
    func addIntent(_ signal: PushSignal, scope: StoreScope, now: Int64, mustSend: Bool = false)
        async throws(OutboxError) -> Intent
    {
        let tag = scope.tag(of: signal)
        let sealed = SealedSignal.seal(signal, key: scope.key, context: scope.intentContext(tag: tag))
        let (account, service) = (scope.account.description, scope.service.description)
        return try await write { db in
            let last =
                try db.query(
                    "SELECT coalesce(max(sequence), 0) FROM intents WHERE account = ?1 AND service = ?2 AND token_tag = ?3",
                    [.text(account), .text(service), .blob(tag)]
                ).first?.integer(0) ?? 0
            try db.query(
                """
                INSERT INTO intents (account, service, token_tag, sequence, action, sealed, created_at, active_since, state, must_send)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, 'pending', ?8)
                """,
                [
                    .text(account), .text(service), .blob(tag), .integer(last + 1), .text(signal.action.rawValue),
                    .blob(sealed), .integer(now),
                    .integer(mustSend ? 1 : 0),
                ])
            let id = try db.query("SELECT last_insert_rowid()").first?.integer(0) ?? 0
            // The planner's first rule, applied at once so the store says it even while no node
            // can be reached: an older intent none of whose signals can still land is never sent.
            try db.query(
                """
                UPDATE intents SET state = 'superseded'
                WHERE account = ?1 AND service = ?2 AND token_tag = ?3 AND sequence < ?4 AND state NOT IN ('superseded', 'failed')
                  AND NOT EXISTS (SELECT 1 FROM attempts WHERE attempts.intent = intents.id AND outcome IN ('recorded', 'accepted', 'ambiguous'))
                """, [.text(account), .text(service), .blob(tag), .integer(last + 1)])
            return Intent(id: id, sequence: last + 1, signal: signal, createdAt: now, mustSend: mustSend)
        }
    }

    /// Every intent of the scope (settled ones too when asked), with its attempts, grouped by
    /// key and each group in sequence order.
    func intents(scope: StoreScope, includeSettled: Bool) async throws(OutboxError) -> [[Intent]] {
        let (account, service) = (scope.account.description, scope.service.description)
        // Leaves out keys with nothing but superseded intents: a failed or overridden newest
        // intent is still the token's state to show.
        let filter =
            includeSettled
            ? ""
            : """
            AND i.token_tag IN (SELECT token_tag FROM intents WHERE account = ?1 AND service = ?2
                                AND (state != 'superseded' OR overridden_by IS NOT NULL))
            """
        let (intentRows, attemptRows) = try await read { db in
            let intents = try db.query(
                """
                SELECT i.id, i.token_tag, i.sequence, i.sealed, i.created_at, i.active_since, i.state, i.applied_height, i.failure, i.retries,
                       i.not_before, i.must_send, i.overridden_by, o.height, o.timestamp, o.sealed
                FROM intents i LEFT JOIN own_signals o ON o.id = i.overridden_by
                WHERE i.account = ?1 AND i.service = ?2 \(filter) ORDER BY i.token_tag, i.sequence
                """, [.text(account), .text(service)])
            let attempts = try db.query(
                """
                SELECT a.intent, a.id, a.action, a.node, a.timestamp, a.sent_at, a.sent_height, a.outcome, a.height, a.message
                FROM attempts a JOIN intents i ON i.id = a.intent WHERE i.account = ?1 AND i.service = ?2 ORDER BY a.sent_at
                """, [.text(account), .text(service)])
            return (intents, attempts)
        }
        var attemptsByIntent: [Int64: [Attempt]] = [:]
        for row in attemptRows {
            guard let intent = row.integer(0), let attempt = Self.attempt(row) else {
                throw .store(.damaged(.outbox, path: path, detail: "an attempt row cannot be read"))
            }
            attemptsByIntent[intent, default: []].append(attempt)
        }
        var groups: [[Intent]] = []
        var lastTag: [UInt8]?
        for row in intentRows {
            guard let intent = Self.intent(row, scope: scope, attempts: attemptsByIntent) else {
                throw .store(.damaged(.outbox, path: path, detail: "an intent cannot be read with this account's key"))
            }
            if row.blob(1) != lastTag { groups.append([]) }
            lastTag = row.blob(1)
            groups[groups.count - 1].append(intent)
        }
        return groups
    }

    func update(_ step: IntentUpdate, now: Int64) async throws(OutboxError) {
        try await update([step], now: now)
    }

    /// Several updates in one durable commit.
    func update(_ steps: [IntentUpdate], now: Int64) async throws(OutboxError) {
        guard !steps.isEmpty else { return }
        try await write { db in for step in steps { try step.run(on: db, now: now) } }
    }

    // MARK: Attempts

    /// The write-ahead record: called with the signed transaction's id before it is sent.
    func recordAttempt(_ attempt: Attempt, intent: Int64) async throws(OutboxError) {
        try await write { db in
            try db.query(
                """
                INSERT INTO attempts (id, intent, action, node, timestamp, sent_at, sent_height, outcome)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'recorded')
                """,
                [
                    .text(attempt.id.description), .integer(intent), .text(attempt.action.rawValue),
                    .text(attempt.node),
                    .integer(Int64(attempt.timestamp)), .integer(attempt.sentAt), .integer(attempt.sentHeight),
                ])
            try db.query("UPDATE intents SET state = 'inflight' WHERE id = ?1", [.integer(intent)])
        }
    }

    func setOutcome(_ outcome: AttemptOutcome, attempt id: TransactionID) async throws(OutboxError) {
        let (name, height, message) = Self.columns(of: outcome)
        try await write { db in
            try db.query(
                "UPDATE attempts SET outcome = ?1, height = ?2, message = ?3 WHERE id = ?4",
                [
                    .text(name), height.map(SQLiteValue.integer) ?? .null, message.map(SQLiteValue.text) ?? .null,
                    .text(id.description),
                ])
        }
    }

    /// The node that answered for an attempt, known only once it answered.
    func setNode(_ node: String, attempt id: TransactionID) async throws(OutboxError) {
        try await write { db in
            try db.query("UPDATE attempts SET node = ?1 WHERE id = ?2", [.text(node), .text(id.description)])
        }
    }

    // MARK: Leases

    /// Takes the key's lease for `holder` until `expiresAt` if it is free, expired, held by a
    /// process of this machine that no longer exists (killed while sending), or already this
    /// holder's.
    func acquireLease(tag: [UInt8], scope: StoreScope, holder: String, now: Int64, expiresAt: Int64)
        async throws(OutboxError) -> Bool
    {
        let (account, service) = (scope.account.description, scope.service.description)
        return try await write { db in
            let current = try db.query(
                "SELECT holder FROM leases WHERE account = ?1 AND service = ?2 AND token_tag = ?3",
                [.text(account), .text(service), .blob(tag)]
            ).first?.text(0)
            if let current, LeaseHolder.isGone(current) {
                try db.query(
                    "DELETE FROM leases WHERE account = ?1 AND service = ?2 AND token_tag = ?3",
                    [.text(account), .text(service), .blob(tag)])
            }
            try db.query(
                """
                INSERT INTO leases (account, service, token_tag, holder, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (account, service, token_tag) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                WHERE leases.expires_at <= ?6 OR leases.holder = excluded.holder
                """,
                [.text(account), .text(service), .blob(tag), .text(holder), .integer(expiresAt), .integer(now)])
            return db.changes == 1
        }
    }

    func releaseLease(tag: [UInt8], scope: StoreScope, holder: String) async throws(OutboxError) {
        try await write { db in
            try db.query(
                "DELETE FROM leases WHERE account = ?1 AND service = ?2 AND token_tag = ?3 AND holder = ?4",
                [.text(scope.account.description), .text(scope.service.description), .blob(tag), .text(holder)])
        }
    }

    // MARK: Own signals

    /// The height up to which the chain has been read for the scope (0: never).
    func cursor(scope: StoreScope) async throws(OutboxError) -> Int64 {
        try await read { db in
            try db.query(
                "SELECT height FROM sync_cursors WHERE account = ?1 AND service = ?2",
                [.text(scope.account.description), .text(scope.service.description)]
            ).first?.integer(0) ?? 0
        }
    }

    /// Adds signals read from the chain (ignoring ones already kept) and moves the cursor.
    func saveOwnSignals(_ signals: [OwnSignal], cursor: Int64, scope: StoreScope) async throws(OutboxError) {
        let (account, service) = (scope.account.description, scope.service.description)
        let rows: [[SQLiteValue]] = signals.map { signal in
            [
                .integer(Int64(bitPattern: signal.id.number)), .text(account), .text(service),
                .blob(scope.tag(of: signal.signal)),
                .integer(signal.height), .integer(Int64(signal.timestamp)),
                .blob(SealedSignal.seal(signal.signal, key: scope.key, context: scope.signalContext(id: signal.id))),
            ]
        }
        try await write { db in
            for row in rows {
                try db.query(
                    """
                    INSERT INTO own_signals (id, account, service, token_tag, height, timestamp, sealed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    ON CONFLICT (id) DO UPDATE SET height = excluded.height
                    """, row)
            }
            try db.query(
                """
                INSERT INTO sync_cursors (account, service, height) VALUES (?1, ?2, ?3)
                ON CONFLICT (account, service) DO UPDATE SET height = max(height, excluded.height)
                """, [.text(account), .text(service), .integer(cursor)])
        }
    }

    /// Every kept signal of the scope, opened. A row that does not open is damage, and so is one
    /// outside any block (only signals in one are kept), whose height the fold cannot take. Read
    /// row by row in place: 10,000 of them are folded on every run.
    func ownSignals(scope: StoreScope) async throws(OutboxError) -> [OwnSignal] {
        let path = path
        return try await read { db in
            var signals: [OwnSignal] = []
            try db.forEachRow(
                "SELECT id, height, timestamp, sealed FROM own_signals WHERE account = ?1 AND service = ?2 ORDER BY height",
                [.text(scope.account.description), .text(scope.service.description)]
            ) { row in
                guard let number = row.integer(0), let height = row.integer(1), height > 0,
                    let timestamp = row.integer(2).flatMap({ Int32(exactly: $0) }), let sealed = row.blob(3)
                else { throw StoreError.damaged(.outbox, path: path, detail: "a kept signal cannot be read") }
                let id = TransactionID(number: UInt64(bitPattern: number))
                guard let signal = SealedSignal.open(sealed, key: scope.key, context: scope.signalContext(id: id))
                else {
                    throw StoreError.damaged(
                        .outbox, path: path, detail: "a kept signal cannot be read with this account's key")
                }
                signals.append(OwnSignal(id: id, height: height, timestamp: timestamp, signal: signal))
            }
            return signals
        }
    }

    // MARK: Device

    /// This home's device id for the scope's service, made with `make` and kept sealed the first
    /// time it is asked for, in the same transaction, so two processes agree on one.
    func deviceID(scope: StoreScope, make: @escaping @Sendable () -> String) async throws(OutboxError) -> String {
        let (account, service, key, context) = (
            scope.account.description, scope.service.description, scope.key, scope.deviceContext
        )
        let path = path
        return try await write { db in
            let kept = try db.query(
                "SELECT sealed FROM devices WHERE account = ?1 AND service = ?2", [.text(account), .text(service)]
            ).first?.blob(0)
            if let kept {
                guard let opened = try? key.open(kept, context: context) else {
                    throw StoreError.damaged(
                        .outbox, path: path, detail: "the device id cannot be read with this account's key")
                }
                return String(decoding: opened, as: UTF8.self)
            }
            let made = make()
            try db.query(
                "INSERT INTO devices (account, service, sealed) VALUES (?1, ?2, ?3)",
                [.text(account), .text(service), .blob(key.seal(Array(made.utf8), context: context))])
            return made
        }
    }

    // MARK: Plumbing

    @discardableResult
    private func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T)
        async throws(OutboxError) -> T
    {
        do { return try await database.write(body) } catch {
            throw .store(StoreError(error, store: .outbox, path: path))
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(OutboxError)
        -> T
    {
        do { return try await database.read(body) } catch {
            throw .store(StoreError(error, store: .outbox, path: path))
        }
    }
}
