/*
 * Jobs (lib/job.c) under failure.  A CSV commit, a rule apply, a revert, a
 * statement, a statement file's import, a merchant run, apply-all and a
 * statement's delete run as jobs when called outside a transaction: chunks
 * of their own transactions, committed as they go.  Each is failed at
 * points spread over its run (SQLite interrupted at the k-th progress
 * call):
 *   - once, a passing failure: the job's own end undoes it (a revert or a
 *     delete that had begun writing is finished instead, and answers as if
 *     whole);
 *   - from then on, until its caller returns: its end fails too, and the
 *     job is left, dead, for its owner's next request, which recovers it
 *     (ledger_job_check, ledger_job_recover), as a killed job is.
 * After each: no job is left, the summaries equal a recount, and the
 * ledger is as it was before the job or as the whole job leaves it (a
 * commit and an apply that answered an error: as before).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "sqltest.h"
#include "fields.h"

#define ROWS 1200       /* three chunks of JOB_CHUNK_ROWS, the last short */
/* Failure points per job and mode; valgrind (make check-valgrind) is some
 * fifty times slower. */
#define POINTS 12
#define POINTS_VALGRIND 3
#define PROGRESS_OPS 200

struct fault {
    long calls;         /* progress calls so far */
    long k;             /* the one that fails (0: none) */
    int lasting;        /* every call from k on fails */
};

static int progress(void *arg)
{
    struct fault *f = arg;

    f->calls++;
    return f->k && (f->calls == f->k || (f->lasting && f->calls > f->k));
}

static char dir[] = "/tmp/ledger-job-faults-XXXXXX";
static char tpl[64], work[64];

static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    ssize_t n;
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600), rc = 0;

    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            rc = -1;
    if (in < 0 || out < 0)
        rc = -1;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return rc;
}

/* Removes the working copy and what SQLite and job.c keep beside it. */
static void fresh(void)
{
    static const char *const tails[] = { "", "-wal", "-shm", "-jobs" };
    char path[96];
    size_t i;

    for (i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        snprintf(path, sizeof path, "%s%s", work, tails[i]);
        unlink(path);
    }
}

/* The tables a job writes, but the times (created_at, reverted_at's). */
static const char *const digest_sql[] = {
    "SELECT id, owner_id, date, description, merchant, category, amount, import_id,"
    " override_category, override_merchant_normalized, eff_category, eff_merchant, has_split,"
    " statement_id, fitid, merchant_normalized, reconciled_with_id FROM transactions ORDER BY id",
    "SELECT manual_id, statement_txn_id FROM reconciliations ORDER BY 1",
    "SELECT transaction_id, viewer_id FROM shared_rows ORDER BY 1, 2",
    "SELECT id, owner_id, row_count FROM csv_imports ORDER BY id",
    "SELECT id, owner_id, bank_name, account_id, period_start, period_end FROM statements ORDER BY id",
    "SELECT * FROM tags ORDER BY id",
    "SELECT * FROM transaction_tags ORDER BY 1, 2",
    "SELECT id, owner_id, rule_id, matches, transactions, reverted_at IS NULL FROM rule_runs ORDER BY id",
    "SELECT * FROM rule_run_rows ORDER BY 1, 2",
    "SELECT * FROM splits ORDER BY 1, 2",
    /* A cell taken back to zero stays, as after any change undone. */
    "SELECT * FROM spend_monthly WHERE cents <> 0 ORDER BY 1, 2, 3",
    "SELECT * FROM visible_count WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6",
    "SELECT * FROM jobs",
};

static uint64_t digest(ledger_db *db)
{
    uint64_t h = HASH_START;
    size_t i;

    for (i = 0; i < sizeof digest_sql / sizeof digest_sql[0]; i++) {
        sqlite3_stmt *st;

        if (sqlite3_prepare_v2(db->sql, digest_sql[i], -1, &st, NULL) != SQLITE_OK) {
            printf("# digest: %s\n", sqlite3_errmsg(db->sql));
            return 0;
        }
        while (sqlite3_step(st) == SQLITE_ROW) {
            int c;

            for (c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *v = sqlite3_column_text(st, c);

                h = hash_bytes(h, v ? (const char *)v : "\1", v ? (size_t)sqlite3_column_bytes(st, c) : 1);
                h = hash_bytes(h, "\0", 1);
            }
        }
        sqlite3_finalize(st);
    }
    return h;
}

