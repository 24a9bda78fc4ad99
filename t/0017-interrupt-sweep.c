/*
 * Every statement a call runs may fail: a library call must then fail
 * too, with a 5xx, and never answer as if the failed read had found
 * nothing (a row left out of a list, a refund's category resolved from no
 * merchant and written, "not split" for a split row).  Each call below is
 * run once for its answer and the database it leaves, then again and
 * again with SQLite interrupted at its 1st, 2nd, 3rd... virtual machine
 * step (a progress handler), the way SQLite's own tests sweep a fault
 * through every allocation; each run in a transaction rolled back after,
 * as a request's is.  A run that succeeds must give the same answer and
 * leave the same rows as the first; one that fails must say 500.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "internal.h"
#include "tap.h"

struct fixture {
    ledger_db *db;
    int64_t alice, bob;
    int64_t split_row, manual_free, stmt_free, manual_done, trip, tag, refund_rule;
};

/* The interrupt: the progress handler stops the call at its k-th step. */
struct sweep {
    long k, steps;
};

static int progress(void *p)
{
    struct sweep *s = p;

    return ++s->steps == s->k;
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
                const char *col = sqlite3_column_name(st, c);
                size_t len = strlen(col);
                const unsigned char *v;

                if (len > 3 && strcmp(col + len - 3, "_at") == 0)
                    continue;  /* the clock's, not the call's */
                v = sqlite3_column_text(st, c);

                h = hash_bytes(h, v ? (const char *)v : "\1", v ? (size_t)sqlite3_column_bytes(st, c) : 1);
                h = hash_bytes(h, "\0", 1);
            }
        }
        sqlite3_finalize(st);
    }
    return h;
}

typedef int call_fn(struct fixture *f, cJSON **out, ledger_error *err);

/* One run of fn in a write transaction, rolled back after; the answer as
 * text (NULL when it failed) and the digest of what it wrote. */
static int run_once(struct fixture *f, call_fn *fn, struct sweep *s, char **text, uint64_t *dig,
                    ledger_error *err)
{
    cJSON *out = NULL;
    int rc;

    *text = NULL;
    memset(err, 0, sizeof *err);
    if (ledger_begin(f->db, 1, err))
        return LEDGER_ERR;
    if (s)
        sqlite3_progress_handler(f->db->sql, 1, progress, s);
    rc = fn(f, &out, err);
    sqlite3_progress_handler(f->db->sql, 0, NULL, NULL);
    /* An interrupted write may have rolled the transaction back already. */
    *dig = sqlite3_get_autocommit(f->db->sql) ? 0 : digest(f->db);
    sqlite3_exec(f->db->sql, "ROLLBACK", NULL, NULL, NULL);
    if (rc == LEDGER_OK)
        *text = out ? cJSON_PrintUnformatted(out) : strdup("(none)");
    cJSON_Delete(out);
    return rc;
}

static void sweep(struct fixture *f, const char *name, call_fn *fn)
{
    char *want, *got;
    uint64_t want_dig, got_dig;
    ledger_error err;
    struct sweep s;
    long bad_ok = 0, bad_status = 0, runs = 0;

    if (run_once(f, fn, NULL, &want, &want_dig, &err)) {
        ok(0, "%s: the call itself fails: %d %s", name, err.status, err.message);
        return;
    }
    for (s.k = 1;; s.k++) {
        s.steps = 0;
        runs++;
        if (run_once(f, fn, &s, &got, &got_dig, &err) == LEDGER_OK) {
            if (strcmp(got, want) != 0 || got_dig != want_dig) {
                if (bad_ok++ == 0)
                    printf("# %s: interrupted at step %ld, it succeeded with %s%s\n", name, s.k,
                           strcmp(got, want) ? "another answer: " : "other rows written",
                           strcmp(got, want) ? got : "");
            }
        } else if (err.status != 500) {
            if (bad_status++ == 0)
                printf("# %s: interrupted at step %ld, it answered %d %s\n", name, s.k,
                       err.status, err.message);
        }
        free(got);
        if (s.steps < s.k)  /* it finished before the k-th step: swept */
            break;
    }
    ok(bad_ok == 0 && bad_status == 0,
       "%s: interrupted at each of its %ld steps, it fails with a 500 or answers as without"
       " (%ld otherwise answered, %ld other statuses)", name, runs - 1, bad_ok, bad_status);
    free(want);
}

