/*
 * CSV import: the commit of a preview's (possibly edited) rows as manual
 * transactions, all or nothing.  Every row it creates is the caller's, has
 * statement_id NULL, belongs to one csv_imports batch and carries the tag
 * csv-import; duplicates of existing rows are skipped unless
 * allow_duplicates.
 *
 * The commit writes its rows with one INSERT ... SELECT from a temporary
 * table rather than one INSERT per row (each statement that fires
 * triggers pays for its own statement journal and trigger frames), and
 * adds them to the spend and visible-row summaries grouped, once, with
 * the per-row insert triggers held off (bulk_insert), and to the search
 * index the same way: per row, the summaries would cost most of a
 * large commit.
 *
 * Over HTTP it runs as a job (job.c): the rows are written JOB_CHUNK_ROWS
 * at a time, each chunk its own transaction, and the last transaction ends
 * the job, so that another user's write waits for a chunk, not the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "statement.h"
#include "csv_import.h"
#include "job.h"
#include "json_in.h"

#define COMMIT_ROWS_MAX 100000

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
    " payment_method, amount_aud, rate, notes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
    " ?11)";
/* The columns a manual row from a CSV file has (statement_row_insert's,
 * less those a CSV row never sets), in the rows' order, with the ids after
 * ?3, the base (rows_id_base).  The staged rows' seq counts from 1 (the
 * table is emptied before each file), so their ids are ?3 + 1 on, in
 * order, known without RETURNING (which would keep every id aside to hand
 * back); with no base SQLite gives the ids, and RETURNING says which. */
#define WRITE_ROWS                                                                             \
    "INSERT INTO transactions (id, statement_id, owner_id, date, description, merchant, category," \
    " transaction_type, amount, currency, payment_method, import_id, eff_category, eff_merchant," \
    " amount_aud, exchange_rate_to_aud, notes)"                                                 \
    " SELECT ?3 + seq, NULL, ?1, date, description, merchant, category, type, amount, currency,"  \
    "        payment_method, ?2, category, COALESCE(merchant, ''), amount_aud, rate, notes"       \
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
/* New rows have no splits, so no viewer but their owner (see bulk_insert in the schema). */
#define BULK_VISIBLE(new_rows)                                                             \
    "SELECT viewer_id, month, category, type, manual, split, 1 FROM visible_own_rows" new_rows
/* The search index's entries for the new rows (transactions_search), from the
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


/* ---- commit ------------------------------------------------------------------------------ */

/* The csv-import tag, made on the first import (the name is reserved for
 * this, so no user-made tag can have taken it); *made is its id when this
 * call made it, for a job's undo, and 0 otherwise. */
