/*
 * ledger-libbench: times libledger's calls in-process against a generated
 * ledger, beside the ceiling of each: the time SQLite itself spends on the
 * statements the call runs (see g_sqlite_ms).
 *
 *   ledger-libbench --db PATH [--user SUBJECT] [--iterations N] [--only SECTION]
 *   ledger-libbench --db PATH --families DIR [--iterations N]
 *
 * SECTION is one of list, analytics, export, rules, ofx, reconcile, csv, suggest: only that
 * family runs (for working on one figure without waiting for the rest).
 * --families times the calls behind contrib/bench/http.pl's endpoint
 * families instead, and writes DIR/families.tsv and the request bodies
 * for http.pl.
 *
 * For each case it prints the median and p99 of the library call, the
 * median of its SQLite time, their ratio, and the target it is held to.
 * Exit status: 0 every target met, 1 some target missed, 2 bad usage, 3 a
 * call failed (the harness is broken, which CI's smoke run checks for;
 * it never judges speed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "suggest.h"

#define MAXP 8
#define EXIT_BROKEN 3

struct bench_case {
    const char *name;
    const char *kv[2 * MAXP];  /* key, value, ..., NULL */
};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    int i = (int)(p * (n - 1) + 0.5);

    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[i];
}

static void params_of(const char *const *kv, struct ledger_param *items, struct ledger_params *p)
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

static int g_failed;

/* Whether the family `section` runs: every one unless --only names one. */
static int wanted(const char *only, const char *section)
{
    return only == NULL || strcmp(only, section) == 0;
}

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
static double g_sqlite_ms, g_clock_ms;
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
static double clock_cost_ms(void)
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

/* One library call as a request makes it: fills *out; nonzero on failure. */
typedef int (*bench_fn)(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err);

/* Where --tsv writes "name<TAB>lib p50<TAB>sqlite p50" lines (for http.pl). */
static FILE *g_tsv;

/* Calls fn `iterations` times (after warm-up rounds), each in its own
 * transaction as ledger-fcgi runs a request (write: BEGIN IMMEDIATE and a
 * real COMMIT), and prints the medians of the call and of the SQLite time
 * within it.  target_ms 0: no target, shown for information. */
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

