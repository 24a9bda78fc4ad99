/*
 * Grouped sums of a query's rows, in memory: GROUP BY without the sort.
 *
 * SQLite groups by sorting every row first; for a summary of 100,000 new
 * rows that fall into a few thousand groups (csv_commit.c), the sort cost
 * three times the scan.  Here the rows are read once into a hash table of
 * their groups, and each group is then written by one statement.
 *
 * A row's key is its leading columns (integers, text or NULL), kept as
 * bytes: a type byte, then the integer's 8 bytes or the text's length (4
 * bytes) and text.  Two keys are the same group when their bytes are the
 * same, which is when SQL's GROUP BY would group them (integers and text
 * compared exactly, text as bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"

enum { KEY_NULL, KEY_INT, KEY_TEXT };

struct group {
    uint64_t hash;
    size_t key, len; /* the key's bytes in keys */
    int64_t sum;
};

struct groups {
    int nkey;
    struct group *slot; /* open addressing; len 0 is an empty slot */
    size_t nslot, count;
    unsigned char *keys;
    size_t keys_len, keys_cap;
    unsigned char *scratch;
    size_t scratch_cap;
};

static int reserve(unsigned char **buf, size_t *cap, size_t need)
{
    unsigned char *b;
    size_t n = *cap ? *cap : 256;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    if ((b = realloc(*buf, n)) == NULL)
        return -1;
    *buf = b;
    *cap = n;
    return 0;
}

/* The key of the current row of st (its first nkey columns) into scratch;
 * its length, or 0 when out of memory. */
static size_t row_key(struct groups *g, sqlite3_stmt *st)
{
    size_t len = 0;
    int i;

    for (i = 0; i < g->nkey; i++) {
        int type = sqlite3_column_type(st, i);

        if (type == SQLITE_INTEGER) {
            int64_t v = sqlite3_column_int64(st, i);

            if (reserve(&g->scratch, &g->scratch_cap, len + 9))
                return 0;
            g->scratch[len] = KEY_INT;
            memcpy(g->scratch + len + 1, &v, 8);
            len += 9;
        } else if (type == SQLITE_NULL) {
            if (reserve(&g->scratch, &g->scratch_cap, len + 1))
                return 0;
            g->scratch[len++] = KEY_NULL;
        } else {
            /* Text (a float or a blob would be grouped by its text, which
             * no summary key is). */
            const unsigned char *t = sqlite3_column_text(st, i);
            uint32_t n = (uint32_t)sqlite3_column_bytes(st, i);

            if (reserve(&g->scratch, &g->scratch_cap, len + 5 + n))
                return 0;
            g->scratch[len] = KEY_TEXT;
            memcpy(g->scratch + len + 1, &n, 4);
            if (n)
                memcpy(g->scratch + len + 5, t, n);
            len += 5 + n;
        }
    }
    return len;
}

static int grow(struct groups *g)
{
    size_t n = g->nslot ? 2 * g->nslot : 1024, i;
    struct group *s = calloc(n, sizeof *s);

    if (s == NULL)
        return -1;
    for (i = 0; i < g->nslot; i++) {
        size_t j;

        if (g->slot[i].len == 0)
            continue;
        for (j = g->slot[i].hash & (n - 1); s[j].len; j = (j + 1) & (n - 1))
            ;
        s[j] = g->slot[i];
    }
    free(g->slot);
    g->slot = s;
    g->nslot = n;
    return 0;
}

/* Adds v to the group of the key in scratch (len bytes): 0, -1 when out
 * of memory, 1 when the sum would pass the range of a 64-bit integer
 * (where SQL's SUM stops with "integer overflow"). */
static int add(struct groups *g, size_t len, int64_t v)
{
    uint64_t h = hash_bytes(HASH_START, g->scratch, len);
    size_t j;

    if (2 * (g->count + 1) > g->nslot && grow(g))
        return -1;
    for (j = h & (g->nslot - 1); g->slot[j].len; j = (j + 1) & (g->nslot - 1)) {
        struct group *e = &g->slot[j];

        if (e->hash == h && e->len == len && memcmp(g->keys + e->key, g->scratch, len) == 0) {
            return __builtin_add_overflow(e->sum, v, &e->sum) ? 1 : 0;
        }
    }
    if (reserve(&g->keys, &g->keys_cap, g->keys_len + len))
        return -1;
    memcpy(g->keys + g->keys_len, g->scratch, len);
    g->slot[j].hash = h;
    g->slot[j].key = g->keys_len;
    g->slot[j].len = len;
    g->slot[j].sum = v;
    g->keys_len += len;
    g->count++;
    return 0;
}

/* Binds a group's key to ?1..?nkey and its sum to ?nkey+1. */
static void bind_group(const struct groups *g, const struct group *e, sqlite3_stmt *st)
{
    const unsigned char *p = g->keys + e->key;
    int i;

    for (i = 0; i < g->nkey; i++) {
        if (*p == KEY_INT) {
            int64_t v;

            memcpy(&v, p + 1, 8);
            sqlite3_bind_int64(st, i + 1, v);
            p += 9;
        } else if (*p == KEY_NULL) {
            sqlite3_bind_null(st, i + 1);
            p += 1;
        } else {
            uint32_t n;

            memcpy(&n, p + 1, 4);
            sqlite3_bind_text(st, i + 1, (const char *)p + 5, (int)n, SQLITE_STATIC);
            p += 5 + n;
        }
    }
    sqlite3_bind_int64(st, g->nkey + 1, e->sum);
}

int group_sum(ledger_db *db, const char *select, const int64_t *params, int nparams,
              const char *write, ledger_error *err)
{
    struct groups g;
    sqlite3_stmt *st;
    size_t i;
    int rc = LEDGER_ERR, step = SQLITE_DONE, p, added = 0;

    memset(&g, 0, sizeof g);
    if ((st = db_stmt(db, select, err)) == NULL)
        return LEDGER_ERR;
    if ((g.nkey = sqlite3_column_count(st) - 1) < 1) {
        db_stmt_done(st);
        return ledger_error_set(err, 500, "internal", NULL, "group_sum: no key columns");
    }
    for (p = 0; p < nparams && p < sqlite3_bind_parameter_count(st); p++)
        sqlite3_bind_int64(st, p + 1, params[p]);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        size_t len = row_key(&g, st);

        if (len == 0 || (added = add(&g, len, sqlite3_column_int64(st, g.nkey))) != 0)
            break;
    }
    db_stmt_done(st);
    if (step != SQLITE_DONE && step != SQLITE_ROW) {
        db_error(db, err, "summary");
        goto out;
    }
    if (step == SQLITE_ROW) {
        if (added > 0)
            error_field(err, NULL, "the amounts add up to more than the ledger can hold");
        else
            ledger_error_oom(err);
        goto out;
    }
    if ((st = db_stmt(db, write, err)) == NULL)
        goto out;
    for (i = 0; i < g.nslot && step == SQLITE_DONE; i++) {
        if (g.slot[i].len == 0)
            continue;
        bind_group(&g, &g.slot[i], st);
        step = sqlite3_step(st);
        sqlite3_reset(st);
    }
    db_stmt_done(st);
    if (step != SQLITE_DONE) {
        db_error(db, err, "summary");
        goto out;
    }
    rc = LEDGER_OK;
out:
    free(g.slot);
    free(g.keys);
    free(g.scratch);
    return rc;
}
