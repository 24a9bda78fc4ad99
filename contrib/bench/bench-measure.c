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
 * readings that falls between them.
 *
 * The rest of SQLite's API the library calls between steps (reading a
 * row's columns, binding, resetting: API_WRAPS below) is timed the same
 * way into g_api_ms, in the same pass: its clock readings fall outside
 * the steps' own. */
static double g_sqlite_ms, g_api_ms;
double g_clock_ms;
static long g_steps, g_api_calls;
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

/* One wrapped call of SQLite's API, timed into g_api_ms while g_timing
 * is on (the linker's --wrap for each name in Makefile.am). */
#define API_WRAP(ret, name, params, args) \
    ret __real_##name params; \
    ret __wrap_##name params; \
    ret __wrap_##name params \
    { \
        double t0; \
        ret r; \
        if (!g_timing) \
            return __real_##name args; \
        t0 = now_ms(); \
        r = __real_##name args; \
        g_api_ms += now_ms() - t0; \
        g_api_calls++; \
        return r; \
    }
API_WRAP(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(int, sqlite3_column_int, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(int, sqlite3_column_type, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(int, sqlite3_column_bytes, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(const void *, sqlite3_column_blob, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(int, sqlite3_bind_int64, (sqlite3_stmt *st, int i, sqlite3_int64 v), (st, i, v))
API_WRAP(int, sqlite3_bind_int, (sqlite3_stmt *st, int i, int v), (st, i, v))
API_WRAP(int, sqlite3_bind_null, (sqlite3_stmt *st, int i), (st, i))
API_WRAP(int, sqlite3_bind_text, (sqlite3_stmt *st, int i, const char *v, int n, void (*d)(void *)),
         (st, i, v, n, d))
API_WRAP(int, sqlite3_bind_parameter_index, (sqlite3_stmt *st, const char *name), (st, name))
API_WRAP(int, sqlite3_reset, (sqlite3_stmt *st), (st))
API_WRAP(int, sqlite3_clear_bindings, (sqlite3_stmt *st), (st))

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

/* The values of a JSON tree, containers included; each number read by
 * ledger_json_parse is made its literal text again (a raw item), as the
 * library writes money: printed as it is, not through a double. */
static long tree_values(cJSON *item)
{
    cJSON *c;
    long n = 1;

    if (cJSON_IsNumber(item) && item->valuestring)
        item->type = cJSON_Raw;
    for (c = item->child; c; c = c->next)
        n += tree_values(c);
    return n;
}

/* A reference cost of writing an answer's items as JSON text: the
 * library's printer (ledger_json_print, the writer ledger-fcgi's pages
 * and reports use, key by key and value by value) writing the same text
 * from a tree already in memory, with no SQL and no row to read; the
 * median of 31.  A report that writes text made once for many items
 * (the monthly report's cells) can beat it.  *bytes and *values say how much text that is.  0 when
 * the answer has no items. */
static double json_ref_ms(cJSON *out, size_t *bytes, long *values)
{
    cJSON *items = cJSON_GetObjectItem(out, "items"), *parsed = NULL, *tree = items;
    double t[31];
    ledger_error err;
    int k;

    *bytes = 0;
    *values = 0;
    if (cJSON_IsRaw(items)) {
        if (ledger_json_parse(items->valuestring, strlen(items->valuestring), &parsed, &err))
            return 0;
        tree = parsed;
    }
    if (tree == NULL || !(cJSON_IsArray(tree) || cJSON_IsObject(tree))) {
        cJSON_Delete(parsed);
        return 0;
    }
    *values = tree_values(tree);
    for (k = 0; k < 31; k++) {
        double t0 = now_ms();
        char *text = ledger_json_print(tree, bytes);

        t[k] = now_ms() - t0;
        free(text);
    }
    cJSON_Delete(parsed);
    return pct(t, 31, 0.5);
}

/* Calls fn `iterations` times (after warm-up rounds), each in its own
 * transaction as ledger-fcgi runs a request (write: BEGIN IMMEDIATE and a
 * real COMMIT), and prints the medians of the call and of the SQLite time
 * within it.  target_ms 0: no target, shown for information.
 *
 * A second line says where the call's time goes: in sqlite3_step (the
 * "sqlite" figure), in the rest of SQLite's API (column reads, binds,
 * resets), a reference cost of writing its items' JSON text
 * (json_ref_ms), and the rest, the library's own work (its SQL text,
 * the statement cache, the report's own arithmetic and sorting, the
 * transaction's begin and commit).  Each is a median of its own, so the
 * parts add up to the call's time only roughly. */
void measure(ledger_db *db, int64_t me, const char *name, bench_fn fn, const void *arg,
             int iterations, int write, double target_ms)
{
    double *lib = calloc((size_t)iterations, sizeof *lib);
    double *sql = calloc((size_t)iterations, sizeof *sql);
    double *api = calloc((size_t)iterations, sizeof *api);
    cJSON *last = NULL;
    ledger_error err;
    long steps = 0, calls = 0;
    int i, rows = -1;

    for (i = -2; i < iterations; i++) {  /* two warm-up rounds */
        for (g_timing = 0; g_timing < 2; g_timing++) {
            cJSON *out = NULL, *items;
            double t0;

            g_sqlite_ms = 0;
            g_api_ms = 0;
            g_steps = 0;
            g_api_calls = 0;
            t0 = now_ms();
            if (ledger_begin(db, write, &err) || fn(db, me, arg, &out, &err)
                || ledger_commit(db, &err)) {
                fprintf(stderr, "%s: %s\n", name, err.message);
                exit(EXIT_BROKEN);
            }
            if (i >= 0 && !g_timing) {
                lib[i] = now_ms() - t0;
            } else if (i >= 0) {
                sql[i] = g_sqlite_ms - (double)g_steps * g_clock_ms;
                api[i] = g_api_ms - (double)g_api_calls * g_clock_ms;
                steps = g_steps;
                calls = g_api_calls;
            }
            items = cJSON_GetObjectItem(out, "items");
            rows = cJSON_IsArray(items) ? cJSON_GetArraySize(items)
                   : cJSON_IsRaw(items) ? raw_items(items->valuestring) : -1;
            cJSON_Delete(last);
            last = out;
        }
    }
    g_timing = 0;
    {
        double med = pct(lib, iterations, 0.5), p99 = pct(lib, iterations, 0.99);
        double smed = pct(sql, iterations, 0.5), amed = pct(api, iterations, 0.5), jmed;
        char count[24] = "";
        size_t bytes;
        long values;

        if (rows >= 0)
            snprintf(count, sizeof count, "%4d rows", rows);
        printf("%-34s %9s  lib p50 %8.3f ms  p99 %8.3f ms  sqlite p50 %8.3f ms  lib/sqlite %4.2fx",
               name, count, med, p99, smed, smed > 0 ? med / smed : 0.0);
        if (target_ms > 0) {
            g_failed |= med >= target_ms;
            printf("  target p50 < %.0f ms: %s", target_ms, med < target_ms ? "ok" : "MISSED");
        }
        printf("\n");
        jmed = json_ref_ms(last, &bytes, &values);
        printf("%-34s   step %.3f (%ld), api %.3f (%ld calls), json ~%.3f (%.1f kB, %ld values),"
               " rest %.3f ms\n", "", smed, steps, amed, calls, jmed, bytes / 1e3, values,
               med - smed - amed - jmed);
        if (g_tsv)
            fprintf(g_tsv, "%s\t%.3f\t%.3f\n", name, med, smed);
    }
    cJSON_Delete(last);
    free(lib);
    free(sql);
    free(api);
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