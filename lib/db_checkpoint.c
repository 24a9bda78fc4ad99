/*
 * Checkpoints deferred to the idle time between requests.  SQLite copies
 * the write-ahead log into the database inside the commit that grows the
 * log past its threshold, and that request's client waits for the copy; a
 * server that has answered first makes it in ledger_idle instead.  The
 * rule: a checkpoint never runs inside a request, but in a job's pauses
 * (job.c), where it holds no lock and its client waits for the job anyway.
 */
#include "db.h"

/* SQLite's own threshold for its automatic checkpoint. */
#define CHECKPOINT_FRAMES 1000

/* The WAL hook in place of SQLite's automatic checkpoint: notes the log's
 * size for ledger_idle. */
static int note_wal(void *arg, sqlite3 *sql, const char *name, int frames)
{
    ledger_db *db = arg;

    (void)sql;
    (void)name;
    db->wal_frames = frames;
    return SQLITE_OK;
}

void ledger_defer_checkpoints(ledger_db *db)
{
    sqlite3_wal_hook(db->sql, note_wal, db);
}

/* PASSIVE, as the automatic checkpoint is: it waits for no one, copies
 * what no reader still needs, and a later call copies the rest.  A
 * failure (the database busy) leaves the log to the next call. */
void ledger_idle(ledger_db *db)
{
    if (db->wal_frames < CHECKPOINT_FRAMES)
        return;
    if (sqlite3_wal_checkpoint_v2(db->sql, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) == SQLITE_OK)
        db->wal_frames = 0;
}
