/*
 * CSV import: preview a bank export with a column mapping, then commit the
 * (possibly edited) preview rows as manual transactions.
 *
 * The preview writes nothing and never fails on a bad row: each row carries
 * its own errors, and duplicate_of names an existing row with the same
 * date, amount and description.  The commit is all or nothing; every row
 * it creates is the caller's, has statement_id NULL, belongs to one
 * csv_imports batch and carries the tag csv-import.  Duplicates of
 * existing rows are skipped unless allow_duplicates.  Column-mapping
 * presets live with the client (contrib/csv-presets/), as the
 * specification says: the server keeps no state between the two calls.
 *
 * The commit writes its rows with one INSERT ... SELECT from a temporary
 * table rather than one INSERT per row (each statement that fires
 * triggers pays for its own statement journal and trigger frames), and
 * adds them to the spend and visible-row summaries grouped, once, with
 * the per-row insert triggers held off (schema 0011), and to the search
 * index (0017) the same way.  Per row, the summaries cost two thirds of a
 * 100,000-row commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "internal.h"

#define COMMIT_ROWS_MAX 100000
#define DESCRIPTION_MAX 1000

/* A reconciled manual row is hidden, but it is still there: importing the
 * same line again would count the spend twice.  It names the statement row
 * it was reconciled with, the one the caller sees. */
/* The ?6-th (from 0) of the rows a line duplicates, as the rows they stand
 * for: a manual row reconciled with a statement row is that row. */
static const char SQL_DUPLICATE[] =
    "SELECT DISTINCT COALESCE(reconciled_with_id, id) AS target FROM transactions"
    " WHERE owner_id = ?1 AND date = ?2 AND amount = ?3 AND description = ?4"
    "   AND transaction_type IN (SELECT value FROM json_each(?5))"
    " ORDER BY target LIMIT 1 OFFSET ?6";
static const char SQL_IMPORT_BATCH[] = "INSERT INTO csv_imports (owner_id) VALUES (?)";
static const char SQL_IMPORT_COUNT[] = "UPDATE csv_imports SET row_count = ? WHERE id = ?";
static const char SQL_CSV_TAG[] =
    "SELECT id FROM tags WHERE owner_id = ? AND name = '" LEDGER_TAG_CSV_IMPORT "' COLLATE NOCASE";
static const char SQL_CSV_TAG_NEW[] =
    "INSERT INTO tags (id, owner_id, name, color)"
    " VALUES (" NEXT_ID("tags") ", ?, '" LEDGER_TAG_CSV_IMPORT "', '#888888')";
static const char SQL_PENDING_CLEAR[] = "DELETE FROM temp.csv_rows";
static const char SQL_PENDING[] =
    "INSERT INTO temp.csv_rows (date, description, merchant, category, type, amount, currency,"
    " payment_method, amount_aud, rate) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
/* The columns a manual row from a CSV file has (statement_row_insert's,
 * less those a CSV row never sets), in the rows' order, with the ids after
 * ?3, the base schema 0023 gives (SQL_ID_BASE: read first, as a subquery
 * on transactions here would make SQLite copy the whole SELECT aside
 * before writing).  The staged rows' seq counts from 1 (the table is
 * emptied before each file), so their ids are ?3 + 1 on, in order, known
 * without RETURNING (which kept 100,000 ids aside to hand back); with no
 * base SQLite gives the ids, and RETURNING says which. */
static const char SQL_ID_BASE[] = "SELECT " ROW_ID_BASE("transactions");
#define WRITE_ROWS                                                                             \
    "INSERT INTO transactions (id, statement_id, owner_id, date, description, merchant, category," \
    " transaction_type, amount, currency, payment_method, import_id, eff_category, eff_merchant," \
    " amount_aud, exchange_rate_to_aud)"                                                        \
    " SELECT ?3 + seq, NULL, ?1, date, description, merchant, category, type, amount, currency,"  \
    "        payment_method, ?2, category, COALESCE(merchant, ''), amount_aud, rate"              \
    "   FROM temp.csv_rows ORDER BY seq"
static const char SQL_WRITE[] = WRITE_ROWS;
static const char SQL_WRITE_RETURNING[] = WRITE_ROWS " RETURNING id";
/* See schema/0011_bulk_insert.sql.  The new rows are those of the batch
 * between the lowest and the highest new id (?1, ?2): a range of the
 * primary key, read in order.  When the range holds no more ids than the
 * batch has rows, it holds nothing else (ids are unique), and the rows are
 * read once; otherwise (a range with another writer's rows in it: not
 * seen, as the commit holds the write lock and SQLite hands out the ids
 * after the highest, but not ruled out) the batch (?3) picks them.  Their
 * sums are grouped in memory (group_sum.c), not by GROUP BY. */
