/*
 * The export: every row the caller can see, read once in date order and
 * written through a buffer that is handed to the caller's write function
 * each time it fills, so an export of any length holds one buffer and
 * one row.  The formats (export_csv.c, export_json.c, export_journal.c)
 * say how a row is written; this file walks the rows, keeps the buffer,
 * and gives each format the row's view from the caller's side.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "export.h"
#include "spend.h"
#include "txn.h"

/* The export's columns: the API row's (TXN_COLUMNS), then what the CSV
 * and the journal need beside it (export.h numbers them). */
#define EXPORT_COLUMNS \
    TXN_COLUMNS ", " SPEND_COUNTS_SQL("t") ", " SPEND_SQL("t") ", " SPEND_CATEGORY_SQL("t") ", " \
    SPLITS_TEXT_SQL("t.id") ", t.eff_category, t.eff_merchant, s.account_name, s.statement_type," \
    " (SELECT name FROM trips WHERE id = t.override_trip_id)," \
    " (SELECT group_concat(name, ';') FROM" \
    "   (SELECT g.name FROM transaction_tags tt CROSS JOIN tags g ON g.id = tt.tag_id" \
    "     WHERE tt.transaction_id = t.id AND g.owner_id = :me ORDER BY g.name COLLATE NOCASE, g.id))"
#define EXPORT_FROM \
    " FROM transactions t" TXN_JOIN_RECONCILED " LEFT JOIN statements s ON s.id = t.statement_id"
/* Two arms merged by date and id: the caller's own rows read in order
 * from the owner's date index, the rows shared with them (few) sorted
 * apart.  One query with an OR would sort the whole ledger first, every
 * row's columns in the sorter, before the first byte went out. */
static const char SQL_ROWS[] =
    "SELECT " EXPORT_COLUMNS EXPORT_FROM
    " WHERE t.owner_id = :me AND t.reconciled_with_id IS NULL"
    " UNION ALL "
    "SELECT " EXPORT_COLUMNS EXPORT_FROM
    " WHERE t.id IN (SELECT transaction_id FROM splits WHERE participant_id = :me)"
    "   AND t.owner_id <> :me AND t.reconciled_with_id IS NULL"
    " ORDER BY 4, 1";
static const char SQL_COUNT[] =
    "SELECT (SELECT COUNT(*) FROM transactions WHERE owner_id = ?1 AND reconciled_with_id IS NULL)"
    "     + (SELECT COUNT(*) FROM transactions t"
    "         WHERE t.id IN (SELECT transaction_id FROM splits WHERE participant_id = ?1)"
    "           AND t.owner_id <> ?1 AND t.reconciled_with_id IS NULL)";
static const char SQL_NAME[] =
    "SELECT COALESCE(NULLIF(trim(name), ''), NULLIF(trim(email), ''), 'user ' || id)"
    "  FROM users WHERE id = ?";

/* Progress is told every this many rows, and at the end. */
#define EXPORT_PROGRESS_ROWS 1024

void export_put(struct export *x, const char *s, size_t n)
{
    jw_piece(&x->w, s, n);
}

void export_puts(struct export *x, const char *s)
{
    jw_piece(&x->w, s, strlen(s));
}

int export_flush(struct export *x, size_t min)
{
    if (x->w.t.failed)
        return ledger_error_oom(x->err);
    if (x->w.t.len == 0 || x->w.t.len < min)
        return LEDGER_OK;
    if (x->write(x->wctx, x->w.t.p, x->w.t.len))
        return ledger_error_set(x->err, 500, "internal", NULL,
                                "the export's output could not be written");
    x->w.t.len = 0;
    return LEDGER_OK;
}

const char *export_text(sqlite3_stmt *st, int col)
{
    const char *v = (const char *)sqlite3_column_text(st, col);

    return v ? v : "";
}

const char *export_name(struct export *x, int64_t id)
{
    struct export_names *nm = &x->names;
    sqlite3_stmt *st;
    char *name;
    size_t i;
    int rc;

    for (i = 0; i < nm->n; i++)
        if (nm->v[i].id == id)
            return nm->v[i].name;
    if (nm->n == nm->cap) {
        size_t cap = nm->cap ? 2 * nm->cap : 16;
        struct export_name *v = realloc(nm->v, cap * sizeof *v);

        if (v == NULL) {
            ledger_error_oom(x->err);
            return NULL;
        }
        nm->v = v;
        nm->cap = cap;
    }
    if ((st = db_stmt(x->db, SQL_NAME, x->err)) == NULL)
        return NULL;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    /* A split's participant is a user (a foreign key): no row is a
     * failed read. */
    name = rc == SQLITE_ROW ? db_column_dup(st, 0) : NULL;
    db_stmt_done(st);
    if (rc != SQLITE_ROW) {
        db_error(x->db, x->err, "export names");
        return NULL;
    }
    if (name == NULL) {
        ledger_error_oom(x->err);
        return NULL;
    }
    nm->v[nm->n].id = id;
    nm->v[nm->n].name = name;
    return nm->v[nm->n++].name;
}