static void measure(ledger_db *db, int64_t me, const char *name, bench_fn fn, const void *arg,
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
static int call_list(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
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

static void run_call(ledger_db *db, int64_t me, const char *name, const char *const *kv,
                     int (*call)(ledger_db *, int64_t, const struct ledger_params *, cJSON **,
                                 ledger_error *),
                     int iterations, double target_ms)
{
    struct ledger_param items[MAXP];
    struct params_call c = { call, { NULL, 0 } };

    params_of(kv, items, &c.p);
    measure(db, me, name, call_params, &c, iterations, 0, target_ms);
}

static void run(ledger_db *db, int64_t me, const char *name, const char *const *kv,
                int iterations)
{
    struct ledger_param items[MAXP];
    struct ledger_params p;

    params_of(kv, items, &p);
    measure(db, me, name, call_list, &p, iterations, 0, 5.0);
}

/* Prints a figure with its target (0: none, shown for information). */
static void figure(const char *name, double ms, double rows, double target)
{
    if (target > 0) {
        g_failed |= ms >= target;
        printf("%-34s %9.1f ms (%g rows)  target < %.0f ms: %s\n", name, ms, rows, target,
               ms < target ? "ok" : "MISSED");
    } else {
        printf("%-34s %9.1f ms (%g rows)\n", name, ms, rows);
    }
}

/* An export's bytes, counted and dropped (as a fast reader would take
 * them), and the rows it reported. */
struct export_count {
    size_t bytes;
    int64_t rows;
};
static int export_bytes(void *ctx, const char *buf, size_t len)
{
    (void)buf;
    ((struct export_count *)ctx)->bytes += len;
    return 0;
}
static void export_rows_seen(void *ctx, int64_t done, int64_t total)
{
    (void)total;
    ((struct export_count *)ctx)->rows = done;
}

/* The peak resident set of the process so far, in MiB. */
static double peak_rss_mib(void)
{
    struct rusage ru;

    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024.0 : 0;
}

/* Each format exported `rounds` times in a read transaction; the median
 * with the rows and bytes, and the process's peak RSS before and after
 * (the export streams: the peak should not move).  Nonzero when a call
 * fails. */
static int export_family(ledger_db *db, int64_t me, int rounds)
{
    static const char *const names[] = { NULL, "csv", "json", "journal" };
    double t[32], before = peak_rss_mib();
    struct export_count c = { 0, 0 };
    ledger_error err;
    int f, r;

    if (rounds > 32)
        rounds = 32;
    for (f = LEDGER_EXPORT_CSV; f <= LEDGER_EXPORT_JOURNAL; f++) {
        char name[48];

        for (r = 0; r < rounds; r++) {
            double t0 = now_ms();

            c.bytes = 0;
            if (ledger_begin(db, 0, &err)
                || ledger_export(db, me, (enum ledger_export_format)f, export_bytes, &c,
                                 export_rows_seen, &c, &err)) {
                fprintf(stderr, "export %s: %s\n", names[f], err.message);
                return -1;
            }
            ledger_rollback(db);
            t[r] = now_ms() - t0;
        }
        qsort(t, (size_t)rounds, sizeof t[0], cmp_double);
        snprintf(name, sizeof name, "export %s", names[f]);
        g_failed |= t[rounds / 2] >= 1000;
        printf("%-34s %9.1f ms (%lld rows, %.1f MB)  target < 1000 ms: %s\n", name, t[rounds / 2],
               (long long)c.rows, c.bytes / 1e6, t[rounds / 2] < 1000 ? "ok" : "MISSED");
    }
    printf("%-34s %9.1f MiB (%.1f MiB before the exports)\n", "peak RSS after the exports",
           peak_rss_mib(), before);
    return 0;
}

/* A rule that renames the merchant of every row of `me`, applied and then
 * reverted, RULE_ROUNDS times (a revert puts every row back, so each round
 * starts from the same ledger); the medians are printed.  Nonzero when a
 * call fails. */
#define RULE_ROUNDS 3
/* The CSV import rounds (three files of 100,000 rows each). */
#define CSV_ROUNDS 3
#define RULE_ALL_ROWS \
    "{\"name\":\"bench all\",\"conditions\":[{\"field\":\"amount\",\"operator\":\"gte\",\"value\":0}]," \
    "\"actions\":[{\"type\":\"set_merchant\",\"merchant_normalized\":\"Bench\"}"
static int rule_json_and_revert(ledger_db *db, int64_t me, const char *rule_json,
                                const char *apply_name, double apply_target,
                                const char *revert_name, double revert_target)
{
    cJSON *body = NULL, *out = NULL;
    ledger_error err;
    int64_t rule_id, run_id;
    double t0, apply_ms[RULE_ROUNDS], revert_ms[RULE_ROUNDS], matches = 0;
    int k, rc = 1;

    if (ledger_json_parse(rule_json, strlen(rule_json), &body, &err)
        || ledger_rule_create(db, me, body, &out, &err))
        goto out;
    rule_id = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
    for (k = 0; k < RULE_ROUNDS; k++) {
        cJSON_Delete(out);
        out = NULL;
        t0 = now_ms();
        if (ledger_rule_apply(db, me, rule_id, &out, &err))
            goto out;
        apply_ms[k] = now_ms() - t0;
        matches = cJSON_GetObjectItem(out, "matches")->valuedouble;
        run_id = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
        cJSON_Delete(out);
        out = NULL;
        t0 = now_ms();
        if (ledger_rule_revert(db, me, run_id, &out, &err))
            goto out;
        revert_ms[k] = now_ms() - t0;
    }
    figure(apply_name, pct(apply_ms, RULE_ROUNDS, 0.5), matches, apply_target);
    figure(revert_name, pct(revert_ms, RULE_ROUNDS, 0.5), matches, revert_target);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "rule run: %s\n", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    return rc;
}

static int rule_and_revert(ledger_db *db, int64_t me, const char *apply_name, double apply_target,
                           const char *revert_name, double revert_target)
{
    return rule_json_and_revert(db, me, RULE_ALL_ROWS "]}", apply_name, apply_target, revert_name,
                                revert_target);
}

static int64_t first_id(ledger_db *db, const char *sql, int64_t me);

/* A revert's cost is the run's rows and their tags, not the tags their
 * owner has: every row of `me` carrying one bench tag, of 1 and then of
 * 3,000, reverted after a run with no tag action (and, at 3,000, after
 * one that adds a tag). */
static int revert_many_tags(ledger_db *db, int64_t me)
{
    char sql[1024], rule[512];
    int64_t tag;
    int k;

    for (k = 1; k <= 3000; k += 2999) {
        snprintf(sql, sizeof sql,
                 "DELETE FROM tags WHERE owner_id = %lld AND name LIKE 'bench tag %%';"
                 " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)"
                 " INSERT INTO tags (owner_id, name) SELECT %lld, 'bench tag ' || i FROM n;"
                 " INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
                 "  SELECT t.id, (SELECT MIN(id) FROM tags WHERE owner_id = %lld AND name LIKE 'bench tag %%')"
                 "                + t.id %% %d FROM transactions t WHERE t.owner_id = %lld",
                 (long long)me, k, (long long)me, (long long)me, k, (long long)me);
        if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
            return 1;
        printf("%d bench tag%s, every row of the user carrying one\n", k, k > 1 ? "s" : "");
        if (rule_and_revert(db, me, "  one rule, no tag action", 0, "  revert it", 2000))
            return 1;
    }
    tag = first_id(db, "SELECT MAX(id) FROM tags WHERE owner_id = ?", me);
    snprintf(rule, sizeof rule, RULE_ALL_ROWS ",{\"type\":\"add_tag\",\"tag_id\":%lld}]}",
             (long long)tag);
    return rule_json_and_revert(db, me, rule, "  one rule, add_tag", 0, "  revert it", 2000);
}

/* n more manual rows for `me`, through the CSV commit. */
static int add_rows(ledger_db *db, int64_t me, int n)
{
    size_t cap = (size_t)n * 96 + 64, len = 0;
    char *text = malloc(cap);
    cJSON *body = NULL, *out = NULL;
    ledger_error err;
    int i, rc = 1;

    if (text == NULL)
        return 1;
    len += (size_t)snprintf(text + len, cap - len, "{\"allow_duplicates\":true,\"rows\":[");
    for (i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "%s{\"date\":\"2020-%02d-%02d\",\"description\":\"bench extra %d\",\"amount\":%d.%02d}",
                                i ? "," : "", 1 + i % 12, 1 + i % 28, i, 1 + i % 500, i % 100);
    len += (size_t)snprintf(text + len, cap - len, "]}");
    if (ledger_json_parse(text, len, &body, &err) == 0 && ledger_csv_commit(db, me, body, &out, &err) == 0)
        rc = 0;
    else
        fprintf(stderr, "adding rows: %s\n", err.message);
    cJSON_Delete(body);
    cJSON_Delete(out);
    free(text);
    return rc;
}

/* The cursor after walking `pages` pages of 50 from the start. */
static char *deep_cursor(ledger_db *db, int64_t me, int pages)
{
    char *cursor = NULL;
    int i;

    for (i = 0; i < pages; i++) {
        struct ledger_param items[2] = { { (char *)"cursor", cursor } };
        struct ledger_params p = { items, cursor ? 1 : 0 };
        ledger_error err;
        cJSON *out = NULL, *next;

        if (ledger_txn_list(db, me, &p, &out, &err)) {
            fprintf(stderr, "deep cursor: %s\n", err.message);
            exit(EXIT_BROKEN);
        }
        next = cJSON_GetObjectItem(out, "next_cursor");
        free(cursor);
        cursor = cJSON_IsString(next) ? strdup(next->valuestring) : NULL;
        cJSON_Delete(out);
        if (cursor == NULL)
            break;
    }
    return cursor;
}

static int64_t first_id(ledger_db *db, const char *sql, int64_t me)
{
    sqlite3_stmt *st;
    int64_t v = 0;

    sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
    sqlite3_bind_int64(st, 1, me);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* ---- the HTTP families, in-process --------------------------------------------------
 * The calls behind each family contrib/bench/http.pl drives through a web
 * server, with the same bodies, so its report can put every HTTP figure
 * beside the library's time and SQLite's.  The CSV bodies are written to
 * files for http.pl to send. */

static int call_create(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    return ledger_txn_create(db, me, arg, out, err);
}

struct id_body {
    int64_t id;
    const cJSON *body;
};

static int call_update(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    const struct id_body *c = arg;

    return ledger_txn_update(db, me, c->id, c->body, out, err);
}

static int call_splits(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    return ledger_split_get(db, me, ((const struct id_body *)arg)->id, out, err);
}

static int call_balances(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    (void)arg;
    return ledger_balance_list(db, me, out, err);
}

static int call_rules(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    (void)arg;
    return ledger_rule_apply_all(db, me, out, err);
}

static int call_csv_preview(ledger_db *db, int64_t me, const void *arg, cJSON **out,
                            ledger_error *err)
{
    static const struct ledger_params none = { NULL, 0 };

    return ledger_csv_preview(db, me, NULL, 0, arg, &none, out, err);
}

static int call_csv_commit(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err)
{
    return ledger_csv_commit(db, me, arg, out, err);
}

/* Writes text to dir/name and parses it; NULL (and a message) on failure. */
static cJSON *body_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    FILE *f;
    cJSON *doc = NULL;
    ledger_error err;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write\n", path);
        return NULL;
    }
    if (ledger_json_parse(text, strlen(text), &doc, &err))
        fprintf(stderr, "%s: %s\n", name, err.message);
    return doc;
}

/* The CSV bodies: a 1,000-row file to preview, and its rows to commit. */
static char *csv_bodies(int n, char **commit)
{
    size_t cap = (size_t)n * 120 + 256, len = 0, clen = 0;
    char *preview = malloc(cap);
    int i;

    *commit = malloc(cap);
    if (preview == NULL || *commit == NULL) {
        free(preview);
        free(*commit);
        return NULL;
    }
    len += (size_t)snprintf(preview + len, cap - len,
                            "{\"mapping\":{\"date\":\"Date\",\"description\":\"Description\","
                            "\"amount\":\"Amount\"},\"csv\":\"Date,Description,Amount\\n");
    clen += (size_t)snprintf(*commit + clen, cap - clen, "{\"allow_duplicates\":true,\"rows\":[");
    for (i = 0; i < n; i++) {
        len += (size_t)snprintf(preview + len, cap - len, "2019-%02d-%02d,HTTP bench %d,-%d.%02d\\n",
                                1 + i % 12, 1 + i % 28, i, 1 + i % 300, i % 100);
        clen += (size_t)snprintf(*commit + clen, cap - clen,
                                 "%s{\"date\":\"2019-%02d-%02d\",\"description\":\"HTTP bench %d\","
                                 "\"amount\":%d.%02d}", i ? "," : "", 1 + i % 12, 1 + i % 28, i,
                                 1 + i % 300, i % 100);
    }
    snprintf(preview + len, cap - len, "\"}");
    snprintf(*commit + clen, cap - clen, "]}");
    return preview;
}

/* Every family once, as http.pl names them.  dir receives families.tsv
 * (name, lib p50 ms, sqlite p50 ms) and the CSV bodies.  Nonzero when the
 * bodies cannot be written. */
static int families(ledger_db *db, int64_t me, int iterations, const char *dir, char *cursor)
{
    static const char create_json[] =
        "{\"date\":\"2026-01-02\",\"amount\":12.5,\"description\":\"bench\",\"category\":\"dining\"}";
    static const char patch_json[] = "{\"category\":\"groceries\"}";
    const char *none[] = { NULL };
    const char *dining[] = { "categories", "dining", NULL };
    const char *monthly[] = { "from", "2021-01", "to", "2025-12", NULL };
    const char *deep[] = { "cursor", cursor ? cursor : "", NULL };
    struct ledger_param items[3][MAXP];
    struct ledger_params page, filtered, deep_page;
    struct id_body patch = { 0, NULL };
    cJSON *create = NULL, *preview_body = NULL, *commit_body = NULL;
    char path[4096], *preview_text, *commit_text = NULL;
    ledger_error err;
    int rc = 1;

    snprintf(path, sizeof path, "%s/families.tsv", dir);
    if ((g_tsv = fopen(path, "w")) == NULL) {
        fprintf(stderr, "%s: cannot write\n", path);
        return 1;
    }
    if ((preview_text = csv_bodies(1000, &commit_text)) == NULL
        || (preview_body = body_file(dir, "csv-preview.json", preview_text)) == NULL
        || (commit_body = body_file(dir, "csv-commit.json", commit_text)) == NULL
        || (create = body_file(dir, "create.json", create_json)) == NULL
        || (patch.body = body_file(dir, "patch.json", patch_json)) == NULL)
        goto out;
    params_of(none, items[0], &page);
    {   /* the row http.pl patches: the first of the default list */
        char k[] = "limit", v[] = "1";
        struct ledger_param one = { k, v };
        struct ledger_params first = { &one, 1 };
        cJSON *list = NULL;

        if (ledger_txn_list(db, me, &first, &list, &err) == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(list, "items")))
            patch.id = (int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(list, "items"), 0),
                                                    "id")->valuedouble;
        cJSON_Delete(list);
    }
    params_of(dining, items[1], &filtered);
    params_of(deep, items[2], &deep_page);
    printf("-- the HTTP families in-process (http.pl puts its figures beside these)\n");
    measure(db, me, "transaction page", call_list, &page, iterations, 0, 0);
    measure(db, me, "filtered page", call_list, &filtered, iterations, 0, 0);
    if (cursor)
        measure(db, me, "deep page by cursor", call_list, &deep_page, iterations, 0, 0);
    measure(db, me, "splits", call_splits, &patch, iterations, 0, 0);
    measure(db, me, "balances", call_balances, NULL, iterations < 10 ? iterations : 10, 0, 0);
    run_call(db, me, "monthly analytics (60 months)", monthly, ledger_analytics_monthly_text, iterations, 0);
    run_call(db, me, "subscriptions", none, ledger_analytics_subscriptions,
             iterations < 10 ? iterations : 10, 0);
    run_call(db, me, "reconcile list", none, ledger_reconcile_list, iterations < 5 ? iterations : 5, 0);
    measure(db, me, "CSV preview (1,000 rows)", call_csv_preview, preview_body, iterations, 0, 0);
    /* The writes last, in http.pl's order too: the rows they add (manual
     * rows wait for reconciliation) would change what the reads find. */
    measure(db, me, "create", call_create, create, iterations, 1, 0);
    measure(db, me, "patch", call_update, &patch, iterations, 1, 0);
    measure(db, me, "rules apply", call_rules, NULL, iterations < 5 ? iterations : 5, 1, 0);
    measure(db, me, "CSV commit (1,000 rows)", call_csv_commit, commit_body, iterations, 1, 0);
    rc = 0;
