/*
 * Where suggestions show and are taken: the list of the caller's rows
 * without a category, each with its suggestion; applying a chosen set
 * (all or nothing); and the automatic run after a statement import.
 * Applying writes override_category on rows that have no category, as a
 * recorded run (rule_runs with suggestions = 1, a snapshot of every row
 * in rule_run_rows) that DELETE /api/rules/apply/{run_id} reverts like a
 * rule run.  A category a user or a rule set is never replaced, and a
 * rule run later always wins (it writes its category over a suggested
 * one, as over any).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"
#include "rule.h"
#include "suggest.h"

#define LIMIT_DEFAULT 50
/* The most rows one apply takes: one chunk of a run's snapshot. */
#define APPLY_MAX 4096
#define RUN_NAME "category suggestions"

/* The caller's rows without a category, newest first (the
 * transactions_owner_category index holds them in that order). */
#define UNCATEGORISED \
    " FROM transactions t WHERE t.owner_id = ?1 AND t.eff_category IS NULL" \
    "   AND t.reconciled_with_id IS NULL"
static const char SQL_LIST[] =
    "SELECT t.id, t.date, t.description, t.eff_merchant, t.amount, t.transaction_type"
    UNCATEGORISED " ORDER BY t.date DESC, t.id DESC LIMIT ?2 OFFSET ?3";
static const char SQL_COUNT[] = "SELECT COUNT(*)" UNCATEGORISED;
static const char SQL_ROW[] =
    "SELECT owner_id, eff_category, description, eff_merchant, transaction_type"
    "  FROM transactions WHERE id = ?1";
static const char SQL_RUN_INSERT[] =
    "INSERT INTO rule_runs (id, owner_id, rule_id, rule_name, source, matches, transactions,"
    "                       suggestions)"
    " VALUES (" NEXT_ID("rule_runs") ", ?1, NULL, '" RUN_NAME "', 'selection', ?2, ?2, 1)";
static const char SQL_SET[] =
    "UPDATE transactions SET override_category = ?2, eff_category = ?2"
    " WHERE id = ?1 AND eff_category IS NULL";
static const char SQL_MATCHES_CLEAR[] = "DELETE FROM temp.rule_matches";
static const char SQL_MATCHES_ADD[] = "INSERT INTO temp.rule_matches (id) VALUES (?1)";
static const char SQL_THRESHOLD[] = "SELECT threshold FROM suggest_settings WHERE user_id = ?1";
/* The rows just written are the last by id: they are read by the id's
 * range (the + keeps SQLite from the owner's category index, where it
 * would walk every uncategorised row of the owner for each manual row). */
static const char SQL_NEW_ROWS[] =
    "SELECT t.id, t.description, t.eff_merchant, t.transaction_type FROM transactions t"
    " WHERE +t.owner_id = ?1 AND t.eff_category IS NULL AND t.reconciled_with_id IS NULL"
    "   AND t.id > ?2 ORDER BY t.id";