#define NEW_ROWS_DENSE " WHERE id BETWEEN ?1 AND ?2"
#define NEW_ROWS_BATCH                                                                     \
    " WHERE id BETWEEN ?1 AND ?2 AND id IN (SELECT id FROM transactions"                 \
    "                                       WHERE id BETWEEN ?1 AND ?2 AND import_id = ?3)"
#define BULK_SPEND(new_rows) \
    "SELECT owner_id, month, category, cents FROM spend_contribution" new_rows
/* New rows have no splits, so no viewer but their owner (see 0011). */
#define BULK_VISIBLE(new_rows)                                                             \
    "SELECT viewer_id, month, category, type, manual, split, 1 FROM visible_own_rows" new_rows
/* The search index's entries for the new rows (schema 0017), from the
 * view its triggers write from.  (They have no normalized merchant, so
 * nothing for merchants_search.) */
#define BULK_SEARCH(new_rows) SEARCH_ENTRIES_ADD new_rows
static const char SQL_BULK_BEGIN[] = "INSERT INTO bulk_insert (only_row) VALUES (1)";
static const char SQL_BULK_END[] = "DELETE FROM bulk_insert";
static const char SQL_BULK_SPEND_DENSE[] = BULK_SPEND(NEW_ROWS_DENSE);
static const char SQL_BULK_SPEND_BATCH[] = BULK_SPEND(NEW_ROWS_BATCH);
static const char SQL_BULK_VISIBLE_DENSE[] = BULK_VISIBLE(NEW_ROWS_DENSE);
static const char SQL_BULK_VISIBLE_BATCH[] = BULK_VISIBLE(NEW_ROWS_BATCH);
static const char SQL_BULK_SEARCH_DENSE[] = BULK_SEARCH(NEW_ROWS_DENSE);
static const char SQL_BULK_SEARCH_BATCH[] = BULK_SEARCH(NEW_ROWS_BATCH);
static const char SQL_SPEND_ADD[] =
    "INSERT INTO spend_monthly (owner_id, month, category, cents) VALUES (?1, ?2, ?3, ?4)"
    " ON CONFLICT (owner_id, month, category) DO UPDATE SET cents = cents + excluded.cents";
static const char SQL_VISIBLE_ADD[] =
    "INSERT INTO visible_count (viewer_id, month, category, type, manual, split, n)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    " ON CONFLICT (viewer_id, month, category, type, manual, split) DO UPDATE SET n = n + excluded.n";
static const char SQL_LINK[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT id, ?4 FROM transactions WHERE id BETWEEN ?1 AND ?2 AND import_id = ?3";

static int exec2(ledger_db *db, const char *sql, int64_t a, int64_t b, ledger_error *err);

/* The id of an existing row that this one would duplicate, or 0: the
 * nth (from 0) of them, for the nth line of the file that is the same.
 * Money out and money in are told apart (a purchase and its refund of the
 * same amount on one day are two rows). */
static int find_duplicate(ledger_db *db, int64_t me, const char *date, int64_t amount,
                          const char *description, int out, int64_t nth, int64_t *id,
                          ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_DUPLICATE, err);
    int rc;

    *id = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, date);
    sqlite3_bind_int64(st, 3, amount);
    db_bind_text(db, st, 4, description);
    sqlite3_bind_text(st, 5, out ? "[\"debit\",\"fee\",\"interest\"]"
                                 : "[\"credit\",\"refund\",\"payment\"]", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, nth);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "duplicate");
}

/* One line to look for: money out (debit, fee, interest) or in.  A line
 * with no date is not looked for. */
struct dup_key {
    const char *date, *description;
    int64_t amount;
    int out;
};

/* From this many lines on, the duplicates are found in one pass over the
 * caller's rows of the file's dates, each looked up among the lines (sorted
 * by their key, here), rather than a lookup per line: a line's lookup reads
 * every row of the caller's with its amount, so a file of a hundred
 * thousand lines cost each of them a read of every row with its amount
 * (seconds where amounts repeat); the pass reads each row once.  The lines
 * are sorted in memory rather than staged in a keyed temporary table: a
 * hundred thousand single-row inserts cost more than the pass itself. */
#define DUP_PASS_MIN 200

static const char SQL_DUP_PASS[] =
    "SELECT id, COALESCE(reconciled_with_id, id), date, amount, description,"
    "       transaction_type IN ('debit', 'fee', 'interest'),"
    "       transaction_type IN ('credit', 'refund', 'payment')"
    "  FROM transactions WHERE owner_id = ?1 AND date BETWEEN ?2 AND ?3";

/* The order of a line's key: amount, date, direction, description (text
 * compared as SQL's = compares it: bytes).  The amount first: it tells
 * most lines apart with one integer comparison, where dates share their
 * first bytes. */
