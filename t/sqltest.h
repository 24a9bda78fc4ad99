/*
 * SQL helpers for unit tests that write to the database directly and then
 * compare a trigger-kept summary with a recount (t/0008, t/0010).
 */
#ifndef LEDGER_T_SQLTEST_H
#define LEDGER_T_SQLTEST_H

#include <stdio.h>
#include <sqlite3.h>

#include "db.h"

/* Runs sql; a failure is a TAP diagnostic, and the checks that follow
 * show what it left undone. */
__attribute__((unused)) static void sql_exec(ledger_db *db, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
        printf("# %s: %s\n", sql, msg);
        sqlite3_free(msg);
    }
}

/* The first column of the first row, or -1 when there is none. */
__attribute__((unused)) static int sql_int(ledger_db *db, const char *sql)
{
    sqlite3_stmt *st;
    int n = -1;

    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* The rows one query gives and the other does not, either way round,
 * counted (-1 when a query fails); with is a WITH clause naming what the
 * queries read, or "".  Each EXCEPT stands in a subquery of its own:
 * SQLite reads "A EXCEPT B UNION ALL B EXCEPT A" left to right, as
 * ((A - B) + B) - A, which sees only what B has too many. */
__attribute__((unused)) static int sql_differ(ledger_db *db, const char *with, const char *a,
                                              const char *b)
{
    char *sql = sqlite3_mprintf("%s SELECT COUNT(*) FROM (SELECT * FROM (%s EXCEPT %s)"
                                " UNION ALL SELECT * FROM (%s EXCEPT %s))", with, a, b, b, a);
    int n = sql ? sql_int(db, sql) : -1;

    sqlite3_free(sql);
    return n;
}

#endif