/* Problems ledger_check finds (summaries against a recount), said. */
static int drift(ledger_db *db)
{
    ledger_error err;
    cJSON *doc = NULL, *p;
    int n = 0;

    if (ledger_begin(db, 0, &err) || ledger_check(db, &doc, &err)) {
        ledger_rollback(db);
        return -1;
    }
    ledger_rollback(db);
    cJSON_ArrayForEach(p, json_get(doc, "problems")) {
        if (n++ == 0)
            printf("# %s: %s\n", json_get(p, "check")->valuestring, json_get(p, "detail")->valuestring);
    }
    cJSON_Delete(doc);
    return n;
}

static int64_t alice(ledger_db *db)
{
    ledger_error err;
    int64_t id = 0;

    if (ledger_user_resolve(db, "alice", NULL, NULL, &id, &err))
        printf("# alice: %s\n", err.message);
    return id;
}

/* The body of a CSV commit (statement 0) or a statement of ROWS rows, as
 * a request's: text, read by the service's JSON reader (which keeps each
 * number's literal, as money.c reads it).  Some rows are refunds,
 * resolved in the job's last transaction. */
static cJSON *rows_body(const char *what, int statement)
{
    size_t cap = (size_t)ROWS * 200 + 256, used;
    char *text = malloc(cap);
    cJSON *b = NULL;
    ledger_error err;
    int i;

    if (text == NULL)
        return NULL;
    used = (size_t)snprintf(text, cap, "%s", statement
                            ? "{\"bank_name\": \"Job Bank\", \"account_type\": \"Visa\","
                              " \"period_start\": \"2025-01-01\", \"period_end\": \"2025-12-31\","
                              " \"transactions\": ["
                            : "{\"allow_duplicates\": true, \"rows\": [");
    for (i = 0; i < ROWS; i++)
        used += (size_t)snprintf(text + used, cap - used,
                                 "%s{\"date\": \"2025-%02d-%02d\", \"description\": \"%s %d\","
                                 " \"amount\": %d.%02d%s%s}", i ? "," : "", 1 + i % 12, 1 + i % 28,
                                 what, i, 1 + i % 300, i % 100,
                                 statement ? ", \"transaction_type\": \"debit\"" : "",
                                 i % 97 ? "" : i % 2 ? ", \"category\": \"refund\""
                                                     : ", \"category\": \"groceries\"");
    used += (size_t)snprintf(text + used, cap - used, "]}");
    if (ledger_json_parse(text, used, &b, &err))
        printf("# body: %s\n", err.message);
    free(text);
    return b;
}

/* An OFX file of two accounts, ROWS rows between them. */
static char *ofx_file(size_t *len)
{
    size_t cap = (size_t)ROWS * 200 + 1024, used = 0;
    char *text = malloc(cap);
    int i, acct;

    if (text == NULL)
        return NULL;
    used += (size_t)snprintf(text + used, cap - used,
                             "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1>");
    for (acct = 0; acct < 2; acct++) {
        used += (size_t)snprintf(text + used, cap - used,
                                 "<STMTTRNRS><STMTRS><CURDEF>AUD<BANKACCTFROM><BANKID>062000"
                                 "<ACCTID>1234%d<ACCTTYPE>CHECKING</BANKACCTFROM>"
                                 "<BANKTRANLIST><DTSTART>20250101<DTEND>20251231", acct);
        for (i = acct * ROWS / 2; i < (acct + 1) * ROWS / 2; i++)
            used += (size_t)snprintf(text + used, cap - used,
                                     "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>2025%02d%02d<TRNAMT>-%d.%02d"
                                     "<FITID>F%06d<NAME>Shop %d</STMTTRN>",
                                     1 + i % 12, 1 + i % 28, 1 + i % 300, i % 100, i, i % 50);
        used += (size_t)snprintf(text + used, cap - used,
                                 "</BANKTRANLIST><LEDGERBAL><BALAMT>100.00<DTASOF>20251231"
                                 "</LEDGERBAL></STMTRS></STMTTRNRS>");
    }
    used += (size_t)snprintf(text + used, cap - used, "</BANKMSGSRSV1></OFX>\n");
    *len = used;
    return text;
}

