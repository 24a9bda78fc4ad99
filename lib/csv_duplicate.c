/*
 * CSV import: the caller's rows a file's lines duplicate, for the preview
 * (duplicate_of) and the commit (skipped unless allow_duplicates).
 *
 * A line duplicates a row with the same date, amount, description and
 * direction.  A reconciled manual row is hidden, but it is still there:
 * importing the same line again would count the spend twice.  It names
 * the statement row it was reconciled with, the one the caller sees.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "txn.h"
#include "csv_import.h"

/* A duplicate is one of the same direction (MONEY_OUT_TYPES_SQL or
 * MONEY_IN_TYPES_SQL): a purchase and its refund of the same amount on
 * one day are two rows. */

/* The ?5-th (from 0) of the rows a line duplicates, as the rows they stand
 * for: a manual row reconciled with a statement row is that row. */
#define DUPLICATE(types)                                                                 \
    "SELECT DISTINCT COALESCE(reconciled_with_id, id) AS target FROM transactions"      \
    " WHERE owner_id = ?1 AND date = ?2 AND amount = ?3 AND description = ?4"           \
    "   AND transaction_type IN " types                                                  \
    " ORDER BY target LIMIT 1 OFFSET ?5"
static const char SQL_DUPLICATE_OUT[] = DUPLICATE(MONEY_OUT_TYPES_SQL);
static const char SQL_DUPLICATE_IN[] = DUPLICATE(MONEY_IN_TYPES_SQL);

/* The id of an existing row that this one would duplicate, or 0: the
 * nth (from 0) of them, for the nth line of the file that is the same.
 * Money out and money in are told apart. */
static int find_duplicate(ledger_db *db, int64_t me, const struct dup_key *k, int64_t nth,
                          int64_t *id, ledger_error *err)
{
    *id = 0;
    return db_int(db, err, "duplicate", id, 0, k->out ? SQL_DUPLICATE_OUT : SQL_DUPLICATE_IN,
                  DB_INT(me), DB_TEXT(k->date), DB_INT(k->amount), DB_TEXT(k->description),
                  DB_INT(nth));
}

/* From this many lines on, the duplicates are found in one pass over the
 * caller's rows of the file's dates, each looked up among the lines (sorted
 * by their key, here), rather than a lookup per line: a line's lookup reads
 * every row of the caller's with its amount, which for a large file
 * whose amounts repeat takes seconds; the pass reads each row once.  The lines
 * are sorted in memory rather than staged in a keyed temporary table: a
 * hundred thousand single-row inserts cost more than the pass itself. */
#define DUP_PASS_MIN 200

static const char SQL_DUP_PASS[] =
    "SELECT id, COALESCE(reconciled_with_id, id), date, amount, description,"
    "       transaction_type IN " MONEY_OUT_TYPES_SQL ","
    "       transaction_type IN " MONEY_IN_TYPES_SQL
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

/* The lines' rows one at a time below DUP_PASS_MIN lines, in one pass
 * from there on.  Three identical purchases in an export, two of them
 * imported before, import the third: each stored row stands for one
 * line. */
int csv_find_duplicates(ledger_db *db, int64_t me, const struct dup_key *k, size_t n,
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
            if (find_duplicate(db, me, &k[i], nth, &dup[i], err))
                return LEDGER_ERR;
        }
        return LEDGER_OK;
    }
    if ((sorted = calloc(n, sizeof *sorted)) == NULL) {
        ledger_error_oom(err);
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
                rc = ledger_error_oom(err);
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
