/* GET /api/merchants: the caller's merchants, by effective merchant name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "text.h"

#define LIMIT_DEFAULT 50

/* ?2 the search term (NULL for none), lowered (see ledger_contains). */
#define MERCHANT_MATCH "(?2 IS NULL OR ledger_contains(?2, t.eff_merchant))"
/* total is net spend: money out counts up, money in (credits, refunds,
 * payments) counts down, in the home currency.  category is the one the
 * owner most often gives the merchant. */
static const char SQL_MERCHANTS[] =
    "SELECT t.eff_merchant, COUNT(*),"
    "       ledger_sum(CASE WHEN t.transaction_type IN " MONEY_OUT_TYPES_SQL
    "                THEN COALESCE(t.amount_aud, t.amount) ELSE -COALESCE(t.amount_aud, t.amount) END),"
    "       MAX(t.date),"
    "       (SELECT c.eff_category FROM transactions c"
    "         WHERE c.owner_id = ?1 AND c.eff_merchant = t.eff_merchant"
    "           AND c.eff_category IS NOT NULL AND c.reconciled_with_id IS NULL"
    "         GROUP BY c.eff_category ORDER BY COUNT(*) DESC, c.eff_category LIMIT 1)"
    "  FROM transactions t"
    " WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL AND t.eff_merchant <> ''"
    "   AND " MERCHANT_MATCH
    " GROUP BY t.eff_merchant ORDER BY COUNT(*) DESC, t.eff_merchant COLLATE NOCASE, t.eff_merchant"
    " LIMIT ?3 OFFSET ?4";
static const char SQL_MERCHANT_COUNT[] =
    "SELECT COUNT(DISTINCT t.eff_merchant) FROM transactions t"
    " WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL AND t.eff_merchant <> ''"
    "   AND " MERCHANT_MATCH;

int ledger_merchant_list(ledger_db *db, int64_t me, const struct ledger_params *p,
                         cJSON **out, ledger_error *err)
{
    const char *search = param_get(p, "search"), *v;
    struct page page;
    int64_t total = 0, n = 0;
    char *term = NULL;
    sqlite3_stmt *st = NULL;
    cJSON *doc = NULL, *items;
    int rc;

    if (page_parse(p, LIMIT_DEFAULT, &page, err))
        return LEDGER_ERR;
    /* The cursor of this short list is the next offset, in decimal. */
    if ((v = param_get(p, "cursor")) && *v && parse_whole(v, 0, PAGE_OFFSET_MAX, &page.offset))
        return error_field(err, "cursor", "cursor is not one this list gave out");
    if (search && *search) {
        if ((term = strdup(search)) == NULL)
            return ledger_error_oom(err);
        utf8_lower(term);
    }
    if (db_int(db, err, "merchants", &total, 0, SQL_MERCHANT_COUNT, DB_INT(me), DB_TEXT(term))
        || (st = db_stmt(db, SQL_MERCHANTS, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, term);
    sqlite3_bind_int64(st, 3, page.limit);
    sqlite3_bind_int64(st, 4, page.offset);
    doc = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(doc, "items");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *row = cJSON_CreateObject();
        const char *cat = (const char *)sqlite3_column_text(st, 4);

        cJSON_AddStringToObject(row, "merchant", (const char *)sqlite3_column_text(st, 0));
        cJSON_AddNumberToObject(row, "transaction_count", (double)sqlite3_column_int64(st, 1));
        cJSON_AddItemToObject(row, "total", money_sum_to_json(money_sum_column(st, 2)));
        cJSON_AddStringToObject(row, "last_date", (const char *)sqlite3_column_text(st, 3));
        if (cat)
            cJSON_AddStringToObject(row, "category", cat);
        else
            cJSON_AddNullToObject(row, "category");
        cJSON_AddItemToArray(items, row);
        n++;
    }
    db_stmt_done(st);
    st = NULL;
    if (rc != SQLITE_DONE) {
        db_error(db, err, "merchants");
        goto fail;
    }
    page_footer(doc, &page, (int64_t)n, (int64_t)total);
    free(term);
    *out = doc;
    return LEDGER_OK;
fail:
    db_stmt_done(st);
    free(term);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}