enum kind { JOB_COMMIT, JOB_APPLY, JOB_REVERT, JOB_STATEMENT, JOB_IMPORT, JOB_MERCHANTS,
            JOB_APPLY_ALL, JOB_DELETE };
static const char *const kind_name[] = { "CSV commit", "rule apply", "revert", "statement",
                                         "OFX import", "merchant run", "apply-all",
                                         "statement delete" };

struct setup {
    int64_t me, rule, run, doomed;  /* doomed: the statement JOB_DELETE deletes */
    cJSON *body, *statement;
    char *ofx;
    size_t ofx_len;
};

/* Runs the job on the working copy, with f armed. */
static int run_job(ledger_db *db, enum kind kind, const struct setup *s, struct fault *f,
                   ledger_error *err)
{
    cJSON *out = NULL;
    int rc;

    sqlite3_progress_handler(db->sql, PROGRESS_OPS, progress, f);
    switch (kind) {
    case JOB_COMMIT:
        rc = ledger_csv_commit(db, s->me, s->body, &out, err);
        break;
    case JOB_APPLY:
        rc = ledger_rule_apply(db, s->me, s->rule, &out, err);
        break;
    case JOB_REVERT:
        rc = ledger_rule_revert(db, s->me, s->run, &out, err);
        break;
    case JOB_STATEMENT:
        rc = ledger_statement_create(db, s->me, s->statement, &out, err);
        break;
    case JOB_IMPORT: {
        int created;

        rc = ledger_statement_import(db, s->me, s->ofx, s->ofx_len, &out, &created, err);
        break;
    }
    case JOB_MERCHANTS:
        rc = ledger_merchant_run(db, s->me, &out, err);
        break;
    case JOB_APPLY_ALL:
        rc = ledger_rule_apply_all(db, s->me, &out, err);
        break;
    default:
        rc = ledger_statement_delete(db, s->me, s->doomed, NULL, NULL, err);
        break;
    }
    sqlite3_progress_handler(db->sql, 0, NULL, NULL);
    if (rc == LEDGER_OK && out == NULL && kind != JOB_DELETE)
        rc = ledger_error_set(err, 500, "internal", NULL, "no answer");
    cJSON_Delete(out);
    return rc;
}

/* The owner's next request, as fcgi/dispatch.c makes it: a dead job
 * found in its transaction is recovered before it goes on. */
static int next_request(ledger_db *db, int64_t me)
{
    ledger_error err;
    int64_t dead = 0;

    if (ledger_begin(db, 0, &err) || ledger_job_check(db, me, &dead, &err)) {
        ledger_rollback(db);
        printf("# next request: %d %s\n", err.status, err.message);
        return -1;
    }
    ledger_rollback(db);
    if (dead && ledger_job_recover(db, dead, &err)) {
        printf("# recover: %d %s\n", err.status, err.message);
        return -1;
    }
    return 0;
}

static void sweep(enum kind kind, const struct setup *s, int lasting)
{
    ledger_db *db = NULL;
    ledger_error err;
    struct fault f = { 0, 0, 0 };
    uint64_t before, after;
    long total, i, bad_state = 0, left = 0, drifted = 0, failed = 0, finished = 0;
    long points = getenv("LEDGER_VALGRIND") ? POINTS_VALGRIND : POINTS;

    /* Once undisturbed: the states either side, and its length. */
    fresh();
    if (copy_file(tpl, work) || ledger_open(work, &db, &err)) {
        ok(0, "%s: open the copy", kind_name[kind]);
        return;
    }
    before = digest(db);
    if (run_job(db, kind, s, &f, &err)) {
        ok(0, "%s: runs undisturbed: %d %s", kind_name[kind], err.status, err.message);
        ledger_close(db);
        return;
    }
    after = digest(db);
    total = f.calls;
    ledger_close(db);
    for (i = 1; i <= points; i++) {
        struct fault at = { 0, 1 + total * i / (points + 1), lasting };
        uint64_t now;
        int rc;

        fresh();
        if (copy_file(tpl, work) || ledger_open(work, &db, &err)) {
            ok(0, "%s: open the copy", kind_name[kind]);
            return;
        }
        rc = run_job(db, kind, s, &at, &err);
        failed += rc != LEDGER_OK;
        if (next_request(db, s->me))
            left++;
        left += sql_int(db, "SELECT count(*) FROM jobs");
        now = digest(db);
        /* An error answer: nothing written, but for a revert or a delete
         * that had begun (finished by the next request).  A success: all
         * of it. */
        if (rc == LEDGER_OK ? now != after
                            : !(now == before
                                || ((kind == JOB_REVERT || kind == JOB_DELETE) && now == after))) {
            if (bad_state++ == 0)
                printf("# %s failing at %ld of %ld%s: rc %d (%s), the ledger is %s\n",
                       kind_name[kind], at.k, total, lasting ? " on" : "", rc,
                       rc ? err.message : "ok", now == after ? "as after" : now == before
                       ? "as before" : "neither as before nor as after");
        }
        finished += now == after;
        if (drift(db))
            drifted++;
        ledger_close(db);
    }
    ok(bad_state == 0 && left == 0 && drifted == 0,
       "%s failing %s at %ld points of %ld: %ld answered an error, %ld ended as the whole job,"
       " %ld as neither it nor nothing, %ld jobs left, %ld with summaries off",
       kind_name[kind], lasting ? "from then on" : "once", points, total, failed, finished,
       bad_state, left, drifted);
}

