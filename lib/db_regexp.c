/*
 * ledger_regexp, the SQL function behind rules' `matches`, with the
 * bounds on its cost (below).  The rule: a user's pattern holds the write
 * lock no longer than those bounds allow; past them its statement fails,
 * and no row is ever taken silently as no match.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <time.h>

#include "db.h"

/* ledger_regexp(pattern, text): whether text matches the PCRE2 pattern,
 * caseless and in UTF-8, for rules' `matches`.  The compiled pattern is
 * kept with the statement (auxdata), so a rule's pattern is compiled once
 * per run, not once per row.  A pattern that does not compile (rules check
 * theirs when saved) matches nothing.
 *
 * Any user writes the pattern, and it runs inside a write transaction
 * while every other request waits, so its cost is bounded three ways.  A
 * backtracking pattern ("^(a|aa)+$" on forty a's and a '!') takes a tenth
 * of a second a row under PCRE2's default limits; the match context (the
 * function's user data, one per connection) bounds a row to
 * REGEXP_MATCH_LIMIT steps, far more than a real pattern needs on a
 * description.  A pattern just under that on every row adds up, so a
 * statement (one rule's match) gets REGEXP_BUDGET_NS of matching in all,
 * and a transaction (one request, which ledger_begin starts) gets
 * REGEXP_REQUEST_NS, so that many rules each under their own bound cannot
 * hold the lock for long either.  The request's bound is the larger so
 * that a ledger's several pattern rules fit in one apply-all.  Past any
 * of them the statement fails, and the rule with it (REGEXP_TOO_COMPLEX or
 * REGEXP_OVER_BUDGET, 409s in db_error), rather than a row being silently
 * taken as no match. */
#define REGEXP_MATCH_LIMIT 1000000
#define REGEXP_DEPTH_LIMIT 100000
#define REGEXP_BUDGET_NS 500000000LL
#define REGEXP_REQUEST_NS 2000000000LL

/* The function's user data, one per connection. */
struct regexp_ctx {
    pcre2_match_context *limits;
    long long spent_ns;  /* matching so far in the transaction ledger_begin began */
};

/* What one statement keeps with its constant pattern argument. */
struct regexp_aux {
    pcre2_code *re;
    long long spent_ns;  /* matching so far, over the statement's rows */
};

static void free_aux(void *p)
{
    struct regexp_aux *aux = p;

    pcre2_code_free(aux->re);
    free(aux);
}

static long long now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void free_regexp_ctx(void *p)
{
    struct regexp_ctx *rx = p;

    pcre2_match_context_free(rx->limits);
    free(rx);
}

static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct regexp_ctx *rx = sqlite3_user_data(ctx);
    struct regexp_aux *aux = sqlite3_get_auxdata(ctx, 0);
    pcre2_match_data *md;
    const unsigned char *text = sqlite3_value_text(argv[1]);
    long long t0, spent;
    int rc, fresh = 0;

    (void)argc;
    if (aux == NULL) {
        const unsigned char *pattern = sqlite3_value_text(argv[0]);
        int code;
        PCRE2_SIZE off;

        if ((aux = calloc(1, sizeof *aux)) == NULL) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        if (pattern == NULL || (aux->re = pcre2_compile(pattern, PCRE2_ZERO_TERMINATED,
                                                        PCRE2_CASELESS | PCRE2_UTF, &code, &off,
                                                        NULL)) == NULL) {
            free(aux);
            sqlite3_result_int(ctx, 0);
            return;
        }
        fresh = 1;
    }
    t0 = now_ns();
    md = text ? pcre2_match_data_create_from_pattern(aux->re, NULL) : NULL;
    rc = md ? pcre2_match(aux->re, text, (PCRE2_SIZE)sqlite3_value_bytes(argv[1]), 0, 0, md,
                          rx->limits)
            : -1;
    pcre2_match_data_free(md);
    spent = now_ns() - t0;
    aux->spent_ns += spent;
    rx->spent_ns += spent;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        sqlite3_result_error(ctx, REGEXP_TOO_COMPLEX, -1);
    else if (aux->spent_ns > REGEXP_BUDGET_NS
             || (!sqlite3_get_autocommit(sqlite3_context_db_handle(ctx))
                 && rx->spent_ns > REGEXP_REQUEST_NS))
        sqlite3_result_error(ctx, REGEXP_OVER_BUDGET, -1);
    else
        sqlite3_result_int(ctx, rc >= 0);
    /* Handed to SQLite last: it may free it at once if it cannot keep it. */
    if (fresh)
        sqlite3_set_auxdata(ctx, 0, aux, free_aux);
}

int db_regexp_register(ledger_db *db, ledger_error *err)
{
    struct regexp_ctx *rx;

    if ((rx = calloc(1, sizeof *rx)) == NULL
        || (rx->limits = pcre2_match_context_create(NULL)) == NULL) {
        free(rx);
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    }
    pcre2_set_match_limit(rx->limits, REGEXP_MATCH_LIMIT);
    pcre2_set_depth_limit(rx->limits, REGEXP_DEPTH_LIMIT);
    db->regexp = rx;
    /* SQLite owns rx from here, even when this fails. */
    if (sqlite3_create_function_v2(db->sql, "ledger_regexp", 2,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, rx,
                                   sql_regexp, NULL, NULL, free_regexp_ctx) != SQLITE_OK)
        return db_error(db, err, "SQL functions");
    return LEDGER_OK;
}

void db_regexp_begin(ledger_db *db)
{
    db->regexp->spent_ns = 0;
}
