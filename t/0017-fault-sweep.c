/*
 * Every statement a call runs may fail: a library call must then fail
 * too, with a 5xx, and never answer as if the failed read had found
 * nothing (a row left out of a list, a refund's category resolved from no
 * merchant and written, "not split" for a split row).  Each call below is
 * run once for its answer and the database it leaves, then again and
 * again with SQLite interrupted at its 1st, 2nd, 3rd... virtual machine
 * step (a progress handler), and again with SQLite's 1st, 2nd, 3rd...
 * allocation failing, then cJSON's and the library's own, the way
 * SQLite's own tests sweep a fault; each run in a transaction rolled back
 * after, as a request's is.  A run that succeeds must give the same
 * answer and leave the same rows as the first; one that fails must say
 * 500, as a request would report it (ledger_txn_failed).  For cJSON's
 * and the library's allocations only the rows are held (see sweep_one).
 * SWEEP_ONLY=name sweeps one call; fault_hit is where a debugger stops
 * at an injected fault.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "share.h"
#include "sqltest.h"
#include "tap.h"

/* See sweep_one: what cJSON's failures leak is not this test's to find. */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define LEAKS_IGNORED_BEGIN() __lsan_disable()
#define LEAKS_IGNORED_END() __lsan_enable()
#else
#define LEAKS_IGNORED_BEGIN() ((void)0)
#define LEAKS_IGNORED_END() ((void)0)
#endif

struct fixture {
    ledger_db *db;
    int64_t alice, bob, carl;
    int64_t split_row, manual_free, stmt_free, manual_done, trip, tag, refund_rule, tag_rule;
    int64_t tag_run, payment;
    char *ofx;  /* t/data/ofx/bank.qfx */
    size_t ofx_len;
    char *qif, *camt;
    size_t qif_len, camt_len;
};

/* The fault: SQLite stopped at its k-th virtual machine step (a progress
 * handler), or the k-th allocation failing: SQLite's (its allocator,
 * wrapped), cJSON's (its hooks), or the library's own (the test links
 * with --wrap for malloc, calloc, realloc and strdup, see Makefile.am,
 * which reroutes the calls of its own objects and of libledger.a's, not
 * those inside SQLite's or cJSON's). */
enum fault { FAULT_INTERRUPT, FAULT_NOMEM, FAULT_CJSON, FAULT_LIBC };
struct sweep {
    enum fault fault;
    long k, steps;
};

static struct sweep *armed;  /* the sweep under way in a call, or NULL */

/* Where a failure is injected: a breakpoint for a debugger (with
 * SWEEP_ONLY naming the one call to sweep). */
__attribute__((noinline)) static int fault_hit(void)
{
    return 1;
}

/* Whether a fault of this kind strikes now: the armed sweep's k-th. */
static int strikes(enum fault kind)
{
    return armed && armed->fault == kind && ++armed->steps == armed->k && fault_hit();
}

static int progress(void *unused)
{
    (void)unused;
    return strikes(FAULT_INTERRUPT);
}

static sqlite3_mem_methods real_mem;

static void *mem_malloc(int n)
{
    return strikes(FAULT_NOMEM) ? NULL : real_mem.xMalloc(n);
}

static void *mem_realloc(void *p, int n)
{
    return strikes(FAULT_NOMEM) ? NULL : real_mem.xRealloc(p, n);
}

/* cJSON's allocator (ledger.h: it must stay malloc and free). */
static void *cjson_malloc(size_t n)
{
    return strikes(FAULT_CJSON) ? NULL : malloc(n);
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t n)
{
    return strikes(FAULT_LIBC) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    return strikes(FAULT_LIBC) ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    return strikes(FAULT_LIBC) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return strikes(FAULT_LIBC) ? NULL : __real_strdup(s);
}

/* Before SQLite starts: its allocator with a failure that can be armed. */
static int mem_install(void)
{
    sqlite3_mem_methods m;

    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem) != SQLITE_OK)
        return -1;
    m = real_mem;
    m.xMalloc = mem_malloc;
    m.xRealloc = mem_realloc;
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK ? 0 : -1;
}

/* Whether a column or key holds a time (created_at and the like): the
 * clock's, not the call's, so a run a second later (valgrind's are slow)
 * writes and answers another. */
static int is_time(const char *name)
{
    size_t len = name ? strlen(name) : 0;

    return len > 3 && strcmp(name + len - 3, "_at") == 0;
}

/* A digest of the rows a call may write: every column of every row of
 * these tables, in the order of their first two columns, but the times
 * (created_at and the like: a run a second later writes another). */
static const char *const digest_tables[] = {
    "transactions", "splits", "transaction_tags", "trips", "tags", "reconciliations",
    "rule_runs", "rule_run_rows",
};

static uint64_t digest(ledger_db *db)
{
    uint64_t h = HASH_START;
    size_t i;

    for (i = 0; i < sizeof digest_tables / sizeof digest_tables[0]; i++) {
        char sql[128];
        sqlite3_stmt *st;

        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2", digest_tables[i]);
        if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
            printf("# digest: %s\n", sqlite3_errmsg(db->sql));
            return 0;
        }
        while (sqlite3_step(st) == SQLITE_ROW) {
            int c;

            for (c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *v;

                if (is_time(sqlite3_column_name(st, c)))
                    continue;
                v = sqlite3_column_text(st, c);
                h = hash_bytes(h, v ? (const char *)v : "\1", v ? (size_t)sqlite3_column_bytes(st, c) : 1);
                h = hash_bytes(h, "\0", 1);
            }
        }
        sqlite3_finalize(st);
    }
    return h;
}