/* In the template: a row of alice's shared with bob (a split), which
 * every job changes in its last transaction, and one she renamed, which
 * the merchant run names in its first pass. */
static void share_and_rename(ledger_db *db, int64_t me)
{
    ledger_error err;
    cJSON *body = NULL, *out = NULL;
    int64_t shared = sql_int(db, "SELECT id FROM transactions WHERE description = 'earlier 7'");
    int64_t renamed = sql_int(db, "SELECT id FROM transactions WHERE description = 'earlier 8'");
    int64_t bob = 0;
    char text[96];
    int rc;

    rc = ledger_user_resolve(db, "bob", "bob@example.com", "Bob", &bob, &err)
         || ledger_begin(db, 1, &err);
    if (rc == 0) {
        body = cJSON_Parse("{\"email\": \"bob@example.com\"}");
        rc = ledger_participant_add(db, me, body, &out, &err);
        cJSON_Delete(body);
        cJSON_Delete(out);
        body = out = NULL;
    }
    if (rc == 0) {
        snprintf(text, sizeof text, "[{\"participant_id\": %lld, \"share_percent\": 50}]",
                 (long long)bob);
        rc = ledger_json_parse(text, strlen(text), &body, &err)
             || ledger_split_set(db, me, shared, body, &out, &err);
        cJSON_Delete(body);
        cJSON_Delete(out);
        body = out = NULL;
    }
    if (rc == 0) {
        body = cJSON_Parse("{\"merchant_normalized\": \"My Shop\"}");
        rc = ledger_txn_update(db, me, renamed, body, &out, &err) || ledger_commit(db, &err);
        cJSON_Delete(body);
        cJSON_Delete(out);
    }
    if (rc) {
        printf("# share and rename: %s\n", err.message);
        ledger_rollback(db);
    }
}

/* apply-all as a job ends as it does in one transaction, with rules that
 * build on each other, the row shared with bob (matched again in the
 * job's last transaction) and a rule that shares rows (it and the rules
 * after it run whole in the last transaction). */