out:
    fclose(g_tsv);
    g_tsv = NULL;
    cJSON_Delete(create);
    cJSON_Delete((cJSON *)patch.body);
    cJSON_Delete(preview_body);
    cJSON_Delete(commit_body);
    free(preview_text);
    free(commit_text);
    return rc;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *subject = "user01", *only = NULL, *families_dir = NULL;
    int iterations = 30, cache_mib = 0, jit = 1, i;
    ledger_db *db;
    ledger_error err;
    int64_t me, tag, stmt, trip;
    char tag_s[24], stmt_s[24], trip_s[24];
    char *cursor;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--user") == 0 && i + 1 < argc)
            subject = argv[++i];
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cache-mib") == 0 && i + 1 < argc)
            cache_mib = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--families") == 0 && i + 1 < argc)
            families_dir = argv[++i];
        else if (strcmp(argv[i], "--no-jit") == 0)
            jit = 0;
        else {
            fprintf(stderr, "usage: ledger-libbench --db PATH [--user SUBJECT] [--iterations N] [--no-jit]"
                            " [--only list|analytics|export|rules|revert|ofx|reconcile|csv|suggest] | --families DIR\n");
            return 2;
        }
    }
    if (path == NULL || iterations < 1 || ledger_open(path, &db, &err)
        || ledger_user_resolve(db, subject, NULL, NULL, &me, &err)) {
        fprintf(stderr, "ledger-libbench: cannot open %s\n", path ? path : "(no --db)");
        return path ? EXIT_BROKEN : 2;
    }
    ledger_set_jit(db, jit);  /* on, as ledger-fcgi and ledger-admin run */
    if (cache_mib > 0) {  /* SQLite's page cache, for trying sizes */
        char pragma[64];

        snprintf(pragma, sizeof pragma, "PRAGMA cache_size = -%d", cache_mib * 1024);
        sqlite3_exec(db->sql, pragma, NULL, NULL, NULL);
    }
    tag = first_id(db, "SELECT id FROM tags WHERE owner_id = ? ORDER BY id", me);
    stmt = first_id(db, "SELECT id FROM statements WHERE owner_id = ? ORDER BY id DESC", me);
    trip = first_id(db, "SELECT id FROM trips WHERE owner_id = ? ORDER BY id", me);
    snprintf(tag_s, sizeof tag_s, "%lld", (long long)tag);
    snprintf(stmt_s, sizeof stmt_s, "%lld", (long long)stmt);
    snprintf(trip_s, sizeof trip_s, "%lld", (long long)trip);
    setvbuf(stdout, NULL, _IOLBF, 0);  /* each figure as it comes, even into a file */
    g_clock_ms = clock_cost_ms();
    printf("ledger-libbench: %s as %s, %d iterations per case (a clock reading %.0f ns)\n", path,
           subject, iterations, g_clock_ms * 1e6);
    if (families_dir) {
        char *deep = deep_cursor(db, me, 200);
        int rc = families(db, me, iterations, families_dir, deep);

        free(deep);
        ledger_close(db);
        return rc ? EXIT_BROKEN : 0;
    }
    if (wanted(only, "list")) {
        printf("-- GET /api/transactions, a page of 50 (target: p50 under 5 ms inside the library)\n");
        const char *none[] = { NULL };
        const char *dates[] = { "date_from", "2024-03-01", "date_to", "2024-03-31", NULL };
        const char *cats[] = { "categories", "dining", NULL };
        const char *excl[] = { "exclude_categories", "dining", NULL };
        const char *bank[] = { "bank_names", "Manual", NULL };
        const char *tags[] = { "tag_ids", tag_s, NULL };
        const char *types[] = { "transaction_types", "fee", NULL };
        const char *search[] = { "search", "coffee", NULL };
        const char *rare[] = { "search", "netflix", NULL };
        const char *common[] = { "search", "debit", NULL };
        const char *short_term[] = { "search", "co", NULL };
        const char *accented[] = { "search", "caf\xc3\xa9", NULL };
        const char *two_words[] = { "q", "debit coffee", NULL };
        const char *amount[] = { "amount_min", "10", "amount_max", "20", NULL };
        const char *split[] = { "has_split", "split", NULL };
        const char *unsplit[] = { "has_split", "unsplit", NULL };
        const char *stmt_f[] = { "statement_id", stmt_s, NULL };
        const char *trip_f[] = { "trip_id", trip_s, NULL };
        const char *trip_all[] = { "trip_id", trip_s, "trip_all_rows", "1", NULL };
        const char *q[] = { "q", ">100", NULL };
        const char *s_amount[] = { "sort", "amount", NULL };
        const char *s_created[] = { "sort", "created_at", "order", "asc", NULL };
        const char *s_merchant[] = { "sort", "merchant", NULL };
        const char *deep_offset[] = { "offset", "10000", NULL };

        run(db, me, "default (transfers hidden)", none, iterations);
        run(db, me, "date range (one month)", dates, iterations);
        run(db, me, "categories[]=dining", cats, iterations);
        run(db, me, "exclude_categories[]=dining", excl, iterations);
        run(db, me, "bank_names[]=Manual", bank, iterations);
        run(db, me, "tag_ids[]", tags, iterations);
        run(db, me, "transaction_types[]=fee", types, iterations);
        run(db, me, "search=coffee", search, iterations);
        run(db, me, "search=netflix (rare)", rare, iterations);
        run(db, me, "search=debit (most rows)", common, iterations);
        run(db, me, "search=co (no trigram)", short_term, iterations);
        run(db, me, "search=caf\xc3\xa9 (not ASCII)", accented, iterations);
        run(db, me, "q=debit coffee (two words)", two_words, iterations);
        run(db, me, "amount 10..20", amount, iterations);
        run(db, me, "has_split=split", split, iterations);
        run(db, me, "has_split=unsplit", unsplit, iterations);
        run(db, me, "statement_id", stmt_f, iterations);
        run(db, me, "trip_id", trip_f, iterations);
        run(db, me, "trip_id&trip_all_rows=1", trip_all, iterations);
        run(db, me, "q=>100", q, iterations);
        run(db, me, "sort=amount", s_amount, iterations);
        run(db, me, "sort=created_at asc", s_created, iterations);
        run(db, me, "sort=merchant", s_merchant, iterations);
        run(db, me, "offset=10000 (deep, by offset)", deep_offset, iterations);
        cursor = deep_cursor(db, me, 200);
        if (cursor) {
            const char *deep[] = { "cursor", cursor, NULL };

            run(db, me, "cursor after 200 pages (deep)", deep, iterations);
            free(cursor);
        }
    }
    if (wanted(only, "analytics")) {
        printf("-- analytics over five years (targets: monthly under 50 ms, subscriptions under 1 s)\n");
        const char *five[] = { "from", "2021-01", "to", "2025-12", NULL };
        const char *five_mine[] = { "from", "2021-01", "to", "2025-12", "basis", "mine", NULL };
        const char *budget[] = { "month", "2025-06", NULL };
        const char *none[] = { NULL };

        run_call(db, me, "monthly, 60 months, gross", five, ledger_analytics_monthly_text,
                 iterations, 50);
        run_call(db, me, "monthly, 60 months, basis=mine", five_mine, ledger_analytics_monthly_text,
                 iterations, 50);
        run_call(db, me, "budgets, one month", budget, ledger_budget_list, iterations, 5);
        run_call(db, me, "fees and interest, 60 months", five, ledger_analytics_fees,
                 iterations, 50);
        run_call(db, me, "subscriptions (all history)", none, ledger_analytics_subscriptions,
                 iterations < 10 ? iterations : 10, 1000);
    }
    if (wanted(only, "export")) {
        printf("-- GET /api/export of every row the user sees (target: under 1 s; medians of 5)\n");
        if (export_family(db, me, 5))
            return EXIT_BROKEN;
    }
    if (wanted(only, "rules")) {
        printf("-- rules (targets: 100 rules under 10 s, one rule under 0.5 s, a 100,000-row revert under 2 s;\n"
               "   single runs: medians of %d rounds of apply and revert)\n", RULE_ROUNDS);
        cJSON *out = NULL;
        double t0, total = 0;
        int64_t user, rules = 0, matched = 0;
        char who[16];
        ledger_error e2;

        /* Every user's rules (the generator gives each 5; 100 in all), in one
         * transaction rolled back at the end so the ledger stays as it was. */
        ledger_begin(db, 1, &err);
        for (i = 1; i <= 20; i++) {
            snprintf(who, sizeof who, "user%02d", i);
            if (ledger_user_resolve(db, who, NULL, NULL, &user, &e2))
                continue;
            t0 = now_ms();
            if (ledger_rule_apply_all(db, user, &out, &err)) {
                fprintf(stderr, "rules: %s\n", err.message);
                return EXIT_BROKEN;
            }
            total += now_ms() - t0;
            rules += cJSON_GetArraySize(cJSON_GetObjectItem(out, "runs"));
            matched += (int64_t)cJSON_GetObjectItem(out, "matches")->valuedouble;
            cJSON_Delete(out);
            out = NULL;
        }
        g_failed |= total >= 10000;
        printf("%-34s %9.1f ms for %lld rule runs, %lld rows matched  target < 10000 ms: %s\n",
               "apply all rules of all users", total, (long long)rules, (long long)matched,
               total < 10000 ? "ok" : "MISSED");
        ledger_rollback(db);
        /* One rule over every row of user01, the largest run there is, in a
         * transaction of its own as a request has.  Then, with 50,000 more
         * rows, a run over 100,000 rows, reverted: the size the revert
         * target names. */
        ledger_begin(db, 1, &err);
        if (rule_and_revert(db, me, "one rule over every row", 500, "revert that run", 0)
            || add_rows(db, me, 50000)
            || rule_and_revert(db, me, "one rule over 100,000 rows", 0, "revert a 100,000-row run", 2000))
            return EXIT_BROKEN;
        ledger_rollback(db);
    }
    if (wanted(only, "revert")) {
        printf("-- revert, whatever tags the run's owner has (target: under 2 s)\n");
        ledger_begin(db, 1, &err);
        if (revert_many_tags(db, me))
            return EXIT_BROKEN;
        ledger_rollback(db);
    }
    if (wanted(only, "ofx")) {
        printf("-- OFX import (target: a 10,000-row file under 1 s)\n");
        size_t cap = 4 << 20, len = 0;
        char *ofx = malloc(cap);
        double t[5];
        int k;

        len += (size_t)snprintf(ofx + len, cap - len,
            "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n<OFX><SIGNONMSGSRSV1>"
            "<SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20250201<LANGUAGE>ENG"
            "<FI><ORG>Bench Bank<FID>1</FI></SONRS></SIGNONMSGSRSV1><BANKMSGSRSV1><STMTTRNRS>"
            "<TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>AUD<BANKACCTFROM>"
            "<BANKID>1<ACCTID>99887766<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST>"
            "<DTSTART>20240101<DTEND>20241231\n");
        for (i = 0; i < 10000; i++)
            len += (size_t)snprintf(ofx + len, cap - len,
                "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>2024%02d%02d<TRNAMT>-%d.%02d<FITID>B%06d"
                "<NAME>Merchant %d<MEMO>bench row</STMTTRN>\n",
                1 + i % 12, 1 + i % 28, 1 + i % 300, i % 100, i, i % 400);
        len += (size_t)snprintf(ofx + len, cap - len,
            "</BANKTRANLIST><LEDGERBAL><BALAMT>100.00<DTASOF>20241231</LEDGERBAL></STMTRS>"
            "</STMTTRNRS></BANKMSGSRSV1></OFX>\n");
        for (k = 0; k < 5; k++) {
            cJSON *out = NULL;
            int created;
            double t0 = now_ms();

            /* Each import is rolled back, so every round imports all rows. */
            ledger_begin(db, 1, &err);
            if (ledger_statement_import(db, me, ofx, len, &out, &created, &err)) {
                fprintf(stderr, "import: %s\n", err.message);
                return EXIT_BROKEN;
            }
            /* What the commit would add: indexing the new rows for search
             * (search_flush, txn_search.c). */
            if (search_flush(db, SEARCH_FLUSH_ROWS, &err)) {
                fprintf(stderr, "import: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t[k] = now_ms() - t0;
            ledger_rollback(db);
            cJSON_Delete(out);
        }
        {
            double med = pct(t, 5, 0.5);

            g_failed |= med >= 1000;
            printf("%-34s lib p50 %8.3f ms (%zu bytes)  target p50 < 1000 ms: %s\n",
                   "import 10,000 OFX rows", med, len, med < 1000 ? "ok" : "MISSED");
        }
        free(ofx);
    }
    if (wanted(only, "reconcile")) {
        printf("-- reconciliation (target: the pending list under 1 s with 10,000 pending rows)\n");
        const char *none[] = { NULL };
        int64_t pending = first_id(db, "SELECT COUNT(*) FROM transactions WHERE owner_id = ?"
                                       " AND statement_id IS NULL AND reconciled_with_id IS NULL", me);

        run_call(db, me, "reconcile list, this ledger", none, ledger_reconcile_list,
                 iterations < 5 ? iterations : 5, 1000);
        /* Up to 10,000 manual rows waiting (committed: the sections after
         * this one do not read them, and the run works on a copy). */
        if (pending < 10000) {
            if (ledger_begin(db, 1, &err) || add_rows(db, me, (int)(10000 - pending))
                || ledger_commit(db, &err))
                return EXIT_BROKEN;
        }
        run_call(db, me, "reconcile list, 10,000 pending", none, ledger_reconcile_list,
                 iterations < 5 ? iterations : 5, 1000);
    }
    if (wanted(only, "csv")) {
        printf("-- CSV import (target: preview and commit of 100,000 rows under 2 s each;\n"
               "   medians of %d rounds, each a new file whose rows are all committed)\n", CSV_ROUNDS);
        size_t cap = 8 << 20;
        char *csv = malloc(cap);
        const char *mapping[] = { "date", "Date", "description", "Description", "amount", "Amount", NULL };
        struct ledger_param items[MAXP];
        struct ledger_params mp;
        double t_preview[CSV_ROUNDS], t_commit[CSV_ROUNDS], t_parse[CSV_ROUNDS], t_call[CSV_ROUNDS];
        double t_end[CSV_ROUNDS], t_idle[CSV_ROUNDS];
        double imported = 0, med_preview, med_commit;
        int r;

        params_of(mapping, items, &mp);
        /* Checkpoints after the response, as ledger-fcgi does them: timed
         * apart (the client has its answer by then). */
        ledger_defer_checkpoints(db);
        for (r = 0; r < CSV_ROUNDS && csv; r++) {
            cJSON *preview = NULL, *body, *out = NULL;
            char *text;
            size_t len = 0;
            double t0, t1;

            /* A year of the ledger's each round (2022, 2023, ...): the
             * duplicate check reads the year's rows, and the new rows go
             * in among them. */
            len += (size_t)snprintf(csv + len, cap - len, "Date,Description,Amount\n");
            for (i = 0; i < 100000; i++)
                len += (size_t)snprintf(csv + len, cap - len,
                                        "%d-%02d-%02d,CSV bench %d,-%d.%02d\n", 2022 + r,
                                        1 + i % 12, 1 + i % 28, i, 1 + i % 300, i % 100);
            /* In one read transaction, as ledger-fcgi runs every request:
             * outside one, each row's duplicate check took and dropped the
             * database's read lock. */
            t0 = now_ms();
            if (ledger_begin(db, 0, &err)
                || ledger_csv_preview(db, me, csv, len, NULL, &mp, &preview, &err)
                || ledger_commit(db, &err)) {
                fprintf(stderr, "csv preview: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t_preview[r] = now_ms() - t0;
            /* The rows go back as the client sends them: as JSON text, read
             * by the library's own parser (that keeps each amount's literal). */
            body = cJSON_CreateObject();
            cJSON_AddItemToObject(body, "rows", cJSON_DetachItemFromObject(preview, "rows"));
            text = cJSON_PrintUnformatted(body);
            cJSON_Delete(body);
            body = NULL;
            /* In one transaction, committed, as ledger-fcgi runs a write. */
            t0 = now_ms();
            if (text == NULL || ledger_json_parse(text, strlen(text), &body, &err)) {
                fprintf(stderr, "csv commit: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t1 = now_ms();
            t_parse[r] = t1 - t0;
            if (ledger_begin(db, 1, &err) || ledger_csv_commit(db, me, body, &out, &err)) {
                fprintf(stderr, "csv commit: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t_call[r] = now_ms() - t1;
            if (ledger_commit(db, &err)) {
                fprintf(stderr, "csv commit: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t_commit[r] = now_ms() - t0;
            t0 = now_ms();
            ledger_idle(db);
            t_idle[r] = now_ms() - t0;
            imported = cJSON_GetObjectItem(out, "imported")->valuedouble;
            cJSON_Delete(out);
            cJSON_Delete(body);
            cJSON_Delete(preview);
            free(text);
        }
        free(csv);
        if (r < CSV_ROUNDS)
            return EXIT_BROKEN;
        med_preview = pct(t_preview, CSV_ROUNDS, 0.5);
        med_commit = pct(t_commit, CSV_ROUNDS, 0.5);
        g_failed |= med_preview >= 2000 || med_commit >= 2000;
        printf("%-34s %9.1f ms (%.0f-%.0f)  target < 2000 ms: %s\n", "preview 100,000 CSV rows",
               med_preview, t_preview[0], t_preview[CSV_ROUNDS - 1], med_preview < 2000 ? "ok" : "MISSED");
        for (r = 0; r < CSV_ROUNDS; r++)
            t_end[r] = t_commit[r] - t_parse[r] - t_call[r];
        printf("%-34s %9.1f ms (%.0f-%.0f; %g imported; JSON read %.0f, library %.0f,"
               " COMMIT %.0f; checkpoint after it %.0f)  target < 2000 ms: %s\n",
               "commit 100,000 CSV rows", med_commit, t_commit[0], t_commit[CSV_ROUNDS - 1],
               imported, pct(t_parse, CSV_ROUNDS, 0.5), pct(t_call, CSV_ROUNDS, 0.5),
               pct(t_end, CSV_ROUNDS, 0.5), pct(t_idle, CSV_ROUNDS, 0.5),
               med_commit < 2000 ? "ok" : "MISSED");
    }
    if (wanted(only, "suggest")) {
        /* A category suggestion for one row (lib/suggest.c), on the
         * user's own history: the rows' texts are the user's own, asked
         * as if uncategorised.  The counts are made first: a ledger the
         * migration found full has every row pending until the first
         * write commits. */
        enum { SUGGEST_ROWS = 500 };
        static double t[SUGGEST_ROWS];
        struct { char *d, *m; } q[SUGGEST_ROWS];
        sqlite3_stmt *st = NULL;
        double t0, first;
        int k = 0, j;

        printf("-- category suggestions (target: one suggestion under 0.2 ms)\n");
        t0 = now_ms();
        if (ledger_begin(db, 1, &err) || ledger_commit(db, &err)) {
            fprintf(stderr, "suggest: %s\n", err.message);
            return EXIT_BROKEN;
        }
        first = now_ms() - t0;
        printf("%-34s %9.1f ms (once: counts every row the migration left pending)\n",
               "count the history", first);
        sqlite3_prepare_v2(db->sql, "SELECT description, eff_merchant FROM transactions"
                                    " WHERE owner_id = ?1 ORDER BY id DESC LIMIT ?2", -1, &st, NULL);
        sqlite3_bind_int64(st, 1, me);
        sqlite3_bind_int(st, 2, SUGGEST_ROWS);
        while (k < SUGGEST_ROWS && sqlite3_step(st) == SQLITE_ROW) {
            q[k].d = strdup((const char *)sqlite3_column_text(st, 0));
            q[k].m = strdup((const char *)sqlite3_column_text(st, 1));
            k++;
        }
        sqlite3_finalize(st);
        if (ledger_begin(db, 0, &err))
            return EXIT_BROKEN;
        for (j = 0; j < k; j++) {
            struct suggestion sg;
            int found;

            t0 = now_ms();
            if (suggest_row(db, me, q[j].d, q[j].m, "debit", &sg, &found, &err)) {
                fprintf(stderr, "suggest: %s\n", err.message);
                return EXIT_BROKEN;
            }
            t[j] = now_ms() - t0;
        }
        ledger_rollback(db);
        if (k) {
            double med = pct(t, k, 0.5);

            g_failed |= med >= 0.2;
            printf("%-34s %9.3f ms (p99 %.3f, %d rows)  target < 0.2 ms: %s\n",
                   "one suggestion (merchant known)", med, pct(t, k, 0.99), k,
                   med < 0.2 ? "ok" : "MISSED");
        }
        if (ledger_begin(db, 0, &err))
            return EXIT_BROKEN;
        for (j = 0; j < k; j++) {
            struct suggestion sg;
            int found;

            t0 = now_ms();
            if (suggest_row(db, me, q[j].d, "", "debit", &sg, &found, &err))
                return EXIT_BROKEN;
            t[j] = now_ms() - t0;
        }
        ledger_rollback(db);
        if (k) {
            double med = pct(t, k, 0.5);

            g_failed |= med >= 0.2;
            printf("%-34s %9.3f ms (p99 %.3f, %d rows)  target < 0.2 ms: %s\n",
                   "one suggestion (by the words)", med, pct(t, k, 0.99), k,
                   med < 0.2 ? "ok" : "MISSED");
        }
        for (j = 0; j < k; j++) {
            free(q[j].d);
            free(q[j].m);
        }
    }
    ledger_close(db);
    return g_failed ? 1 : 0;
}
