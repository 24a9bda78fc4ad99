/*
 * The SQL functions every connection has, besides ledger_regexp
 * (db_regexp.c): folding text and categories as the library does, the
 * search's substring test, and sums of cents that cannot overflow.  The
 * rule: each is deterministic and direct-only (no trigger or view a file
 * brings can call them), and each is registered before the migrations
 * run, which may use them.
 */
#include <string.h>

#include "db.h"
#include "suggest.h"
#include "text.h"

/* ledger_fold(text): text lowered as utf8_lower does, for comparing names
 * and searching text beyond ASCII (SQLite's NOCASE and LIKE fold only
 * A-Z).  NULL stays NULL. */
static void sql_fold(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const char *text = (const char *)sqlite3_value_text(argv[0]);
    char *copy;

    (void)argc;
    if (text == NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    if ((copy = sqlite3_malloc(sqlite3_value_bytes(argv[0]) + 1)) == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    memcpy(copy, text, (size_t)sqlite3_value_bytes(argv[0]) + 1);
    utf8_lower(copy);
    sqlite3_result_text(ctx, copy, -1, sqlite3_free);
}

/* ledger_category(text): the category text names (rule C, as every write
 * folds it), NULL when it names none; for migrations that fold stored
 * categories again. */
static void sql_category(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const char *text = (const char *)sqlite3_value_text(argv[0]);
    char out[LEDGER_CATEGORY_MAX];

    (void)argc;
    if (text == NULL || ledger_category_fold(text, out) == LEDGER_CATEGORY_EMPTY)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* ledger_contains(term, text, ...): 1 when any text holds term, in any
 * case; NULL texts hold nothing.  term comes lowered (utf8_lower); a term
 * with letters beyond ASCII is looked for in lowered copies of the texts,
 * as ledger_fold(text) LIKE '%term%' would, and an ASCII one in the texts
 * themselves, as LIKE would (a search over 50,000 rows spent most of its
 * time in LIKE's pattern walk, three calls a row). */
static void sql_contains(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const char *term = (const char *)sqlite3_value_text(argv[0]);
    size_t m = (size_t)sqlite3_value_bytes(argv[0]), i;
    int fold = 0, found = 0, k;
    char stack[256];

    if (term == NULL) {
        sqlite3_result_int(ctx, 0);
        return;
    }
    for (i = 0; i < m; i++)
        fold |= (unsigned char)term[i] >= 0x80;
    for (k = 1; k < argc && !found; k++) {
        const char *text = (const char *)sqlite3_value_text(argv[k]);
        size_t n = (size_t)sqlite3_value_bytes(argv[k]);
        char *copy;

        if (text == NULL)
            continue;
        if (!fold) {
            found = text_contains(text, n, term, m);
            continue;
        }
        /* Lowering keeps ASCII ASCII and everything else not, so a text
         * of ASCII alone cannot hold this term: no copy to lower. */
        for (i = 0; i < n && (unsigned char)text[i] < 0x80; i++)
            ;
        if (i == n)
            continue;
        copy = n < sizeof stack ? stack : sqlite3_malloc64(n + 1);
        if (copy == NULL) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        memcpy(copy, text, n + 1);
        utf8_lower(copy);
        found = text_contains(copy, n, term, m);
        if (copy != stack)
            sqlite3_free(copy);
    }
    sqlite3_result_int(ctx, found);
}

/* ledger_sum(x): SUM() of whole cents in 128 bits (see money_sum_pack).
 * Every input is within int64, so no count of rows a database can hold
 * (fewer than 2^64) takes the sum past 2^127.  The sum is kept as bytes:
 * SQLite's aggregate context is 8-byte aligned, an __int128 wants 16
 * (UBSan stopped the merchant list on it). */
struct sum_state {
    unsigned char cents[sizeof(money_sum)];
    int rows;
};

static void sql_sum_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sum_state *s = sqlite3_aggregate_context(ctx, (int)sizeof *s);
    money_sum cents;

    (void)argc;
    if (s == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    memcpy(&cents, s->cents, sizeof cents);
    cents += sqlite3_value_int64(argv[0]);
    memcpy(s->cents, &cents, sizeof cents);
    s->rows = 1;
}

static void sql_sum_final(sqlite3_context *ctx)
{
    struct sum_state *s = sqlite3_aggregate_context(ctx, 0);
    unsigned char b[MONEY_SUM_BYTES];
    money_sum cents;

    if (s == NULL || !s->rows) {
        sqlite3_result_null(ctx);
        return;
    }
    memcpy(&cents, s->cents, sizeof cents);
    money_sum_pack(cents, b);
    sqlite3_result_blob(ctx, b, MONEY_SUM_BYTES, SQLITE_TRANSIENT);
}

int db_functions_register(ledger_db *db, ledger_error *err)
{
    if (db_regexp_register(db, err))
        return LEDGER_ERR;
    if (sqlite3_create_function(db->sql, "ledger_fold", 1,
                                SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                sql_fold, NULL, NULL) != SQLITE_OK
        || sqlite3_create_function(db->sql, "ledger_contains", -1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                   sql_contains, NULL, NULL) != SQLITE_OK
        || sqlite3_create_function(db->sql, "ledger_category", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                   sql_category, NULL, NULL) != SQLITE_OK
        || sqlite3_create_function(db->sql, "ledger_words", 3,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                   suggest_sql_words, NULL, NULL) != SQLITE_OK
        || sqlite3_create_function(db->sql, "ledger_sum", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
                                   NULL, sql_sum_step, sql_sum_final) != SQLITE_OK)
        return db_error(db, err, "SQL functions");
    return LEDGER_OK;
}
