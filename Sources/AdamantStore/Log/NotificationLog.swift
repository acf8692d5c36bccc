import AdamantCore

/// What `adm-fetch` keeps in the home directory beside the outbox: the transactions it has
/// shown (to mark a push delivered twice as a duplicate, and to know which came by push), and
/// partners' public keys (an address's key never changes). Its own file, so a fetch never
/// waits on an outbox write.
///
/// One concern a file: what was shown (`NotificationLog+Shown`), partners' keys
/// (`+PublicKeys`), muted chats (`+MutedChats`), what the desktop did not take
/// (`+Undelivered`), and the watch's cursors and pages (`+Watch`).
public final class NotificationLog: Sendable {
    /// The log's file in the home directory.
    public static let fileName = "notifications.sqlite"
    let database: SerialDatabase
    let home: String

    /// Opens (creating if needed) the log in `home`, made 0700 with a 0600 file. Its commits wait for no fsync, since `adm-fetch` records a transaction before it prints the
    /// notification: a power loss can forget the last one shown (it may be shown again), never
    /// damage the file.
    public init(home: String) throws(StoreError) {
        database = try SerialDatabase.openPrivately(
            Self.fileName, of: .notificationLog, in: home, migrations: Self.migrations, durable: false)
        self.home = home
    }

    /// Merges the log into its main file: its commits are not synced and its WAL is kept
    /// between processes, so without this a watch's cursors and what it showed live only in
    /// the WAL, and a backup or cleanup that loses the WAL loses them. A watch calls it on a
    /// schedule and as it ends.
    public func checkpoint() async { await database.checkpoint() }

    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(StoreError) -> T {
        do { return try await database.write(body) } catch {
            throw StoreError(error, store: .notificationLog, path: database.path)
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws(StoreError) -> T {
        do { return try await database.read(body) } catch {
            throw StoreError(error, store: .notificationLog, path: database.path)
        }
    }

    static let migrations = [
        Migration(
            version: 1,
            sql: """
                -- Transaction ids as their 64 bits; times Unix milliseconds.
                CREATE TABLE shown (
                    account TEXT NOT NULL,
                    id INTEGER NOT NULL,
                    shown_at INTEGER NOT NULL,
                    pushed INTEGER NOT NULL CHECK (pushed IN (0, 1)),
                    height INTEGER,
                    PRIMARY KEY (account, id)
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX shown_by_time ON shown (account, pushed, shown_at);

                CREATE TABLE public_keys (
                    address TEXT PRIMARY KEY,
                    public_key BLOB NOT NULL
                ) STRICT, WITHOUT ROWID;

                -- Where `watch` resumes: blocks at or above `height`, after the first `skip`
                -- transactions a node lists there (oldest first).
                CREATE TABLE watch_cursors (
                    account TEXT NOT NULL,
                    stream TEXT NOT NULL,
                    height INTEGER NOT NULL CHECK (height >= 0),
                    skip INTEGER NOT NULL CHECK (skip >= 0),
                    PRIMARY KEY (account, stream)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(
            version: 2,
            sql: """
                -- What `watch` handed over, by block. Its pages come in chain order, so each is
                -- added at the end of this table; in `shown`, by id, a page's hundred went to a
                -- hundred random places, and each commit wrote a hundred database pages.
                CREATE TABLE watched (
                    account TEXT NOT NULL,
                    height INTEGER NOT NULL,
                    id INTEGER NOT NULL,
                    PRIMARY KEY (account, height, id)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(
            version: 3,
            sql: """
                -- Chats a desktop notification's "Mute 1 hour" muted, until a Unix millisecond.
                CREATE TABLE muted_chats (
                    account TEXT NOT NULL,
                    partner TEXT NOT NULL,
                    until INTEGER NOT NULL,
                    PRIMARY KEY (account, partner)
                ) STRICT, WITHOUT ROWID;

                -- Notifications shown everywhere but on the desktop, whose notification service
                -- was away: the next watch shows them there.
                CREATE TABLE undelivered (
                    account TEXT NOT NULL,
                    id INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (account, id)
                ) STRICT, WITHOUT ROWID;
                """),
        Migration(version: 4, sql: WatchedPages.schema, then: WatchedPages.migrateRows),
        Migration(version: 5, sql: HandingOver.schema),
        Migration(version: 6, sql: HandingOver.serialColumn),
    ]
}