static void apply_all_alike(const struct setup *s)
{
    /* %lld: the tag (r5) or bob (r6). */
#define R4 "{\"name\": \"r4\", \"conditions\": [{\"field\": \"description\", \"operator\":" \
           " \"contains\", \"value\": \"earlier 7\"}], \"actions\": [{\"type\": \"set_category\"," \
           " \"category\": \"dining\"}]}"
#define R5 "{\"name\": \"r5\", \"conditions\": [{\"field\": \"category\", \"operator\":" \
           " \"equals\", \"value\": \"dining\"}], \"actions\": [{\"type\": \"add_tag\"," \
           " \"tag_id\": %lld}]}"
#define R6 "{\"name\": \"r6\", \"conditions\": [{\"field\": \"description\", \"operator\":" \
           " \"contains\", \"value\": \"earlier 2\"}], \"actions\": [{\"type\": \"apply_split\"," \
           " \"shares\": [{\"participant_id\": %lld, \"share_percent\": 50}]}]}"
#define R7 "{\"name\": \"r7\", \"conditions\": [{\"field\": \"tag\", \"operator\":" \
           " \"equals\", \"value\": \"seen\"}], \"actions\": [{\"type\": \"set_merchant\"," \
           " \"merchant_normalized\": \"Tagged\"}]}"
    ledger_db *db;
    ledger_error err;
    cJSON *out = NULL, *body;
    uint64_t one = 0, job = 1;
    int64_t tag = 0, bob;
    char text[512];
    size_t i;
    int pass, rc = 0;

    /* The rules, in the template. */
    if (ledger_open(tpl, &db, &err))
        return;
    bob = sql_int(db, "SELECT id FROM users WHERE subject = 'bob'");
    body = cJSON_Parse("{\"name\": \"seen\"}");
    if (ledger_begin(db, 1, &err) || ledger_tag_create(db, s->me, body, &out, &err)
        || ledger_commit(db, &err))
        printf("# tag: %s\n", err.message);
    else
        tag = (int64_t)json_get(out, "id")->valuedouble;
    cJSON_Delete(body);
    cJSON_Delete(out);
    for (i = 0; i < 4; i++) {
        if (i == 0)
            snprintf(text, sizeof text, R4);
        else if (i == 1)
            snprintf(text, sizeof text, R5, (long long)tag);
        else if (i == 2)
            snprintf(text, sizeof text, R6, (long long)bob);
        else
            snprintf(text, sizeof text, R7);
        body = NULL;
        out = NULL;
        if (ledger_json_parse(text, strlen(text), &body, &err) || ledger_begin(db, 1, &err)
            || ledger_rule_create(db, s->me, body, &out, &err) || ledger_commit(db, &err))
            printf("# rule %zu: %s\n", i + 4, err.message);
        cJSON_Delete(body);
        cJSON_Delete(out);
    }
    ledger_close(db);
    /* Once in one transaction, once as a job. */
    for (pass = 0; pass < 2; pass++) {
        fresh();
        if (copy_file(tpl, work) || ledger_open(work, &db, &err)) {
            ok(0, "apply-all alike: open the copy");
            return;
        }
        out = NULL;
        if (pass == 0)
            rc |= ledger_begin(db, 1, &err) || ledger_rule_apply_all(db, s->me, &out, &err)
                  || ledger_commit(db, &err);
        else
            rc |= ledger_rule_apply_all(db, s->me, &out, &err);
        if (rc)
            printf("# apply-all: %s\n", err.message);
        cJSON_Delete(out);
        *(pass ? &job : &one) = digest(db);
        if (pass == 1)
            is_int(sql_int(db, "SELECT count(*) FROM splits s JOIN transactions t"
                               " ON t.id = s.transaction_id WHERE t.description LIKE 'earlier 2%'"
                               " AND s.participant_id = (SELECT id FROM users WHERE subject = 'bob')"),
                   sql_int(db, "SELECT count(*) FROM transactions WHERE description LIKE 'earlier 2%'"),
                   "apply-all's sharing rule shared its rows");
        ledger_close(db);
    }
    ok(rc == 0 && one == job, "apply-all as a job ends as it does in one transaction");
}

/* In the template: a statement of ROWS rows of alice's for JOB_DELETE, one
 * of them shared with bob (a split), which the delete takes in its last
 * transaction, and one a manual row of hers is reconciled into, which the
 * delete gives back there. */
static int64_t doomed_statement(const struct setup *s)
{
    ledger_db *db;
    ledger_error err;
    cJSON *body, *out = NULL;
    int64_t id = 0, manual = 0;
    char text[160];
    int rc;

    if (ledger_open(tpl, &db, &err))
        return 0;
    body = rows_body("gone", 1);
    rc = ledger_begin(db, 1, &err) || ledger_statement_create(db, s->me, body, &out, &err);
    cJSON_Delete(body);
    if (rc == 0)
        id = (int64_t)json_get(out, "id")->valuedouble;
    cJSON_Delete(out);
    out = body = NULL;
    if (rc == 0) {
        snprintf(text, sizeof text, "[{\"participant_id\": %lld, \"share_percent\": 50}]",
                 (long long)sql_int(db, "SELECT id FROM users WHERE subject = 'bob'"));
        rc = ledger_json_parse(text, strlen(text), &body, &err)
             || ledger_split_set(db, s->me,
                                 sql_int(db, "SELECT id FROM transactions WHERE description = 'gone 7'"),
                                 body, &out, &err);
        cJSON_Delete(body);
        cJSON_Delete(out);
        out = body = NULL;
    }
    if (rc == 0) {
        /* "gone 5": 2025-06-06, 6.05 */
        body = cJSON_Parse("{\"date\": \"2025-06-06\", \"amount\": 6.05, \"description\": \"lunch\","
                           " \"payment_method\": \"card\"}");
        rc = ledger_txn_create(db, s->me, body, &out, &err);
        if (rc == 0)
            manual = (int64_t)json_get(out, "id")->valuedouble;
        cJSON_Delete(body);
        cJSON_Delete(out);
        out = body = NULL;
    }
    if (rc == 0) {
        snprintf(text, sizeof text,
                 "{\"matches\": [{\"manual_id\": %lld, \"statement_transaction_id\": %lld}]}",
                 (long long)manual,
                 (long long)sql_int(db, "SELECT id FROM transactions WHERE description = 'gone 5'"));
        rc = ledger_json_parse(text, strlen(text), &body, &err)
             || ledger_reconcile_apply(db, s->me, body, &out, &err) || ledger_commit(db, &err);
        cJSON_Delete(body);
        cJSON_Delete(out);
    }
    if (rc) {
        printf("# doomed statement: %s\n", err.message);
        ledger_rollback(db);
        id = 0;
    }
    ledger_close(db);
    return id;
}

