/*
 * The JSON export: one document with everything the caller can see, each
 * part in the shape its own route answers, so that a ledger can be built
 * again from it elsewhere:
 *
 *   {format, version, home_currency, user, transactions, statements, tags,
 *    participants, trips, budgets, payments, rules}
 *
 * The rows come first and are written one by one as they are read
 * (txn_row_write, the list's own writer); the other parts are a user's
 * tens or hundreds of items, each read whole and printed.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "export.h"
#include "txn.h"

#define EXPORT_JSON_VERSION "1"

static const char SQL_BUDGETS[] =
    "SELECT category, amount FROM budgets WHERE owner_id = ? ORDER BY category";

static int row(struct export *x, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    txn_row_write(&x->w, st, x->me);
    return 0;
}

static cJSON *budget_row(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();

    json_text_col(o, "category", st, 0);
    json_money_col(o, "amount", st, 1);
    return o;
}

static int budget_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_BUDGETS, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, budget_row, out, err);
}

static int payment_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    struct ledger_params none = { NULL, 0 };

    return ledger_payment_list(db, me, &none, out, err);
}

/* One part of the document: the items of a list the library gives. */
struct part {
    const char *key;
    int (*list)(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
};
static const struct part parts[] = {
    { "statements", ledger_statement_list },
    { "tags", ledger_tag_list },
    { "participants", ledger_participant_list },
    { "trips", ledger_trip_list },
    { "budgets", budget_list },
    { "payments", payment_list },
    { "rules", ledger_rule_list },
};

/* Writes doc's member `member` (NULL: doc itself) under key. */
static int put_tree(struct export *x, const char *key, cJSON *doc, const char *member)
{
    const cJSON *item = member ? cJSON_GetObjectItemCaseSensitive(doc, member) : doc;
    size_t len;
    char *text = item ? ledger_json_print(item, &len) : NULL;

    cJSON_Delete(doc);
    if (text == NULL)
        return ledger_error_oom(x->err);
    jw_begin(&x->w, key);
    export_put(x, text, len);
    free(text);
    return export_flush(x, EXPORT_CHUNK);
}

int export_json(struct export *x)
{
    cJSON *doc = NULL;
    size_t i;

    jw_open(&x->w, NULL, '{');
    jw_string(&x->w, "format", "ledger-export");
    jw_raw(&x->w, "version", EXPORT_JSON_VERSION);
    jw_string(&x->w, "home_currency", ledger_home_currency(x->db));
    if (ledger_user_get(x->db, x->me, &doc, x->err) || put_tree(x, "user", doc, NULL))
        return LEDGER_ERR;
    jw_open(&x->w, "transactions", '[');
    if (export_rows(x, row, NULL))
        return LEDGER_ERR;
    jw_close(&x->w, ']');
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        doc = NULL;
        if (parts[i].list(x->db, x->me, &doc, x->err) || put_tree(x, parts[i].key, doc, "items"))
            return LEDGER_ERR;
    }
    jw_close(&x->w, '}');
    export_put(x, "\n", 1);
    return LEDGER_OK;
}