static cJSON *suggestion_object(const struct suggestion *s)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || !cJSON_AddStringToObject(o, "category", s->category)
        || !cJSON_AddNumberToObject(o, "confidence", s->confidence / 100.0)
        || !cJSON_AddStringToObject(o, "source", s->source)
        || !cJSON_AddStringToObject(o, "reason", s->reason)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int ledger_suggestion_list(ledger_db *db, int64_t me, const struct ledger_params *p, cJSON **out,
                           ledger_error *err)
{
    struct page page;
    int64_t total = 0, n = 0;
    cJSON *doc = NULL, *items, *row;
    sqlite3_stmt *st;
    const char *v;
    int rc;

    if (page_parse(p, LIMIT_DEFAULT, &page, err))
        return LEDGER_ERR;
    if ((v = param_get(p, "cursor")) && *v && parse_whole(v, 0, PAGE_OFFSET_MAX, &page.offset))
        return error_field(err, "cursor", "cursor is not one this list gave out");
    if (db_int(db, err, "suggestions", &total, 0, SQL_COUNT, DB_INT(me))
        || (st = db_stmt(db, SQL_LIST, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, page.limit);
    sqlite3_bind_int64(st, 3, page.offset);
    doc = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(doc, "items");
    /* The page is read whole before any suggestion: a suggestion runs
     * statements of its own. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "transaction_id", (double)sqlite3_column_int64(st, 0));
        json_text_col(row, "date", st, 1);
        json_text_col(row, "description", st, 2);
        json_text_col(row, "merchant", st, 3);
        json_money_col(row, "amount", st, 4);
        json_text_col(row, "transaction_type", st, 5);
        cJSON_AddItemToArray(items, row);
        n++;
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "suggestions");
        goto fail;
    }
    if (doc == NULL || items == NULL)
        goto oom;
    cJSON_ArrayForEach(row, items) {
        struct suggestion s;
        const cJSON *m = json_get(row, "merchant"), *d = json_get(row, "description"),
                    *t = json_get(row, "transaction_type");
        int found;
        cJSON *o;

        if (!cJSON_IsString(m) || !cJSON_IsString(d) || !cJSON_IsString(t))
            goto oom;
        if (suggest_row(db, me, d->valuestring, m->valuestring, t->valuestring, &s, &found, err))
            goto fail;
        o = found ? suggestion_object(&s) : cJSON_CreateNull();
        if (o == NULL || !cJSON_AddItemToObject(row, "suggestion", o)) {
            cJSON_Delete(o);
            goto oom;
        }
    }
    page_footer(doc, &page, (int64_t)n, (int64_t)total);
    *out = doc;
    return LEDGER_OK;
oom:
    ledger_error_oom(err);
fail:
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

struct pick {
    int64_t id;
    char category[LEDGER_CATEGORY_MAX];
};

static int by_id(const void *a, const void *b)
{
    return cmp_int64(&((const struct pick *)a)->id, &((const struct pick *)b)->id);
}

/* Records and applies picks[0..n) (sorted by id, every row the caller's
 * and without a category): one run; its record goes to *out. */
static int apply_picks(ledger_db *db, int64_t me, struct pick *picks, size_t n, cJSON **out,
                       ledger_error *err)
{
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids), run_id;
    size_t i;
    int rc = LEDGER_ERR;

    if (ids == NULL)
        return ledger_error_oom(err);
    for (i = 0; i < n; i++)
        ids[i] = picks[i].id;
    if (db_exec(db, err, "suggestions", SQL_RUN_INSERT, DB_INT(me), DB_INT(n)))
        goto out;
    run_id = sqlite3_last_insert_rowid(db->sql);
    /* The rows go where a rule run's matches go, for its snapshot. */
    if (db_exec(db, err, "suggestions", SQL_MATCHES_CLEAR))
        goto out;
    for (i = 0; i < n; i++)
        if (db_exec(db, err, "suggestions", SQL_MATCHES_ADD, DB_INT(ids[i])))
            goto out;
    if (rule_chunk_fill(db, ids, n, err) || rule_run_snapshot(db, run_id, err))
        goto out;
    for (i = 0; i < n; i++)
        if (db_exec(db, err, "suggestions", SQL_SET, DB_INT(picks[i].id), DB_TEXT(picks[i].category)))
            goto out;
    rc = rule_run_get(db, me, run_id, out, NULL, err);
out:
    free(ids);
    return rc;
}

/* One item of the body: its row checked (the caller's, without a
 * category) and its category (given, or the row's suggestion now). */
static int read_pick(ledger_db *db, int64_t me, const cJSON *item, size_t i, struct pick *pk,
                     ledger_error *err)
{
    const cJSON *id = json_get(item, "transaction_id"), *cat = json_get(item, "category");
    sqlite3_stmt *st;
    struct suggestion s;
    char *desc = NULL, *merchant = NULL, *type = NULL;
    int64_t owner = 0;
    int rc, has_category = 0, found = 0;

    if (!cJSON_IsObject(item) || !cJSON_IsNumber(id) || id->valuedouble < 1
        || id->valuedouble != (double)(int64_t)id->valuedouble)
        return ledger_error_set(err, 400, "invalid_field", "items",
                                "items[%zu]: give an object with a transaction_id", i);
    pk->id = (int64_t)id->valuedouble;
    if (cat && !cJSON_IsNull(cat)) {
        if (!cJSON_IsString(cat))
            return ledger_error_set(err, 400, "invalid_field", "items",
                                    "items[%zu].category: give a category name", i);
        if (category_resolve(db, me, NULL, cat->valuestring, pk->category, err))
            return LEDGER_ERR;
        has_category = 1;
    }
    if ((st = db_stmt(db, SQL_ROW, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, pk->id);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        owner = sqlite3_column_int64(st, 0);
        has_category |= (sqlite3_column_type(st, 1) != SQLITE_NULL) << 1;
        desc = db_column_dup(st, 2);
        merchant = db_column_dup(st, 3);
        type = db_column_dup(st, 4);
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        rc = db_error(db, err, "suggestions");
        goto out;
    }
    if (rc == SQLITE_DONE) {
        rc = ledger_error_set(err, 404, "not_found", "items", "items[%zu]: transaction %lld not found",
                              i, (long long)pk->id);
        goto out;
    }
    if (owner != me) {
        rc = ledger_error_set(err, 403, "forbidden", "items",
                              "items[%zu]: suggestions apply only to your own transactions", i);
        goto out;
    }
    if (has_category & 2) {
        rc = ledger_error_set(err, 409, "conflict", "items",
                              "items[%zu]: transaction %lld has a category; a suggestion never"
                              " replaces one", i, (long long)pk->id);
        goto out;
    }
    if (desc == NULL || merchant == NULL || type == NULL) {
        rc = ledger_error_oom(err);
        goto out;
    }
    rc = LEDGER_OK;
    if (has_category & 1)
        goto out;
    if ((rc = suggest_row(db, me, desc, merchant, type, &s, &found, err)))
        goto out;
    if (!found)
        rc = ledger_error_set(err, 409, "conflict", "items",
                              "items[%zu]: transaction %lld has no suggestion: give a category", i,
                              (long long)pk->id);
    else
        memcpy(pk->category, s.category, sizeof pk->category);
out:
    free(desc);
    free(merchant);
    free(type);
    return rc;
}

int ledger_suggestion_apply(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                            ledger_error *err)
{
    const cJSON *items = json_get(body, "items"), *item;
    struct pick *picks;
    size_t n, i = 0;
    int rc = LEDGER_ERR;

    if (field_require_object(body, err))
        return LEDGER_ERR;
    if (!cJSON_IsArray(items) || (n = (size_t)cJSON_GetArraySize(items)) == 0)
        return error_field(err, "items", "give items: a non-empty array of"
                                         " {transaction_id, category}");
    if (n > APPLY_MAX)
        return error_field(err, "items", "at most %d items at once", APPLY_MAX);
    if ((picks = calloc(n, sizeof *picks)) == NULL)
        return ledger_error_oom(err);
    cJSON_ArrayForEach(item, items) {
        if (read_pick(db, me, item, i, &picks[i], err))
            goto out;
        i++;
    }
    qsort(picks, n, sizeof *picks, by_id);
    for (i = 1; i < n; i++)
        if (picks[i].id == picks[i - 1].id) {
            error_field(err, "items", "transaction %lld is named twice", (long long)picks[i].id);
            goto out;
        }
    rc = apply_picks(db, me, picks, n, out, err);
out:
    free(picks);
    return rc;
}

int suggest_auto(ledger_db *db, int64_t me, int64_t after_id, cJSON **run, ledger_error *err)
{
    struct pick *picks = NULL;
    size_t n = 0, cap = 0, i;
    int64_t threshold = 0;
    int has_threshold = 0, rc = LEDGER_ERR, step;
    sqlite3_stmt *st;
    struct {
        int64_t id;
        char *d, *m, *t;
    } *rows = NULL;
    size_t nrows = 0, rcap = 0;

    *run = NULL;
    if ((st = db_stmt(db, SQL_THRESHOLD, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if ((step = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        has_threshold = 1;
        threshold = sqlite3_column_int64(st, 0);
    }
    db_stmt_done(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return db_error(db, err, "suggestions");
    /* Past 100 nothing passes: no row need be looked at. */
    if (has_threshold && threshold > 100)
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_NEW_ROWS, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, after_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW && nrows < APPLY_MAX) {
        if (nrows == rcap) {
            void *nv = realloc(rows, (rcap = rcap ? 2 * rcap : 64) * sizeof *rows);

            if (nv == NULL)
                break;
            rows = nv;
        }
        rows[nrows].id = sqlite3_column_int64(st, 0);
        rows[nrows].d = db_column_dup(st, 1);
        rows[nrows].m = db_column_dup(st, 2);
        rows[nrows].t = db_column_dup(st, 3);
        nrows++;
        if (!rows[nrows - 1].d || !rows[nrows - 1].m || !rows[nrows - 1].t)
            break;
    }
    db_stmt_done(st);
    if (step == SQLITE_ROW && nrows < APPLY_MAX) {
        ledger_error_oom(err);
        goto out;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        db_error(db, err, "suggestions");
        goto out;
    }
    for (i = 0; i < nrows; i++) {
        struct suggestion s;
        int found;

        /* The default takes merchant memory alone, so only it is read. */
        if (has_threshold ? suggest_row(db, me, rows[i].d, rows[i].m, rows[i].t, &s, &found, err)
                          : suggest_memory(db, me, rows[i].m, &s, &found, err))
            goto out;
        if (!found || !suggest_passes(&s, has_threshold, threshold))
            continue;
        if (n == cap) {
            void *nv = realloc(picks, (cap = cap ? 2 * cap : 64) * sizeof *picks);

            if (nv == NULL) {
                ledger_error_oom(err);
                goto out;
            }
            picks = nv;
        }
        picks[n].id = rows[i].id;
        memcpy(picks[n].category, s.category, sizeof picks[n].category);
        n++;
    }
    rc = n ? apply_picks(db, me, picks, n, run, err) : LEDGER_OK;
out:
    for (i = 0; i < nrows; i++) {
        free(rows[i].d);
        free(rows[i].m);
        free(rows[i].t);
    }
    free(rows);
    free(picks);
    return rc;
}

int suggestion_run_add(cJSON *doc, cJSON *run, ledger_error *err)
{
    cJSON *v = run ? run : cJSON_CreateNull();

    if (v == NULL || !cJSON_AddItemToObject(doc, "suggestion_run", v)) {
        cJSON_Delete(v);
        return ledger_error_oom(err);
    }
    return LEDGER_OK;
}

int ledger_suggestion_settings(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                               ledger_error *err)
{
    static const char SQL_SET_THRESHOLD[] =
        "INSERT INTO suggest_settings (user_id, threshold) VALUES (?1, ?2)"
        " ON CONFLICT (user_id) DO UPDATE SET threshold = excluded.threshold";
    static const char SQL_CLEAR_THRESHOLD[] = "DELETE FROM suggest_settings WHERE user_id = ?1";
    const cJSON *t = json_get(body, "threshold");
    int64_t threshold = 0;
    int has = 0, step;
    sqlite3_stmt *st;

    if (body) {
        if (field_require_object(body, err))
            return LEDGER_ERR;
        if (t == NULL)
            return error_field(err, "threshold", "give threshold: null (merchant memory only)"
                                                 " or a number from 0 to 1.01");
        if (!cJSON_IsNull(t)) {
            if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 1.01)
                return error_field(err, "threshold", "threshold is null or a number from 0 to"
                                                     " 1.01 (1.01: never automatically)");
            threshold = (int64_t)(t->valuedouble * 100 + 0.5);
            has = 1;
        }
        if (has ? db_exec(db, err, "suggestions", SQL_SET_THRESHOLD, DB_INT(me), DB_INT(threshold))
                : db_exec(db, err, "suggestions", SQL_CLEAR_THRESHOLD, DB_INT(me)))
            return LEDGER_ERR;
    }
    if ((st = db_stmt(db, SQL_THRESHOLD, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    step = sqlite3_step(st);
    has = step == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
    threshold = has ? sqlite3_column_int64(st, 0) : 0;
    db_stmt_done(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return db_error(db, err, "suggestions");
    if ((*out = cJSON_CreateObject()) == NULL)
        return ledger_error_oom(err);
    if (has ? !cJSON_AddNumberToObject(*out, "threshold", threshold / 100.0)
            : !cJSON_AddNullToObject(*out, "threshold")) {
        cJSON_Delete(*out);
        *out = NULL;
        return ledger_error_oom(err);
    }
    return LEDGER_OK;
}