/* The first column of the first row of sql, or -1. */
static double sql_first(ledger_db *db, const char *sql)
{
    sqlite3_stmt *st;
    double v = -1;

    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
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

static cJSON *body(const char *json)
{
    return cJSON_Parse(json);
}

/* Alice's ledger: a statement, manual rows (one reconciled, one pending
 * with a candidate), a row split with bob and settled, a trip, a tag on
 * rows, a refund rule. */
static int setup(struct fixture *f, const char *path)
{
    ledger_error err = { 0 };
    cJSON *b, *out = NULL;
    char json[512];
    int created;

    if (ledger_open(path, &f->db, &err)
        || ledger_user_resolve(f->db, "alice", "alice@example.org", NULL, &f->alice, &err)
        || ledger_user_resolve(f->db, "bob", "bob@example.org", NULL, &f->bob, &err)
        || ledger_begin(f->db, 1, &err))
        return printf("# fixture: %s\n", err.message), -1;
    b = body("{\"email\": \"bob@example.org\"}");
    cJSON_Delete(DO("participant", ledger_participant_add(f->db, f->alice, b, &out, &created, &err)));
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
    f->stmt_free = (int64_t)sql_first(f->db, "SELECT id FROM transactions WHERE description = 'GROCER'");
    f->split_row = (int64_t)sql_first(f->db, "SELECT id FROM transactions WHERE description = 'HOTEL'");
    b = body("{\"date\": \"2026-03-05\", \"amount\": 80.00, \"description\": \"groceries\","
             " \"payment_method\": \"card\"}");
    f->manual_free = id_of(DO("manual", ledger_txn_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"date\": \"2026-03-03\", \"amount\": 12.50, \"description\": \"coffee\","
             " \"payment_method\": \"card\", \"category\": \"coffee\"}");
    f->manual_done = id_of(DO("manual", ledger_txn_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    snprintf(json, sizeof json, "{\"matches\": [{\"manual_id\": %lld, \"statement_transaction_id\": %lld}]}",
             (long long)f->manual_done,
             (long long)sql_first(f->db, "SELECT id FROM transactions WHERE description = 'CAFE ONE'"));
    b = body(json);
    cJSON_Delete(DO("reconcile", ledger_reconcile_apply(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    snprintf(json, sizeof json, "[{\"participant_id\": %lld, \"share_percent\": 40}]", (long long)f->bob);
    b = body(json);
    cJSON_Delete(DO("split", ledger_split_set(f->db, f->alice, f->split_row, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"away\"}");
    f->tag = id_of(DO("tag", ledger_tag_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    snprintf(json, sizeof json, "{\"tag_id\": %lld}", (long long)f->tag);
    b = body(json);
    cJSON_Delete(DO("tag row", ledger_txn_tag_add(f->db, f->alice, f->split_row, b, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"Away\", \"start_date\": \"2026-03-01\", \"end_date\": \"2026-03-31\"}");
    f->trip = id_of(DO("trip", ledger_trip_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    snprintf(json, sizeof json, "{\"transaction_ids\": [%lld, %lld]}", (long long)f->split_row,
             (long long)f->stmt_free);
    b = body(json);
    cJSON_Delete(DO("trip rows", ledger_trip_rows(f->db, f->alice, f->trip, b, 1, &out, &err)));
    cJSON_Delete(b);
    b = body("{\"name\": \"refunds\", \"conditions\": [{\"field\": \"description\", \"operator\": \"contains\","
             " \"value\": \"refund\"}], \"actions\": [{\"type\": \"set_category\", \"category\": \"refund\"}]}");
    f->refund_rule = id_of(DO("rule", ledger_rule_create(f->db, f->alice, b, &out, &err)));
    cJSON_Delete(b);
    if (ledger_commit(f->db, &err))
        return printf("# fixture: %s\n", err.message), -1;
    return 0;
}

/* ---- the calls ------------------------------------------------------------------- */

static struct ledger_params no_params = { NULL, 0 };

static int reconcile_list(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_reconcile_list(f->db, f->alice, &no_params, out, err);
}

static int reconcile_apply(struct fixture *f, cJSON **out, ledger_error *err)
{
    char json[160];
    cJSON *b;
    int rc;

    snprintf(json, sizeof json, "{\"matches\": [{\"manual_id\": %lld, \"statement_transaction_id\": %lld}]}",
             (long long)f->manual_free, (long long)f->stmt_free);
    b = cJSON_Parse(json);
    rc = ledger_reconcile_apply(f->db, f->alice, b, out, err);
    cJSON_Delete(b);
    return rc;
}

static int reconcile_undo(struct fixture *f, cJSON **out, ledger_error *err)
{
    (void)out;
    return ledger_reconcile_undo(f->db, f->alice, f->manual_done, err);
}

static int trip_analytics(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_trip_analytics(f->db, f->alice, f->trip, out, err);
}

static int trip_owed(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_trip_owed(f->db, f->bob, f->trip, out, err);
}

static int trip_from_tag(struct fixture *f, cJSON **out, ledger_error *err)
{
    char json[64];
    cJSON *b;
    int rc;

    snprintf(json, sizeof json, "{\"tag_id\": %lld}", (long long)f->tag);
    b = cJSON_Parse(json);
    rc = ledger_trip_from_tag(f->db, f->alice, b, out, err);
    cJSON_Delete(b);
    return rc;
}

static int drilldown(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_analytics_drilldown(f->db, f->alice, "2026-03", "groceries", &no_params, out, err);
}

static int settle(struct fixture *f, cJSON **out, ledger_error *err)
{
    cJSON *b = cJSON_Parse("{\"settled\": true}");
    int rc = ledger_split_settle(f->db, f->bob, f->split_row, b, out, err);

    cJSON_Delete(b);
    return rc;
}

static int rule_apply(struct fixture *f, cJSON **out, ledger_error *err)
{
    int rc = ledger_rule_apply(f->db, f->alice, f->refund_rule, out, err);

    /* The run's time is the clock's: not part of what is compared. */
    if (rc == LEDGER_OK)
        cJSON_DeleteItemFromObject(*out, "created_at");
    return rc;
}

static int txn_list(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_txn_list(f->db, f->bob, &no_params, out, err);
}

static int balances(struct fixture *f, cJSON **out, ledger_error *err)
{
    return ledger_balance_list(f->db, f->bob, out, err);
}


/* Reads that take only the caller and no parameters. */
#define READ(name, call)                                                  \
    static int name(struct fixture *f, cJSON **out, ledger_error *err)   \
    {                                                                     \
        return call;                                                      \
    }
READ(monthly, ledger_analytics_monthly(f->db, f->alice, &no_params, out, err))
READ(merchants, ledger_analytics_merchants(f->db, f->alice, &no_params, out, err))
READ(fees, ledger_analytics_fees(f->db, f->alice, &no_params, out, err))
READ(budgets, ledger_budget_list(f->db, f->alice, &no_params, out, err))
READ(payments, ledger_payment_list(f->db, f->alice, &no_params, out, err))
READ(merchant_list, ledger_merchant_list(f->db, f->alice, &no_params, out, err))
READ(categories, ledger_categories_list(f->db, f->alice, out, err))
READ(participants, ledger_participant_list(f->db, f->alice, out, err))
READ(trips, ledger_trip_list(f->db, f->bob, out, err))
READ(trip_people, ledger_trip_participants(f->db, f->alice, f->trip, out, err))
READ(tags, ledger_tag_list(f->db, f->alice, out, err))
READ(splits, ledger_split_get(f->db, f->bob, f->split_row, out, err))
READ(statements, ledger_statement_list(f->db, f->alice, out, err))
READ(rules, ledger_rule_list(f->db, f->alice, out, err))
READ(preview, ledger_rule_preview(f->db, f->alice, f->refund_rule, out, err))
READ(balance_one, ledger_balance_get(f->db, f->alice, f->bob, out, err))

static int txn_patch(struct fixture *f, cJSON **out, ledger_error *err)
{
    cJSON *b = cJSON_Parse("{\"category\": \"Refund\", \"my_share_percent\": 50}");
    int rc = ledger_txn_update(f->db, f->alice, f->split_row, b, out, err);

    cJSON_Delete(b);
    return rc;
}

static int bulk(struct fixture *f, cJSON **out, ledger_error *err)
{
    char json[160];
    cJSON *b;
    int rc;

    snprintf(json, sizeof json, "{\"action\": \"categorize\", \"category\": \"refund\","
             " \"ids\": [%lld, %lld]}", (long long)f->split_row, (long long)f->stmt_free);
    b = cJSON_Parse(json);
    rc = ledger_txn_bulk(f->db, f->alice, b, out, err);
    cJSON_Delete(b);
    return rc;
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
    sweep(&f, "rule preview", preview);
    sweep(&f, "transaction patch", txn_patch);
    sweep(&f, "bulk categorize (refund)", bulk);
    ledger_close(f.db);
    unlink(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    return done_testing();
}
