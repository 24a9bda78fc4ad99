/*
 * The record of rule runs: each run as the caller reads it, the list of
 * them, and the revert that puts the rows a run changed back as they were
 * before it (snapshot.c's run_restore), which discards later edits to
 * them, as the specification says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_out.h"
#include "txn.h"
#include "rule.h"

#define RUN_COLUMNS \
    "SELECT id, rule_id, rule_name, source, matches, transactions, created_at, reverted_at," \
    " owner_id, suggestions FROM rule_runs"
static const char SQL_RUN_ONE[] = RUN_COLUMNS " WHERE id = ?";
static const char SQL_RUN_LIST[] = RUN_COLUMNS " WHERE owner_id = ? ORDER BY id DESC";
/* What a revert of run ?1 would undo that came after it (reconciliations.after_run):
 * a later run still applied that changed one of its rows, or a
 * reconciliation since into or of one of them.  Putting the run's
 * snapshot back over either would lose or bring back the other's changes
 * when that one is undone in turn; the later one goes first. */
static const char SQL_RUN_LATER_RUN[] =
    "SELECT b.run_id, b.transaction_id FROM rule_run_rows a"
    "  JOIN rule_run_rows b ON b.transaction_id = a.transaction_id AND b.run_id > a.run_id"
    "  JOIN rule_runs r ON r.id = b.run_id AND r.reverted_at IS NULL"
    " WHERE a.run_id = ?1 AND a.changed AND b.changed"
    " ORDER BY b.run_id DESC LIMIT 1";
static const char SQL_RUN_LATER_RECONCILE[] =
    "SELECT c.manual_id, c.statement_txn_id FROM rule_run_rows a, reconciliations c"
    " WHERE a.run_id = ?1 AND a.changed AND c.manual_id = a.transaction_id AND c.after_run >= ?1"
    " UNION ALL "
    "SELECT c.manual_id, c.statement_txn_id FROM rule_run_rows a, reconciliations c"
    " WHERE a.run_id = ?1 AND a.changed AND c.statement_txn_id = a.transaction_id"
    "   AND c.after_run >= ?1"
    " LIMIT 1";
static const char SQL_RUN_REVERTED[] =
    "UPDATE rule_runs SET reverted_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?";

static cJSON *run_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    /* The apply answers name it run_id (API.md 6); both are the same. */
    cJSON_AddNumberToObject(o, "run_id", (double)sqlite3_column_int64(st, 0));
    json_id_col(o, "rule_id", st, 1);
    json_text_col(o, "rule_name", st, 2);
    cJSON_AddBoolToObject(o, "rule_unknown", sqlite3_column_type(st, 2) == SQLITE_NULL);
    json_text_col(o, "source", st, 3);
    cJSON_AddNumberToObject(o, "matches", (double)sqlite3_column_int64(st, 4));
    cJSON_AddNumberToObject(o, "transactions", (double)sqlite3_column_int64(st, 5));
    json_text_col(o, "created_at", st, 6);
    json_text_col(o, "reverted_at", st, 7);
    /* A run that applied category suggestions (suggest_apply.c). */
    cJSON_AddBoolToObject(o, "suggestions", sqlite3_column_int(st, 9));
    return o;
}

int rule_run_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, int *reverted,
                   ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RUN_ONE, err);
    int rc, mine = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = NULL;
    if (rc == SQLITE_ROW && (mine = sqlite3_column_int64(st, 8) == me)) {
        *out = run_json(st);
        if (reverted)
            *reverted = sqlite3_column_type(st, 7) != SQLITE_NULL;
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such run");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "run");
    return mine ? LEDGER_OK : ledger_error_set(err, 403, "forbidden", NULL, "the run is another user's");
}

int ledger_rule_runs(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RUN_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, run_json, out, err);
}

/* 409 when something later than run_id still in force changed its rows
 * (SQL_RUN_LATER_RUN, SQL_RUN_LATER_RECONCILE), naming what to undo
 * first. */
static int later_change(ledger_db *db, int64_t run_id, ledger_error *err)
{
    static const char *const sql[] = { SQL_RUN_LATER_RUN, SQL_RUN_LATER_RECONCILE };
    int64_t later = 0, row = 0;
    size_t i;
    int rc = SQLITE_DONE;

    for (i = 0; i < sizeof sql / sizeof sql[0] && rc == SQLITE_DONE; i++) {
        sqlite3_stmt *st = db_stmt(db, sql[i], err);

        if (st == NULL)
            return LEDGER_ERR;
        sqlite3_bind_int64(st, 1, run_id);
        if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            later = sqlite3_column_int64(st, 0);
            row = sqlite3_column_int64(st, 1);
        }
        db_stmt_done(st);
    }
    if (rc == SQLITE_DONE)
        return LEDGER_OK;
    if (rc != SQLITE_ROW)
        return db_error(db, err, "revert");
    if (i == 1)
        return ledger_error_set(err, 409, "conflict", NULL,
                                "run %lld changed transaction %lld after this run: revert it first",
                                (long long)later, (long long)row);
    return ledger_error_set(err, 409, "conflict", NULL,
                            "manual transaction %lld was reconciled into transaction %lld after this"
                            " run: undo that reconciliation first", (long long)later, (long long)row);
}

int ledger_rule_revert(ledger_db *db, int64_t me, int64_t run_id, cJSON **out, ledger_error *err)
{
    cJSON *run = NULL;
    int reverted = 0;

    if (rule_run_get(db, me, run_id, &run, &reverted, err))
        return LEDGER_ERR;
    cJSON_Delete(run);
    if (reverted)
        return ledger_error_set(err, 409, "conflict", NULL, "the run was already reverted");
    if (later_change(db, run_id, err))
        return LEDGER_ERR;
    /* Every row the run matched goes back to its pre-run state, in a few
     * set-wide statements rather than a round per row. */
    if (run_restore(db, run_id, err)
        || db_exec(db, err, "revert", SQL_RUN_REVERTED, DB_INT(run_id)))
        return LEDGER_ERR;
    return rule_run_get(db, me, run_id, out, NULL, err);
}