static int key_cmp(const struct dup_key *a, const struct dup_key *b)
{
    int c = (a->amount > b->amount) - (a->amount < b->amount);

    if (c == 0)
        c = strcmp(a->date, b->date);
    if (c == 0)
        c = (a->out > b->out) - (a->out < b->out);
    return c != 0 ? c : strcmp(a->description, b->description);
}

/* By key, then in the file's order: the same lines stay in their order. */
static int key_ptr_cmp(const void *a, const void *b)
{
    const struct dup_key *x = *(const struct dup_key *const *)a, *y = *(const struct dup_key *const *)b;
    int c = key_cmp(x, y);

    return c != 0 ? c : (x > y) - (x < y);
}

/* A stored row that the lines from sorted[group] on are the same as. */
struct dup_match {
    size_t group;
    int64_t target;
};

static int match_cmp(const void *a, const void *b)
{
    const struct dup_match *x = a, *y = b;

    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->target > y->target) - (x->target < y->target);
}

/* The first of the n sorted lines whose key is not below key's. */
static size_t key_lower_bound(const struct dup_key *const *sorted, size_t n,
                              const struct dup_key *key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (key_cmp(sorted[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* dup[i]: the row line k[i] duplicates (as find_duplicate), or 0.  One
 * stored row stands for one line: the nth of several same lines is the
 * duplicate of the nth stored row like them, lowest id first, and the
 * lines past the rows stored are new.  Three identical purchases in an
 * export, two of them imported before, import the third (each line named
 * the one row, and the third purchase was skipped: an audit). */
static int find_duplicates(ledger_db *db, int64_t me, const struct dup_key *k, size_t n,
                           int64_t *dup, ledger_error *err)
{
    const struct dup_key **sorted = NULL;
    const char *lo = NULL, *hi = NULL;
    struct dup_match *match = NULL;
    sqlite3_stmt *st = NULL;
    size_t i, m = 0, nmatch = 0, cap = 0;
    int rc = LEDGER_ERR, step;

    memset(dup, 0, n * sizeof *dup);
    if (n < DUP_PASS_MIN) {
        for (i = 0; i < n; i++) {
            int64_t nth = 0;
            size_t j;

            if (k[i].date == NULL)
                continue;
            for (j = 0; j < i; j++)
                nth += k[j].date && key_cmp(&k[j], &k[i]) == 0;
            if (find_duplicate(db, me, k[i].date, k[i].amount, k[i].description, k[i].out, nth,
                               &dup[i], err))
                return LEDGER_ERR;
        }
        return LEDGER_OK;
    }
    if ((sorted = calloc(n, sizeof *sorted)) == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < n; i++) {
        if (k[i].date == NULL)
            continue;
        sorted[m++] = &k[i];
        if (lo == NULL || strcmp(k[i].date, lo) < 0)
            lo = k[i].date;
        if (hi == NULL || strcmp(k[i].date, hi) > 0)
            hi = k[i].date;
    }
    rc = LEDGER_OK;
    if (m == 0)
        goto out;
    qsort(sorted, m, sizeof *sorted, key_ptr_cmp);
    if ((st = db_stmt(db, SQL_DUP_PASS, err)) == NULL) {
        rc = LEDGER_ERR;
        goto out;
    }
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, lo);
    db_bind_text(db, st, 3, hi);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        struct dup_key row;
        size_t j;

        row.date = (const char *)sqlite3_column_text(st, 2);
        row.amount = sqlite3_column_int64(st, 3);
        row.description = (const char *)sqlite3_column_text(st, 4);
        row.out = sqlite3_column_int(st, 5);
        if (row.date == NULL || row.description == NULL
            || (!row.out && !sqlite3_column_int(st, 6)))
            continue;
        j = key_lower_bound(sorted, m, &row);
        if (j == m || key_cmp(sorted[j], &row) != 0)
            continue;
        if (nmatch == cap) {
            struct dup_match *nm = realloc(match, (cap = cap ? 2 * cap : 256) * sizeof *nm);

            if (nm == NULL) {
                rc = ledger_error_set(err, 500, "internal", NULL, "out of memory");
                goto out;
            }
            match = nm;
        }
        match[nmatch].group = j;
        match[nmatch++].target = sqlite3_column_int64(st, 1);
    }
    if (step != SQLITE_DONE) {
        rc = db_error(db, err, "duplicate");
        goto out;
    }
    /* Each group's distinct rows, lowest first, to its lines in order.
     * (With no match there is no array: qsort wants one all the same.) */
    if (nmatch > 1)
        qsort(match, nmatch, sizeof *match, match_cmp);
    for (i = 0; i < nmatch;) {
        size_t group = match[i].group, line = group;

        for (; i < nmatch && match[i].group == group; i++) {
            if (i > 0 && match[i - 1].group == group && match[i - 1].target == match[i].target)
                continue;
            if (line < m && key_cmp(sorted[line], sorted[group]) == 0)
                dup[sorted[line++] - k] = match[i].target;
        }
    }
out:
    if (st)
        db_stmt_done(st);
    free(match);
    free(sorted);
    return rc;
}

/* ---- the mapping ------------------------------------------------------------------------- */

static int bad_mapping(ledger_error *err, const char *key, const char *what)
{
    char field[48];

    snprintf(field, sizeof field, "mapping.%s", key);
    return ledger_error_set(err, 400, "invalid_field", field, "%s must be %s", field, what);
}

/* A column given as a name (string) or a 0-based index (number, and then
 * *number is set); the index's text goes into buf. */
static int mapping_column(const cJSON *m, const char *key, char *buf, size_t len,
                          const char **out, int *number, ledger_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
    int64_t idx;

    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return LEDGER_OK;
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return LEDGER_OK;
    }
    if (cJSON_IsNumber(v) && (v->valuestring && strcmp(v->valuestring, "0") == 0 ? 1 : json_id(v, &idx) == 0)) {
        snprintf(buf, len, "%s", v->valuestring ? v->valuestring : "0");
        *out = buf;
        *number = 1;
        return LEDGER_OK;
    }
    return bad_mapping(err, key, "a column name or a 0-based index");
}

struct mapping_text {
    char idx[5][24];
};

/* The mapping from a JSON object ({date, description, amount | debit +
 * credit, date_format, has_header, delimiter, negate, decimal,
 * skip_lines}). */
static int mapping_from_json(const cJSON *m, struct csv_mapping *out, struct mapping_text *t,
                             ledger_error *err)
{
    static const char *const cols[] = { "date", "description", "amount", "debit", "credit" };
    const char **slots[] = { &out->date, &out->description, &out->amount, &out->debit, &out->credit };
    const cJSON *v;
    size_t i;

    memset(out, 0, sizeof *out);
    out->has_header = -1;
    if (!cJSON_IsObject(m))
        return ledger_error_set(err, 400, "invalid_field", "mapping",
                                "mapping must be an object: {date, description, amount} or "
                                "{date, description, debit, credit}");
    for (i = 0; i < 5; i++) {
        int number = 0;

        if (mapping_column(m, cols[i], t->idx[i], sizeof t->idx[i], slots[i], &number, err))
            return LEDGER_ERR;
        out->numbers |= (unsigned)number << i;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "date_format")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v))
            return bad_mapping(err, "date_format", "a string such as \"DD/MM/YYYY\"");
        out->date_format = v->valuestring;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "has_header")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            return bad_mapping(err, "has_header", "true or false");
        out->has_header = cJSON_IsTrue(v);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "negate")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsBool(v))
            return bad_mapping(err, "negate", "true or false");
        out->negate = cJSON_IsTrue(v);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "delimiter")) && !cJSON_IsNull(v)) {
        const char *d = cJSON_IsString(v) ? v->valuestring : "";

        if (strcmp(d, "\\t") == 0 || strcmp(d, "tab") == 0)
            d = "\t";
        if (strlen(d) != 1)
            return bad_mapping(err, "delimiter", "one of , ; | or tab");
        out->delimiter = d[0];
    }
    /* The decimal mark, for when the guess was wrong: "." or ",". */
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "decimal")) && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v) || (strcmp(v->valuestring, ".") != 0 && strcmp(v->valuestring, ",") != 0))
            return bad_mapping(err, "decimal", "\".\" or \",\"");
        out->decimal = v->valuestring[0];
    }
    /* Lines above the header (csv.c): a JSON number, whole, as the
     * service read it ("3", not "3.0" or "3e0"), or as the query's
     * digits became one. */
    if ((v = cJSON_GetObjectItemCaseSensitive(m, "skip_lines")) && !cJSON_IsNull(v)) {
        int64_t k = -1;

        if (cJSON_IsNumber(v) && v->valuestring)
            parse_whole(v->valuestring, 0, CSV_MAX_SKIP, &k);
        else if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= CSV_MAX_SKIP
                 && v->valuedouble == (double)(int)v->valuedouble)
            k = (int)v->valuedouble;
        if (k < 0)
            return bad_mapping(err, "skip_lines", "a whole number of lines from 0 to 1000");
        out->skip_lines = (int)k;
    }
    return LEDGER_OK;
}

