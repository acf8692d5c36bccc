import AdamantStore

/// The outbox's tables. Tokens, providers and device ids are stored only sealed (with the
/// account's local key) and found through keyed tags; addresses and transaction ids are public
/// on chain anyway. Times are Unix milliseconds, heights block heights.
enum Schema {
    static let migrations = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE intents (
                    id INTEGER PRIMARY KEY,
                    account TEXT NOT NULL,
                    service TEXT NOT NULL,
                    token_tag BLOB NOT NULL,
                    sequence INTEGER NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
                    sealed BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    active_since INTEGER NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'inflight', 'applied', 'superseded', 'waitingForFunds', 'failed')),
                    applied_height INTEGER,
                    failure TEXT,
                    retries INTEGER NOT NULL DEFAULT 0,
                    not_before INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (account, service, token_tag, sequence)
                ) STRICT;
                CREATE INDEX intents_by_state ON intents (account, service, state);

                -- One row per signed transaction, written before its bytes leave.
                CREATE TABLE attempts (
                    id TEXT PRIMARY KEY,
                    intent INTEGER NOT NULL REFERENCES intents (id),
                    action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
                    node TEXT NOT NULL,
                    timestamp INTEGER NOT NULL,
                    sent_at INTEGER NOT NULL,
                    sent_height INTEGER NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('recorded', 'accepted', 'ambiguous', 'refused', 'confirmed', 'absent')),
                    height INTEGER,
                    message TEXT
                ) STRICT;
                CREATE INDEX attempts_by_intent ON attempts (intent);

                -- Who may send for a key right now; an expired lease is free.
                CREATE TABLE leases (
                    account TEXT NOT NULL,
                    service TEXT NOT NULL,
                    token_tag BLOB NOT NULL,
                    holder TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (account, service, token_tag)
                ) STRICT, WITHOUT ROWID;

                -- The account's own signals to the service, read from the chain and kept sealed; the id
                -- is the transaction id's 64 bits.
                CREATE TABLE own_signals (
                    id INTEGER PRIMARY KEY,
                    account TEXT NOT NULL,
                    service TEXT NOT NULL,
                    token_tag BLOB NOT NULL,
                    height INTEGER NOT NULL,
                    timestamp INTEGER NOT NULL,
                    sealed BLOB NOT NULL
                ) STRICT;
                CREATE INDEX own_signals_by_account ON own_signals (account, service, height);

                -- How far the chain has been read for an account and service.
                CREATE TABLE sync_cursors (
                    account TEXT NOT NULL,
                    service TEXT NOT NULL,
                    height INTEGER NOT NULL,
                    PRIMARY KEY (account, service)
                ) STRICT, WITHOUT ROWID;
                """),
        // Intents `repair` sends although the chain seems to hold them (see Intent.mustSend).
        Migration(
            version: 2,
            sql: "ALTER TABLE intents ADD COLUMN must_send INTEGER NOT NULL DEFAULT 0 CHECK (must_send IN (0, 1))"),
        // The kept signal of another client that overrode an applied intent (Intent.overridden).
        // Its state stays 'superseded', which the state's CHECK allows, so the table need not be
        // rebuilt: a superseded row with this id set is an overridden intent.
        Migration(version: 3, sql: "ALTER TABLE intents ADD COLUMN overridden_by INTEGER REFERENCES own_signals (id)"),
        // This home's device id for adamant-ns, which keys a registration by device: sealed as a
        // token is, since whoever knows it can delete the device.
        Migration(
            version: 4,
            sql: """
                CREATE TABLE devices (
                    account TEXT NOT NULL,
                    service TEXT NOT NULL,
                    sealed BLOB NOT NULL,
                    PRIMARY KEY (account, service)
                ) STRICT, WITHOUT ROWID
                """),
    ]
}