/* A statement's delete as a job ends as it does in one transaction: the
 * manual row back, bob's share gone with the row. */
static void delete_alike(const struct setup *s)
{
    ledger_db *db;
    ledger_error err;
    uint64_t one = 0, job = 1;
    int pass, rc = 0;

    for (pass = 0; pass < 2; pass++) {
        fresh();
        if (copy_file(tpl, work) || ledger_open(work, &db, &err)) {
            ok(0, "delete alike: open the copy");
            return;
        }
        if (pass == 0)
            rc |= ledger_begin(db, 1, &err)
                  || ledger_statement_delete(db, s->me, s->doomed, NULL, NULL, &err)
                  || ledger_commit(db, &err);
        else
            rc |= ledger_statement_delete(db, s->me, s->doomed, NULL, NULL, &err);
        if (rc)
            printf("# delete: %s\n", err.message);
        *(pass ? &job : &one) = digest(db);
        if (pass == 1) {
            is_int(sql_int(db, "SELECT count(*) FROM transactions WHERE description = 'lunch'"
                               " AND reconciled_with_id IS NULL"), 1,
                   "the statement's delete gave the reconciled manual row back");
            is_int(sql_int(db, "SELECT count(*) FROM splits s, users u"
                               " WHERE u.id = s.participant_id AND u.subject = 'bob'"), 1,
                   "and took bob's share of its row with it (his other one stays)");
        }
        ledger_close(db);
    }
    ok(rc == 0 && one == job, "a statement's delete as a job ends as it does in one transaction");
}

