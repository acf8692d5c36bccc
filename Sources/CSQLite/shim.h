#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic, which Swift cannot call. */
static inline int csqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
/* What the WAL hook below needs: when to act, and the busy timeout to put back. */
struct csqlite_wal_policy {
    int truncate_at_frames;
    int busy_timeout_ms;
};

/* Run by SQLite after each commit, with the write lock released and the WAL `frames` long.
   Once it is long enough, checkpoints it and truncates it to nothing, waiting for no other
   connection (one that is busy just leaves it for a later commit). Installing it replaces
   SQLite's own automatic checkpoint; why: SQLiteConnection.enableWAL. */
static int csqlite_truncate_long_wal(void *context, sqlite3 *db, const char *name, int frames) {
    const struct csqlite_wal_policy *policy = context;
    if (frames < policy->truncate_at_frames) return SQLITE_OK;
    sqlite3_busy_timeout(db, 0);
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, (int *)0, (int *)0);
    sqlite3_busy_timeout(db, policy->busy_timeout_ms);
    return SQLITE_OK; /* the commit stands whatever the checkpoint did */
}

static inline void csqlite_truncate_wal_when_long(sqlite3 *db, const struct csqlite_wal_policy *policy) {
    sqlite3_wal_hook(db, csqlite_truncate_long_wal, (void *)policy);
}
#endif
