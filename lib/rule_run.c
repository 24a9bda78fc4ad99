/*
 * Rule runs: a rule applied to the rows its conditions match (apply; and
 * apply-all, rule_apply_all.c, for every rule that runs on its own), to a
 * selection (the quick action), or as a dry run (preview).
 *
 * Every run is recorded (rule_runs) with the rule's name copied, so the
 * record outlives edits and deletion of the rule, and with a snapshot of
 * each row it matched (rule_run_rows), so rule_revert.c can put those rows
 * back as they were before the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"
#include "rule.h"
#include "job.h"

static const char SQL_RUN_INSERT[] =
    "INSERT INTO rule_runs (id, owner_id, rule_id, rule_name, source, matches)"
    " VALUES (" NEXT_ID("rule_runs") ", ?, ?, ?, ?, ?)";
static const char SQL_RUN_FINISH[] =
    "UPDATE rule_runs SET transactions = ?1, matches = ?2 WHERE id = ?3";
/* The matched rows of a run go into the temporary table rule_matches
 * (made by db.c for each connection) as they are found.  They are acted on
 * RUN_CHUNK at a time, in id order: a chunk is copied into rule_ids, and
 * the snapshot and every action are one statement over it.  A large run
 * touches a page of the table per row, more than the page cache holds; a
 * chunk's pages are still cached when the actions come to them after the
 * snapshot. */
#define RUN_CHUNK 4096
static const char SQL_IDS_CLEAR[] = "DELETE FROM temp.rule_matches";
static const char SQL_IDS_READ[] = "SELECT id FROM temp.rule_matches ORDER BY id";
/* A job's order (job.c): the rows nobody else sees first, then those
 * shared with someone by a split or a trip, which its last transaction
 * changes, all of them at once. */
static const char SQL_IDS_READ_SHARED_LAST[] =
    "SELECT m.id FROM temp.rule_matches m JOIN transactions t ON t.id = m.id"
    " ORDER BY " SQL_SHARED_ROW("t") ", m.id";
static const char SQL_IDS_SHARED[] =
    "SELECT count(*) FROM temp.rule_matches m JOIN transactions t ON t.id = m.id"
    " WHERE " SQL_SHARED_ROW("t");
/* Every matched row is recorded, changed or not, so apply-all knows the
 * rule has seen it; those the actions left as they were are marked (see
 * mark_unchanged), so a revert does not put them back over later edits.
 * Most rows have no override, payment method, tag or split: their snapshot
 * is '{}', which restores the same thing (every key reads as NULL, no tag,
 * no split) and costs far less than building the object. */
static const char SQL_RUN_SNAPSHOT[] =
    "INSERT INTO rule_run_rows (run_id, transaction_id, snapshot)"
    " SELECT ?1, t.id,"
    "        CASE WHEN t.override_category IS NULL AND t.override_merchant_normalized IS NULL"
    "              AND t.override_share IS NULL AND t.override_trip_id IS NULL"
    "              AND t.payment_method IS NULL"
    "              AND NOT EXISTS (SELECT 1 FROM transaction_tags WHERE transaction_id = t.id)"
    "              AND NOT EXISTS (SELECT 1 FROM splits WHERE transaction_id = t.id)"
    "             THEN '{}' ELSE " SNAPSHOT_JSON("t") " END"
    "   FROM transactions t WHERE t.id IN (SELECT id FROM temp.rule_ids)";
static const char SQL_RUN_UNCHANGED[] =
    "UPDATE rule_run_rows SET changed = 0 WHERE run_id = ?1 AND transaction_id = ?2";

