/*
 * Transactions: every request runs in one, begun by ledger_begin and
 * ended by ledger_commit or ledger_rollback.  The rule: a request writes
 * all of its change or nothing of it.  A failure inside the transaction
 * (a text bind that failed, SQLite rolling back on its own) fails the
 * commit, and no transaction is ever left open.
 */
#include "db.h"
#include "suggest.h"
#include "txn.h"

/* Each request begins and ends a transaction: prepared once, like every
 * other statement (parsing BEGIN and COMMIT again each time was a few
 * microseconds a request for nothing). */
int db_step_once(ledger_db *db, const char *sql, const char *what, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, what);
}

int ledger_txn_failed(ledger_db *db, ledger_error *err)
{
    if (!db->in_txn)
        return LEDGER_OK;
    if (sqlite3_get_autocommit(db->sql))
        return ledger_error_set(err, 500, "internal", NULL,
                                "the transaction was rolled back by a failure in it;"
                                " nothing of it was written");
    /* A statement that ran with a failed bind ran on NULL: its answer and
     * its writes are not the request's (db_bind_text). */
    if (db->bind_failed)
        return ledger_error_set(err, 500, "internal", NULL,
                                "out of memory binding a statement's text");
    return LEDGER_OK;
}

int ledger_begin(ledger_db *db, int write, ledger_error *err)
{
    if (db_step_once(db, write ? "BEGIN IMMEDIATE" : "BEGIN", "begin", err))
        return LEDGER_ERR;
    db->in_txn = 1;
    db->txn_write = write;
    db->changes_at_begin = sqlite3_total_changes64(db->sql);
    db->bind_failed = 0;
    /* A job's transactions are one request's: they share its matching
     * budget (ledger_regexp), and the merchant renames it read, which
     * another connection may have changed since, but for a job's next
     * transaction: its owner's other requests are refused meanwhile, and
     * the job's own writes that rename forget the names as they do
     * (merchant_name.c). */
    if (db->job_id == 0) {
        db_regexp_begin(db);
        merchant_renames_forget(db);
    }
    return LEDGER_OK;
}

/* A write transaction that changed a row moves the data version
 * (schema/0031_data_version.sql), to a random value: a backup put back
 * brings its old value with its old data, so no value names two contents.
 * A read transaction never does: what a read writes (the search index and
 * the suggestion counts it brings up to date) is derived from rows whose
 * own write moved it, and a read that moved it would make every tag
 * stale at once. */
static int data_version_move(ledger_db *db, ledger_error *err)
{
    if (!db->txn_write || sqlite3_total_changes64(db->sql) == db->changes_at_begin)
        return LEDGER_OK;
    return db_step_once(db, "UPDATE data_version SET v = random()", "data version", err);
}

int ledger_commit(ledger_db *db, ledger_error *err)
{
    if (ledger_txn_failed(db, err)) {
        ledger_rollback(db);
        return LEDGER_ERR;
    }
    /* The rows written are indexed for search as one statement
     * (txn_search.c), once there are enough of them (see
     * SEARCH_FLUSH_ROWS); a failure is the commit's. */
    if (suggest_flush(db, err) || search_flush(db, SEARCH_FLUSH_ROWS, err)
        || data_version_move(db, err) || db_step_once(db, "COMMIT", "commit", err)) {
        ledger_rollback(db);
        return LEDGER_ERR;
    }
    db->in_txn = 0;
    return LEDGER_OK;
}

void ledger_rollback(ledger_db *db)
{
    ledger_error err;

    db->in_txn = 0;
    db->bind_failed = 0;
    /* Without the prepared statement (memory ran out), parsed as it is:
     * a transaction is never left open. */
    if (!sqlite3_get_autocommit(db->sql) && db_step_once(db, "ROLLBACK", "rollback", &err)
        && !sqlite3_get_autocommit(db->sql))
        sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}
