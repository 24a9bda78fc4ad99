/*
 * The merchant a row without one of its own is listed under, and the run
 * that gives one to the rows already in a ledger.
 *
 * A derived merchant goes in merchant_normalized, never in merchant:
 * merchant is what the bank or the file said (rules match it, the search
 * index holds it), while merchant_normalized is the base value of the
 * effective merchant (eff_merchant = override, else merchant_normalized,
 * else merchant), which /api/merchants, the analytics' merchants, the
 * subscriptions report and refunds' usual category all read.  The user's
 * own choice (override_merchant_normalized, written by an edit or a rule's
 * set_merchant) stays above it, and a revert of the run puts the column
 * back to what it was.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "job.h"
#include "merchant_clean.h"
#include "rule.h"
#include "text.h"
#include "txn.h"

/* The user's own names for merchants: for each derived merchant (case
 * aside) of a row they renamed, the override on their latest such row.
 * Read once per transaction and owner into a table sorted by lowered
 * name, so an import of thousands of rows reads the owner's rows once, not
 * once a row (no index holds merchant_normalized; the covering owner
 * index serves this read). */
static const char SQL_RENAMES[] =
    "SELECT lower(merchant_normalized) AS k, override_merchant_normalized, MAX(id) FROM transactions"
    " WHERE owner_id = ?1 AND override_merchant_normalized IS NOT NULL AND merchant_normalized IS NOT NULL"
    " GROUP BY k ORDER BY k";

struct merchant_rename {
    char *key;   /* lower(merchant_normalized), ASCII lowered as SQLite's lower() does */
    char *name;  /* the user's */
};
struct merchant_renames {
    int64_t owner;
    size_t n;
    struct merchant_rename *v;
};

void merchant_renames_forget(ledger_db *db)
{
    struct merchant_renames *r = db->renames;
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; i < r->n; i++) {
        free(r->v[i].key);
        free(r->v[i].name);
    }
    free(r->v);
    free(r);
    db->renames = NULL;
}

static int renames_load(ledger_db *db, int64_t owner, ledger_error *err)
{
    struct merchant_renames *r;
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc;

    merchant_renames_forget(db);
    if ((r = calloc(1, sizeof *r)) == NULL)
        return ledger_error_oom(err);
    r->owner = owner;
    db->renames = r;
    if ((st = db_stmt(db, SQL_RENAMES, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, owner);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *key, *name;

        if (r->n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            struct merchant_rename *nv = realloc(r->v, ncap * sizeof *nv);

            if (nv == NULL)
                goto oom;
            r->v = nv;
            cap = ncap;
        }
        key = db_column_dup(st, 0);
        name = db_column_dup(st, 1);
        if (key == NULL || name == NULL) {
            free(key);
            free(name);
            goto oom;
        }
        r->v[r->n].key = key;
        r->v[r->n++].name = name;
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "merchant");
        goto fail;
    }
    return LEDGER_OK;
oom:
    db_stmt_done(st);
    ledger_error_oom(err);
fail:
    merchant_renames_forget(db);
    return LEDGER_ERR;
}

static int rename_cmp(const void *a, const void *b)
{
    return strcmp(((const struct merchant_rename *)a)->key, ((const struct merchant_rename *)b)->key);
}

/* The user's name for name (lowered in place to look it up), or NULL. */
static const char *renamed(const struct merchant_renames *r, char *name)
{
    struct merchant_rename want, *got;
    char *p;

    for (p = name; *p; p++)
        *p = (char)ascii_lower((unsigned char)*p);
    want.key = name;
    got = r->n ? bsearch(&want, r->v, r->n, sizeof *r->v, rename_cmp) : NULL;
    return got ? got->name : NULL;
}

void ledger_set_jit(ledger_db *db, int on)
{
    db->jit = on != 0;
    merchant_cleaner_free(db->cleaner);
    db->cleaner = NULL;
}

static struct merchant_cleaner *cleaner_of(ledger_db *db, ledger_error *err)
{
    if (db->cleaner == NULL && (db->cleaner = merchant_cleaner_new(db->jit)) == NULL)
        ledger_error_oom(err);
    return db->cleaner;
}

int merchant_derive(ledger_db *db, int64_t owner, const char *raw, char *out, ledger_error *err)
{
    struct merchant_cleaner *c;
    char lowered[MERCHANT_CLEAN_MAX];
    const char *mine;
    int rc;

    out[0] = '\0';
    if (raw == NULL || raw[0] == '\0')
        return LEDGER_OK;
    if ((c = cleaner_of(db, err)) == NULL)
        return LEDGER_ERR;
    if ((rc = merchant_clean(c, raw, out, NULL)) < 0)
        return ledger_error_oom(err);
    if (rc == 0)
        return LEDGER_OK;
    /* A name longer than a merchant may be is cut at a character. */
    if (strlen(out) > MERCHANT_MAX) {
        size_t n = MERCHANT_MAX;

        while (n > 0 && ((unsigned char)out[n] & 0xC0) == 0x80)
            n--;
        out[n] = '\0';
    }
    if ((db->renames == NULL || db->renames->owner != owner) && renames_load(db, owner, err))
        return LEDGER_ERR;
    memcpy(lowered, out, strlen(out) + 1);
    if ((mine = renamed(db->renames, lowered)) && strlen(mine) < MERCHANT_CLEAN_MAX)
        memcpy(out, mine, strlen(mine) + 1);
    return LEDGER_OK;
}