int rule_match_ids(ledger_db *db, int64_t me, const struct prepared *p, const char *selection,
                   int skip_seen, enum match_order order, int64_t **ids, size_t *n,
                   ledger_error *err)
{
    struct sqlbuf b = { NULL, 0, 0 };
    struct changed read = { NULL, 0, 0 };
    cJSON *binds = cJSON_CreateArray();
    sqlite3_stmt *st = NULL;
    int rc = LEDGER_ERR;

    *ids = NULL;
    *n = 0;
    if (binds == NULL)
        goto oom;
    if (db_exec(db, err, "rule action", SQL_IDS_CLEAR))
        goto out;
    /* The shared rows alone: those of the selection (the caller's shared
     * rows, few), with the conditions, each row looked up by id (the owner
     * a filter, +, not the index the planner would walk instead). */
    if (sqlbuf_put(&b, "INSERT INTO temp.rule_matches (id)"
                       " SELECT t.id FROM transactions t LEFT JOIN statements s ON s.id = t.statement_id"
                       " WHERE "))
        goto oom;
    if (order == MATCH_SHARED_ONLY) {
        if (sqlbuf_put(&b, "+t.owner_id = ?1 AND t.id IN (SELECT value FROM json_each(?)) AND "))
            goto oom;
        cJSON_AddItemToArray(binds, cJSON_CreateString(selection));
    } else if (sqlbuf_put(&b, "t.owner_id = ?1 AND ")) {
        goto oom;
    }
    if (sqlbuf_put(&b, "t.reconciled_with_id IS NULL AND "))
        goto oom;
    if (selection && order != MATCH_SHARED_ONLY) {
        if (sqlbuf_put(&b, "t.id IN (SELECT value FROM json_each(?))"))
            goto oom;
        cJSON_AddItemToArray(binds, cJSON_CreateString(selection));
    } else if (rule_conditions_sql(json_get(p->rule, "conditions"), p->any, &b, binds, err)) {
        goto out;
    }
    /* Over every row, the rows seen are one set, read once; over a few,
     * each is looked up (rule_run_rows_txn). */
    if (skip_seen) {
        if (sqlbuf_put(&b, order == MATCH_SHARED_ONLY
                           ? " AND NOT EXISTS (SELECT 1 FROM rule_run_rows rr"
                             " JOIN rule_runs r ON r.id = rr.run_id WHERE rr.transaction_id = t.id"
                             " AND r.owner_id = ?1 AND r.rule_id = ? AND r.reverted_at IS NULL)"
                           : " AND t.id NOT IN (SELECT rr.transaction_id FROM rule_run_rows rr"
                             " JOIN rule_runs r ON r.id = rr.run_id"
                             " WHERE r.owner_id = ?1 AND r.rule_id = ? AND r.reverted_at IS NULL)"))
            goto oom;
        cJSON_AddItemToArray(binds, cJSON_CreateNumber((double)p->id));
    }
    /* The conditions make SQL text of this rule's own: prepared here and
     * finalized below, not kept in the statement cache, which would grow
     * by every rule shape a worker ever ran and never shrink. */
    if (sqlite3_prepare_v2(db->sql, b.text, -1, &st, NULL) != SQLITE_OK) {
        db_error(db, err, "rule match");
        goto out;
    }
    /* Every value went into binds as the SQL took its "?": one cJSON had
     * no memory to add would move each later value to another's place. */
    if (sqlite3_bind_parameter_count(st) != 1 + cJSON_GetArraySize(binds))
        goto oom;
    sqlite3_bind_int64(st, 1, me);
    rule_bind(db, st, 2, binds);
    if (sqlite3_step(st) != SQLITE_DONE) {
        db_error(db, err, "rule match");
        goto out;
    }
    /* Read back from the table (in id order, its key) rather than by
     * RETURNING, which would keep a second copy of every id until the
     * insert ends, then need sorting. */
    if (db_each_args(db, err, "rule match",
                     order == MATCH_SHARED_LAST ? SQL_IDS_READ_SHARED_LAST : SQL_IDS_READ,
                     NULL, 0, rule_ids_add, &read))
        goto out;
    *ids = read.ids;
    *n = read.n;
    read.ids = NULL;
    rc = LEDGER_OK;
    goto out;
oom:
    ledger_error_oom(err);
out:
    sqlite3_finalize(st);
    free(read.ids);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    free(b.text);
    cJSON_Delete(binds);
    return rc;
}

