/* Budgets: a standing monthly amount per category, with a month's spend. */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"
#include "spend.h"

static const char SQL_BUDGET_LIST[] =
    "SELECT category, amount FROM budgets WHERE owner_id = ? ORDER BY category";
static const char SQL_BUDGET_UPSERT[] =
    "INSERT INTO budgets (owner_id, category, amount) VALUES (?, ?, ?)"
    " ON CONFLICT (owner_id, category) DO UPDATE SET amount = excluded.amount";
static const char SQL_BUDGET_DELETE[] = "DELETE FROM budgets WHERE owner_id = ? AND category = ?";
static const char SQL_SPENT[] =
    "SELECT category, cents FROM spend_monthly"
    " WHERE owner_id = ?1 AND month >= substr(?2, 1, 7) AND month < substr(?3, 1, 7)";

static int add_mine(void *ctx, const struct spend_row *r)
{
    return tally_add(ctx, r->category, r->mine);
}

int ledger_budget_list(ledger_db *db, int64_t me, const struct ledger_params *p, cJSON **out,
                       ledger_error *err)
{
    const char *month = param_get(p, "month");
    char now[8], first[11], end[11];
    struct tally spent = { NULL, 0, 0, NULL, 0 };
    cJSON *doc = NULL, *items;
    sqlite3_stmt *st;
    int mine, rc;

    if (month == NULL) {
        month_now(now);
        month = now;
    }
    if (month_bounds(month, first, end))
        return error_field(err, "month", "month must be YYYY-MM");
    if (spend_basis(p, &mine, err))
        return LEDGER_ERR;
    /* The month's spend per category, then one row per budget. */
    if (mine) {
        if (spend_mine_each(db, me, first, end, 0, add_mine, &spent, err))
            goto fail;
    } else {
        if ((st = db_stmt(db, SQL_SPENT, err)) == NULL)
            goto fail;
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(db, st, 2, first);
        db_bind_text(db, st, 3, end);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            if (tally_add(&spent, (const char *)sqlite3_column_text(st, 0),
                          sqlite3_column_int64(st, 1)))
                break;
        db_stmt_done(st);
        if (rc == SQLITE_ROW) {
            ledger_error_oom(err);
            goto fail;
        }
        if (rc != SQLITE_DONE) {
            db_error(db, err, "budgets");
            goto fail;
        }
    }
    if ((st = db_stmt(db, SQL_BUDGET_LIST, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, me);
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "month", month);
    items = cJSON_AddArrayToObject(doc, "items");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *cat = (const char *)sqlite3_column_text(st, 0);
        const struct tally_item *s = tally_find(&spent, cat);
        int64_t amount = sqlite3_column_int64(st, 1);
        money_sum used = s ? s->cents : 0;
        cJSON *o = cJSON_CreateObject();

        cJSON_AddStringToObject(o, "category", cat);
        cJSON_AddItemToObject(o, "amount", ledger_money_to_json(amount));
        cJSON_AddItemToObject(o, "spent", money_sum_to_json(used));
        cJSON_AddItemToObject(o, "remaining", money_sum_to_json(amount - used));
        cJSON_AddItemToArray(items, o);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "budgets");
        goto fail;
    }
    cJSON_AddNumberToObject(doc, "total", cJSON_GetArraySize(items));
    tally_free(&spent);
    *out = doc;
    return LEDGER_OK;
fail:
    tally_free(&spent);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

int ledger_budget_get(ledger_db *db, int64_t me, const char *category,
                      const struct ledger_params *p, cJSON **out, ledger_error *err)
{
    char folded[LEDGER_CATEGORY_MAX];

    if (category_of_report(category, folded, err) || ledger_budget_list(db, me, p, out, err))
        return LEDGER_ERR;
    list_pick(out, "category", 0, folded);
    return *out ? LEDGER_OK
                : ledger_error_set(err, 404, "not_found", NULL, "no budget for %s", folded);
}

int ledger_budget_put(ledger_db *db, int64_t me, const char *category, const cJSON *body,
                      cJSON **out, ledger_error *err)
{
    char folded[LEDGER_CATEGORY_MAX];
    int64_t amount;
    int set;

    if (category_of_report(category, folded, err) || field_require_object(body, err)
        || field_money(body, "amount", 1, 0, &amount, &set, NULL, err))
        return LEDGER_ERR;
    if (amount < 0)
        return error_field(err, "amount", "amount must be 0 or more");
    if (db_exec(db, err, "budget", SQL_BUDGET_UPSERT, DB_INT(me), DB_TEXT(folded), DB_INT(amount)))
        return LEDGER_ERR;
    *out = cJSON_CreateObject();
    cJSON_AddStringToObject(*out, "category", folded);
    cJSON_AddItemToObject(*out, "amount", ledger_money_to_json(amount));
    return LEDGER_OK;
}

int ledger_budget_delete(ledger_db *db, int64_t me, const char *category, ledger_error *err)
{
    char folded[LEDGER_CATEGORY_MAX];

    if (category_of_report(category, folded, err)
        || db_exec(db, err, "budget", SQL_BUDGET_DELETE, DB_INT(me), DB_TEXT(folded)))
        return LEDGER_ERR;
    if (sqlite3_changes(db->sql) == 0)
        return ledger_error_set(err, 404, "not_found", NULL, "no budget for %s", folded);
    return LEDGER_OK;
}
