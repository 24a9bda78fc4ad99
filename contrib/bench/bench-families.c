/*
 * ledger-libbench --families: the HTTP families in-process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "txn.h"
#include "bench.h"

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
int families(ledger_db *db, int64_t me, int iterations, const char *dir, char *cursor)
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