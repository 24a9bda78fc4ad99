/*
 * Apply-all (POST /api/rules/apply): every enabled rule that runs on its
 * own, in id order, each over the caller's rows that no still-applied run
 * of it has seen, each rule seeing the rows as the rules before it left
 * them.  A rule that cannot run is passed over and said in skipped.
 *
 * In the caller's transaction it is one run after another (apply_all).
 * Called in none, it runs as a job (job.c; apply_all_job below).
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"
#include "rule.h"
#include "job.h"

static const char SQL_RULE_AUTO[] =
    RULE_COLUMNS " WHERE owner_id = ? AND enabled AND NOT manual_only ORDER BY id";
/* The caller's rows shared with someone, by a split or a trip. */
static const char SQL_SHARED_IDS[] =
    "SELECT json_group_array(t.id) FROM transactions t"
    " WHERE t.owner_id = ?1 AND " SQL_SHARED_ROW("t");
/* The rows the runs of one apply-all (a JSON array of run ids) matched and
 * changed, each row once however many rules it met. */
static const char SQL_RUNS_ROWS[] =
    "SELECT COUNT(DISTINCT transaction_id), COUNT(DISTINCT CASE WHEN changed THEN transaction_id END)"
    "  FROM rule_run_rows WHERE run_id IN (SELECT value FROM json_each(?1))";

/* A rule that cannot run (a 409: what it names is gone, its pattern
 * needs too much backtracking, or the request's time for matching
 * patterns is spent) is said in skipped and passed over: one rule's
 * deleted tag must not stop every other rule.  Nonzero, with err kept,
 * for any other error. */
static int skip_rule(cJSON *skipped, const cJSON *rule, ledger_error *err)
{
    cJSON *o;

    if (err->status != 409)
        return LEDGER_ERR;
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rule_id", json_get(rule, "id")->valuedouble);
    cJSON_AddStringToObject(o, "name", json_get(rule, "name")->valuestring);
    cJSON_AddStringToObject(o, "reason", err->message);
    cJSON_AddItemToArray(skipped, o);
    ledger_error_clear(err);
    return LEDGER_OK;
}

/* One rule of apply-all: its run (when it matched rows) goes to runs and
 * its id to run_ids; a rule that cannot run goes to skipped. */
static int apply_auto(ledger_db *db, int64_t me, const cJSON *rule, cJSON *runs, cJSON *run_ids,
                      cJSON *skipped, ledger_error *err)
{
    struct prepared p;
    cJSON *copy = cJSON_Duplicate(rule, 1), *run = NULL;
    const cJSON *id;
    int64_t *ids = NULL;
    size_t n = 0;
    int rc;

    if (copy == NULL)
        return ledger_error_oom(err);
    if (rule_prepare(db, me, copy, &p, err)) {
        cJSON_Delete(copy);
        return skip_rule(skipped, rule, err);
    }
    if (rule_match_ids(db, me, &p, NULL, 1, MATCH_BY_ID, &ids, &n, err) || rule_run_size(n, 409, err)) {
        free(ids);
        rule_prepared_free(&p);
        return skip_rule(skipped, rule, err);
    }
    rc = n ? rule_run_write(db, me, &p, ids, n, "conditions", NULL, &run, err) : LEDGER_OK;
    free(ids);
    rule_prepared_free(&p);
    if (rc || run == NULL)
        return rc;
    /* Its id counts its rows (runs_rows): a run without one (memory ran
     * out making it) is an error, not a run left out of them. */
    id = json_get(run, "id");
    if (!cJSON_IsNumber(id)
        || !cJSON_AddItemToArray(run_ids, cJSON_CreateNumber(id->valuedouble))) {
        cJSON_Delete(run);
        return ledger_error_oom(err);
    }
    cJSON_AddItemToArray(runs, run);
    return LEDGER_OK;
}

/* apply-all's matches and transactions: the rows its runs (run_ids)
 * matched and changed, each once, as a sum over the runs would count a
 * row two rules changed twice. */
static int runs_rows(ledger_db *db, const cJSON *run_ids, cJSON *doc, ledger_error *err)
{
    char *text = cJSON_PrintUnformatted(run_ids);
    sqlite3_stmt *st;
    int rc = LEDGER_ERR;

    if (text == NULL)
        return ledger_error_oom(err);
    if ((st = db_stmt(db, SQL_RUNS_ROWS, err)) == NULL)
        goto out;
    db_bind_text(db, st, 1, text);
    if (sqlite3_step(st) == SQLITE_ROW) {
        cJSON_AddNumberToObject(doc, "matches", (double)sqlite3_column_int64(st, 0));
        cJSON_AddNumberToObject(doc, "transactions", (double)sqlite3_column_int64(st, 1));
        rc = LEDGER_OK;
    }
    db_stmt_done(st);
    if (rc)
        db_error(db, err, "rule runs");
out:
    free(text);
    return rc;
}