/* The same from query parameters (for a text/csv body). */
static int mapping_from_params(const struct ledger_params *p, cJSON **m, ledger_error *err)
{
    static const char *const keys[] = { "date", "description", "amount", "debit", "credit",
                                        "date_format", "delimiter", "decimal", NULL };
    const char *v;
    int i;

    *m = cJSON_CreateObject();
    for (i = 0; keys[i]; i++)
        if ((v = param_get(p, keys[i])) && *v)
            cJSON_AddStringToObject(*m, keys[i], v);
    /* Digits become the number the JSON body gives; anything else is
     * refused as the body's would be. */
    if ((v = param_get(p, "skip_lines")) && *v) {
        int64_t k;

        if (parse_whole(v, 0, CSV_MAX_SKIP, &k)) {
            cJSON_Delete(*m);
            *m = NULL;
            return bad_mapping(err, "skip_lines", "a whole number of lines from 0 to 1000");
        }
        cJSON_AddNumberToObject(*m, "skip_lines", (double)k);
    }
    for (i = 0; i < 2; i++) {
        const char *k = i ? "negate" : "has_header";

        if ((v = param_get(p, k))) {
            if (strcmp(v, "1") && strcmp(v, "true") && strcmp(v, "0") && strcmp(v, "false")) {
                cJSON_Delete(*m);
                *m = NULL;
                return bad_mapping(err, k, "true or false");
            }
            cJSON_AddBoolToObject(*m, k, v[0] == '1' || v[0] == 't');
        }
    }
    return LEDGER_OK;
}

