/* The export (GET /api/export), private to libledger: the walk over every
 * row the caller can see and the buffer the bytes go out through
 * (export.c), and one writer per format (export_csv.c, export_json.c,
 * export_journal.c). */
#ifndef LEDGER_EXPORT_H
#define LEDGER_EXPORT_H

#include "db.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"

/* Bytes are handed to the caller's write function in pieces of about
 * this size: the export's memory stays this buffer and one row, however
 * long the ledger. */
#define EXPORT_CHUNK 65536

/* Column indexes of a row of the walk: TXN_COLUMNS (txn.h) in its order,
 * then the export's own. */
enum export_col {
    X_SPEND_COUNTS = TXN_NCOLUMNS,   /* rule D: whether the row counts as spend */
    X_SPEND,          /* its spend in home cents, negative for a refund */
    X_SPEND_CATEGORY, /* the category it counts under */
    X_SPLIT_TEXT,     /* SPLITS_TEXT_SQL's "participant,share;..." or NULL */
    X_EFF_CATEGORY, X_EFF_MERCHANT,
    X_ACCOUNT,        /* the statement's account_name */
    X_STATEMENT_TYPE,
    X_TRIP_NAME,
    X_TAG_NAMES       /* the caller's tags of the row, names joined by ';' */
};

/* Participants' display names (name, else email, else "user N"), read
 * once each: a ledger shares with a few people over many rows. */
struct export_name {
    int64_t id;
    char *name;
};
struct export_names {
    struct export_name *v;
    size_t n, cap;
};

/* One export under way. */
struct export {
    ledger_db *db;
    int64_t me;
    ledger_error *err;
    ledger_write_fn *write;
    void *wctx;
    ledger_progress_fn *progress;
    void *pctx;
    int64_t done, total;
    /* The bytes not yet handed on, and for JSON the nesting of the
     * document: the writer's text is emptied at each hand-over, its
     * brackets kept. */
    struct json_writer w;
    struct export_names names;
    struct split_buf sb;
    /* A row's view from the caller's side (export_shares): the API row's
     * my_share_pct and my_amount, and sb's cents apportioned over
     * home, the row's home-currency amount. */
    int64_t home, my_pct, my_amount;
};

/* Appends bytes to the buffer. */
void export_put(struct export *x, const char *s, size_t n);
void export_puts(struct export *x, const char *s);
/* Hands the buffer on when it holds at least min bytes (0: whatever it
 * holds); a 500 when memory ran out or the write function refused. */
int export_flush(struct export *x, size_t min);
/* Calls row for every row the caller owns or has a split of (reconciled
 * manual rows hidden, as in every query), by date then id, handing the
 * buffer on as it fills and reporting progress.  row returns non-zero
 * when it failed, with x->err set. */
int export_rows(struct export *x, int (*row)(struct export *x, sqlite3_stmt *st, void *ctx),
                void *ctx);
/* The display name of user id (owned by x->names); NULL with x->err set
 * when the read failed. */
const char *export_name(struct export *x, int64_t id);
/* Fills x->home, x->my_pct, x->my_amount and x->sb for row st as the API
 * row shows them (txn_row.c); -1 when memory ran out. */
int export_shares(struct export *x, sqlite3_stmt *st);
/* Column col as text, "" for NULL. */
const char *export_text(sqlite3_stmt *st, int col);

int export_csv(struct export *x);
int export_json(struct export *x);
int export_journal(struct export *x);

#endif /* LEDGER_EXPORT_H */
