/*
 * Deleting a statement (DELETE /api/statements/{id}), owner only: its rows
 * go with it (ON DELETE CASCADE), and their splits, tags, rule snapshots
 * and shares with them, and the summaries' triggers take them out.  A
 * manual row reconciled into one of its rows comes back first, as an undo
 * gives it back (reconcile_release_statement).
 *
 * A row costs about 70 us to delete (the row, the ten indexes of
 * transactions, the summaries' triggers), so a statement of 100,000 rows
 * would hold the write lock for seconds in one transaction.  Called in no
 * transaction, a statement of more rows than a chunk is deleted as a job
 * (job.c): its checks pass in a read transaction, so a refused delete
 * writes nothing; then the rows nobody else sees go a chunk a transaction
 * (a row with no split and no trip, which no manual row is reconciled
 * into, is seen by its owner alone, and its owner is refused until the
 * job ends); and the last transaction gives back the matches and deletes
 * the statement with the rest of its rows, those shared with someone.  So
 * nobody reads a part of the delete.
 *
 * A delete cannot be undone from what it wrote: a job of it that fails once
 * it has begun deleting is finished instead, by job_end or by its owner's
 * next request (statement_delete_step), and its answer is then 204.
 */
#include <string.h>

#include "db.h"
#include "job.h"
#include "rule.h"
#include "statement.h"
#include "txn.h"

/* The caller's rows of the statement: more than a chunk is a job. */
static const char SQL_ROWS[] =
    "SELECT count(*) FROM transactions WHERE statement_id = ?1 AND owner_id = ?2";
/* A chunk of the rows its owner alone sees. */
static const char SQL_DELETE_OWN[] =
    "DELETE FROM transactions WHERE id IN (SELECT t.id FROM transactions t"
    " WHERE t.statement_id = ?1 AND NOT " SQL_SHARED_ROW("t")
    " AND NOT EXISTS (SELECT 1 FROM reconciliations r WHERE r.statement_txn_id = t.id)"
    " LIMIT ?2)";
static const char SQL_DELETE[] = "DELETE FROM statements WHERE id = ?";

/* Whether the delete may go ahead, in the transaction it begins in:
 * the statement is the caller's (404, 403), its matches can be given back
 * (409), and the caller's condition holds (412), checked last since it
 * refuses only a delete that would otherwise succeed (RFC 9110 13.2.1). */
static int delete_check(ledger_db *db, int64_t me, int64_t id, ledger_cond_fn *cond, void *ctx,
                        ledger_error *err)
{
    cJSON *cur = NULL;

    if (statement_get(db, me, id, &cur, err))
        return LEDGER_ERR;
    cJSON_Delete(cur);
    if (reconcile_check_statement(db, id, err) || (cond && cond(ctx, err)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

int statement_delete_step(ledger_db *db, int64_t id, int end, int *more, ledger_error *err)
{
    *more = 0;
    if (!end) {
        if (db_exec(db, err, "statement delete", SQL_DELETE_OWN, DB_INT(id),
                    DB_INT(JOB_CHUNK_ROWS)))
            return LEDGER_ERR;
        *more = sqlite3_changes(db->sql) == JOB_CHUNK_ROWS;
        return LEDGER_OK;
    }
    if (reconcile_release_statement(db, id, err)
        || db_exec(db, err, "statement delete", SQL_DELETE, DB_INT(id)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

/* After a job that failed once it had begun deleting: job_end finished
 * it, or left it to its owner's next request.  The answer is the
 * statement gone once it is, not the failure, which wrote more than
 * nothing. */
static int finished(ledger_db *db, int64_t me, int64_t id)
{
    ledger_error again;
    cJSON *cur = NULL;
    int64_t dead = 1;
    int gone = 0;

    if (ledger_begin(db, 0, &again))
        return 0;
    if (statement_get(db, me, id, &cur, &again) != LEDGER_OK)
        gone = again.status == 404 && ledger_job_check(db, me, &dead, &again) == LEDGER_OK
               && dead == 0;
    cJSON_Delete(cur);
    ledger_rollback(db);
    return gone;
}

int ledger_statement_delete(ledger_db *db, int64_t me, int64_t id, ledger_cond_fn *cond,
                            void *ctx, ledger_error *err)
{
    struct job job_run, *job = NULL;
    int64_t rows = 0;
    int own = !db->in_txn, more = 1, rc = LEDGER_ERR;

    job_run.id = 0;
    job_run.noted = 0;
    if (own) {
        if (ledger_begin_as(db, me, 0, err))
            return LEDGER_ERR;
        if (db_int(db, err, "statement delete", &rows, 0, SQL_ROWS, DB_INT(id), DB_INT(me)))
            goto out;
        ledger_rollback(db);
    }
    if (job_begin(db, me, "statement_delete", (size_t)rows, &job_run, &job, &own, err)
        || delete_check(db, me, id, cond, ctx, err) || job_switch(db, job, 1, err)
        || job_note(db, job, id, 0, 0, 0, err))
        goto out;
    while (more)
        if (statement_delete_step(db, id, 0, &more, err)
            || (more && job_yield(db, job, 0, err)))
            goto out;
    /* The shared rows and the matches in the job's last transaction. */
    if (job_yield(db, job, 1, err) || statement_delete_step(db, id, 1, &more, err)
        || job_done(db, job, err) || (own && ledger_commit(db, err)))
        goto out;
    rc = LEDGER_OK;
out:
    if (own && db->in_txn)
        ledger_rollback(db);
    if (job) {
        job_end(db, job);
        if (rc && job_run.noted && finished(db, me, id)) {
            memset(err, 0, sizeof *err);
            rc = LEDGER_OK;
        }
    }
    return rc;
}