/* ---- preview ----------------------------------------------------------------------------- */

int ledger_csv_preview(ledger_db *db, int64_t me, const char *csv, size_t len,
                       const cJSON *body, const struct ledger_params *params, cJSON **out,
                       ledger_error *err)
{
    struct csv_mapping map;
    struct mapping_text text;
    struct csv_result res;
    struct dup_key *keys = NULL;
    int64_t *dups = NULL;
    cJSON *own_mapping = NULL, *doc = NULL, *arr, *detected;
    const cJSON *mapping;
    char delim[3];
    size_t i;

    /* A JSON body {csv, mapping}, or the file itself with the mapping in
     * the query string. */
    if (body) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(body, "csv");

        if (field_require_object(body, err))
            return LEDGER_ERR;
        if (!cJSON_IsString(c))
            return ledger_error_set(err, 400, "invalid_field", "csv", "csv must be the file's text");
        csv = c->valuestring;
        len = strlen(csv);
        mapping = cJSON_GetObjectItemCaseSensitive(body, "mapping");
    } else {
        if (mapping_from_params(params, &own_mapping, err))
            return LEDGER_ERR;
        mapping = own_mapping;
    }
    if (mapping_from_json(mapping, &map, &text, err) || csv_parse(csv, len, &map, &res, err)) {
        cJSON_Delete(own_mapping);
        return LEDGER_ERR;
    }
    doc = cJSON_CreateObject();
    arr = cJSON_AddArrayToObject(doc, "columns");
    for (i = 0; i < res.ncolumns; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(res.columns[i]));
    /* What the commit would refuse is an error here already; the other
     * rows are looked for among the caller's. */
    keys = calloc(res.nrows ? res.nrows : 1, sizeof *keys);
    dups = calloc(res.nrows ? res.nrows : 1, sizeof *dups);
    if (keys == NULL || dups == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto fail;
    }
    for (i = 0; i < res.nrows; i++) {
        struct csv_row *r = &res.rows[i];

        if (!r->error[0] && r->description[0] == '\0')
            snprintf(r->error, sizeof r->error, "the description is empty");
        if (!r->error[0] && strlen(r->description) > DESCRIPTION_MAX)
            snprintf(r->error, sizeof r->error,
                     "the description is longer than %d bytes", DESCRIPTION_MAX);
        if (r->error[0] || !r->date[0] || !r->has_amount)
            continue;
        keys[i].date = r->date;
        keys[i].description = r->description;
        keys[i].amount = r->amount < 0 ? -r->amount : r->amount;
        keys[i].out = r->amount < 0;
    }
    if (find_duplicates(db, me, keys, res.nrows, dups, err))
        goto fail;
    arr = cJSON_AddArrayToObject(doc, "rows");
    for (i = 0; i < res.nrows; i++) {
        struct csv_row *r = &res.rows[i];
        cJSON *o = cJSON_CreateObject(), *errors = cJSON_CreateArray();
        int64_t dup = dups[i], mag = r->amount < 0 ? -r->amount : r->amount;

        cJSON_AddNumberToObject(o, "line", r->line);
        if (r->date[0])
            cJSON_AddStringToObject(o, "date", r->date);
        else
            cJSON_AddNullToObject(o, "date");
        cJSON_AddStringToObject(o, "description", r->description);
        if (r->has_amount) {
            cJSON_AddItemToObject(o, "amount", ledger_money_to_json(mag));
            cJSON_AddStringToObject(o, "transaction_type", r->amount < 0 ? "debit" : "credit");
        } else {
            cJSON_AddNullToObject(o, "amount");
            cJSON_AddNullToObject(o, "transaction_type");
        }
        if (r->error[0])
            cJSON_AddItemToArray(errors, cJSON_CreateString(r->error));
        if (dup)
            cJSON_AddNumberToObject(o, "duplicate_of", (double)dup);
        else
            cJSON_AddNullToObject(o, "duplicate_of");
        cJSON_AddItemToObject(o, "errors", errors);
        cJSON_AddItemToArray(arr, o);
    }
    detected = cJSON_AddObjectToObject(doc, "detected");
    if (res.delimiter == '\t')
        snprintf(delim, sizeof delim, "\\t");
    else
        snprintf(delim, sizeof delim, "%c", res.delimiter);
    cJSON_AddStringToObject(detected, "delimiter", delim);
    cJSON_AddBoolToObject(detected, "has_header", res.has_header);
    if (res.header_line > 0)
        cJSON_AddNumberToObject(detected, "header_line", res.header_line);
    else
        cJSON_AddNullToObject(detected, "header_line");
    cJSON_AddStringToObject(detected, "date_format", res.date_format);
    snprintf(delim, sizeof delim, "%c", res.decimal);
    cJSON_AddStringToObject(detected, "decimal", delim);
    cJSON_AddStringToObject(detected, "encoding", res.windows1252 ? "windows-1252" : "utf-8");
    csv_result_free(&res);
    cJSON_Delete(own_mapping);
    free(keys);
    free(dups);
    *out = doc;
    return LEDGER_OK;