/* The rules apply-all runs ({items}, in id order) in *rules, and the
 * answer begun: *doc with its runs and skipped, and *run_ids, the runs'
 * ids.  The caller deletes the three, whatever this returns. */
static int apply_all_begin(ledger_db *db, int64_t me, cJSON **rules, cJSON **doc,
                           cJSON **runs, cJSON **skipped, cJSON **run_ids, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RULE_AUTO, err);

    *rules = *doc = *run_ids = NULL;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if (db_list(db, st, rule_json, rules, err))
        return LEDGER_ERR;
    *run_ids = cJSON_CreateArray();
    *doc = cJSON_CreateObject();
    *runs = cJSON_AddArrayToObject(*doc, "runs");
    *skipped = cJSON_AddArrayToObject(*doc, "skipped");
    if (*run_ids == NULL || *runs == NULL || *skipped == NULL)
        return ledger_error_oom(err);
    return LEDGER_OK;
}

/* Runs the rules from rule on, in order, each as one run in the
 * transaction (apply_auto), then counts the rows of all the runs: *out is
 * then *doc, which the caller no longer deletes. */
static int apply_all_end(ledger_db *db, int64_t me, const cJSON *rule, cJSON **doc, cJSON *runs,
                         cJSON *run_ids, cJSON *skipped, cJSON **out, ledger_error *err)
{
    /* In id order; each rule sees the rows as the rules before it left them. */
    for (; rule; rule = rule->next)
        if (apply_auto(db, me, rule, runs, run_ids, skipped, err))
            return LEDGER_ERR;
    if (runs_rows(db, run_ids, *doc, err))
        return LEDGER_ERR;
    *out = *doc;
    *doc = NULL;
    return LEDGER_OK;
}

/* apply-all in the caller's transaction. */
static int apply_all(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    cJSON *rules, *doc, *runs, *skipped, *run_ids;
    int rc = LEDGER_ERR;

    if (apply_all_begin(db, me, &rules, &doc, &runs, &skipped, &run_ids, err))
        goto out;
    rc = apply_all_end(db, me, json_get(rules, "items")->child, &doc, runs, run_ids, skipped, out,
                       err);
out:
    cJSON_Delete(run_ids);
    cJSON_Delete(rules);
    cJSON_Delete(doc);
    return rc;
}

/* ---- apply-all as a job ---------------------------------------------------------------- */

/* A rule's run in an apply-all job: the rows nobody else sees are written
 * as the job goes, in chunks, rule after rule; the rows shared with
 * someone (by a split or a trip) in the job's last transaction, matched
 * again there rule after rule, so that each row still meets the rules in
 * their order.  (A rule's actions change only the row they act on, and
 * only a rule that shares rows changes which rows are shared.) */
struct auto_run {
    struct prepared p;
    int64_t run_id;
    int64_t *ids;       /* the rows it matched (the shared ones added last) */
    size_t n;
    struct changed c;
};

/* The caller's rows shared with someone, as a JSON array's text in
 * *text, which the caller frees. */
static int shared_ids(ledger_db *db, int64_t me, char **text, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_SHARED_IDS, err);
    int rc;

    *text = NULL;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        *text = db_column_dup(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "rule runs");
    return *text ? LEDGER_OK : ledger_error_oom(err);
}

static void auto_run_free(struct auto_run *r)
{
    rule_prepared_free(&r->p);
    free(r->ids);
    free(r->c.ids);
    memset(r, 0, sizeof *r);
}

/* In the job's read transaction, and back in one after: rule's run over
 * the rows nobody else sees (*ran set), or nothing when it matches none or
 * is passed over (skipped).  A rule that shares the rows it changes sets
 * *tail instead: it and the rules after it run in the last transaction. */
static int auto_own_rows(ledger_db *db, int64_t me, const cJSON *rule, struct job *job,
                         struct auto_run *r, int *ran, int *tail, cJSON *skipped,
                         ledger_error *err)
{
    cJSON *copy = cJSON_Duplicate(rule, 1);
    int64_t *ids = NULL, shared = 0;
    size_t n = 0, own;

    *ran = *tail = 0;
    memset(r, 0, sizeof *r);
    if (copy == NULL)
        return ledger_error_oom(err);
    if (rule_prepare(db, me, copy, &r->p, err)) {
        cJSON_Delete(copy);
        return skip_rule(skipped, rule, err);
    }
    if (r->p.shares_rows) {
        *tail = 1;
        auto_run_free(r);
        return LEDGER_OK;
    }
    if (rule_match_ids(db, me, &r->p, NULL, 1, MATCH_SHARED_LAST, &ids, &n, err)
        || rule_run_size(n, 409, err)) {
        free(ids);
        auto_run_free(r);
        return skip_rule(skipped, rule, err);
    }
    if (n == 0 || rule_matches_shared(db, &shared, err)) {
        free(ids);
        auto_run_free(r);
        return n == 0 ? LEDGER_OK : LEDGER_ERR;
    }
    r->ids = ids;
    r->n = own = n - (size_t)shared;
    if (job_switch(db, job, 1, err)
        || rule_run_begin(db, me, &r->p, "conditions", n, &r->run_id, err))
        return LEDGER_ERR;
    *ran = 1;
    if (job_note(db, job, 0, 0, r->run_id, r->run_id, err))
        return LEDGER_ERR;
    if (rule_run_chunks(db, me, &r->p, r->run_id, ids, own, job, 0, &r->c, err))
        return LEDGER_ERR;
    return job_switch(db, job, 0, err);
}

