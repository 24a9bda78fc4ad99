/*
 * The prepared-statement cache.  Every statement is prepared once per
 * connection (SQLITE_PREPARE_PERSISTENT) and reused; it is keyed by its SQL
 * text, so a query assembled from fixed fragments is cached like any other.
 * The set of texts is bounded by the code: user values are always bound,
 * array filters go through json_each(?), never into the text.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"

struct stmt_entry {
    char *sql;
    uint64_t hash;
    sqlite3_stmt *st;
    struct stmt_entry *next;
};

struct stmt_cache {
    size_t nbuckets, count;
    struct stmt_entry **buckets;
};

static int cache_grow(struct stmt_cache *c)
{
    size_t n = c->nbuckets ? c->nbuckets * 2 : 64, i;
    struct stmt_entry **b = calloc(n, sizeof *b);

    if (b == NULL)
        return -1;
    for (i = 0; i < c->nbuckets; i++) {
        struct stmt_entry *e = c->buckets[i], *next;

        for (; e; e = next) {
            next = e->next;
            e->next = b[e->hash % n];
            b[e->hash % n] = e;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = n;
    return 0;
}

sqlite3_stmt *db_stmt(ledger_db *db, const char *sql, ledger_error *err)
{
    struct stmt_cache *c = db->cache;
    struct stmt_entry *e;
    uint64_t h = hash_text(sql);

    /* SQLite rolls a transaction back by itself when memory or the disk
     * fails in the middle of some statements.  Whatever the caller would
     * run next must not run outside it, each write then committed on its
     * own: once ledger_begin's transaction is gone (or a bind failed in
     * it), no statement is handed out until ledger_commit or
     * ledger_rollback ends it. */
    if (db->in_txn && ledger_txn_failed(db, err))
        return NULL;
    if (c == NULL) {
        c = db->cache = calloc(1, sizeof *c);
        if (c == NULL || cache_grow(c))
            goto oom;
    }
    for (e = c->buckets[h % c->nbuckets]; e; e = e->next)
        if (e->hash == h && strcmp(e->sql, sql) == 0)
            return e->st;
    if (c->count >= c->nbuckets && cache_grow(c))
        goto oom;
    e = calloc(1, sizeof *e);
    if (e == NULL || (e->sql = strdup(sql)) == NULL) {
        free(e);
        goto oom;
    }
    if (sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &e->st, NULL) != SQLITE_OK) {
        db_error(db, err, "prepare");
        free(e->sql);
        free(e);
        return NULL;
    }
    e->hash = h;
    e->next = c->buckets[h % c->nbuckets];
    c->buckets[h % c->nbuckets] = e;
    c->count++;
    return e->st;
oom:
    ledger_error_set(err, 500, "internal", NULL, "out of memory");
    return NULL;
}

void db_stmt_done(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

void db_stmt_cache_free(struct stmt_cache *c)
{
    size_t i;

    if (c == NULL)
        return;
    for (i = 0; i < c->nbuckets; i++) {
        struct stmt_entry *e = c->buckets[i], *next;

        for (; e; e = next) {
            next = e->next;
            sqlite3_finalize(e->st);
            free(e->sql);
            free(e);
        }
    }
    free(c->buckets);
    free(c);
}

int db_bind_args(ledger_db *db, sqlite3_stmt *st, const struct db_arg *args, int n)
{
    int i, failed = 0;

    for (i = 0; i < n; i++) {
        if (args[i].type == 'i')
            sqlite3_bind_int64(st, i + 1, args[i].i);
        else if (args[i].type == 't') {
            int rc = db_bind_text(db, st, i + 1, args[i].s);

            failed |= rc == SQLITE_NOMEM || rc == SQLITE_TOOBIG;
        }
        else
            sqlite3_bind_null(st, i + 1);
    }
    return failed;
}

/* A statement whose text bind failed is not stepped: it would run on the
 * NULL left in the value's place.  db_error reports the connection's
 * marked state for it. */
int db_each_args(ledger_db *db, ledger_error *err, const char *what, const char *sql,
                 const struct db_arg *args, int n, db_row_fn *row, void *ctx)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc = SQLITE_ERROR;

    if (st == NULL)
        return LEDGER_ERR;
    if (db_bind_args(db, st, args, n) == 0)
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            if (row && row(ctx, st))
                break;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_oom(err);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, what);
}

int db_exec_args(ledger_db *db, ledger_error *err, const char *what, const char *sql,
                 const struct db_arg *args, int n)
{
    return db_each_args(db, err, what, sql, args, n, NULL, NULL);
}

int db_int_args(ledger_db *db, ledger_error *err, const char *what, int64_t *out, int64_t dflt,
                const char *sql, const struct db_arg *args, int n)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc = SQLITE_ERROR;

    if (st == NULL)
        return LEDGER_ERR;
    *out = dflt;
    if (db_bind_args(db, st, args, n) == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, what);
}

int db_exists_args(ledger_db *db, ledger_error *err, const char *what, int *exists,
                   const char *sql, const struct db_arg *args, int n)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc = SQLITE_ERROR;

    if (st == NULL)
        return LEDGER_ERR;
    if (db_bind_args(db, st, args, n) == 0)
        rc = sqlite3_step(st);
    *exists = rc == SQLITE_ROW;
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, what);
}