static int csv_tag(ledger_db *db, int64_t me, int64_t *id, int64_t *made, ledger_error *err)
{
    *made = 0;
    if (db_int(db, err, "csv-import tag", id, 0, SQL_CSV_TAG, DB_INT(me)))
        return LEDGER_ERR;
    if (*id != 0)
        return LEDGER_OK;
    if (db_exec(db, err, "csv-import tag", SQL_CSV_TAG_NEW, DB_INT(me)))
        return LEDGER_ERR;
    *id = *made = sqlite3_last_insert_rowid(db->sql);
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

/* Reads row i of the request (o) into r and checks it: a 400 naming
 * rows[i] when the commit cannot take it.  A category "refund" sets
 * *refund instead: it is resolved once the file's rows are written, so
 * that its merchant's rows in the file count (resolve_refunds). */
static int read_row(ledger_db *db, int64_t me, const cJSON *o, size_t i, struct statement_row *r,
                    char cat_buf[LEDGER_CATEGORY_MAX], char *refund, ledger_error *err)
{
    const char *cat;
    int set, is_refund;

    if (!cJSON_IsObject(o)) {
        error_field(err, "", "each row must be an object");
        goto bad;
    }
    if (field_date(o, "date", 1, &r->date, NULL, err)
        || field_text(o, "description", 1, 0, CSV_DESCRIPTION_MAX, &r->description, NULL, err)
        || field_money(o, "amount", 1, 0, &r->amount, &set, NULL, err)
        || field_enum(o, "transaction_type", txn_types, 0, &r->type, NULL, err)
        || field_text(o, "merchant", 0, 1, MERCHANT_MAX, &r->merchant, NULL, err)
        || field_text(o, "notes", 0, 1, TXN_NOTES_MAX, &r->notes, NULL, err)
        || field_text(o, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &cat, NULL, err)
        || field_enum(o, "payment_method", txn_payment_methods, 1, &r->payment_method, NULL, err)
        || field_currency(o, r->currency_code, &r->currency, err)
        || field_money(o, "amount_aud", 0, 1, &r->amount_aud, &r->has_amount_aud, NULL, err)
        || field_rate(o, &r->rate, err))
        goto bad;
    if (r->type == NULL)
        r->type = "debit";
    if (statement_row_finish(db, me, r, cat, cat_buf, &is_refund, err))
        goto bad;
    *refund = (char)is_refund;
    return LEDGER_OK;
bad:
    error_in_item(err, "rows", i);
    return LEDGER_ERR;
}

/* Row i of the commit's rows (one there is) read into r and checked
 * (read_row).  Read from the request's text, it lives until the next is
 * read (struct json_items). */
static int source_row(ledger_db *db, int64_t me, struct json_items *src, size_t i,
                      struct statement_row *r, char cat[LEDGER_CATEGORY_MAX], char *refund,
                      ledger_error *err)
{
    const cJSON *o = json_item(src, i, err);

    memset(r, 0, sizeof *r);
    return o ? read_row(db, me, o, i, r, cat, refund, err) : LEDGER_ERR;
}

/* Stages rows [from, to) of src that are not duplicates (dups[i] 0) in
 * temp.csv_rows (made by ledger_open), in their order, after emptying it;
 * *staged is how many.  Each row is read again (source_row) and staged
 * before the next is read: its texts, bound and not copied, live that
 * long. */
static int stage_rows(ledger_db *db, int64_t me, struct json_items *src, const int64_t *dups,
                      size_t from, size_t to, size_t *staged, ledger_error *err)
{
    sqlite3_stmt *st;
    char cat[LEDGER_CATEGORY_MAX], refund;
    size_t i;
    int rc = SQLITE_DONE;

    *staged = 0;
    if (db_step_once(db, SQL_PENDING_CLEAR, "csv import", err)
        || (st = db_stmt(db, SQL_PENDING, err)) == NULL)
        return LEDGER_ERR;
    for (i = from; i < to && rc == SQLITE_DONE; i++) {
        struct statement_row r;

        if (dups[i])
            continue;
        if (source_row(db, me, src, i, &r, cat, &refund, err)) {
            db_stmt_done(st);
            return LEDGER_ERR;
        }
        bind_kept(st, 1, r.date);
        bind_kept(st, 2, r.description);
        bind_kept(st, 3, r.merchant);
        bind_kept(st, 4, r.category);
        bind_kept(st, 5, r.type);
        sqlite3_bind_int64(st, 6, r.amount);
        bind_kept(st, 7, r.currency ? r.currency : ledger_home_currency(db));
        bind_kept(st, 8, r.payment_method);
        if (r.has_amount_aud)
            sqlite3_bind_int64(st, 9, r.amount_aud);
        else
            sqlite3_bind_null(st, 9);
        bind_kept(st, 10, r.rate);
        bind_kept(st, 11, r.notes);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        (*staged)++;
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "csv import");
}

/* Writes the `staged` rows as the caller's batch; their ids, in the order
 * of the rows, in *ids. */
static int write_rows(ledger_db *db, int64_t me, int64_t batch, size_t staged, int64_t *ids,
                      size_t cap, size_t *n, ledger_error *err)
{
    sqlite3_stmt *st;
    int64_t base;
    int rc, known;

    *n = 0;
    if (rows_id_base(db, (int64_t)cap, &base, err))
        return LEDGER_ERR;
    /* Past the largest id there is room for, ?3 stays NULL and SQLite
     * gives the ids (at random at the top). */
    known = base >= 0;
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
        if (staged > 0 && rows_ids_taken(db, base, (int64_t)staged, err))
            return LEDGER_ERR;
        for (*n = 0; *n < staged && *n < cap; (*n)++)
            ids[*n] = base + (int64_t)*n + 1;
    } else {
        /* RETURNING promises no order; ids grow as rows are inserted. */
        qsort(ids, *n, sizeof *ids, cmp_int64);
    }
    return LEDGER_OK;
}

