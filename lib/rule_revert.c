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
#include "job.h"

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

/* A job's revert (job.c): the rows its run changed, in their order, the
 * rows nobody else sees first (*own of them), then those shared with
 * someone by a split or a trip, now or in their snapshot (which the
 * revert brings back), which the last transaction puts back all at once.
 * Tags, a payment method and the overrides of a row nobody shares are its
 * owner's alone. */
static const char SQL_REVERT_ROWS[] =
    "SELECT rr.transaction_id,"
    "       " SQL_SHARED_ROW("t")
    "       OR json_extract(rr.snapshot, '$.override_trip_id') IS NOT NULL"
    "       OR json_array_length(rr.snapshot, '$.splits') > 0"
    "  FROM rule_run_rows rr JOIN transactions t ON t.id = rr.transaction_id"
    " WHERE rr.run_id = ?1 AND rr.changed"
    " ORDER BY 2, 1";

struct revert_rows {
    struct changed ids;
    size_t own;
};

static int revert_row(void *ctx, sqlite3_stmt *st)
{
    struct revert_rows *r = ctx;

    r->own += sqlite3_column_int(st, 1) == 0;
    return rule_ids_add(&r->ids, st);
}

/* Puts run_id's rows back as a job, from the read transaction its checks
 * ran in: each chunk of the rows nobody else sees committed, the shared
 * ones in the last transaction, which the caller ends. */
static int revert_job(ledger_db *db, int64_t run_id, struct job *job, ledger_error *err)
{
    struct revert_rows rows = { { NULL, 0, 0 }, 0 };
    const int64_t *ids;
    size_t n, own, off, m;
    int rc = LEDGER_ERR;

    if (db_each(db, err, "revert", revert_row, &rows, SQL_REVERT_ROWS, DB_INT(run_id)))
        goto out;
    ids = rows.ids.ids;
    n = rows.ids.n;
    own = rows.own;
    if (ledger_commit(db, err) || ledger_begin(db, 1, err)
        || job_note(db, job, run_id, 0, 0, 0, err))
        goto out;
    for (off = 0; off < own; off += m) {
        m = own - off < JOB_CHUNK_ROWS ? own - off : JOB_CHUNK_ROWS;
        if (rule_chunk_fill_list(db, ids + off, m, err) || run_restore(db, run_id, 1, err)
            || job_yield(db, job, off + m >= own, err))
            goto out;
    }
    if (n > own
        && (rule_chunk_fill_list(db, ids + own, n - own, err) || run_restore(db, run_id, 1, err)))
        goto out;
    rc = LEDGER_OK;
out:
    free(rows.ids.ids);
    return rc;
}

/* job: NULL in the caller's transaction; else a job begun by the caller,
 * this in its read transaction. */
static int revert(ledger_db *db, int64_t me, int64_t run_id, struct job *job, cJSON **out,
                  ledger_error *err)
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
    if ((job ? revert_job(db, run_id, job, err) : run_restore(db, run_id, 0, err))
        || rule_run_reverted(db, run_id, err))
        return LEDGER_ERR;
    return rule_run_get(db, me, run_id, out, NULL, err);
}

int rule_run_reverted(ledger_db *db, int64_t run_id, ledger_error *err)
{
    return db_exec(db, err, "revert", SQL_RUN_REVERTED, DB_INT(run_id));
}

/* Outside a transaction, a job (job.c), as a rule apply is.  A job killed
 * once it began writing is finished by its owner's next request rather
 * than undone: its snapshots say what each row goes back to, and the rows
 * it put back already are put back again as they are. */
int ledger_rule_revert(ledger_db *db, int64_t me, int64_t run_id, cJSON **out, ledger_error *err)
{
    struct job job;
    int rc;

    if (db->in_txn)
        return revert(db, me, run_id, NULL, out, err);
    if (job_start(db, me, "rule_revert", &job, err))
        return LEDGER_ERR;
    rc = ledger_begin(db, 0, err) || revert(db, me, run_id, &job, out, err)
         || job_done(db, &job, err) || ledger_commit(db, err);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    job_end(db, &job);
    /* A revert that failed once it had begun writing was finished by
     * job_end (or is left to its owner's next request): the answer is
     * then the run reverted, not the failure, which wrote more than
     * nothing. */
    if (rc && job.noted) {
        ledger_error again;
        int64_t dead = 0;
        int reverted = 0;
        cJSON *run = NULL;

        if (ledger_begin(db, 0, &again) == LEDGER_OK) {
            if (rule_run_get(db, me, run_id, &run, &reverted, &again) == LEDGER_OK && reverted
                && ledger_job_check(db, me, &dead, &again) == LEDGER_OK && dead == 0) {
                *out = run;
                run = NULL;
                rc = 0;
            }
            cJSON_Delete(run);
            ledger_rollback(db);
        }
    }
    return rc ? LEDGER_ERR : LEDGER_OK;
}
