/*
 * Waiting for the locks other processes hold: the busy handler every
 * connection has, and the switch to WAL, which SQLite makes without one.
 * The rule: a request waits for a lock at most BUSY_TIMEOUT_MS in all,
 * and past that fails as busy (503, db_error) rather than hanging.
 */
#include <time.h>

#include "db.h"

/* Long enough for a queue of writers from a few processes; short enough that
 * a stuck writer shows up as an error rather than a hung request. */
#define BUSY_TIMEOUT_MS 5000

/* Switches the database to WAL.  That takes an exclusive lock, and SQLite
 * does not call the busy handler for it: a process starting while another
 * reads the file in rollback mode (the first of several ledger-fcgi
 * processes still making a new file WAL) got "database is locked" at once
 * and exited.  So retry for as long as the busy timeout allows.  Reading
 * the schema first may itself wait in the busy handler (a writer holding
 * PENDING): that wait counts toward the same timeout, or each try could
 * wait the whole of it again. */
int db_set_wal(ledger_db *db, ledger_error *err)
{
    long waited_us = 0;

    for (;;) {
        int rc;

        db->busy_waited_us = 0;
        rc = sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return LEDGER_OK;
        waited_us += db->busy_waited_us;
        if ((rc & 0xff) != SQLITE_BUSY || waited_us >= (long)BUSY_TIMEOUT_MS * 1000)
            return ledger_error_set(err, 500, "internal", NULL, "PRAGMA journal_mode = WAL: %s",
                                    sqlite3_errmsg(db->sql));
        sqlite3_sleep(10);
        waited_us += 10000;
    }
}

/* The wait for a lock another process holds.  Another process's request
 * holds the write lock for a millisecond or two, and SQLite's own handler
 * (sqlite3_busy_timeout) sleeps up to 100 ms between tries, so a writer
 * waits far longer than the lock is held.  Here the sleeps start at 0.5 ms
 * and double to at most 4 ms, for BUSY_TIMEOUT_MS in all; count is
 * SQLite's number of earlier calls for this lock.  Shorter sleeps trade
 * throughput for latency: a process that waits less hands the lock back
 * and forth more, and each hand-over costs the next writer its view of the
 * other's pages.  contrib/bench/http.pl's create family measures both. */
int db_busy_wait(void *arg, int count)
{
    ledger_db *db = arg;
    long us;
    struct timespec ts;

    if (count == 0)
        db->busy_waited_us = 0;
    if (db->busy_waited_us >= (long)BUSY_TIMEOUT_MS * 1000)
        return 0;
    us = count < 3 ? 500L << count : 4000L;
    ts.tv_sec = 0;
    ts.tv_nsec = us * 1000;
    nanosleep(&ts, NULL);
    db->busy_waited_us += us;
    return 1;
}