/* Gives each new row whose category is "refund" (refund[i]) its
 * merchant's usual category among the owner's rows, the file's included
 * (rule C): resolved only once the file's rows are written, so that they
 * count, and a refund at a merchant new to the ledger takes the category
 * its rows in the file have.  Run after the summaries are written, so that
 * their update triggers move the row's spend to its category.  ids[] are
 * the new rows' ids, in the order of the rows not skipped (dups[i] 0);
 * each refund row is read again for its merchant. */
static int resolve_refunds(ledger_db *db, int64_t me, struct json_items *src,
                           const char *refund, const int64_t *dups, const int64_t *ids, size_t n,
                           ledger_error *err)
{
    char cat[LEDGER_CATEGORY_MAX], again;
    size_t i, k = 0;

    for (i = 0; i < n; i++) {
        struct statement_row r;

        if (dups[i])
            continue;
        k++;
        if (refund[i]
            && (source_row(db, me, src, i, &r, cat, &again, err)
                || category_resolve_refund_row(db, me, ids[k - 1], r.merchant, err)))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

/* Adds the n new rows (ids[], of batch) to the summaries, the search index
 * and the csv-import tag, at once.  Nothing has changed the rows' texts
 * since they were written (the index must be told the texts it was given
 * to forget them). */
static int add_new_rows(ledger_db *db, const int64_t *ids, size_t n, int64_t batch, int64_t tag,
                        ledger_error *err)
{
    int64_t range[3];
    int dense;

    if (n == 0)
        return LEDGER_OK;
    range[0] = ids[0];
    range[1] = ids[n - 1];
    range[2] = batch;
    dense = (uint64_t)(range[1] - range[0]) == n - 1;
    if (group_sum(db, dense ? SQL_BULK_SPEND_DENSE : SQL_BULK_SPEND_BATCH, range, 3,
                  SQL_SPEND_ADD, err)
        || group_sum(db, dense ? SQL_BULK_VISIBLE_DENSE : SQL_BULK_VISIBLE_BATCH, range, 3,
                     SQL_VISIBLE_ADD, err)
        || db_exec(db, err, "csv import", dense ? SQL_BULK_SEARCH_DENSE : SQL_BULK_SEARCH_BATCH,
                   DB_INT(range[0]), DB_INT(range[1]), DB_INT(batch))
        || db_exec(db, err, "csv import", SQL_LINK, DB_INT(range[0]), DB_INT(range[1]),
                   DB_INT(batch), DB_INT(tag)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

/* Writes the rows of src that are not duplicates as the caller's batch
 * (with its tag), JOB_CHUNK_ROWS at a time, each chunk added to the
 * summaries, the search index and the tag as it is written; their ids, in
 * order, in ids[], *written of them.  A job commits each chunk, noted
 * (job.c), and goes on in its last transaction, which the caller ends;
 * with none, the rows are one chunk of the caller's one transaction. */
static int write_chunks(ledger_db *db, int64_t me, struct json_items *src, const int64_t *dups,
                        size_t n, int64_t batch, int64_t tag, int64_t tag_made, struct job *job,
                        int64_t *ids, size_t *written, ledger_error *err)
{
    size_t from, to, staged, got;
    int bulk = 0, rc = LEDGER_ERR;

    *written = 0;
    if (job_note(db, job, batch, tag_made, 0, 0, err))
        return LEDGER_ERR;
    for (from = 0; from < n; from = to) {
        to = job && n - from > JOB_CHUNK_ROWS ? from + JOB_CHUNK_ROWS : n;
        if (stage_rows(db, me, src, dups, from, to, &staged, err))
            goto out;
        if (staged == 0) {
            if (to >= n && job_yield(db, job, 1, err))
                goto out;
            continue;
        }
        if (db_step_once(db, SQL_BULK_BEGIN, "csv import", err))
            goto out;
        bulk = 1;
        if (write_rows(db, me, batch, staged, ids + *written, n - *written, &got, err)
            || db_step_once(db, SQL_BULK_END, "csv import", err))
            goto out;
        bulk = 0;
        if (add_new_rows(db, ids + *written, got, batch, tag, err)
            || job_note(db, job, batch, tag_made, ids[*written], ids[*written + got - 1], err))
            goto out;
        *written += got;
        if (job_yield(db, job, to >= n, err))
            goto out;
    }
    rc = db_step_once(db, SQL_PENDING_CLEAR, "csv import", err);
out:
    /* The caller rolls a failed commit back; should it not, the summary
     * insert triggers must not be left off. */
    if (bulk) {
        ledger_error ignored;

        db_step_once(db, SQL_BULK_END, "csv import", &ignored);
    }
    return rc;
}

/* The answer to a commit that wrote nothing: every row was there already
 * (200, import_id null, as a statement file with nothing new). */
static cJSON *nothing_new(int64_t skipped)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNullToObject(o, "import_id");
    cJSON_AddNumberToObject(o, "imported", 0);
    cJSON_AddNumberToObject(o, "skipped_duplicates", (double)skipped);
    cJSON_AddArrayToObject(o, "transaction_ids");
    return o;
}

/* The n new ids as the JSON array's text, one item: an item each would
 * take some sixty bytes a row of memory, the text a few. */
static cJSON *ids_item(const int64_t *ids, size_t n)
{
    char *text = malloc(n * 21 + 3), *p = text;
    cJSON *item = NULL;
    size_t i;

    if (text == NULL)
        return NULL;
    *p++ = '[';
    for (i = 0; i < n; i++)
        p += sprintf(p, i ? ",%lld" : "%lld", (long long)ids[i]);
    strcpy(p, "]");
    item = cJSON_CreateRaw(text);
    free(text);
    return item;
}

/* Copies of the texts the duplicate search reads, in blocks that never
 * move, freed at once: a row read from the request's text lives only
 * until the next (struct json_items). */
struct key_texts {
    struct key_block *last;
};
struct key_block {
    struct key_block *prev;
    size_t used, cap;
    char text[];
};
#define KEY_BLOCK 65536

static const char *key_text(struct key_texts *k, const char *s)
{
    size_t len = strlen(s) + 1;
    struct key_block *b = k->last;
    char *at;

    if (b == NULL || b->cap - b->used < len) {
        size_t cap = len > KEY_BLOCK ? len : KEY_BLOCK;

        if ((b = malloc(sizeof *b + cap)) == NULL)
            return NULL;
        b->prev = k->last;
        b->used = 0;
        b->cap = cap;
        k->last = b;
    }
    at = b->text + b->used;
    memcpy(at, s, len);
    b->used += len;
    return at;
}

static void key_texts_free(struct key_texts *k)
{
    while (k->last) {
        struct key_block *prev = k->last->prev;

        free(k->last);
        k->last = prev;
    }
}

/* The commit of the n rows of src, for both entry points below; raw_ids:
 * the answer's transaction_ids as one raw item (ids_item), for a request's
 * answer, where a caller of the library gets an array it can read. */
static int commit(ledger_db *db, int64_t me, const cJSON *body, struct json_items *src, size_t n,
                  int raw_ids, cJSON **out, ledger_error *err)
{
    const cJSON *allow;
    char cat[LEDGER_CATEGORY_MAX];
    struct dup_key *keys = NULL;
    struct key_texts texts = { NULL };
    struct job job_run, *job = NULL;
    int64_t batch, tag, tag_made, skipped = 0, *new_ids = NULL, *dups = NULL;
    char *refund = NULL;
    size_t i, imported = 0, refunds = 0;
    int rc = LEDGER_ERR;

    allow = cJSON_GetObjectItemCaseSensitive(body, "allow_duplicates");
    if (allow && !cJSON_IsBool(allow) && !cJSON_IsNull(allow))
        return error_field(err, "allow_duplicates", "allow_duplicates must be true or false");
    if (n < 1 || n > COMMIT_ROWS_MAX)
        return error_field(err, "rows", "rows must be an array of 1 to %d rows", COMMIT_ROWS_MAX);
    /* Outside a transaction, a job: its row first, so that from here the
     * caller's other requests wait for it, and nothing of the caller's
     * changes between the duplicate search and the writes; then the
     * checks in a read transaction, which holds no lock. */
    if (!db->in_txn) {
        if (job_start(db, me, "csv_commit", &job_run, err))
            return LEDGER_ERR;
        job = &job_run;
        if (ledger_begin(db, 0, err))
            goto out;
    }
    refund = calloc(n, 1);
    dups = calloc(n, sizeof *dups);
    keys = calloc(n, sizeof *keys);
    if (refund == NULL || dups == NULL || keys == NULL)
        goto oom;
    /* Every row is checked before the first is written, and what the
     * duplicate search needs of it kept; the rows themselves are read
     * again as they are written. */
    for (i = 0; i < n; i++) {
        struct statement_row r;

        if (source_row(db, me, src, i, &r, cat, &refund[i], err))
            goto out;
        refunds += refund[i];
        keys[i].amount = r.amount;
        keys[i].out = strcmp(r.type, "debit") == 0 || strcmp(r.type, "fee") == 0
                      || strcmp(r.type, "interest") == 0;
        if ((keys[i].date = key_text(&texts, r.date)) == NULL
            || (keys[i].description = key_text(&texts, r.description)) == NULL)
            goto oom;
    }
    /* Duplicates are rows that existed before this commit: two identical
     * lines of one file are two purchases, both imported. */
    if (!cJSON_IsTrue(allow) && csv_find_duplicates(db, me, keys, n, dups, err))
        goto out;
    free(keys);
    keys = NULL;
    key_texts_free(&texts);
    for (i = 0; i < n; i++)
        skipped += dups[i] != 0;
    if ((size_t)skipped == n) {
        if (job && ledger_commit(db, err))
            goto out;
        *out = nothing_new(skipped);
        rc = LEDGER_OK;
        goto out;
    }
    if (job && (ledger_commit(db, err) || ledger_begin(db, 1, err)))
        goto out;
    if (csv_tag(db, me, &tag, &tag_made, err)
        || db_exec(db, err, "csv import", SQL_IMPORT_BATCH, DB_INT(me)))
        goto out;
    batch = sqlite3_last_insert_rowid(db->sql);
    if ((new_ids = calloc(n, sizeof *new_ids)) == NULL)
        goto oom;
    if (write_chunks(db, me, src, dups, n, batch, tag, tag_made, job, new_ids, &imported, err)
        || (refunds && resolve_refunds(db, me, src, refund, dups, new_ids, n, err))
        || db_exec(db, err, "csv import", SQL_IMPORT_COUNT, DB_INT(imported), DB_INT(batch))
        || job_done(db, job, err)
        || (job && ledger_commit(db, err)))
        goto out;
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "import_id", (double)batch);
    cJSON_AddNumberToObject(*out, "imported", (double)imported);
    cJSON_AddNumberToObject(*out, "skipped_duplicates", (double)skipped);
    if (raw_ids) {
        cJSON_AddItemToObject(*out, "transaction_ids", ids_item(new_ids, imported));
    } else {
        cJSON *ids = cJSON_AddArrayToObject(*out, "transaction_ids");

        for (i = 0; ids && i < imported; i++)
            cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)new_ids[i]));
    }
    rc = LEDGER_OK;
out:
    if (job)
        job_end(db, job);
    free(refund);
    free(dups);
    free(keys);
    key_texts_free(&texts);
    free(new_ids);
    return rc;
oom:
    ledger_error_oom(err);
    goto out;
}