int rule_run_size(size_t n, int status, ledger_error *err)
{
    if (n <= RULE_RUN_ROWS_MAX)
        return LEDGER_OK;
    return ledger_error_set(err, status, status == 400 ? "invalid_field" : "conflict", "conditions",
                            "the rule matches %zu rows, over the %d rows one run may change"
                            " (rows per run): narrow its conditions", n, RULE_RUN_ROWS_MAX);
}

int rule_run_snapshot(ledger_db *db, int64_t run_id, ledger_error *err)
{
    return db_exec(db, err, "rule action", SQL_RUN_SNAPSHOT, DB_INT(run_id));
}

/* Marks the matched rows ids[0..n) that the run did not change (not in
 * c, sorted by rule_changed_count): a revert leaves them alone (rule_run_rows.changed).
 * Few, but for a rule run again over rows already as it leaves them. */
static int mark_unchanged(ledger_db *db, int64_t run_id, const int64_t *ids, size_t n,
                          const struct changed *c, ledger_error *err)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (c->n && bsearch(&ids[i], c->ids, c->n, sizeof *c->ids, cmp_int64))
            continue;
        if (db_exec(db, err, "run", SQL_RUN_UNCHANGED, DB_INT(run_id), DB_INT(ids[i])))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

int rule_matches_shared(ledger_db *db, int64_t *n, ledger_error *err)
{
    return db_int(db, err, "run", n, 0, SQL_IDS_SHARED);
}

int rule_run_begin(ledger_db *db, int64_t me, const struct prepared *p, const char *source,
                   size_t n, int64_t *run_id, ledger_error *err)
{
    if (db_exec(db, err, "run", SQL_RUN_INSERT, DB_INT(me), DB_INT(p->id), DB_TEXT(p->name),
                DB_TEXT(source), DB_INT(n)))
        return LEDGER_ERR;
    *run_id = sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}