/* Takes the times out of an answer, as digest does of the rows. */
static void strip_times(cJSON *o)
{
    cJSON *c = o ? o->child : NULL, *next;

    for (; c; c = next) {
        next = c->next;
        if (is_time(c->string))
            cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
        else
            strip_times(c);
    }
}

typedef int call_fn(struct fixture *f, cJSON **out, ledger_error *err);

/* One run of fn in a write transaction, rolled back after; the answer as
 * text (NULL when it failed) and the digest of what it wrote. */
static int run_once(struct fixture *f, call_fn *fn, struct sweep *s, char **text, uint64_t *dig,
                    ledger_error *err)
{
    cJSON *out = NULL;
    ledger_error failed;
    int rc;

    *text = NULL;
    memset(err, 0, sizeof *err);
    if (ledger_begin(f->db, 1, err))
        return LEDGER_ERR;
    if (s && s->fault == FAULT_INTERRUPT)
        sqlite3_progress_handler(f->db->sql, 1, progress, NULL);
    armed = s;
    rc = fn(f, &out, err);
    armed = NULL;
    sqlite3_progress_handler(f->db->sql, 0, NULL, NULL);
    /* A fault may have rolled the transaction back already, or failed a
     * bind: the call then fails with a 500 whatever it answered, as a
     * request does (ledger_commit, and dispatch for a call's own error). */
    *dig = sqlite3_get_autocommit(f->db->sql) ? 0 : digest(f->db);
    if (ledger_txn_failed(f->db, &failed))
        rc = LEDGER_ERR, *err = failed;  /* as fcgi/dispatch.c reports it */
    ledger_rollback(f->db);
    strip_times(out);
    if (rc == LEDGER_OK)
        *text = out ? cJSON_PrintUnformatted(out) : strdup("(none)");
    cJSON_Delete(out);
    return rc;
}

/* Every point; under valgrind (make check-valgrind), which is some fifty
 * times slower, every STRIDE_VALGRIND-th: its errors are in the paths
 * the failures take, which neighbouring points mostly share. */
#define STRIDE_VALGRIND 5

/* SQLite's faults are held to the whole rule: a run that succeeds gives
 * the undisturbed answer and rows, one that fails says 500.  cJSON's and
 * the library's own allocations, the rows only: an answer may still lack
 * a part cJSON had no memory for, and what an unchecked add was handed
 * leaks (neither is swept yet: the leak checkers are told to look away,
 * and valgrind's run skips these), but a write must write what it would
 * or nothing.  A rule read without its conditions had matched every row;
 * a quick action without its selection ran by its conditions; a split
 * pruned a share it had just written; a refund rule's run marked a row
 * it changed unchanged. */
static void sweep_one(struct fixture *f, const char *name, call_fn *fn, enum fault fault)
{
    static const char *const what[] = {
        [FAULT_INTERRUPT] = "interrupted at", [FAULT_NOMEM] = "out of memory at",
        [FAULT_CJSON] = "cJSON out of memory at", [FAULT_LIBC] = "the library out of memory at",
    };
    int rows_only = fault == FAULT_CJSON || fault == FAULT_LIBC;
    char *want, *got;
    uint64_t want_dig, got_dig;
    ledger_error err;
    struct sweep s = { fault, 0, 0 };
    long bad_ok = 0, bad_status = 0, runs = 0;
    long stride = getenv("LEDGER_VALGRIND") ? STRIDE_VALGRIND : 1;

    if (rows_only && getenv("LEDGER_VALGRIND"))
        return;
    if (run_once(f, fn, NULL, &want, &want_dig, &err)) {
        ok(0, "%s: the call itself fails: %d %s", name, err.status, err.message);
        return;
    }
    for (s.k = 1;; s.k += stride) {
        int rc, other_answer;

        s.steps = 0;
        runs++;
        if (rows_only)
            LEAKS_IGNORED_BEGIN();
        rc = run_once(f, fn, &s, &got, &got_dig, &err);
        if (rows_only)
            LEAKS_IGNORED_END();
        other_answer = rc == LEDGER_OK && !rows_only && strcmp(got, want) != 0;
        if (rc == LEDGER_OK && (other_answer || got_dig != want_dig)) {
            if (bad_ok++ == 0)
                printf("# %s: %s %ld, it succeeded with %s%s\n", name, what[fault], s.k,
                       other_answer ? "another answer: " : "other rows written",
                       other_answer ? got : "");
        } else if (rc != LEDGER_OK && !rows_only && err.status != 500) {
            if (bad_status++ == 0)
                printf("# %s: %s %ld, it answered %d %s\n", name, what[fault], s.k,
                       err.status, err.message);
        }
        free(got);
        if (s.steps < s.k)  /* it finished before the k-th point: swept */
            break;
    }
    if (rows_only)
        ok(bad_ok == 0, "%s: %s each of %ld allocations, it writes what it would or nothing"
           " (%ld wrote other rows)", name, what[fault], runs - 1, bad_ok);
    else
        ok(bad_ok == 0 && bad_status == 0,
           "%s: %s %ld %ss (one in %ld), it fails with a 500 or answers as without"
           " (%ld otherwise answered, %ld other statuses)", name, what[fault], runs - 1,
           fault == FAULT_INTERRUPT ? "step" : "allocation", stride, bad_ok, bad_status);
    free(want);
}