/* ---- the merchant run ------------------------------------------------------------------- */

/* The caller's rows with no normalized merchant, not reconciled away:
 * first (?2 = 1) those the user renamed, whose override stays the
 * effective merchant but whose cleaned name, once written, carries the
 * user's name to the others (SQL_RENAMED); then (?2 = 0) the rest.  The
 * text cleaned is the bank's merchant where there is one (an OFX NAME),
 * else the description. */
static const char SQL_RUN_ROWS[] =
    "SELECT id, COALESCE(NULLIF(merchant, ''), description) FROM transactions"
    " WHERE owner_id = ?1 AND merchant_normalized IS NULL"
    "   AND (override_merchant_normalized IS NOT NULL) = ?2 AND reconciled_with_id IS NULL ORDER BY id";
static const char SQL_FILL_CLEAR[] = "DELETE FROM temp.merchant_fill";
static const char SQL_FILL_ADD[] = "INSERT INTO temp.merchant_fill (id, name) VALUES (?1, ?2)";
static const char SQL_RUN_INSERT[] =
    "INSERT INTO rule_runs (id, owner_id, rule_id, rule_name, source, matches, transactions)"
    " VALUES (" NEXT_ID("rule_runs") ", ?1, NULL, '" MERCHANT_RUN_NAME "', 'conditions', 0, 0)";
static const char SQL_RUN_COUNT[] = "UPDATE rule_runs SET matches = ?2, transactions = ?2 WHERE id = ?1";
static const char SQL_RUN_DROP[] = "DELETE FROM rule_runs WHERE id = ?1";
/* The run is recorded as a rule run is (rule_run_rows with each row's
 * snapshot), with merchant_normalized in the snapshot, so that
 * DELETE /api/rules/apply/{run_id} puts it back (snapshot.c).  The rows
 * are written in chunks, the filled rows of ids lo (?2) to hi (?3): those
 * nobody else sees (SQL_SHARED_ROW), or all of them (?4), which then
 * leave the fill. */
/* Each reads the chunk's filled rows and looks their rows up by id: a
 * join the planner would drive from transactions walks every user's rows
 * in the chunk's id range. */
static const char SQL_RUN_SNAPSHOT[] =
    "INSERT INTO rule_run_rows (run_id, transaction_id, snapshot)"
    " SELECT ?1, t.id, json_set(" SNAPSHOT_JSON("t") ", '$.merchant_normalized', t.merchant_normalized)"
    "   FROM temp.merchant_fill f CROSS JOIN transactions t ON t.id = f.id"
    "  WHERE f.id BETWEEN ?2 AND ?3 AND (?4 OR NOT " SQL_SHARED_ROW("t") ")";
static const char SQL_RUN_APPLY[] =
    "UPDATE transactions SET"
    " merchant_normalized = (SELECT f.name FROM temp.merchant_fill f WHERE f.id = transactions.id),"
    " eff_merchant = COALESCE(override_merchant_normalized,"
    "                         (SELECT f.name FROM temp.merchant_fill f WHERE f.id = transactions.id),"
    "                         merchant, '')"
    " WHERE id IN (SELECT id FROM temp.merchant_fill WHERE id BETWEEN ?2 AND ?3)"
    "   AND (?4 OR NOT " SQL_SHARED_ROW("transactions") ")";
static const char SQL_FILL_DONE[] =
    "DELETE FROM temp.merchant_fill WHERE id BETWEEN ?2 AND ?3"
    "   AND (?4 OR NOT EXISTS (SELECT 1 FROM transactions t"
    "                           WHERE t.id = merchant_fill.id AND " SQL_SHARED_ROW("t") "))";
/* The last id of the next chunk after ?1: JOB_CHUNK_ROWS filled rows,
 * those nobody else sees or all of them (?2); NULL when none is left. */
static const char SQL_CHUNK_END[] =
    "SELECT max(id) FROM (SELECT f.id FROM temp.merchant_fill f CROSS JOIN transactions t ON t.id = f.id"
    "                      WHERE f.id > ?1 AND (?2 OR NOT " SQL_SHARED_ROW("t") ")"
    "                      ORDER BY f.id LIMIT ?3)";