int rule_run_end(ledger_db *db, int64_t run_id, const int64_t *ids, size_t n, struct changed *c,
                 ledger_error *err)
{
    int64_t changed = rule_changed_count(c);  /* sorts c for mark_unchanged */

    if (mark_unchanged(db, run_id, ids, n, c, err)
        || db_exec(db, err, "run", SQL_RUN_FINISH, DB_INT(changed), DB_INT(n), DB_INT(run_id)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

int rule_run_chunks(ledger_db *db, int64_t me, const struct prepared *p, int64_t run_id,
                    const int64_t *ids, size_t n, struct job *job, int last, struct changed *c,
                    ledger_error *err)
{
    size_t off, m;

    for (off = 0; off < n; off += m) {
        m = n - off < JOB_CHUNK_ROWS ? n - off : JOB_CHUNK_ROWS;
        if (rule_chunk_fill_list(db, ids + off, m, err)
            || rule_run_snapshot(db, run_id, err)
            || rule_act(db, me, p, ids + off, m, c, err)
            || job_yield(db, job, last && off + m >= n, err))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

/* A job commits each chunk of the rows nobody else sees, and changes the
 * shared ones (last in ids, MATCH_SHARED_LAST) in its last transaction,
 * with the run's record finished: every row, for a rule whose actions
 * share them. */
int rule_run_write(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids,
                   size_t n, const char *source, struct job *job, cJSON **out,
                   ledger_error *err)
{
    struct changed c = { NULL, 0, 0 };
    int64_t run_id, shared = 0;
    size_t off, m, own;
    int rc = LEDGER_ERR;

    if (rule_run_begin(db, me, p, source, n, &run_id, err)
        || (job && (job_note(db, job, run_id, 0, 0, 0, err)
                    || rule_matches_shared(db, &shared, err))))
        return LEDGER_ERR;
    /* A job: each chunk of the rows nobody else sees committed, then the
     * shared ones (none, often) in its last transaction.  A rule that
     * shares the rows it changes (a split, a trip) would show each chunk
     * to others as it commits: all its rows are in the last. */
    own = p->shares_rows ? 0 : n - (size_t)shared;
    if (job && rule_run_chunks(db, me, p, run_id, ids, own, job, 1, &c, err))
        goto out;
    for (off = job ? own : 0; off < n; off += m) {
        m = job ? n - off : n - off < RUN_CHUNK ? n - off : RUN_CHUNK;
        if ((job ? rule_chunk_fill_list : rule_chunk_fill)(db, ids + off, m, err)
            || rule_run_snapshot(db, run_id, err)
            || rule_act(db, me, p, ids + off, m, &c, err))
            goto out;
    }
    if (rule_run_end(db, run_id, ids, n, &c, err))
        goto out;
    rc = rule_run_get(db, me, run_id, out, NULL, err);
out:
    free(c.ids);
    return rc;
}

/* One rule: over every matching row (apply), or over a selection with its
 * conditions ignored (the quick action), or as a dry run (preview). */
enum rule_mode { MODE_APPLY, MODE_SELECTION, MODE_PREVIEW };

static cJSON *preview_view(cJSON *row)
{
    static const char *const keys[] = { "category", "merchant_normalized", "trip_id", "tags", "splits" };
    cJSON *o = cJSON_CreateObject();
    size_t i;

    for (i = 0; row && i < sizeof keys / sizeof keys[0]; i++)
        cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(json_get(row, keys[i]), 1));
    return o;
}

/* The dry run: the actions run for real inside a savepoint, the rows are
 * read back, and the savepoint is rolled back, so the preview shows
 * exactly what a run would do and changes nothing. */
static int preview(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids,
                   size_t n, cJSON **out, ledger_error *err)
{
    cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items"), **before;
    ledger_error undo;
    size_t i;
    int rc = LEDGER_ERR;

    before = calloc(n ? n : 1, sizeof *before);
    if (before == NULL) {
        cJSON_Delete(doc);
        return ledger_error_oom(err);
    }
    if (db_step_once(db, "SAVEPOINT preview", "rule preview", err)) {
        free(before);
        cJSON_Delete(doc);
        return LEDGER_ERR;
    }
    for (i = 0; i < n; i++)
        if (txn_get(db, me, ids[i], &before[i], err))
            goto out;
    if (rule_chunk_fill(db, ids, n, err) || rule_act(db, me, p, ids, n, NULL, err))
        goto out;
    for (i = 0; i < n; i++) {
        cJSON *after = NULL, *o;

        if (txn_get(db, me, ids[i], &after, err))
            goto out;
        o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "transaction_id", (double)ids[i]);
        cJSON_AddItemToObject(o, "before", preview_view(before[i]));
        cJSON_AddItemToObject(o, "after", preview_view(after));
        cJSON_AddItemToArray(items, o);
        cJSON_Delete(after);
    }
    cJSON_AddNumberToObject(doc, "matches", (double)n);
    *out = doc;
    doc = NULL;
    rc = LEDGER_OK;
out:
    /* What the preview changed goes.  Should that fail, so does the
     * request, and its transaction is rolled back rather than committed
     * with the preview's changes in it. */
    if (db_step_once(db, "ROLLBACK TO preview", "rule preview", &undo)) {
        if (rc == LEDGER_OK) {
            cJSON_Delete(*out);
            *out = NULL;
            *err = undo;
            rc = LEDGER_ERR;
        }
    } else {
        db_step_once(db, "RELEASE preview", "rule preview", &undo);
    }
    for (i = 0; i < n; i++)
        cJSON_Delete(before[i]);
    free(before);
    cJSON_Delete(doc);
    return rc;
}

/* A job (job != NULL) is begun by its caller, whose read transaction this
 * runs in until the rows are matched; then it writes in its own. */
static int rule_one(ledger_db *db, int64_t me, int64_t rule_id, const cJSON *body,
                    enum rule_mode mode, struct job *job, cJSON **out, ledger_error *err)
{
    struct prepared p;
    cJSON *rule = NULL, *sel = NULL;
    char *sel_text = NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    int rc = LEDGER_ERR;
    sqlite3_int64 changes = sqlite3_total_changes64(db->sql);

    if (rule_load(db, me, rule_id, &rule, err))
        return LEDGER_ERR;
    if (mode == MODE_SELECTION) {
        if (field_require_object(body, err) || field_id_array(body, "transaction_ids", 5000, &sel, err))
            goto out;
        if (access_txn_set(db, me, sel, "transaction_ids", err))
            goto out;
        /* Without it the rule would run by its conditions, not on the
         * selection. */
        if ((sel_text = cJSON_PrintUnformatted(sel)) == NULL) {
            ledger_error_oom(err);
            goto out;
        }
    } else if (cJSON_IsTrue(json_get(rule, "manual_only"))) {
        /* Its conditions are ignored when it runs, so a preview by them
         * would show rows it never touches (every row, with none). */
        ledger_error_set(err, 409, "conflict", NULL,
                         "a manual_only rule runs only on a selection: POST /api/rules/%lld/run",
                         (long long)rule_id);
        goto out;
    }
    if (rule_prepare(db, me, rule, &p, err))
        goto out;
    rule = NULL;  /* p owns it now */
    if (rule_match_ids(db, me, &p, sel_text, 0, job ? MATCH_SHARED_LAST : MATCH_BY_ID, &ids, &n, err)
        || (job && (ledger_commit(db, err) || ledger_begin(db, 1, err))))
        goto done;
    /* Rules act on rows the caller owns: a selection naming a row only
     * shared with them is refused. */
    if (sel && n != (size_t)cJSON_GetArraySize(sel)) {
        ledger_error_set(err, 403, "forbidden", "transaction_ids",
                         "rules act only on your own transactions");
        goto done;
    }
    if (mode == MODE_PREVIEW) {
        rc = preview(db, me, &p, ids, n, out, err);
        /* A preview writes only the temporary tables of its match and
         * what it rolls back, which SQLite's count of changes still
         * holds: taken off, so a preview moves no data version. */
        db->changes_at_begin += sqlite3_total_changes64(db->sql) - changes;
    } else if (rule_run_size(n, 400, err) == LEDGER_OK)
        rc = rule_run_write(db, me, &p, ids, n, mode == MODE_SELECTION ? "selection" : "conditions",
                            job, out, err);
done:
    rule_prepared_free(&p);
out:
    free(ids);
    free(sel_text);
    cJSON_Delete(sel);
    cJSON_Delete(rule);
    return rc;
}

/* Outside a transaction, a job (job.c): the rule is read and its rows
 * matched in a read transaction, which holds no lock, and the rows written
 * JOB_CHUNK_ROWS at a time. */
int ledger_rule_apply(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err)
{
    struct job job;
    int rc;

    if (db->in_txn)
        return rule_one(db, me, rule_id, NULL, MODE_APPLY, NULL, out, err);
    if (job_start(db, me, "rule_apply", &job, err))
        return LEDGER_ERR;
    rc = ledger_begin(db, 0, err) || rule_one(db, me, rule_id, NULL, MODE_APPLY, &job, out, err)
         || job_done(db, &job, err) || ledger_commit(db, err);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    job_end(db, &job);
    return rc ? LEDGER_ERR : LEDGER_OK;
}

int ledger_rule_run_selection(ledger_db *db, int64_t me, int64_t rule_id, const cJSON *body,
                              cJSON **out, ledger_error *err)
{
    return rule_one(db, me, rule_id, body, MODE_SELECTION, NULL, out, err);
}

int ledger_rule_preview(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err)
{
    return rule_one(db, me, rule_id, NULL, MODE_PREVIEW, NULL, out, err);
}