static void sweep(struct fixture *f, const char *name, call_fn *fn)
{
    const char *only = getenv("SWEEP_ONLY");

    if (only && strcmp(only, name) != 0)
        return;
    sweep_one(f, name, fn, FAULT_INTERRUPT);
    sweep_one(f, name, fn, FAULT_NOMEM);
    sweep_one(f, name, fn, FAULT_CJSON);
    sweep_one(f, name, fn, FAULT_LIBC);
}

/* A fixture call's answer (NULL, said, when it fails). */
static cJSON *take(cJSON **out)
{
    cJSON *o = *out;

    *out = NULL;
    return o;
}
#define DO(what, call) \
    (out = NULL, (call) ? (printf("# fixture: %s: %s\n", what, err.message), take(&out)) : take(&out))

static int64_t id_of(cJSON *o)
{
    cJSON *id = cJSON_GetObjectItem(o, "id");
    int64_t v = id ? (int64_t)id->valuedouble : 0;

    cJSON_Delete(o);
    return v;
}

/* A request body: JSON text, printf's way. */
__attribute__((format(printf, 1, 2))) static cJSON *body(const char *fmt, ...)
{
    char json[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    return cJSON_Parse(json);
}

/* Alice's ledger: a statement, manual rows (one reconciled, one pending
 * with a candidate), a row split with bob and settled, a trip, a tag on
 * rows, a refund rule, a rule's run, a payment, a budget; carl, with a
 * row of his own, to merge into alice. */
static int setup(struct fixture *f, const char *path)
{
    ledger_error err = { 0 };
    cJSON *b, *out = NULL;

    if (ledger_open(path, &f->db, &err)
        || ledger_user_resolve(f->db, "alice", "alice@example.org", NULL, &f->alice, &err)
        || ledger_user_resolve(f->db, "bob", "bob@example.org", NULL, &f->bob, &err)
        || ledger_user_resolve(f->db, "carl", "carl@example.org", NULL, &f->carl, &err)
        || ledger_begin(f->db, 1, &err))
        return printf("# fixture: %s\n", err.message), -1;
    b = body("{\"email\": \"bob@example.org\"}");
    cJSON_Delete(DO("participant", ledger_participant_add(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"bank_name\": \"Bank\", \"account_type\": \"credit card\", \"period_start\": \"2026-03-01\","
             " \"period_end\": \"2026-03-31\", \"transactions\": ["
             " {\"date\": \"2026-03-03\", \"description\": \"CAFE ONE\", \"merchant\": \"Cafe One\","
             "  \"amount\": 12.50, \"transaction_type\": \"debit\", \"category\": \"dining\"},"
             " {\"date\": \"2026-03-05\", \"description\": \"GROCER\", \"merchant\": \"Grocer\","
             "  \"amount\": 80.00, \"transaction_type\": \"debit\", \"category\": \"groceries\"},"
             " {\"date\": \"2026-03-09\", \"description\": \"GROCER REFUND\", \"merchant\": \"Grocer\","
             "  \"amount\": 5.00, \"transaction_type\": \"refund\"},"
             " {\"date\": \"2026-03-12\", \"description\": \"HOTEL\", \"merchant\": \"Hotel\","
             "  \"amount\": 300.00, \"transaction_type\": \"debit\", \"category\": \"accommodation\"}]}");
    cJSON_Delete(DO("statement", ledger_statement_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    f->stmt_free = sql_int(f->db, "SELECT id FROM transactions WHERE description = 'GROCER'");
    f->split_row = sql_int(f->db, "SELECT id FROM transactions WHERE description = 'HOTEL'");
    b = body("{\"date\": \"2026-03-05\", \"amount\": 80.00, \"description\": \"groceries\","
             " \"payment_method\": \"card\"}");
    f->manual_free = id_of(DO("manual", ledger_txn_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"date\": \"2026-03-03\", \"amount\": 12.50, \"description\": \"coffee\","
             " \"payment_method\": \"card\", \"category\": \"coffee\"}");
    f->manual_done = id_of(DO("manual", ledger_txn_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"matches\": [{\"manual_id\": %lld, \"statement_transaction_id\": %lld}]}",
             (long long)f->manual_done,
             (long long)sql_int(f->db, "SELECT id FROM transactions WHERE description = 'CAFE ONE'"));
    cJSON_Delete(DO("reconcile", ledger_reconcile_apply(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("[{\"participant_id\": %lld, \"share_percent\": 40}]", (long long)f->bob);
    cJSON_Delete(DO("split", ledger_split_set(f->db, f->alice, f->split_row, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"away\"}");
    f->tag = id_of(DO("tag", ledger_tag_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"tag_id\": %lld}", (long long)f->tag);
    cJSON_Delete(DO("tag row", ledger_txn_tag_add(f->db, f->alice, f->split_row, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"Away\", \"start_date\": \"2026-03-01\", \"end_date\": \"2026-03-31\"}");
    f->trip = id_of(DO("trip", ledger_trip_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"transaction_ids\": [%lld, %lld]}", (long long)f->split_row,
             (long long)f->stmt_free);
    cJSON_Delete(DO("trip rows", ledger_trip_rows(f->db, f->alice, f->trip, b, 1, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"refunds\", \"conditions\": [{\"field\": \"description\", \"operator\": \"contains\","
             " \"value\": \"refund\"}], \"actions\": [{\"type\": \"set_category\", \"category\": \"refund\"}]}");
    f->refund_rule = id_of(DO("rule", ledger_rule_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    /* A rule run to revert, a payment to delete, a budget. */
    b = body("{\"name\": \"tag hotels\", \"conditions\": [{\"field\": \"merchant\","
             " \"operator\": \"contains\", \"value\": \"hotel\"}], \"actions\": [{\"type\": \"add_tag\","
             " \"tag_id\": %lld}]}", (long long)f->tag);
    f->tag_rule = id_of(DO("rule", ledger_rule_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    out = DO("run", ledger_rule_apply(f->db, f->alice, f->tag_rule, &out, &err));
    f->tag_run = out ? (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(out, "run_id")) : 0;
    cJSON_Delete(out);
    b = body("{\"from_participant_id\": %lld, \"to_participant_id\": %lld, \"date\": \"2026-03-26\","
             " \"amount\": 7.5}", (long long)f->bob, (long long)f->alice);
    f->payment = id_of(DO("payment", ledger_payment_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"date\": \"2026-03-15\", \"amount\": 9.99, \"description\": \"carl's\"}");
    cJSON_Delete(DO("carl's row", ledger_txn_create(f->db, f->carl, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"amount\": 400}");
    cJSON_Delete(DO("budget", ledger_budget_put(f->db, f->alice, "groceries", b, &out, &err)));
    cJSON_Delete(b);
    if (ledger_commit(f->db, &err))
        return printf("# fixture: %s\n", err.message), -1;
    return 0;
}

/* A file of the source tree (LEDGER_SRCDIR, or the current directory). */
static int read_file(const char *rel, char **buf, size_t *len)
{
    const char *dir = getenv("LEDGER_SRCDIR");
    char path[1024];
    FILE *fp;
    long n;

    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", rel);
    if ((fp = fopen(path, "rb")) == NULL)
        return -1;
    if (fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)
        || (*buf = malloc((size_t)n + 1)) == NULL) {
        fclose(fp);
        return -1;
    }
    *len = fread(*buf, 1, (size_t)n, fp);
    (*buf)[*len] = '\0';
    fclose(fp);
    return 0;
}

/* ---- the calls ------------------------------------------------------------------- */

static struct ledger_params no_params = { NULL, 0 };
/* The months and day the reports would otherwise take from the clock:
 * a sweep running over midnight must compare like with like. */
static struct ledger_param dated_items[] = {
    { "from", "2026-01" }, { "to", "2026-06" }, { "month", "2026-03" }, { "as_of", "2026-04-01" },
};
static struct ledger_params dated = { dated_items, sizeof dated_items / sizeof dated_items[0] };

/* A call of the sweep: one without a body; one with a body (body(),
 * printf's way, with the fixture's ids), freed after; one that answers
 * nothing. */
#define CALL(name, call)                                                  \
    static int name(struct fixture *f, cJSON **out, ledger_error *err)   \
    {                                                                     \
        return call;                                                      \
    }
#define WRITE(name, json, call)                                          \
    static int name(struct fixture *f, cJSON **out, ledger_error *err)   \
    {                                                                     \
        cJSON *b = json;                                                  \
        int rc = call;                                                    \
                                                                          \
        cJSON_Delete(b);                                                  \
        return rc;                                                        \
    }
#define DROP(name, call)                                                  \
    static int name(struct fixture *f, cJSON **out, ledger_error *err)   \
    {                                                                     \
        (void)out;                                                        \
        return call;                                                      \
    }

CALL(reconcile_list, ledger_reconcile_list(f->db, f->alice, &no_params, out, err))
WRITE(reconcile_apply,
      body("{\"matches\": [{\"manual_id\": %lld, \"statement_transaction_id\": %lld}]}",
           (long long)f->manual_free, (long long)f->stmt_free),
      ledger_reconcile_apply(f->db, f->alice, b, out, err))
DROP(reconcile_undo, ledger_reconcile_undo(f->db, f->alice, f->manual_done, err))
CALL(trip_analytics, ledger_trip_analytics(f->db, f->alice, f->trip, out, err))
CALL(trip_owed, ledger_trip_owed(f->db, f->bob, f->trip, out, err))
WRITE(trip_from_tag, body("{\"tag_id\": %lld}", (long long)f->tag),
      ledger_trip_from_tag(f->db, f->alice, b, out, err))
CALL(drilldown, ledger_analytics_drilldown(f->db, f->alice, "2026-03", "groceries", &no_params, out, err))
WRITE(settle, body("{\"settled\": true}"), ledger_split_settle(f->db, f->bob, f->split_row, b, out, err))
CALL(rule_apply, ledger_rule_apply(f->db, f->alice, f->refund_rule, out, err))
CALL(txn_list, ledger_txn_list(f->db, f->bob, &no_params, out, err))
CALL(balances, ledger_balance_list(f->db, f->bob, out, err))
CALL(monthly, ledger_analytics_monthly(f->db, f->alice, &dated, out, err))
CALL(merchants, ledger_analytics_merchants(f->db, f->alice, &dated, out, err))
CALL(fees, ledger_analytics_fees(f->db, f->alice, &dated, out, err))
CALL(budgets, ledger_budget_list(f->db, f->alice, &dated, out, err))
CALL(payments, ledger_payment_list(f->db, f->alice, &no_params, out, err))
CALL(merchant_list, ledger_merchant_list(f->db, f->alice, &no_params, out, err))
CALL(categories, ledger_categories_list(f->db, f->alice, out, err))
CALL(participants, ledger_participant_list(f->db, f->alice, out, err))
CALL(trips, ledger_trip_list(f->db, f->bob, out, err))
CALL(trip_people, ledger_trip_participants(f->db, f->alice, f->trip, out, err))
CALL(tags, ledger_tag_list(f->db, f->alice, out, err))
CALL(splits, ledger_split_get(f->db, f->bob, f->split_row, out, err))
CALL(statements, ledger_statement_list(f->db, f->alice, out, err))
CALL(rules, ledger_rule_list(f->db, f->alice, out, err))
CALL(tag_one, ledger_tag_get(f->db, f->alice, f->tag, out, err))
CALL(payment_one, ledger_payment_get(f->db, f->bob, f->payment, out, err))
CALL(budget_one, ledger_budget_get(f->db, f->alice, "Groceries", &dated, out, err))
/* The state tag, as a string answer to compare. */
static int state_tag(struct fixture *f, cJSON **out, ledger_error *err)
{
    char tag[LEDGER_TAG_SIZE];

    if (ledger_tag_now(f->db, f->alice, "GET", "/api/transactions?limit=5", tag, err))
        return LEDGER_ERR;
    *out = cJSON_CreateString(tag);
    return *out ? LEDGER_OK : ledger_error_oom(err);
}

/* An export's bytes gathered into one JSON string, the answer the sweep
 * compares; the write fails when memory does. */
struct gathered {
    char *p;
    size_t len;
};
static int gather(void *ctx, const char *buf, size_t len)
{
    struct gathered *g = ctx;
    char *p = realloc(g->p, g->len + len + 1);

    if (p == NULL)
        return -1;
    memcpy(p + g->len, buf, len);
    g->len += len;
    p[g->len] = '\0';
    g->p = p;
    return 0;
}
static void no_progress(void *ctx, int64_t done, int64_t total)
{
    (void)ctx, (void)done, (void)total;
}
static int export_as(struct fixture *f, int64_t me, enum ledger_export_format format, cJSON **out,
                     ledger_error *err)
{
    struct gathered g = { NULL, 0 };
    int rc = ledger_export(f->db, me, format, gather, &g,
                           format == LEDGER_EXPORT_CSV ? no_progress : NULL, NULL, err);

    if (rc == LEDGER_OK && (*out = cJSON_CreateString(g.p ? g.p : "")) == NULL)
        rc = ledger_error_oom(err);
    free(g.p);
    return rc;
}
CALL(export_csv, export_as(f, f->alice, LEDGER_EXPORT_CSV, out, err))
CALL(export_json, export_as(f, f->bob, LEDGER_EXPORT_JSON, out, err))
CALL(export_journal, export_as(f, f->alice, LEDGER_EXPORT_JOURNAL, out, err))
CALL(export_journal_shared, export_as(f, f->bob, LEDGER_EXPORT_JOURNAL, out, err))
CALL(preview, ledger_rule_preview(f->db, f->alice, f->refund_rule, out, err))
CALL(balance_one, ledger_balance_get(f->db, f->alice, f->bob, out, err))
WRITE(txn_patch, body("{\"category\": \"Refund\", \"my_share_percent\": 50}"),
      ledger_txn_update(f->db, f->alice, f->split_row, b, out, err))
WRITE(bulk,
      body("{\"action\": \"categorize\", \"category\": \"refund\", \"ids\": [%lld, %lld]}",
           (long long)f->split_row, (long long)f->stmt_free),
      ledger_txn_bulk(f->db, f->alice, b, out, err))
WRITE(txn_create,
      body("{\"date\": \"2026-03-20\", \"amount\": 33.33, \"description\": \"Dinner\","
           " \"category\": \"Dining\", \"splits\": [{\"participant_id\": %lld, \"share_percent\": 33.33}]}",
           (long long)f->bob),
      ledger_txn_create(f->db, f->alice, b, out, err))
WRITE(statement_create,
      body("{\"bank_name\": \"Other\", \"account_type\": \"savings\","
           " \"period_start\": \"2026-04-01\", \"period_end\": \"2026-04-30\","
           " \"opening_balance\": 10, \"closing_balance\": 5, \"transactions\": ["
           " {\"date\": \"2026-04-02\", \"description\": \"FEE\", \"amount\": 5,"
           "  \"transaction_type\": \"fee\"}]}"),
      ledger_statement_create(f->db, f->alice, b, out, err))
/* Rows without a category at a merchant alice categorised: each takes
 * its suggestion as a run (suggest_auto). */
WRITE(txn_create_suggested,
      body("{\"date\": \"2026-03-22\", \"amount\": 41, \"description\": \"GROCER 0042\","
           " \"merchant\": \"Grocer\"}"),
      ledger_txn_create(f->db, f->alice, b, out, err))
WRITE(statement_create_suggested,
      body("{\"bank_name\": \"Third\", \"account_type\": \"savings\","
           " \"period_start\": \"2026-05-01\", \"period_end\": \"2026-05-31\", \"transactions\": ["
           " {\"date\": \"2026-05-02\", \"description\": \"GROCER 0043\", \"merchant\": \"Grocer\","
           "  \"amount\": 20, \"transaction_type\": \"debit\"}]}"),
      ledger_statement_create(f->db, f->alice, b, out, err))
WRITE(csv_commit,
      body("{\"rows\": [{\"date\": \"2026-03-05\", \"description\": \"GROCER\", \"amount\": 80},"
           " {\"date\": \"2026-03-21\", \"description\": \"Cafe Nero\", \"amount\": 4.5}]}"),
      ledger_csv_commit(f->db, f->alice, b, out, err))

/* The same from the request's text, its rows read one at a time
 * (json_parse_lazy), one of them a refund resolved at the end (read
 * again for its merchant). */
#define CSV_TEXT                                                                            \
    "{\"rows\": [{\"date\": \"2026-03-05\", \"description\": \"GROCER\", \"amount\": 80},"     \
    " {\"date\": \"2026-03-21\", \"description\": \"Cafe Nero\", \"amount\": 4.5},"           \
    " {\"date\": \"2026-03-22\", \"description\": \"Cafe Nero back\", \"amount\": 1.5,"       \
    "  \"merchant\": \"Cafe Nero\", \"transaction_type\": \"refund\", \"category\": \"refund\"}]}"
CALL(csv_commit_text,
     ledger_csv_commit_text(f->db, f->alice, CSV_TEXT, sizeof CSV_TEXT - 1, out, err))
#define STATEMENT_TEXT                                                                      \
    "{\"bank_name\": \"Other\", \"account_type\": \"savings\","                               \
    " \"period_start\": \"2026-04-01\", \"period_end\": \"2026-04-30\", \"transactions\": ["   \
    " {\"date\": \"2026-04-02\", \"description\": \"FEE\", \"amount\": 5,"                  \
    "  \"transaction_type\": \"fee\"},"                                                     \
    " {\"date\": \"2026-04-03\", \"description\": \"SHOP BACK\", \"amount\": 2,"             \
    "  \"merchant\": \"Shop\", \"transaction_type\": \"refund\", \"category\": \"refund\"}]}"
CALL(statement_create_text,
     ledger_statement_create_text(f->db, f->alice, STATEMENT_TEXT, sizeof STATEMENT_TEXT - 1,
                                  out, err))

static int payment_create(struct fixture *f, cJSON **out, ledger_error *err)
{
    cJSON *b = body("{\"from_participant_id\": %lld, \"to_participant_id\": %lld,"
                    " \"date\": \"2026-03-25\", \"amount\": 20}", (long long)f->bob, (long long)f->alice);
    int rc = ledger_payment_create(f->db, f->alice, b, out, err);

    /* A random token, another each time: not part of what is compared. */
    if (rc == LEDGER_OK)
        cJSON_DeleteItemFromObject(*out, "linked_transaction_id");
    cJSON_Delete(b);
    return rc;
}

DROP(trip_delete, ledger_trip_delete(f->db, f->alice, f->trip, err))
DROP(tag_delete, ledger_tag_delete(f->db, f->alice, f->tag, err))
DROP(statement_delete, ledger_statement_delete(f->db, f->alice, 1, NULL, NULL, err))
CALL(one_txn, ledger_txn_get(f->db, f->bob, f->split_row, out, err))
CALL(one_statement, ledger_statement_get(f->db, f->alice, 1, out, err))
CALL(merchant_history, ledger_analytics_merchant(f->db, f->alice, "Grocer", &dated, out, err))
CALL(subscriptions, ledger_analytics_subscriptions(f->db, f->alice, &dated, out, err))
CALL(rule_runs, ledger_rule_runs(f->db, f->alice, out, err))
CALL(rule_revert, ledger_rule_revert(f->db, f->alice, f->tag_run, out, err))
CALL(apply_all, ledger_rule_apply_all(f->db, f->alice, out, err))
CALL(check, ledger_check(f->db, out, err))
CALL(suggestion_list, ledger_suggestion_list(f->db, f->alice, &no_params, out, err))
WRITE(suggestion_apply, body("{\"items\": [{\"transaction_id\": %lld}]}", (long long)f->manual_free),
      ledger_suggestion_apply(f->db, f->alice, b, out, err))
WRITE(suggestion_settings, body("{\"threshold\": 0.5}"),
      ledger_suggestion_settings(f->db, f->alice, b, out, err))
CALL(monthly_text, ledger_analytics_monthly_text(f->db, f->bob, &dated, out, err))
CALL(list_text, ledger_txn_list_text(f->db, f->alice, &no_params, out, err))
WRITE(tag_create, body("{\"name\": \"new tag\"}"), ledger_tag_create(f->db, f->alice, b, out, err))
WRITE(tag_rename, body("{\"name\": \"renamed\"}"), ledger_tag_update(f->db, f->alice, f->tag, b, out, err))
WRITE(manual_patch, body("{\"amount\": 81.25, \"date\": \"2026-03-06\", \"description\": \"big shop\"}"),
      ledger_txn_update(f->db, f->alice, f->manual_free, b, out, err))
WRITE(split_set, body("[{\"participant_id\": %lld, \"share_percent\": 25}]", (long long)f->bob),
      ledger_split_set(f->db, f->alice, f->stmt_free, b, out, err))
WRITE(participant_add, body("{\"email\": \"carol@example.org\", \"name\": \"Carol\"}"),
      ledger_participant_add(f->db, f->alice, b, out, err))
WRITE(trip_create, body("{\"name\": \"Later\", \"start_date\": \"2026-05-01\"}"),
      ledger_trip_create(f->db, f->alice, b, out, err))
WRITE(trip_update, body("{\"name\": \"Away again\", \"notes\": \"n\"}"),
      ledger_trip_update(f->db, f->alice, f->trip, b, out, err))
WRITE(budget_put, body("{\"amount\": 55.55}"), ledger_budget_put(f->db, f->alice, "Dining", b, out, err))
WRITE(rule_create,
      body("{\"name\": \"r\", \"conditions\": [{\"field\": \"amount\", \"operator\": \"gt\","
           " \"value\": 100}], \"actions\": [{\"type\": \"set_category\", \"category\": \"Travel\"}]}"),
      ledger_rule_create(f->db, f->alice, b, out, err))
WRITE(rule_update, body("{\"enabled\": false, \"name\": \"off\"}"),
      ledger_rule_update(f->db, f->alice, f->refund_rule, b, out, err))
WRITE(csv_preview,
      body("{\"csv\": \"Date,Description,Amount\\n2026-03-05,GROCER,-80.00\\n"
           "2026-03-07,\\\"Cafe, Two\\\",-4.50\\n\","
           " \"mapping\": {\"date\": \"Date\", \"description\": \"Description\", \"amount\": \"Amount\"}}"),
      ledger_csv_preview(f->db, f->alice, NULL, 0, b, &no_params, out, err))
WRITE(unassign, body("{\"transaction_ids\": [%lld]}", (long long)f->split_row),
      ledger_trip_rows(f->db, f->alice, f->trip, b, 0, out, err))
WRITE(selection, body("{\"transaction_ids\": [%lld]}", (long long)f->split_row),
      ledger_rule_run_selection(f->db, f->alice, f->refund_rule, b, out, err))
DROP(txn_delete, ledger_txn_delete(f->db, f->alice, f->manual_free, err))
DROP(split_clear, ledger_split_clear(f->db, f->alice, f->split_row, err))
DROP(untag, ledger_txn_tag_remove(f->db, f->alice, f->split_row, f->tag, err))
DROP(payment_delete, ledger_payment_delete(f->db, f->alice, f->payment, err))
DROP(budget_delete, ledger_budget_delete(f->db, f->alice, "groceries", err))
DROP(rule_delete, ledger_rule_delete(f->db, f->alice, f->tag_rule, err))
CALL(ofx_import, ledger_statement_import(f->db, f->alice, f->ofx, f->ofx_len, out, &(int){ 0 }, err))
CALL(qif_import, ledger_statement_import(f->db, f->alice, f->qif, f->qif_len, out, &(int){ 0 }, err))
CALL(camt_import, ledger_statement_import(f->db, f->alice, f->camt, f->camt_len, out, &(int){ 0 }, err))
CALL(merge, ledger_user_merge(f->db, f->carl, f->alice, out, err))

/* SQLite rolls a transaction back by itself on some failures (out of
 * memory, a full disk, an I/O error).  Whatever a call does next must not
 * run outside the transaction, each write committed alone: here the
 * rollback happens behind the library's back, as SQLite's would, and a
 * write after it must fail and leave nothing. */
static void after_rollback(struct fixture *f)
{
    ledger_error err = { 0 };
    cJSON *b = cJSON_Parse("{\"name\": \"written alone\"}"), *out = NULL;
    int rc, n;

    if (ledger_begin(f->db, 1, &err)) {
        ok(0, "begin: %s", err.message);
        cJSON_Delete(b);
        return;
    }
    sqlite3_exec(f->db->sql, "ROLLBACK", NULL, NULL, NULL);
    rc = ledger_tag_create(f->db, f->alice, b, &out, &err);
    if (rc == LEDGER_OK)
        rc = ledger_commit(f->db, &err);
    else
        ledger_rollback(f->db);
    n = sql_int(f->db, "SELECT COUNT(*) FROM tags WHERE name = 'written alone'");
    ok(rc == LEDGER_ERR && err.status == 500 && n == 0,
       "a write after SQLite rolled the transaction back fails (%d: %s) and writes nothing (%d)",
       err.status, err.message, n);
    memset(&err, 0, sizeof err);
    ok(ledger_begin(f->db, 1, &err) == LEDGER_OK && ledger_tag_create(f->db, f->alice, b, &out, &err) == LEDGER_OK
       && ledger_commit(f->db, &err) == LEDGER_OK,
       "and the next transaction works (%s)", err.message);
    cJSON_Delete(out);
    cJSON_Delete(b);
}

int main(void)
{
    char path[] = "/tmp/ledger-t0017-XXXXXX";
    char db_path[64], side[80];
    struct fixture f = { 0 };
    int fd = mkstemp(path);

    if (fd < 0)
        return printf("Bail out! mkstemp\n"), 1;
    close(fd);
    snprintf(db_path, sizeof db_path, "%s.db", path);
    unlink(path);
    {
        cJSON_Hooks hooks = { cjson_malloc, free };

        cJSON_InitHooks(&hooks);
    }
    if (mem_install())
        return printf("Bail out! SQLITE_CONFIG_MALLOC\n"), 1;
    if (read_file("t/data/ofx/bank.qfx", &f.ofx, &f.ofx_len))
        return printf("Bail out! t/data/ofx/bank.qfx\n"), 1;
    if (read_file("t/data/bank/qif/gnucash-cbb-export.qif", &f.qif, &f.qif_len)
        || read_file("t/data/bank/camt/actual-camt.053.xml", &f.camt, &f.camt_len))
        return printf("Bail out! t/data/bank/qif or camt\n"), 1;
    if (setup(&f, db_path))
        return printf("Bail out! the fixture\n"), 1;
    sweep(&f, "reconcile list", reconcile_list);
    sweep(&f, "reconcile apply", reconcile_apply);
    sweep(&f, "reconcile undo", reconcile_undo);
    sweep(&f, "trip analytics", trip_analytics);
    sweep(&f, "trip owed", trip_owed);
    sweep(&f, "trip from tag", trip_from_tag);
    sweep(&f, "monthly drill-down", drilldown);
    sweep(&f, "split settle", settle);
    sweep(&f, "rule apply (refund category)", rule_apply);
    sweep(&f, "transaction list", txn_list);
    sweep(&f, "balances", balances);
    sweep(&f, "one balance", balance_one);
    sweep(&f, "monthly", monthly);
    sweep(&f, "top merchants", merchants);
    sweep(&f, "fees", fees);
    sweep(&f, "budgets", budgets);
    sweep(&f, "payments", payments);
    sweep(&f, "merchant list", merchant_list);
    sweep(&f, "categories", categories);
    sweep(&f, "participants", participants);
    sweep(&f, "trips", trips);
    sweep(&f, "trip participants", trip_people);
    sweep(&f, "tags", tags);
    sweep(&f, "splits", splits);
    sweep(&f, "statements", statements);
    sweep(&f, "rules", rules);
    sweep(&f, "tag get", tag_one);
    sweep(&f, "payment get", payment_one);
    sweep(&f, "budget get", budget_one);
    sweep(&f, "state tag", state_tag);
    sweep(&f, "export csv", export_csv);
    sweep(&f, "export json", export_json);
    sweep(&f, "export journal", export_journal);
    sweep(&f, "export journal (shared)", export_journal_shared);
    sweep(&f, "rule preview", preview);
    sweep(&f, "transaction patch", txn_patch);
    sweep(&f, "bulk categorize (refund)", bulk);
    sweep(&f, "transaction create with a split", txn_create);
    sweep(&f, "statement create", statement_create);
    sweep(&f, "transaction create taking a suggestion", txn_create_suggested);
    sweep(&f, "statement create taking suggestions", statement_create_suggested);
    sweep(&f, "CSV commit (one duplicate)", csv_commit);
    sweep(&f, "CSV commit from its text", csv_commit_text);
    sweep(&f, "statement create from its text", statement_create_text);
    sweep(&f, "payment create", payment_create);
    sweep(&f, "trip delete", trip_delete);
    sweep(&f, "tag delete", tag_delete);
    sweep(&f, "statement delete", statement_delete);
    sweep(&f, "transaction get", one_txn);
    sweep(&f, "statement get", one_statement);
    sweep(&f, "merchant history", merchant_history);
    sweep(&f, "subscriptions", subscriptions);
    sweep(&f, "rule runs", rule_runs);
    sweep(&f, "rule revert", rule_revert);
    sweep(&f, "apply all rules", apply_all);
    sweep(&f, "ledger-admin check", check);
    sweep(&f, "suggestion list", suggestion_list);
    sweep(&f, "suggestion apply", suggestion_apply);
    sweep(&f, "suggestion settings", suggestion_settings);
    sweep(&f, "monthly as text (mine)", monthly_text);
    sweep(&f, "transaction list as text", list_text);
    sweep(&f, "tag create", tag_create);
    sweep(&f, "tag rename", tag_rename);
    sweep(&f, "manual row patch", manual_patch);
    sweep(&f, "split set", split_set);
    sweep(&f, "participant add", participant_add);
    sweep(&f, "trip create", trip_create);
    sweep(&f, "trip update", trip_update);
    sweep(&f, "budget put", budget_put);
    sweep(&f, "rule create", rule_create);
    sweep(&f, "rule update", rule_update);
    sweep(&f, "CSV preview", csv_preview);
    sweep(&f, "trip unassign", unassign);
    sweep(&f, "rule on a selection", selection);
    sweep(&f, "transaction delete", txn_delete);
    sweep(&f, "split clear", split_clear);
    sweep(&f, "untag", untag);
    sweep(&f, "payment delete", payment_delete);
    sweep(&f, "budget delete", budget_delete);
    sweep(&f, "rule delete", rule_delete);
    sweep(&f, "OFX import", ofx_import);
    sweep(&f, "QIF import", qif_import);
    sweep(&f, "CAMT.053 import", camt_import);
    sweep(&f, "user merge", merge);
    after_rollback(&f);
    ledger_close(f.db);
    free(f.ofx);
    free(f.qif);
    free(f.camt);
    unlink(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    return done_testing();
}
