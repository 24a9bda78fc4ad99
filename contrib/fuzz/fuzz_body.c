/* The per-route body readers.  An input is a request line, "METHOD URI",
 * a newline, and the body.  A route that takes a body gets it as dispatch()
 * would give it: parsed by ledger_json_parse (or, for the CSV preview, as
 * text/csv when it is not JSON); its handler then turns the document into
 * domain values (transactions, splits, statements, rules, CSV mappings,
 * payments, trips, budgets, reconciliations) against the fixture, in a
 * write transaction that is rolled back so state never grows. */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"
#include "harness.h"

/* A rule the input just saved is previewed, applied and reverted in the
 * same transaction: its conditions become SQL (rule_sql.c) and its
 * actions run only then, and no other route reaches them with a rule
 * the fuzzer wrote. */
static void rule_runs(struct fuzz_env *e, const cJSON *rule)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(rule, "id");
    const cJSON *run_id;
    ledger_error err = { 0 };
    cJSON *out = NULL;

    if (!cJSON_IsNumber(id))
        abort();
    if (ledger_rule_preview(e->db, e->me, (int64_t)id->valuedouble, &out, &err) == 0) {
        cJSON_Delete(out);
        out = NULL;
        if (ledger_rule_apply(e->db, e->me, (int64_t)id->valuedouble, &out, &err) == 0
            && cJSON_IsNumber(run_id = cJSON_GetObjectItemCaseSensitive(out, "run_id"))) {
            cJSON *reverted = NULL;

            ledger_rule_revert(e->db, e->me, (int64_t)run_id->valuedouble, &reverted, &err);
            cJSON_Delete(reverted);
        }
        cJSON_Delete(out);
    }
    fuzz_check_error("the rule's runs", &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_env *e = fuzz_env();
    const uint8_t *nl = memchr(data, '\n', size);
    const char *body;
    size_t len;
    const struct route *route;
    struct fuzz_req q;
    char *line;

    if (nl == NULL)
        return 0;
    line = fuzz_strndup(data, (size_t)(nl - data));
    body = (const char *)nl + 1;
    len = size - (size_t)(nl - data) - 1;
    if (fuzz_req_begin(&q, line) || (route = router_match(e->router, &q.r)) == NULL
        || !(route->flags & (ROUTE_JSON | ROUTE_CSV)))
        goto out;
    /* body points into the input, whose end the sanitizers know: a read
     * past it is caught. */
    if (len > 0 && ledger_json_parse(body, len, &q.r.json, &q.r.err)) {
        if (!(route->flags & ROUTE_CSV))
            goto out;
        ledger_error_clear(&q.r.err);
        /* Exactly len bytes, as request_read_body reads them. */
        if ((q.r.body = malloc(len)) == NULL)
            abort();
        memcpy(q.r.body, body, len);
        q.r.body_len = len;
    }
    if (ledger_begin(e->db, 1, &q.r.err) == 0) {
        if (route->handler(&q.r)) {
            if (q.r.err.status == 0)
                abort();  /* dispatch() would answer 500 */
        } else if (route->handler == h_rules_create || route->handler == h_rules_update) {
            rule_runs(e, q.r.out);
        }
        ledger_rollback(e->db);
    }
out:
    fuzz_check_error(line, &q.r.err);
    fuzz_req_end(&q);
    free(line);
    return 0;
}
