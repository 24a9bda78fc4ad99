/* The fixture every target runs against.  Built once per process: opening
 * an in-memory database and applying the migrations costs far more than
 * one input, and each input's writes are rolled back instead. */
#define _GNU_SOURCE  /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void die(const char *what, const ledger_error *err)
{
    fprintf(stderr, "fuzz fixture: %s: %s\n", what, err ? err->message : "failed");
    abort();
}

/* Runs one library call that takes a JSON body, for the fixture. */
static void post(ledger_db *db, int64_t me, const char *what, const char *json,
                 int (*fn)(ledger_db *, int64_t, const cJSON *, cJSON **, ledger_error *))
{
    ledger_error err = { 0 };
    cJSON *body = NULL, *out = NULL;

    if (ledger_json_parse(json, strlen(json), &body, &err) || fn(db, me, body, &out, &err))
        die(what, &err);
    cJSON_Delete(body);
    cJSON_Delete(out);
}

static void fixture(struct fuzz_env *e)
{
    ledger_error err = { 0 };
    cJSON *body = NULL, *out = NULL;
    int64_t other;
    static const char statement[] =
        "{\"bank_name\":\"Fuzz Bank\",\"account_type\":\"Visa Credit Card\","
        "\"period_start\":\"2025-01-01\",\"period_end\":\"2025-01-31\","
        "\"opening_balance\":0,\"closing_balance\":12.34,"
        "\"transactions\":[{\"date\":\"2025-01-03\",\"description\":\"CAFE NERO SYDNEY\","
        "\"amount\":12.34,\"transaction_type\":\"debit\",\"category\":\"dining\"}]}";

    if (ledger_open(":memory:", &e->db, &err))
        die("open", &err);
    if (ledger_user_resolve(e->db, "fuzz-me", "me@example.com", "Me", &e->me, &err)
        || ledger_user_resolve(e->db, "fuzz-other", "other@example.com", "Other", &other, &err))
        die("users", &err);
    if (ledger_begin(e->db, 1, &err))
        die("begin", &err);
    post(e->db, e->me, "tag", "{\"name\":\"holiday\",\"color\":\"#0af\"}", ledger_tag_create);
    post(e->db, e->me, "transaction",
         "{\"date\":\"2025-01-02\",\"amount\":12.34,\"description\":\"Coffee\","
         "\"merchant\":\"Cafe\",\"category\":\"dining\",\"payment_method\":\"card\"}",
         ledger_txn_create);
    post(e->db, e->me, "statement", statement, ledger_statement_create);
    post(e->db, e->me, "trip", "{\"name\":\"Hobart\",\"start_date\":\"2025-01-01\"}",
         ledger_trip_create);
    post(e->db, e->me, "rule",
         "{\"name\":\"cafes\",\"conditions\":[{\"field\":\"description\","
         "\"operator\":\"contains\",\"value\":\"cafe\"}],"
         "\"actions\":[{\"type\":\"set_category\",\"category\":\"dining\"}]}",
         ledger_rule_create);
    if (ledger_json_parse("{\"email\":\"other@example.com\"}", 29, &body, &err)
        || ledger_participant_add(e->db, e->me, body, &out, &err))
        die("participant", &err);
    cJSON_Delete(body);
    cJSON_Delete(out);
    /* The statement row is shared half and half, so settling has a split. */
    body = out = NULL;
    if (ledger_json_parse("[{\"participant_id\":2,\"share_percent\":50}]", 41, &body, &err)
        || ledger_split_set(e->db, e->me, 2, body, &out, &err))
        die("split", &err);
    cJSON_Delete(body);
    cJSON_Delete(out);
    if (ledger_commit(e->db, &err))
        die("commit", &err);
}

struct fuzz_env *fuzz_env(void)
{
    static struct fuzz_env e;
    static int ready;
    char msg[256];

    if (ready)
        return &e;
    config_defaults(&e.cfg);
    /* The interpreter, not the JIT: the sanitizers cannot see into JIT
     * code, and the matches are the same. */
    if (router_new(&e.router, 0, msg, sizeof msg)) {
        fprintf(stderr, "fuzz fixture: %s\n", msg);
        abort();
    }
    fixture(&e);
    ready = 1;
    return &e;
}

/* libFuzzer calls this once before the first input: a fixture that cannot
 * be built stops the run there, instead of passing for the first input's
 * crash. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_env();
    return 0;
}

char *fuzz_strndup(const uint8_t *data, size_t len)
{
    char *s = malloc(len + 1);

    if (s == NULL)
        abort();
    if (len)
        memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

/* A full buffer of the request's output stream is dropped. */
static void out_drop(FCGX_Stream *stream, int close)
{
    (void)close;
    stream->wrNext = stream->stopUnget;
}

int fuzz_req_begin(struct fuzz_req *q, const char *line)
{
    struct fuzz_env *e = fuzz_env();
    const char *sp = strchr(line, ' ');

    /* FastCGI parameters are NAME=VALUE strings, as libfcgi keeps them. */
    memset(q, 0, sizeof *q);
    snprintf(q->method, sizeof q->method, "REQUEST_METHOD=%.*s",
             sp ? (int)(sp - line) : 3, sp ? line : "GET");
    if (asprintf(&q->uri, "REQUEST_URI=%s", sp ? sp + 1 : line) < 0)
        abort();
    q->env[0] = q->method;
    q->env[1] = q->uri;
    q->env[2] = NULL;
    q->fcgx.envp = q->env;
    q->out.wrNext = q->out.stopUnget = q->out_buf;
    q->out.stop = q->out_buf + sizeof q->out_buf;
    q->out.rdNext = q->out.stop;
    q->out.emptyBuffProc = out_drop;
    q->fcgx.out = &q->out;
    request_begin(&q->r, &q->fcgx, &e->cfg, e->db, 1);
    q->r.user_id = e->me;
    return request_parse_uri(&q->r);
}

void fuzz_req_end(struct fuzz_req *q)
{
    request_end(&q->r);
    free(q->uri);
    q->uri = NULL;
}

void fuzz_check_error(const char *what, const ledger_error *err)
{
    /* FUZZ_VERBOSE=1 shows what each input was answered: a seed that
     * stops at a 404 or a 400 explores little. */
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz: %s: %d %s %s: %s\n", what, err->status ? err->status : 200,
                err->code, err->field, err->message);
    if (err->status >= 500) {
        fprintf(stderr, "fuzz: %s answered %d %s: %s\n", what, err->status, err->code,
                err->message);
        abort();
    }
}