int main(void)
{
    ledger_db *db;
    ledger_error err;
    struct setup s = { 0, 0, 0, 0, NULL, NULL, NULL, 0 };
    cJSON *out = NULL, *rule;

    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(tpl, sizeof tpl, "%s/tpl.db", dir);
    snprintf(work, sizeof work, "%s/work.db", dir);
    /* The template: alice, some rows of hers, a rule over all of them. */
    if (ledger_open(tpl, &db, &err))
        return 1;
    s.me = alice(db);
    s.body = rows_body("earlier", 0);
    if (ledger_csv_commit(db, s.me, s.body, &out, &err))
        printf("# template rows: %s\n", err.message);
    cJSON_Delete(out);
    cJSON_Delete(s.body);
    share_and_rename(db, s.me);
    rule = cJSON_Parse("{\"name\": \"all\", \"conditions\": [{\"field\": \"amount\","
                       " \"operator\": \"gte\", \"value\": 0}], \"actions\": [{\"type\":"
                       " \"set_category\", \"category\": \"dining\"}]}");
    if (ledger_begin(db, 1, &err) || ledger_rule_create(db, s.me, rule, &out, &err)
        || ledger_commit(db, &err))
        printf("# rule: %s\n", err.message);
    s.rule = (int64_t)json_get(out, "id")->valuedouble;
    cJSON_Delete(out);
    cJSON_Delete(rule);
    ledger_close(db);

    s.body = rows_body("new", 0);
    sweep(JOB_COMMIT, &s, 0);
    sweep(JOB_COMMIT, &s, 1);
    sweep(JOB_APPLY, &s, 0);
    sweep(JOB_APPLY, &s, 1);

    /* For the revert: the rule applied, in the template. */
    if (ledger_open(tpl, &db, &err) == LEDGER_OK) {
        if (ledger_rule_apply(db, s.me, s.rule, &out, &err) == LEDGER_OK)
            s.run = (int64_t)json_get(out, "run_id")->valuedouble;
        else
            printf("# apply: %s\n", err.message);
        cJSON_Delete(out);
        ledger_close(db);
    }
    sweep(JOB_REVERT, &s, 0);
    sweep(JOB_REVERT, &s, 1);

    s.statement = rows_body("card", 1);
    sweep(JOB_STATEMENT, &s, 0);
    sweep(JOB_STATEMENT, &s, 1);
    s.ofx = ofx_file(&s.ofx_len);
    sweep(JOB_IMPORT, &s, 0);
    sweep(JOB_IMPORT, &s, 1);
    cJSON_Delete(s.statement);
    free(s.ofx);
    sweep(JOB_MERCHANTS, &s, 0);
    sweep(JOB_MERCHANTS, &s, 1);

    /* For apply-all: two more rules, which no run has seen (the first's
     * run, applied above, has seen every row). */
    if (ledger_open(tpl, &db, &err) == LEDGER_OK) {
        static const char *const more[] = {
            "{\"name\": \"name them\", \"conditions\": [{\"field\": \"description\","
            " \"operator\": \"contains\", \"value\": \"earlier\"}], \"actions\": [{\"type\":"
            " \"set_merchant\", \"merchant_normalized\": \"Earlier Shop\"}]}",
            "{\"name\": \"large\", \"conditions\": [{\"field\": \"amount\", \"operator\":"
            " \"gte\", \"value\": 100}], \"actions\": [{\"type\": \"set_category\","
            " \"category\": \"groceries\"}]}",
        };
        size_t i;

        for (i = 0; i < sizeof more / sizeof more[0]; i++) {
            rule = cJSON_Parse(more[i]);
            if (ledger_begin(db, 1, &err) || ledger_rule_create(db, s.me, rule, &out, &err)
                || ledger_commit(db, &err))
                printf("# rule: %s\n", err.message);
            cJSON_Delete(out);
            cJSON_Delete(rule);
            out = NULL;
        }
        ledger_close(db);
    }
    sweep(JOB_APPLY_ALL, &s, 0);
    sweep(JOB_APPLY_ALL, &s, 1);
    apply_all_alike(&s);

    /* A merge of a user whose job is under way (a row in jobs: another
     * process's, as far as this one knows) is refused, nothing moved. */
    fresh();
    if (copy_file(tpl, work) == 0 && ledger_open(work, &db, &err) == LEDGER_OK) {
        int64_t bob = 0;
        int rc;
        char sql[128];

        if (ledger_user_resolve(db, "bob", NULL, NULL, &bob, &err))
            printf("# bob: %s\n", err.message);
        snprintf(sql, sizeof sql,
                 "INSERT INTO jobs (id, owner_id, kind) VALUES (7, %lld, 'csv_commit')",
                 (long long)s.me);
        sql_exec(db, sql);
        db->job_id = 7;  /* running here: alive to every check */
        rc = ledger_begin(db, 1, &err) || ledger_user_merge(db, s.me, bob, &out, &err);
        ledger_rollback(db);
        ok(rc && err.status == 409 && strcmp(err.code, "merge_conflict") == 0,
           "a merge of a user whose job runs is 409 merge_conflict (%d %s)", err.status, err.message);
        is_int(sql_int(db, "SELECT count(*) FROM transactions t, users u"
                           " WHERE t.owner_id = u.id AND u.subject = 'alice'"), ROWS,
               "and moves none of the rows");
        db->job_id = 0;
        ledger_close(db);
    }

    /* Last, as it adds a statement to the template. */
    s.doomed = doomed_statement(&s);
    ok(s.doomed > 0, "a statement of %d rows to delete, one row shared, one reconciled", ROWS);
    sweep(JOB_DELETE, &s, 0);
    sweep(JOB_DELETE, &s, 1);
    delete_alike(&s);
    cJSON_Delete(s.body);
    fresh();
    snprintf(work, sizeof work, "%s/tpl.db", dir);
    fresh();
    rmdir(dir);
    return done_testing();
}