fail:
    csv_result_free(&res);
    cJSON_Delete(own_mapping);
    cJSON_Delete(doc);
    free(keys);
    free(dups);
    return LEDGER_ERR;
}

/* ---- commit ------------------------------------------------------------------------------ */

/* The csv-import tag, made on the first import (the name is reserved for
 * this, so no user-made tag can have taken it). */
static int csv_tag(ledger_db *db, int64_t me, int64_t *id, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_CSV_TAG, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_CSV_TAG_NEW, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "csv-import tag");
    *id = sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}

/* Binds text that stays put until the statement is reset (NULL as NULL). */
static void bind_kept(sqlite3_stmt *st, int idx, const char *text)
{
    if (text)
        sqlite3_bind_text(st, idx, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, idx);
}

/* Stages the n rows of v that are not duplicates (dups[i] 0) in
 * temp.csv_rows (made by ledger_open), in their order.  The texts are the
 * request's and v's, alive past each row's step: bound, not copied. */
static int stage_rows(ledger_db *db, const struct statement_row *v, const int64_t *dups, size_t n,
                      ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PENDING, err);
    size_t i;
    int rc = SQLITE_DONE;

    if (st == NULL)
        return LEDGER_ERR;
    for (i = 0; i < n && rc == SQLITE_DONE; i++) {
        const struct statement_row *r = &v[i];

        if (dups[i])
            continue;
        bind_kept(st, 1, r->date);
        bind_kept(st, 2, r->description);
        bind_kept(st, 3, r->merchant);
        bind_kept(st, 4, r->category);
        bind_kept(st, 5, r->type);
        sqlite3_bind_int64(st, 6, r->amount);
        bind_kept(st, 7, r->currency ? r->currency : ledger_home_currency(db));
        bind_kept(st, 8, r->payment_method);
        if (r->has_amount_aud)
            sqlite3_bind_int64(st, 9, r->amount_aud);
        else
            sqlite3_bind_null(st, 9);
        bind_kept(st, 10, r->rate);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "csv import");
}

/* Runs sql over the new rows: ids lo..hi of the batch, and the tag. */
static int exec_new(ledger_db *db, const char *sql, int64_t lo, int64_t hi, int64_t batch,
                    int64_t tag, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, lo);
    sqlite3_bind_int64(st, 2, hi);
    sqlite3_bind_int64(st, 3, batch);
    sqlite3_bind_int64(st, 4, tag);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "csv import");
}


/* Writes the `staged` rows as the caller's batch; their ids, in the order
 * of the rows, in *ids. */
static int write_rows(ledger_db *db, int64_t me, int64_t batch, size_t staged, int64_t *ids,
                      size_t cap, size_t *n, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ID_BASE, err);
    int64_t base = 0;
    int rc, known;

    *n = 0;
    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    /* Past the largest id there is room for, or with no mark, ?3 stays
     * NULL and SQLite gives the ids (at random at the top). */
    known = rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER
            && sqlite3_column_int64(st, 0) <= INT64_MAX - (int64_t)cap;
    if (known)
        base = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(db, err, "csv import");
    if ((st = db_stmt(db, known ? SQL_WRITE : SQL_WRITE_RETURNING, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, batch);
    if (known)
        sqlite3_bind_int64(st, 3, base);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap)
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "csv import");
    if (known) {
        /* The last id is the base plus the last seq: with as many rows as
         * were staged, seq was 1 to that count.  (No rows: nothing to
         * check, and the last id is another statement's.) */
        if (staged > 0
            && ((size_t)sqlite3_changes(db->sql) != staged
                || sqlite3_last_insert_rowid(db->sql) != base + (int64_t)staged))
            return ledger_error_set(err, 500, "internal", NULL,
                                    "csv import: the rows did not take the ids expected");
        for (*n = 0; *n < staged && *n < cap; (*n)++)
            ids[*n] = base + (int64_t)*n + 1;
    } else {
        /* RETURNING promises no order; ids grow as rows are inserted. */
        qsort(ids, *n, sizeof *ids, cmp_int64);
    }
    return LEDGER_OK;
}

