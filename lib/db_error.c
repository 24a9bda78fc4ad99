/*
 * A statement's failures as the client hears them, and the values going
 * into and out of statements that can fail on memory.  The rule: every
 * failure of SQLite reaches the client as the status that names its cause
 * (a conflict, the database busy or full, a pattern too costly), never as
 * the schema's names; and a statement never runs on the NULL a failed
 * bind leaves (db_bind_text marks it, and the transaction fails).
 */
#include <string.h>

#include "db.h"

int db_error(ledger_db *db, ledger_error *err, const char *what)
{
    int rc = sqlite3_extended_errcode(db->sql);

    /* After a failed bind a statement runs on NULL: a NOT NULL or other
     * constraint it then breaks is not the client's conflict. */
    if (db->in_txn && db->bind_failed)
        return ledger_txn_failed(db, err);

    /* A sum past 2^63 cents: a summary cell that would stop being exact
     * (spend_monthly's exact triggers), or SQL's SUM() where reports do
     * not use ledger_sum.  Rows of the largest amounts the API takes
     * (10^15 cents each), some thousands of them. */
    if (((rc & 0xff) == SQLITE_ERROR || rc == SQLITE_CONSTRAINT_TRIGGER)
        && strstr(sqlite3_errmsg(db->sql), "integer overflow"))
        return ledger_error_set(err, 400, "invalid_field", NULL,
                                "%s: the amounts add up to more than the ledger can hold", what);
    /* A constraint the checks before the write did not foresee: the
     * client hears that its change conflicts, not the schema's names. */
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: the change conflicts with the data already there", what);
    if ((rc & 0xff) == SQLITE_ERROR && strstr(sqlite3_errmsg(db->sql), REGEXP_TOO_COMPLEX))
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: a pattern needs too much backtracking on one of the rows;"
                                " make it simpler", what);
    if ((rc & 0xff) == SQLITE_ERROR && strstr(sqlite3_errmsg(db->sql), REGEXP_OVER_BUDGET))
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: matching patterns took longer than one request may (half a"
                                " second a rule, two in all); make them simpler or apply fewer"
                                " rules at once", what);
    if ((rc & 0xff) == SQLITE_BUSY)
        return ledger_error_set(err, 503, "busy", NULL,
                                "the database is busy; try again");
    /* A known condition, not a bug: the client hears that nothing was
     * written and that the same request works once there is room. */
    if ((rc & 0xff) == SQLITE_FULL)
        return ledger_error_set(err, 507, "insufficient_storage", NULL,
                                "the server is out of disk space; nothing was written,"
                                " try again later");
    return ledger_error_set(err, 500, "internal", NULL, "%s: %s", what,
                            sqlite3_errmsg(db->sql));
}

int db_bind_text(ledger_db *db, sqlite3_stmt *st, int idx, const char *text)
{
    int rc = text ? sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT)
                  : sqlite3_bind_null(st, idx);

    /* Not SQLITE_RANGE: a parameter the statement does not have is bound
     * to nothing, and some callers bind what only some statements use. */
    if (rc == SQLITE_NOMEM || rc == SQLITE_TOOBIG)
        db->bind_failed = 1;
    return rc;
}

char *db_column_dup(sqlite3_stmt *st, int col)
{
    const char *text = (const char *)sqlite3_column_text(st, col);

    return text ? strdup(text) : NULL;
}
