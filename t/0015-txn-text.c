/*
 * The transaction list written as text (ledger_txn_list_text, what
 * ledger-fcgi serves) prints exactly as the list built as a tree
 * (ledger_txn_list, the library's) does, for every kind of row: manual and
 * statement rows, foreign ones with a rate, overrides and an owner's share,
 * tags with names needing escapes and with and without colours, splits
 * seen by the owner and by a participant, a settled split, a reconciled
 * row; and on every page of a cursor walk and in each sort.  The monthly
 * report likewise (ledger_analytics_monthly_text).
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "tap.h"

static ledger_db *db;

/* The body of a call, parsed; the call's result's id, or 0. */
static int64_t call(int (*fn)(ledger_db *, int64_t, const cJSON *, cJSON **, ledger_error *),
                    int64_t me, const char *json)
{
    cJSON *body = NULL, *out = NULL;
    ledger_error err;
    int64_t id = 0;

    ledger_error_clear(&err);
    if (ledger_json_parse(json, strlen(json), &body, &err) == LEDGER_OK
        && fn(db, me, body, &out, &err) == LEDGER_OK) {
        const cJSON *v = cJSON_GetObjectItem(out, "id");

        id = v ? (int64_t)v->valuedouble : -1;
    } else {
        printf("# %s: %s\n", json, err.message);
    }
    cJSON_Delete(body);
    cJSON_Delete(out);
    return id;
}

/* PUT /api/budgets/{category} as call() takes it: the category in the body. */
static int ledger_budget_put_for_test(ledger_db *d, int64_t me, const cJSON *body, cJSON **out,
                                      ledger_error *err)
{
    const cJSON *c = cJSON_GetObjectItem(body, "category");

    return ledger_budget_put(d, me, c->valuestring, body, out, err);
}

static int64_t user(const char *name)
{
    char email[64];
    int64_t id = 0;
    ledger_error err;

    snprintf(email, sizeof email, "%s@example.org", name);
    ledger_user_resolve(db, name, email, NULL, &id, &err);
    return id;
}

typedef int (*report_fn)(ledger_db *, int64_t, const struct ledger_params *, cJSON **,
                         ledger_error *);

/* Parameters from key, value pairs (NULL-ended), at most max of them. */
static void params_of(const char *const *kv, struct ledger_param *items, size_t max,
                      struct ledger_params *p)
{
    p->items = items;
    for (p->count = 0; kv && p->count < max && kv[2 * p->count]; p->count++) {
        items[p->count].key = (char *)kv[2 * p->count];
        items[p->count].value = (char *)kv[2 * p->count + 1];
    }
}

/* One report as a tree and as text for me, printed: whether they are the
 * same text (and hold must, when given); *next, when asked, the tree's
 * next_cursor ("" for none). */
static int same_text(report_fn tree_fn, report_fn text_fn, int64_t me, const struct ledger_params *p,
                     const char *must, char *next, size_t next_len, const char *what)
{
    cJSON *tree = NULL, *text = NULL;
    ledger_error err;
    char *a = NULL, *b = NULL;
    const cJSON *cur;
    int same;

    if (tree_fn(db, me, p, &tree, &err) == LEDGER_OK && text_fn(db, me, p, &text, &err) == LEDGER_OK) {
        a = ledger_json_print(tree, NULL);
        b = ledger_json_print(text, NULL);
    } else {
        printf("# %s: %s\n", what, err.message);
    }
    same = a && b && strcmp(a, b) == 0 && (must == NULL || strstr(a, must));
    ok(same, "%s: the text is the tree's, byte for byte", what);
    if (a && b && strcmp(a, b) != 0)
        printf("# tree: %.400s\n# text: %.400s\n", a, b);
    else if (a && must && !strstr(a, must))
        printf("# no %s in %.2000s\n", must, a);
    if (next) {
        cur = cJSON_GetObjectItem(tree, "next_cursor");
        snprintf(next, next_len, "%s", cJSON_IsString(cur) ? cur->valuestring : "");
    }
    cJSON_Delete(tree);
    cJSON_Delete(text);
    cJSON_free(a);
    cJSON_free(b);
    return same;
}

/* Both lists for me with the query (key, value pairs, NULL-ended), and
 * the cursor when there is one; *cursor becomes the next page's. */
static int same_page(int64_t me, const char *const *kv, char *cursor, size_t cursor_len,
                     const char *what)
{
    struct ledger_param items[12];
    struct ledger_params p;
    char given[512] = "";

    params_of(kv, items, 10, &p);
    if (cursor && *cursor) {
        snprintf(given, sizeof given, "%s", cursor);
        items[p.count].key = (char *)"cursor";
        items[p.count++].value = given;
    }
    return same_text(ledger_txn_list, ledger_txn_list_text, me, &p, NULL, cursor, cursor_len, what);
}