/* In the job's last transaction: the rows shared with someone (shared,
 * the caller's as a JSON array) that r's rule matches now, acted on, and
 * its run finished, added to runs. */
static int auto_finish(ledger_db *db, int64_t me, struct auto_run *r, const char *shared,
                       cJSON *runs, cJSON *run_ids, ledger_error *err)
{
    int64_t *more = NULL, *all;
    size_t k = 0;
    cJSON *run = NULL;
    int rc = LEDGER_ERR;

    if (rule_match_ids(db, me, &r->p, shared, 1, MATCH_SHARED_ONLY, &more, &k, err))
        return LEDGER_ERR;
    if (k && (rule_chunk_fill_list(db, more, k, err)
              || rule_run_snapshot(db, r->run_id, err)
              || rule_act(db, me, &r->p, more, k, &r->c, err)))
        goto out;
    if ((all = realloc(r->ids, (r->n + k + 1) * sizeof *all)) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    r->ids = all;
    if (k)
        memcpy(r->ids + r->n, more, k * sizeof *more);
    r->n += k;
    if (rule_run_end(db, r->run_id, r->ids, r->n, &r->c, err)
        || rule_run_get(db, me, r->run_id, &run, NULL, err))
        goto out;
    if (!cJSON_AddItemToArray(run_ids, cJSON_CreateNumber((double)r->run_id))) {
        cJSON_Delete(run);
        ledger_error_oom(err);
        goto out;
    }
    cJSON_AddItemToArray(runs, run);
    rc = LEDGER_OK;
out:
    free(more);
    return rc;
}

/* The job: each rule's rows nobody else sees in chunks, in a read
 * transaction to match and write transactions to act; then, in the last
 * transaction, each run's shared rows, and the rules from the first that
 * shares rows on, whole, as apply_all runs them. */
static int apply_all_job(ledger_db *db, int64_t me, struct job *job, cJSON **out,
                         ledger_error *err)
{
    cJSON *rules = NULL, *rule, *doc = NULL, *runs, *skipped, *run_ids = NULL;
    const cJSON *tail = NULL;
    struct auto_run *done = NULL;
    char *shared = NULL;
    size_t n_done = 0, i;
    int rc = LEDGER_ERR;

    if (ledger_begin(db, 0, err)
        || apply_all_begin(db, me, &rules, &doc, &runs, &skipped, &run_ids, err))
        goto out;
    if ((done = calloc((size_t)cJSON_GetArraySize(json_get(rules, "items")) + 1,
                       sizeof *done)) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    cJSON_ArrayForEach(rule, json_get(rules, "items")) {
        int ran, shares;

        if (auto_own_rows(db, me, rule, job, &done[n_done], &ran, &shares, skipped, err)) {
            n_done++;  /* freed below */
            goto out;
        }
        if (shares) {
            tail = rule;
            break;
        }
        n_done += ran;
    }
    /* Which rows are shared is read before the last transaction: no rule
     * run so far shares rows, and the owner's other requests wait. */
    if ((n_done && shared_ids(db, me, &shared, err)) || job_yield(db, job, 1, err))
        goto out;
    for (i = 0; i < n_done; i++)
        if (auto_finish(db, me, &done[i], shared, runs, run_ids, err))
            goto out;
    rc = apply_all_end(db, me, tail, &doc, runs, run_ids, skipped, out, err);
out:
    for (i = 0; done && i < n_done; i++)
        auto_run_free(&done[i]);
    free(done);
    free(shared);
    cJSON_Delete(run_ids);
    cJSON_Delete(rules);
    cJSON_Delete(doc);
    return rc;
}

/* Outside a transaction, a job (job.c): undone, should it fail, by putting
 * back each run it wrote, the last first. */
int ledger_rule_apply_all(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    struct job job;
    int rc;

    if (db->in_txn)
        return apply_all(db, me, out, err);
    if (job_start(db, me, "rule_apply_all", &job, err))
        return LEDGER_ERR;
    rc = apply_all_job(db, me, &job, out, err) || job_done(db, &job, err)
         || ledger_commit(db, err);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    job_end(db, &job);
    return rc ? LEDGER_ERR : LEDGER_OK;
}
