/*
 * POST /api/transactions/bulk: one action over many rows, all or nothing.
 * Every id must be one the caller may access (else 403/404 and nothing
 * changes); the request's transaction makes the rest atomic.  `updated`
 * counts the rows an action changed: a row that already has the value
 * is not written again (nor are its triggers run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "share.h"
#include "txn.h"

#define BULK_MAX 5000

static const char *const actions[] = {
    "tag", "untag", "categorize", "normalize", "assign_trip", NULL
};

static const char SQL_BULK_TAG[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT DISTINCT value, ?2 FROM json_each(?1)";
static const char SQL_BULK_UNTAG[] =
    "DELETE FROM transaction_tags WHERE tag_id = ?2"
    "   AND transaction_id IN (SELECT value FROM json_each(?1))";
static const char SQL_BULK_CATEGORY[] =
    "UPDATE transactions SET override_category = ?2 WHERE id IN (SELECT value FROM json_each(?1))"
    "   AND override_category IS NOT ?2";
static const char SQL_BULK_MERCHANT[] =
    "UPDATE transactions SET override_merchant_normalized = ?2"
    " WHERE id IN (SELECT value FROM json_each(?1)) AND override_merchant_normalized IS NOT ?2";
static const char SQL_BULK_TRIP[] =
    "UPDATE transactions SET override_trip_id = ?2 WHERE id IN (SELECT value FROM json_each(?1))"
    "   AND override_trip_id IS NOT ?2";
static const char SQL_ROW_OWNER_MERCHANT[] =
    "SELECT owner_id, eff_merchant FROM transactions WHERE id = ?";

/* Runs one of the statements above with the ids (?1) and the value (?2),
 * adding the rows it changed to *changed. */
static int run(ledger_db *db, const char *sql, const char *ids, struct db_arg value,
               int64_t *changed, ledger_error *err)
{
    if (db_exec(db, err, "bulk", sql, DB_TEXT(ids), value))
        return LEDGER_ERR;
    *changed += sqlite3_changes(db->sql);
    return LEDGER_OK;
}

/* A refund's category depends on each row's owner and merchant (rule C). */
static int categorize_refunds(ledger_db *db, const cJSON *ids, const char *category,
                              int64_t *changed, ledger_error *err)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, ids) {
        sqlite3_stmt *st = db_stmt(db, SQL_ROW_OWNER_MERCHANT, err);
        char folded[LEDGER_CATEGORY_MAX], merchant[512], one[32];
        int64_t owner = 0;
        int rc;

        if (st == NULL)
            return LEDGER_ERR;
        sqlite3_bind_int64(st, 1, (int64_t)item->valuedouble);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            owner = sqlite3_column_int64(st, 0);
            snprintf(merchant, sizeof merchant, "%s", (const char *)sqlite3_column_text(st, 1));
        }
        db_stmt_done(st);
        if (rc != SQLITE_ROW)
            return db_error(db, err, "bulk");
        if (category_resolve(db, owner, merchant, category, folded, err))
            return LEDGER_ERR;
        snprintf(one, sizeof one, "[%lld]", (long long)item->valuedouble);
        if (run(db, SQL_BULK_CATEGORY, one, DB_TEXT(folded), changed, err))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

int ledger_txn_bulk(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                    ledger_error *err)
{
    const char *action, *text = NULL;
    char folded[LEDGER_CATEGORY_MAX];
    cJSON *ids = NULL;
    char *ids_text = NULL;
    int64_t tag_id = 0, trip_id = 0, changed = 0;
    int present, rc = LEDGER_ERR;

    if (field_require_object(body, err)
        || field_enum(body, "action", actions, 0, &action, &present, err))
        return LEDGER_ERR;
    if (action == NULL)
        return error_field(err, "action",
                           "action is required: tag, untag, categorize, normalize or assign_trip");
    /* Every field the body carries is checked, whichever the action uses:
     * a bad category beside action "tag" is still a 400, not ignored. */
    {
        const char *unused;
        int64_t unused_id;

        if (field_id(body, "tag_id", 0, 0, &unused_id, NULL, err)
            || field_text(body, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &unused, NULL, err)
            || field_text(body, "merchant_normalized", 0, 1, MERCHANT_MAX, &unused, NULL, err)
            || field_id(body, "trip_id", 0, 1, &unused_id, NULL, err))
            return LEDGER_ERR;
    }
    if (field_id_array(body, "ids", BULK_MAX, &ids, err))
        return LEDGER_ERR;
    if ((ids_text = cJSON_PrintUnformatted(ids)) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    if (access_txn_set(db, me, ids, "ids", err))
        goto out;

    if (strcmp(action, "tag") == 0 || strcmp(action, "untag") == 0) {
        if (field_id(body, "tag_id", 1, 0, &tag_id, NULL, err))
            goto out;
        if (tag_check_owner(db, me, tag_id, err)) {
            error_in_body(err, "tag_id");
            goto out;
        }
        if (run(db, action[0] == 't' ? SQL_BULK_TAG : SQL_BULK_UNTAG, ids_text, DB_INT(tag_id),
                &changed, err))
            goto out;
    } else if (strcmp(action, "categorize") == 0) {
        if (field_text(body, "category", 1, 1, LEDGER_CATEGORY_TEXT_MAX, &text, NULL, err))
            goto out;
        if (text && ledger_category_fold(text, folded) == LEDGER_CATEGORY_REFUND) {
            if (categorize_refunds(db, ids, text, &changed, err))
                goto out;
        } else {
            if (text && category_resolve(db, me, "", text, folded, err))
                goto out;
            if (run(db, SQL_BULK_CATEGORY, ids_text, text ? DB_TEXT(folded) : DB_NULL, &changed,
                    err))
                goto out;
        }
    } else if (strcmp(action, "normalize") == 0) {
        merchant_renames_forget(db);  /* the names later rows take (merchant_name.c) */
        if (field_text(body, "merchant_normalized", 1, 1, MERCHANT_MAX, &text, NULL, err)
            || run(db, SQL_BULK_MERCHANT, ids_text, DB_TEXT(text), &changed, err))
            goto out;
    } else {
        if (field_id(body, "trip_id", 1, 1, &trip_id, NULL, err)
            || (trip_id && (trip_check_member(db, me, trip_id, err)
                            || trip_check_row_owners(db, me, trip_id, ids_text, "trip_id", err)))
            || run(db, SQL_BULK_TRIP, ids_text, trip_id ? DB_INT(trip_id) : DB_NULL, &changed, err))
            goto out;
    }
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "updated", (double)changed);
    rc = LEDGER_OK;
out:
    free(ids_text);
    cJSON_Delete(ids);
    return rc;
}