int main(void)
{
    ledger_error err;
    int64_t alice, bob, carol, row, shared, stmt_row = 0, tag1, tag2;
    char body[1024], cursor[512] = "";
    cJSON *rows = NULL;
    int pages = 0;

    ok(ledger_open(":memory:", &db, &err) == LEDGER_OK, "an in-memory database");
    alice = user("alice");
    bob = user("bob");
    carol = user("carol");
    for (int i = 0; i < 2; i++) {
        cJSON *b = NULL, *o = NULL;

        ledger_json_parse(i ? "{\"email\":\"carol@example.org\"}" : "{\"email\":\"bob@example.org\"}",
                          i ? 29 : 27, &b, &err);
        ok(ledger_participant_add(db, alice, b, &o, &err) == LEDGER_OK, "a participant of alice's");
        cJSON_Delete(b);
        cJSON_Delete(o);
    }

    tag1 = call(ledger_tag_create, alice, "{\"name\":\"q\\\"uote\\\\ \\u00e9 / slash\",\"color\":\"#ff0000\"}");
    tag2 = call(ledger_tag_create, alice, "{\"name\":\"plain\"}");
    call(ledger_tag_create, bob, "{\"name\":\"bobs own\"}");

    row = call(ledger_txn_create, alice, "{\"date\":\"2026-01-05\",\"amount\":12.34,\"description\":"
               "\"Caf\\u00e9 \\\"quoted\\\" \\u0001 ctl\",\"merchant\":\"Cafe\",\"category\":\"Dining\"}");
    shared = call(ledger_txn_create, alice, "{\"date\":\"2026-01-06\",\"amount\":100,\"description\":\"Dinner\","
                  "\"splits\":[{\"participant_id\":2,\"share_percent\":33.33},"
                  "{\"participant_id\":3,\"share_percent\":33.33}]}");
    call(ledger_txn_create, alice, "{\"date\":\"2026-01-07\",\"amount\":20,\"description\":\"Abroad\","
         "\"currency\":\"USD\",\"exchange_rate_to_aud\":1.5123,\"payment_method\":\"card\"}");
    call(ledger_txn_create, alice, "{\"date\":\"2026-01-07\",\"amount\":5,\"description\":\"Refund\","
         "\"transaction_type\":\"refund\",\"merchant\":\"Cafe\"}");
    call(ledger_statement_create, alice, "{\"bank_name\":\"CBA\",\"account_type\":\"Home Loan\","
         "\"period_start\":\"2026-01-01\",\"period_end\":\"2026-01-31\",\"transactions\":["
         "{\"date\":\"2026-01-08\",\"description\":\"Repayment\",\"amount\":2000,\"transaction_type\":\"payment\","
         "\"principal_amount\":1500,\"interest_amount\":500},"
         "{\"date\":\"2026-01-09\",\"description\":\"Card\",\"amount\":40,\"transaction_type\":\"debit\"}]}");
    /* Overrides, an owner's share, tags, a settled split. */
    snprintf(body, sizeof body, "{\"category\":\"Groceries\",\"merchant_normalized\":\"Caf\\u00e9 Co\","
             "\"my_share_percent\":62.5}");
    {
        cJSON *b = NULL, *o = NULL;

        ledger_json_parse(body, strlen(body), &b, &err);
        ok(ledger_txn_update(db, alice, row, b, &o, &err) == LEDGER_OK, "overrides on a row");
        cJSON_Delete(b);
        cJSON_Delete(o);
        b = o = NULL;
        snprintf(body, sizeof body, "{\"tag_id\":%lld}", (long long)tag1);
        ledger_json_parse(body, strlen(body), &b, &err);
        ok(ledger_txn_tag_add(db, alice, row, b, &o, &err) == LEDGER_OK, "a tag");
        cJSON_Delete(b);
        cJSON_Delete(o);
        b = o = NULL;
        snprintf(body, sizeof body, "{\"tag_id\":%lld}", (long long)tag2);
        ledger_json_parse(body, strlen(body), &b, &err);
        ok(ledger_txn_tag_add(db, alice, shared, b, &o, &err) == LEDGER_OK, "another");
        cJSON_Delete(b);
        cJSON_Delete(o);
        b = o = NULL;
        ledger_json_parse("{\"settled\":true}", 16, &b, &err);
        ok(ledger_split_settle(db, bob, shared, b, &o, &err) == LEDGER_OK, "bob settles his split");
        cJSON_Delete(b);
        cJSON_Delete(o);
    }
    /* A manual row reconciled into the card row. */
    {
        struct ledger_param it[2] = { { (char *)"search", (char *)"Card" },
                                      { (char *)"exclude_categories", (char *)"" } };
        struct ledger_params p = { it, 2 };
        int64_t manual;

        if (ledger_txn_list(db, alice, &p, &rows, &err) == LEDGER_OK
            && cJSON_GetArraySize(cJSON_GetObjectItem(rows, "items")) > 0)
            stmt_row = (int64_t)cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rows, "items"), 0),
                                                    "id")->valuedouble;
        cJSON_Delete(rows);
        manual = call(ledger_txn_create, alice, "{\"date\":\"2026-01-09\",\"amount\":40,\"description\":\"Card\","
                      "\"payment_method\":\"card\"}");
        snprintf(body, sizeof body, "{\"matches\":[{\"manual_id\":%lld,\"statement_transaction_id\":%lld}]}",
                 (long long)manual, (long long)stmt_row);
        ok(stmt_row > 0 && call(ledger_reconcile_apply, alice, body) != 0, "a reconciled row");
    }

    {
        static const char *const everything[] = { "exclude_categories", "", NULL };
        static const char *const by_amount[] = { "exclude_categories", "", "sort", "amount", "order", "asc", NULL };
        static const char *const by_merchant[] = { "sort", "merchant", NULL };
        static const char *const split_only[] = { "has_split", "split", NULL };
        static const char *const none[] = { "search", "no such row", NULL };

        same_page(alice, everything, NULL, 0, "alice, every row");
        same_page(alice, by_amount, NULL, 0, "alice, by amount");
        same_page(alice, by_merchant, NULL, 0, "alice, by merchant");
        same_page(bob, everything, NULL, 0, "bob, the row shared with him");
        same_page(carol, split_only, NULL, 0, "carol, split rows");
        same_page(alice, none, NULL, 0, "an empty page");
    }
    {
        static const char *const two[] = { "exclude_categories", "", "limit", "2", NULL };

        do {
            char what[64];

            snprintf(what, sizeof what, "page %d of two rows by cursor", ++pages);
            if (!same_page(alice, two, cursor, sizeof cursor, what))
                break;
        } while (*cursor && pages < 10);
        ok(pages >= 3, "the walk had %d pages", pages);
    }
    /* The monthly report: the same text both ways, gross and mine, with a
     * budget beside a category spent in and one not. */
    call(ledger_budget_put_for_test, alice, "{\"category\":\"dining\",\"amount\":50}");
    call(ledger_budget_put_for_test, alice, "{\"category\":\"fitness\",\"amount\":20.5}");
    /* A category beyond ASCII (its punctuation folded, rule C) spent in
     * two months, and one with a budget in a month of its own: the text
     * writes each category's cell once and copies it into every month
     * (analytics.c, cell_pieces). */
    call(ledger_txn_create, alice, "{\"date\":\"2025-12-03\",\"amount\":7.5,\"description\":\"x\","
         "\"category\":\"Caf\\u00e9 \\\"q\\\" back\\\\slash\"}");
    call(ledger_txn_create, alice, "{\"date\":\"2026-02-03\",\"amount\":2.25,\"description\":\"y\","
         "\"category\":\"Caf\\u00e9 \\\"q\\\" back\\\\slash\"}");
    call(ledger_txn_create, alice, "{\"date\":\"2026-02-04\",\"amount\":3,\"description\":\"z\","
         "\"category\":\"fitness\"}");
    {
        static const char *const kv[][6] = {
            { "from", "2025-12", "to", "2026-02", NULL, NULL },
            { "from", "2025-12", "to", "2026-02", "basis", "mine" },
        };
        size_t k;

        for (k = 0; k < 2; k++) {
            struct ledger_param items[3];
            struct ledger_params p;
            char what[64];

            params_of(kv[k], items, 3, &p);
            snprintf(what, sizeof what, "the monthly report (%s)", k ? "mine" : "gross");
            same_text(ledger_analytics_monthly, ledger_analytics_monthly_text, alice, &p,
                      "\"budget\":50.00", NULL, 0, what);
            same_text(ledger_analytics_monthly, ledger_analytics_monthly_text, alice, &p,
                      k ? NULL : "{\"category\":\"fitness\",\"total\":3.00,\"budget\":20.50}", NULL, 0, what);
            same_text(ledger_analytics_monthly, ledger_analytics_monthly_text, alice, &p,
                      k ? NULL : "{\"category\":\"caf\u00e9_q_back_slash\",\"total\":2.25,\"budget\":null}", NULL, 0, what);
        }
    }
    ledger_close(db);
    return done_testing();
}