int ledger_csv_commit(ledger_db *db, int64_t me, const cJSON *body, cJSON **out, ledger_error *err)
{
    const cJSON *rows;
    struct json_items src;

    if (field_require_object(body, err))
        return LEDGER_ERR;
    rows = cJSON_GetObjectItemCaseSensitive(body, "rows");
    if (!cJSON_IsArray(rows))
        return error_field(err, "rows", "rows must be an array of 1 to %d rows", COMMIT_ROWS_MAX);
    memset(&src, 0, sizeof src);
    src.array = rows;
    return commit(db, me, body, &src, (size_t)cJSON_GetArraySize(rows), 0, out, err);
}

int ledger_csv_commit_text(ledger_db *db, int64_t me, const char *text, size_t len, cJSON **out,
                           ledger_error *err)
{
    struct json_lazy body;
    int rc;

    if (json_lazy_parse(text, len, "rows", &body, err))
        return LEDGER_ERR;
    /* A "rows" that is no array was read whole: it is refused as one. */
    if (field_require_object(body.body, err))
        rc = LEDGER_ERR;
    else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(body.body, "rows")))
        rc = error_field(err, "rows", "rows must be an array of 1 to %d rows", COMMIT_ROWS_MAX);
    else
        rc = commit(db, me, body.body, &body.items, body.n, 1, out, err);
    json_lazy_end(&body);
    return rc;
}