static int fill_rows(ledger_db *db, int64_t me, int renamed, int64_t *n, ledger_error *err)
{
    sqlite3_stmt *st;
    char name[MERCHANT_CLEAN_MAX];
    int rc;

    *n = 0;
    if (db_exec(db, err, "merchant run", SQL_FILL_CLEAR) || (st = db_stmt(db, SQL_RUN_ROWS, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int(st, 2, renamed);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);

        if (merchant_derive(db, me, (const char *)sqlite3_column_text(st, 1), name, err))
            goto fail;
        if (name[0] == '\0')
            continue;
        if (db_exec(db, err, "merchant run", SQL_FILL_ADD, DB_INT(id), DB_TEXT(name)))
            goto fail;
        (*n)++;
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "merchant run");
    return LEDGER_OK;
fail:
    db_stmt_done(st);
    return LEDGER_ERR;
}

/* Writes the filled rows of ids lo to hi (those nobody else sees, or all)
 * to run run_id: their snapshots, then their names. */
static int apply_rows(ledger_db *db, int64_t run_id, int64_t lo, int64_t hi, int all,
                      ledger_error *err)
{
    if (db_exec(db, err, "merchant run", SQL_RUN_SNAPSHOT, DB_INT(run_id), DB_INT(lo), DB_INT(hi),
                DB_INT(all))
        || db_exec(db, err, "merchant run", SQL_RUN_APPLY, DB_INT(run_id), DB_INT(lo), DB_INT(hi),
                   DB_INT(all))
        || db_exec(db, err, "merchant run", SQL_FILL_DONE, DB_INT(run_id), DB_INT(lo), DB_INT(hi),
                   DB_INT(all)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

/* One pass of the run: its rows found (in a job, in a read transaction),
 * then written JOB_CHUNK_ROWS at a time, a job's each chunk in a write
 * transaction of its own; *n is how many.  Rows another user sees stay in
 * the fill for the run's last transaction, but those of the first pass
 * (renamed): the override each has stays its effective merchant, so
 * nobody sees them change. */
static int run_pass(ledger_db *db, int64_t me, int64_t run_id, int renamed, struct job *job,
                    int64_t *n, ledger_error *err)
{
    int64_t lo = 0, hi;

    if (job_switch(db, job, 0, err) || fill_rows(db, me, renamed, n, err)
        || job_switch(db, job, 1, err))
        return LEDGER_ERR;
    while (*n > 0) {
        if (db_int(db, err, "merchant run", &hi, 0, SQL_CHUNK_END, DB_INT(lo), DB_INT(renamed),
                   DB_INT(JOB_CHUNK_ROWS)))
            return LEDGER_ERR;
        if (hi == 0)
            break;
        if (apply_rows(db, run_id, lo + 1, hi, renamed, err) || job_yield(db, job, 0, err))
            return LEDGER_ERR;
        lo = hi;
    }
    return LEDGER_OK;
}

/* The run, in the caller's transaction or (job not NULL) as a job. */
static int merchant_run(ledger_db *db, int64_t me, struct job *job, cJSON **out,
                        ledger_error *err)
{
    int64_t n_renamed = 0, rest = 0, run_id;
    cJSON *doc;

    *out = NULL;
    if (db_exec(db, err, "merchant run", SQL_RUN_INSERT, DB_INT(me)))
        return LEDGER_ERR;
    run_id = sqlite3_last_insert_rowid(db->sql);
    if (job_note(db, job, run_id, 0, 0, 0, err)
        || run_pass(db, me, run_id, 1, job, &n_renamed, err))
        return LEDGER_ERR;
    /* The renamed rows now carry their cleaned names: read them again. */
    merchant_renames_forget(db);
    if (run_pass(db, me, run_id, 0, job, &rest, err)
        || job_yield(db, job, 1, err)
        || apply_rows(db, run_id, 0, INT64_MAX, 1, err))
        return LEDGER_ERR;
    if (n_renamed + rest > 0) {
        if (db_exec(db, err, "merchant run", SQL_RUN_COUNT, DB_INT(run_id), DB_INT(n_renamed + rest)))
            return LEDGER_ERR;
        return rule_run_get(db, me, run_id, out, NULL, err);
    }
    /* No row to fill records no run: there is nothing to revert. */
    if (db_exec(db, err, "merchant run", SQL_RUN_DROP, DB_INT(run_id)))
        return LEDGER_ERR;
    if ((doc = cJSON_CreateObject()) == NULL || cJSON_AddNullToObject(doc, "run_id") == NULL
        || cJSON_AddNumberToObject(doc, "matches", 0) == NULL
        || cJSON_AddNumberToObject(doc, "transactions", 0) == NULL) {
        cJSON_Delete(doc);
        return ledger_error_oom(err);
    }
    *out = doc;
    return LEDGER_OK;
}

/* Outside a transaction, a job (job.c), undone as a rule apply is (from
 * its run's snapshots) should it fail. */
int ledger_merchant_run(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    struct job job;
    int rc;

    if (db->in_txn)
        return merchant_run(db, me, NULL, out, err);
    if (job_start(db, me, "rule_apply", &job, err))
        return LEDGER_ERR;
    rc = ledger_begin(db, 1, err) || merchant_run(db, me, &job, out, err)
         || job_done(db, &job, err) || ledger_commit(db, err);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    job_end(db, &job);
    return rc ? LEDGER_ERR : LEDGER_OK;
}
