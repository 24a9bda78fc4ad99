/*
 * ledger-libbench's timing: a call's time as a request spends it, beside
 * the time SQLite spends on the statements the call runs (see
 * g_sqlite_ms), medians of many runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "txn.h"
#include "bench.h"

double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double pct(double *v, int n, double p)
{
    int i = (int)(p * (n - 1) + 0.5);

    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[i];
}

void params_of(const char *const *kv, struct ledger_param *items, struct ledger_params *p)
{
    size_t n = 0;

    while (kv[2 * n] && n < MAXP) {
        items[n].key = (char *)kv[2 * n];
        items[n].value = (char *)kv[2 * n + 1];
        n++;
    }
    p->items = items;
    p->count = n;
}

int g_failed;

/* Time spent inside SQLite.  The program is linked with
 * -Wl,--wrap=sqlite3_step,--wrap=sqlite3_exec, so every statement the
 * library steps passes through here: a call's SQLite time is that of
 * exactly the statements it runs (triggers and COMMIT included), and the
 * rest of its time is the library's own work, building JSON above all.
 *
 * Reading the clock twice a step costs time of its own (some 40 us in a
 * five-year monthly report's thousand steps), so measure() times each
 * call twice: once with g_timing off, for the call's time as a request
 * spends it, and once on, for SQLite's share, less the clock's own cost
 * (g_clock_ms, measured at start) once a step: the part of the two
 * readings that falls between them. */
static double g_sqlite_ms;
double g_clock_ms;
static long g_steps;
static int g_timing;

int __real_sqlite3_step(sqlite3_stmt *st);
int __wrap_sqlite3_step(sqlite3_stmt *st);
int __real_sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **),
                        void *arg, char **errmsg);
int __wrap_sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **),
                        void *arg, char **errmsg);

int __wrap_sqlite3_step(sqlite3_stmt *st)
{
    double t0;
    int rc;

    if (!g_timing)
        return __real_sqlite3_step(st);
    t0 = now_ms();
    rc = __real_sqlite3_step(st);
    g_sqlite_ms += now_ms() - t0;
    g_steps++;
    return rc;
}

int __wrap_sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **),
                        void *arg, char **errmsg)
{
    double t0;
    int rc;

    if (!g_timing)
        return __real_sqlite3_exec(db, sql, cb, arg, errmsg);
    t0 = now_ms();
    rc = __real_sqlite3_exec(db, sql, cb, arg, errmsg);
    g_sqlite_ms += now_ms() - t0;
    g_steps++;
    return rc;
}

/* The cost of one clock reading: the median of 101 runs of 1,000. */
double clock_cost_ms(void)
{
    double v[101], t0;
    int i, j;

    for (i = 0; i < 101; i++) {
        t0 = now_ms();
        for (j = 0; j < 1000; j++)
            (void)now_ms();
        v[i] = (now_ms() - t0) / 1001;
    }
    return pct(v, 101, 0.5);
}

FILE *g_tsv;

/* The items of a JSON array given as text (ledger_txn_list_text). */
static int raw_items(const char *p)
{
    int depth = 0, n = 0, in_string = 0;

    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_string = 0;
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '[' || *p == '{') {
            n += depth++ == 1;
        } else if (*p == ']' || *p == '}') {
            depth--;
        }
    }
    return n;
}

/* Calls fn `iterations` times (after warm-up rounds), each in its own
 * transaction as ledger-fcgi runs a request (write: BEGIN IMMEDIATE and a
 * real COMMIT), and prints the medians of the call and of the SQLite time
 * within it.  target_ms 0: no target, shown for information. */
void measure(ledger_db *db, int64_t me, const char *name, bench_fn fn, const void *arg,
             int iterations, int write, double target_ms)
{
    double *lib = calloc((size_t)iterations, sizeof *lib);
    double *sql = calloc((size_t)iterations, sizeof *sql);
    ledger_error err;
    int i, rows = -1;

    for (i = -2; i < iterations; i++) {  /* two warm-up rounds */
        for (g_timing = 0; g_timing < 2; g_timing++) {
            cJSON *out = NULL, *items;
            double t0;

            g_sqlite_ms = 0;
            g_steps = 0;
            t0 = now_ms();
            if (ledger_begin(db, write, &err) || fn(db, me, arg, &out, &err)
                || ledger_commit(db, &err)) {
                fprintf(stderr, "%s: %s\n", name, err.message);
                exit(EXIT_BROKEN);
            }
            if (i >= 0 && !g_timing)
                lib[i] = now_ms() - t0;
            else if (i >= 0)
                sql[i] = g_sqlite_ms - (double)g_steps * g_clock_ms;
            items = cJSON_GetObjectItem(out, "items");
            rows = cJSON_IsArray(items) ? cJSON_GetArraySize(items)
                   : cJSON_IsRaw(items) ? raw_items(items->valuestring) : -1;
            cJSON_Delete(out);
        }
    }
    g_timing = 0;
    {
        double med = pct(lib, iterations, 0.5), p99 = pct(lib, iterations, 0.99);
        double smed = pct(sql, iterations, 0.5);
        char count[24] = "";

        if (rows >= 0)
            snprintf(count, sizeof count, "%4d rows", rows);
        printf("%-34s %9s  lib p50 %8.3f ms  p99 %8.3f ms  sqlite p50 %8.3f ms  lib/sqlite %4.2fx",
               name, count, med, p99, smed, smed > 0 ? med / smed : 0.0);
        if (target_ms > 0) {
            g_failed |= med >= target_ms;
            printf("  target p50 < %.0f ms: %s", target_ms, med < target_ms ? "ok" : "MISSED");
        }
        printf("\n");
        if (g_tsv)
            fprintf(g_tsv, "%s\t%.3f\t%.3f\n", name, med, smed);
    }
    free(lib);
    free(sql);
}

/* The list as ledger-fcgi asks for it: its rows written as text. */
int call_list(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    return ledger_txn_list_text(db, me, arg, out, err);
}

/* A call that takes query parameters, with its parameters. */
struct params_call {
    int (*call)(ledger_db *, int64_t, const struct ledger_params *, cJSON **, ledger_error *);
    struct ledger_params p;
};

static int call_params(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    const struct params_call *c = arg;

    return c->call(db, me, &c->p, out, err);
}

void run_call(ledger_db *db, int64_t me, const char *name, const char *const *kv,
              int (*call)(ledger_db *, int64_t, const struct ledger_params *, cJSON **,
                          ledger_error *),
              int iterations, double target_ms)
{
    struct ledger_param items[MAXP];
    struct params_call c = { call, { NULL, 0 } };

    params_of(kv, items, &c.p);
    measure(db, me, name, call_params, &c, iterations, 0, target_ms);
}

void run(ledger_db *db, int64_t me, const char *name, const char *const *kv, int iterations)
{
    struct ledger_param items[MAXP];
    struct ledger_params p;

    params_of(kv, items, &p);
    measure(db, me, name, call_list, &p, iterations, 0, 5.0);
}

/* Prints a figure with its target (0: none, shown for information). */
void figure(const char *name, double ms, double rows, double target)
{
    if (target > 0) {
        g_failed |= ms >= target;
        printf("%-34s %9.1f ms (%g rows)  target < %.0f ms: %s\n", name, ms, rows, target,
               ms < target ? "ok" : "MISSED");
    } else {
        printf("%-34s %9.1f ms (%g rows)\n", name, ms, rows);
    }
}