/* Half away from zero, as the API row rounds an override share. */
static int64_t share_of(int64_t amount, int64_t share)
{
    __int128 p = (__int128)amount * share;

    return (int64_t)(p >= 0 ? (p + 5000) / 10000 : -((-p + 5000) / 10000));
}

int export_shares(struct export *x, sqlite3_stmt *st)
{
    int64_t owner = sqlite3_column_int64(st, TXN_OWNER);
    const char *splits = (const char *)sqlite3_column_text(st, X_SPLIT_TEXT);
    size_t k;

    x->home = sqlite3_column_type(st, TXN_AMOUNT_AUD) != SQLITE_NULL
              ? sqlite3_column_int64(st, TXN_AMOUNT_AUD) : sqlite3_column_int64(st, TXN_AMOUNT);
    x->my_pct = owner == x->me ? 10000 : 0;
    x->my_amount = owner == x->me ? x->home : 0;
    x->sb.n = 0;
    if (splits) {
        if (split_buf_parse(&x->sb, splits))
            return -1;
        split_apportion(x->home, x->sb.v, x->sb.n, owner, x->sb.cents);
        x->my_pct = x->my_amount = 0;
        for (k = 0; k < x->sb.n; k++)
            if (x->sb.v[k].participant_id == x->me) {
                x->my_pct = x->sb.v[k].share;
                x->my_amount = x->sb.cents[k];
            }
    }
    /* The owner's override of their own share; a participant's part stays
     * their split row (txn_row.c says why). */
    if (owner == x->me && sqlite3_column_type(st, TXN_O_SHARE) != SQLITE_NULL) {
        x->my_pct = sqlite3_column_int64(st, TXN_O_SHARE);
        x->my_amount = share_of(x->home, x->my_pct);
    }
    return 0;
}

static int count_rows(struct export *x)
{
    return db_int(x->db, x->err, "export count", &x->total, 0, SQL_COUNT, DB_INT(x->me));
}

int export_rows(struct export *x, int (*row)(struct export *x, sqlite3_stmt *st, void *ctx),
                void *ctx)
{
    sqlite3_stmt *st;
    int rc;

    if (x->progress && count_rows(x))
        return LEDGER_ERR;
    if ((st = db_stmt(x->db, SQL_ROWS, x->err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":me"), x->me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (row(x, st, ctx) || export_flush(x, EXPORT_CHUNK))
            break;
        if (x->progress && ++x->done % EXPORT_PROGRESS_ROWS == 0)
            x->progress(x->pctx, x->done, x->total);
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return LEDGER_ERR;
    if (rc != SQLITE_DONE)
        return db_error(x->db, x->err, "export");
    if (x->progress)
        x->progress(x->pctx, x->done, x->total);
    return LEDGER_OK;
}

int ledger_export_format(const char *name, enum ledger_export_format *out, ledger_error *err)
{
    if (name && strcmp(name, "csv") == 0)
        *out = LEDGER_EXPORT_CSV;
    else if (name && strcmp(name, "json") == 0)
        *out = LEDGER_EXPORT_JSON;
    else if (name && strcmp(name, "journal") == 0)
        *out = LEDGER_EXPORT_JOURNAL;
    else
        return error_field(err, "format", "format must be csv, json or journal");
    return LEDGER_OK;
}

const char *ledger_export_media_type(enum ledger_export_format f)
{
    switch (f) {
    case LEDGER_EXPORT_CSV:
        return "text/csv; charset=utf-8";
    case LEDGER_EXPORT_JSON:
        return "application/json; charset=utf-8";
    default:
        /* hledger's and Ledger's journals have no registered type. */
        return "text/plain; charset=utf-8";
    }
}

const char *ledger_export_extension(enum ledger_export_format f)
{
    switch (f) {
    case LEDGER_EXPORT_CSV:
        return "csv";
    case LEDGER_EXPORT_JSON:
        return "json";
    default:
        return "journal";
    }
}

int ledger_export(ledger_db *db, int64_t me, enum ledger_export_format f,
                  ledger_write_fn *write, void *wctx, ledger_progress_fn *progress,
                  void *pctx, ledger_error *err)
{
    struct export x;
    size_t i;
    int rc;

    memset(&x, 0, sizeof x);
    x.db = db;
    x.me = me;
    x.err = err;
    x.write = write;
    x.wctx = wctx;
    x.progress = progress;
    x.pctx = pctx;
    if (jw_reserve(&x.w, EXPORT_CHUNK + 4096))
        return ledger_error_oom(err);
    switch (f) {
    case LEDGER_EXPORT_CSV:
        rc = export_csv(&x);
        break;
    case LEDGER_EXPORT_JSON:
        rc = export_json(&x);
        break;
    case LEDGER_EXPORT_JOURNAL:
        rc = export_journal(&x);
        break;
    default:
        rc = error_field(err, "format", "format must be csv, json or journal");
    }
    if (rc == LEDGER_OK)
        rc = export_flush(&x, 0);
    free(x.w.t.p);
    for (i = 0; i < x.names.n; i++)
        free(x.names.v[i].name);
    free(x.names.v);
    split_buf_free(&x.sb);
    return rc;
}