/* Gives each new row whose category was "refund" (refund[i]) its
 * merchant's usual category among the owner's rows, the file's included
 * (rule C): resolved as the rows were read, none of the file's rows
 * counted, and a refund at a merchant new to the ledger was "other"
 * whatever the file said.  Run after the summaries are written, so that
 * their update triggers move the row's spend to its category.  ids[] are
 * the new rows' ids, in the order of the rows not skipped (dups[i] 0). */
static int resolve_refunds(ledger_db *db, int64_t me, const struct statement_row *v,
                           const char *refund, const int64_t *dups, const int64_t *ids, size_t n,
                           ledger_error *err)
{
    size_t i, k = 0;

    for (i = 0; i < n; i++) {
        if (dups[i])
            continue;
        k++;
        if (refund[i] && category_resolve_refund_row(db, me, ids[k - 1], v[i].merchant, err))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

static int exec2(ledger_db *db, const char *sql, int64_t a, int64_t b, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, a);
    if (b)
        sqlite3_bind_int64(st, 2, b);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "csv import");
}

int ledger_csv_commit(ledger_db *db, int64_t me, const cJSON *body, cJSON **out, ledger_error *err)
{
    const cJSON *rows, *o, *allow;
    struct statement_row *v = NULL;
    char (*cats)[LEDGER_CATEGORY_MAX] = NULL;
    struct dup_key *keys = NULL;
    int64_t batch, tag, skipped = 0, *new_ids = NULL, *dups = NULL, range[3];
    cJSON *ids = NULL;
    char *refund = NULL;
    size_t n, i = 0, imported = 0, refunds = 0;
    int rc = LEDGER_ERR, bulk = 0, dense;

    if (field_require_object(body, err))
        return LEDGER_ERR;
    rows = cJSON_GetObjectItemCaseSensitive(body, "rows");
    allow = cJSON_GetObjectItemCaseSensitive(body, "allow_duplicates");
    if (allow && !cJSON_IsBool(allow) && !cJSON_IsNull(allow))
        return ledger_error_set(err, 400, "invalid_field", "allow_duplicates",
                                "allow_duplicates must be true or false");
    if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) < 1
        || cJSON_GetArraySize(rows) > COMMIT_ROWS_MAX)
        return ledger_error_set(err, 400, "invalid_field", "rows",
                                "rows must be an array of 1 to %d rows", COMMIT_ROWS_MAX);
    n = (size_t)cJSON_GetArraySize(rows);
    v = calloc(n, sizeof *v);
    cats = calloc(n, sizeof *cats);
    refund = calloc(n, 1);
    if (v == NULL || cats == NULL || refund == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    /* Every row is checked before the first is written. */
    cJSON_ArrayForEach(o, rows) {
        struct statement_row *r = &v[i];
        const char *cat;
        int set;

        if (!cJSON_IsObject(o)) {
            ledger_error_set(err, 400, "invalid_field", "", "each row must be an object");
            error_in_item(err, "rows", i);
            goto out;
        }
        if (field_date(o, "date", 1, &r->date, NULL, err)
            || field_text(o, "description", 1, 0, DESCRIPTION_MAX, &r->description, NULL, err)
            || field_money(o, "amount", 1, 0, &r->amount, &set, NULL, err)
            || field_enum(o, "transaction_type", txn_types, 0, &r->type, NULL, err)
            || field_text(o, "merchant", 0, 1, 200, &r->merchant, NULL, err)
            || field_text(o, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &cat, NULL, err)
            || field_enum(o, "payment_method", txn_payment_methods, 1, &r->payment_method, NULL, err)
            || field_currency(o, r->currency_code, &r->currency, err)
            || field_money(o, "amount_aud", 0, 1, &r->amount_aud, &r->has_amount_aud, NULL, err)
            || field_rate(o, &r->rate, err)) {
            error_in_item(err, "rows", i);
            goto out;
        }
        if (r->amount < 0 || (r->has_amount_aud && r->amount_aud < 0)) {
            ledger_error_set(err, 400, "invalid_field", r->amount < 0 ? "amount" : "amount_aud",
                             "amounts are magnitudes (0 or more); the direction is transaction_type");
            error_in_item(err, "rows", i);
            goto out;
        }
        /* A row in another currency is counted at its home amount (given,
         * or amount x rate), as a manual row is; the rate was dropped and
         * 10 EUR counted as 10 AUD (an audit). */
        if (home_amount_of_new_row(db, r->currency, r->amount, r->rate, &r->amount_aud,
                                   &r->has_amount_aud, err)) {
            error_in_item(err, "rows", i);
            goto out;
        }
        if (r->type == NULL)
            r->type = "debit";
        /* "refund" is resolved once the file's rows are written, so
         * that its merchant's rows in the file count (resolve_refunds). */
        if (cat) {
            switch (ledger_category_fold(cat, cats[i])) {
            case LEDGER_CATEGORY_REFUND:
                refund[i] = 1;
                refunds++;
                break;
            case LEDGER_CATEGORY_NONE:  /* a bank's "Uncategorised": none */
                break;
            default:
                if (category_resolve(db, me, r->merchant, cat, cats[i], err)) {
                    error_in_item(err, "rows", i);
                    goto out;
                }
                r->category = cats[i];
            }
        }
        i++;
    }
    /* Duplicates are rows that existed before this commit: two identical
     * lines of one file are two purchases, both imported. */
    if ((dups = calloc(n, sizeof *dups)) == NULL || (keys = calloc(n, sizeof *keys)) == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    if (!cJSON_IsTrue(allow)) {
        for (i = 0; i < n; i++) {
            keys[i].date = v[i].date;
            keys[i].description = v[i].description;
            keys[i].amount = v[i].amount;
            keys[i].out = strcmp(v[i].type, "debit") == 0 || strcmp(v[i].type, "fee") == 0
                          || strcmp(v[i].type, "interest") == 0;
        }
        if (find_duplicates(db, me, keys, n, dups, err))
            goto out;
    }
    if (csv_tag(db, me, &tag, err) || exec2(db, SQL_PENDING_CLEAR, 0, 0, err)
        || exec2(db, SQL_IMPORT_BATCH, me, 0, err))
        goto out;
    batch = sqlite3_last_insert_rowid(db->sql);
    for (i = 0; i < n; i++)
        skipped += dups[i] != 0;
    if (stage_rows(db, v, dups, n, err))
        goto out;
    if ((new_ids = calloc(n, sizeof *new_ids)) == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    if (exec2(db, SQL_BULK_BEGIN, 0, 0, err))
        goto out;
    bulk = 1;
    if (write_rows(db, me, batch, n - (size_t)skipped, new_ids, n, &imported, err)
        || exec2(db, SQL_BULK_END, 0, 0, err))
        goto out;
    bulk = 0;
    ids = cJSON_CreateArray();
    for (i = 0; i < imported; i++)
        cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)new_ids[i]));
    /* The summaries, the search index and the tag, for the new rows at
     * once.  Nothing has changed the rows' texts since they were written
     * (the index must be told the texts it was given to forget them). */
    range[0] = imported > 0 ? new_ids[0] : 0;
    range[1] = imported > 0 ? new_ids[imported - 1] : 0;
    range[2] = batch;
    dense = imported > 0 && (uint64_t)(range[1] - range[0]) == imported - 1;
    if ((imported > 0
         && (group_sum(db, dense ? SQL_BULK_SPEND_DENSE : SQL_BULK_SPEND_BATCH, range, 3,
                       SQL_SPEND_ADD, err)
             || group_sum(db, dense ? SQL_BULK_VISIBLE_DENSE : SQL_BULK_VISIBLE_BATCH, range, 3,
                          SQL_VISIBLE_ADD, err)
             || exec_new(db, dense ? SQL_BULK_SEARCH_DENSE : SQL_BULK_SEARCH_BATCH, range[0],
                         range[1], batch, 0, err)
             || exec_new(db, SQL_LINK, range[0], range[1], batch, tag, err)))
        || (refunds && resolve_refunds(db, me, v, refund, dups, new_ids, n, err))
        || exec2(db, SQL_IMPORT_COUNT, (int64_t)imported, batch, err)
        || exec2(db, SQL_PENDING_CLEAR, 0, 0, err))
        goto out;
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "import_id", (double)batch);
    cJSON_AddNumberToObject(*out, "imported", (double)imported);
    cJSON_AddNumberToObject(*out, "skipped_duplicates", (double)skipped);
    cJSON_AddItemToObject(*out, "transaction_ids", ids);
    ids = NULL;
    rc = LEDGER_OK;
out:
    /* The caller rolls a failed commit back; should it not, the summary
     * insert triggers must not be left off. */
    if (bulk) {
        ledger_error ignored;

        db_step_once(db, SQL_BULK_END, "csv import", &ignored);
    }
    cJSON_Delete(ids);
    free(v);
    free(cats);
    free(refund);
    free(dups);
    free(keys);
    free(new_ids);
    return rc;
}
