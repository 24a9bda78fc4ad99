/* Transactions: create (manual rows), read one, patch, delete. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "merchant_clean.h"
#include "fields.h"
#include "share.h"
#include "suggest.h"
#include "txn.h"
#include "spend.h"

#define DESCRIPTION_MAX 1000

const char *const txn_types[] = {
    "debit", "credit", "fee", "interest", "payment", "refund", NULL
};
const char *const txn_payment_methods[] = {
    "card", "cash", "bank_transfer", "other", "credits", NULL
};

static const char SQL_TXN_GET[] =
    "SELECT " TXN_COLUMNS " FROM transactions t" TXN_JOIN_RECONCILED
    " WHERE t.id = :id AND t.reconciled_with_id IS NULL";
static const char SQL_TXN_INSERT[] =
    "INSERT INTO transactions (id, owner_id, date, description, merchant, transaction_type,"
    " category, amount, currency, amount_aud, exchange_rate_to_aud, payment_method,"
    " override_trip_id, merchant_normalized, notes, eff_category, eff_merchant)"
    " VALUES (" NEXT_ROW_ID("transactions") ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
    "         ?13, ?14, ?6, COALESCE(?13, ?4, ''))";  /* the effective values, as transactions_effective_insert */
/* Each field changes only when its flag is set, so one statement serves
 * every combination a PATCH can send. */
static const char SQL_TXN_PATCH[] =
    "UPDATE transactions SET"
    " override_category = CASE WHEN ?2 THEN ?3 ELSE override_category END,"
    " override_merchant_normalized = CASE WHEN ?4 THEN ?5 ELSE override_merchant_normalized END,"
    " override_share = CASE WHEN ?6 THEN ?7 ELSE override_share END,"
    " override_trip_id = CASE WHEN ?8 THEN ?9 ELSE override_trip_id END,"
    " transaction_type = CASE WHEN ?10 THEN ?11 ELSE transaction_type END,"
    " payment_method = CASE WHEN ?12 THEN ?13 ELSE payment_method END,"
    " date = CASE WHEN ?14 THEN ?15 ELSE date END,"
    " amount = CASE WHEN ?16 THEN ?17 ELSE amount END,"
    " description = CASE WHEN ?18 THEN ?19 ELSE description END,"
    " amount_aud = CASE WHEN ?20 THEN ?21 ELSE amount_aud END,"
    " notes = CASE WHEN ?22 THEN ?23 ELSE notes END"
    " WHERE id = ?1";
static const char SQL_TXN_AMOUNTS[] =
    "SELECT amount, amount_aud, exchange_rate_to_aud FROM transactions WHERE id = ?";
static const char SQL_TXN_DELETE[] = "DELETE FROM transactions WHERE id = ?";
static const char SQL_TXN_MERCHANT[] =
    "SELECT eff_merchant FROM transactions WHERE id = ?";
static const char SQL_TAG_LINK[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id) VALUES (?, ?)";

int txn_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TXN_GET, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), id);
    sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":me"), me);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? txn_row_json(st, me) : NULL;
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such transaction");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "transaction");
    return *out ? LEDGER_OK : ledger_error_oom(err);
}

int ledger_txn_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    struct txn_access a;

    if (access_txn(db, me, id, &a, err))
        return LEDGER_ERR;
    return txn_get(db, me, id, out, err);
}

int txn_link_tags(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *tag_ids,
                  ledger_error *err)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, tag_ids) {
        int64_t tag = (int64_t)item->valuedouble;

        if (tag_check_owner(db, me, tag, err))
            return error_in_body(err, "tag_ids");
        if (db_exec(db, err, "tag link", SQL_TAG_LINK, DB_INT(txn_id), DB_INT(tag)))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

int ledger_txn_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                      ledger_error *err)
{
    const char *date, *description, *merchant, *type, *category, *currency, *rate, *method, *notes;
    char folded[LEDGER_CATEGORY_MAX], currency_code[4], derived[MERCHANT_CLEAN_MAX] = "";
    int64_t amount, amount_aud, trip_id, id;
    int amount_set, has_aud, rc = LEDGER_ERR;
    cJSON *tag_ids = NULL, *run = NULL;
    const cJSON *splits, *item;
    struct split_set ss = { NULL, 0 };

    if (field_require_object(body, err)
        || field_date(body, "date", 1, &date, NULL, err)
        || field_money(body, "amount", 1, 0, &amount, &amount_set, NULL, err)
        || field_text(body, "description", 1, 0, DESCRIPTION_MAX, &description, NULL, err)
        || field_text(body, "notes", 0, 1, TXN_NOTES_MAX, &notes, NULL, err)
        || field_text(body, "merchant", 0, 1, MERCHANT_MAX, &merchant, NULL, err)
        || field_enum(body, "transaction_type", txn_types, 0, &type, NULL, err)
        || field_text(body, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &category, NULL, err)
        || field_currency(body, currency_code, &currency, err)
        || field_money(body, "amount_aud", 0, 1, &amount_aud, &has_aud, NULL, err)
        || field_rate(body, &rate, err)
        || field_enum(body, "payment_method", txn_payment_methods, 1, &method, NULL, err)
        || field_id(body, "trip_id", 0, 1, &trip_id, NULL, err))
        return LEDGER_ERR;
    if (amount < 0)
        return error_field(err, "amount",
                           "amount is a magnitude (0 or more); the direction is transaction_type");
    if (has_aud && amount_aud < 0)
        return error_field(err, "amount_aud", "amount_aud is a magnitude (0 or more)");
    if (home_amount_of_new_row(db, currency, amount, rate, &amount_aud, &has_aud, err))
        return LEDGER_ERR;
    if (trip_id && trip_check_member(db, me, trip_id, err))
        return LEDGER_ERR;
    /* tag_ids: absent, null or [] all mean no tags. */
    item = cJSON_GetObjectItemCaseSensitive(body, "tag_ids");
    if (item && !cJSON_IsNull(item) && !(cJSON_IsArray(item) && cJSON_GetArraySize(item) == 0)
        && field_id_array(body, "tag_ids", 100, &tag_ids, err))
        return LEDGER_ERR;
    splits = cJSON_GetObjectItemCaseSensitive(body, "splits");
    if (splits && !cJSON_IsNull(splits) && split_parse(db, splits, "splits", me, me, &ss, err))
        goto out;
    /* A row without a merchant of its own is listed under the one its
     * description names (merchant_name.c). */
    if ((merchant == NULL || merchant[0] == '\0') && merchant_derive(db, me, description, derived, err))
        goto out;
    if (category && category_resolve(db, me, derived[0] ? derived : merchant ? merchant : "", category,
                                     folded, err))
        goto out;
    if (db_exec(db, err, "transaction insert", SQL_TXN_INSERT, DB_INT(me), DB_TEXT(date),
                DB_TEXT(description), DB_TEXT(merchant), DB_TEXT(type ? type : "debit"),
                DB_TEXT(category ? folded : NULL), DB_INT(amount),
                DB_TEXT(currency ? currency : ledger_home_currency(db)),
                has_aud ? DB_INT(amount_aud) : DB_NULL, DB_TEXT(rate), DB_TEXT(method),
                trip_id ? DB_INT(trip_id) : DB_NULL, DB_TEXT(derived[0] ? derived : NULL),
                DB_TEXT(notes)))
        goto out;
    id = sqlite3_last_insert_rowid(db->sql);
    /* A row without a category takes the suggestion that passes the
     * owner's threshold as a run of its own, as a statement import's rows
     * do (suggest_apply.c): the row is the only one past id - 1. */
    if ((tag_ids && txn_link_tags(db, me, id, tag_ids, err))
        || (ss.n && split_write(db, id, &ss, err))
        || (category == NULL && suggest_auto(db, me, id - 1, &run, err))
        || txn_get(db, me, id, out, err))
        goto out;
    rc = suggestion_run_add(*out, run, err);
    run = NULL;
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
out:
    cJSON_Delete(run);
    cJSON_Delete(tag_ids);
    split_set_free(&ss);
    return rc;
}

/* A failed read is an error, never an empty merchant: a refund resolved
 * as if the row had none would write that category. */
int txn_eff_merchant(ledger_db *db, int64_t id, char *out, size_t len, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TXN_MERCHANT, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    snprintf(out, len, "%s", rc == SQLITE_ROW && sqlite3_column_text(st, 0)
                             ? (const char *)sqlite3_column_text(st, 0) : "");
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "transaction");
}

/* A row in a foreign currency keeps its home-currency amount beside it
 * (amount_aud), which spend, balances and splits use: a new amount takes a
 * new one, at the row's rate, or without a rate at the one its two amounts
 * implied; the same amount keeps it.  *set says whether there is one to
 * write. */
static int new_home_amount(ledger_db *db, int64_t id, int64_t amount, int *set, int64_t *aud,
                           ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TXN_AMOUNTS, err);
    int64_t old = 0, old_aud = 0;
    char rate[32] = "";
    int rc, has_aud = 0;

    *set = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        old = sqlite3_column_int64(st, 0);
        has_aud = sqlite3_column_type(st, 1) != SQLITE_NULL;
        old_aud = sqlite3_column_int64(st, 1);
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            snprintf(rate, sizeof rate, "%s", (const char *)sqlite3_column_text(st, 2));
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "transaction");
    /* The amount it has: the home amount stays as stated (it may hold a
     * fee the rate does not, which deriving it again from the rate would
     * lose). */
    if (!has_aud || amount == old)
        return LEDGER_OK;
    if (rate[0]) {
        if (money_times_rate(amount, rate, aud))
            return error_field(err, "amount", "amount at the row's exchange rate is too large");
    } else if (old > 0) {
        __int128 v = ((__int128)old_aud * amount * 2 + old) / ((__int128)old * 2);

        if (v > LEDGER_MONEY_MAX_CENTS)
            return error_field(err, "amount", "amount in the home currency would be too large");
        *aud = (int64_t)v;
    } else {
        return error_field(err, "amount", "the row's home-currency amount has no rate to follow"
                           " a new amount; delete the row and create it again");
    }
    *set = 1;
    return LEDGER_OK;
}

int ledger_txn_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body,
                      cJSON **out, ledger_error *err)
{
    struct txn_access a;
    const char *category, *merchant, *type, *method, *date, *description, *notes;
    int has_cat, has_merchant, has_share, has_trip, has_type, has_method, has_date,
        has_amount, has_desc, has_notes, share_set, amount_set, aud_set = 0;
    int64_t share = 0, trip_id, amount = 0, aud = 0;
    char folded[LEDGER_CATEGORY_MAX], merch[MERCHANT_MAX * 2];
    const cJSON *share_item;

    if (access_txn(db, me, id, &a, err)
        || field_require_object(body, err)
        || field_text(body, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &category, &has_cat, err)
        || field_text(body, "merchant_normalized", 0, 1, MERCHANT_MAX, &merchant, &has_merchant, err)
        || field_id(body, "trip_id", 0, 1, &trip_id, &has_trip, err)
        || field_enum(body, "transaction_type", txn_types, 0, &type, &has_type, err)
        || field_enum(body, "payment_method", txn_payment_methods, 1, &method, &has_method, err)
        || field_date(body, "date", 0, &date, &has_date, err)
        || field_money(body, "amount", 0, 0, &amount, &amount_set, &has_amount, err)
        || field_text(body, "description", 0, 0, DESCRIPTION_MAX, &description, &has_desc, err)
        || field_text(body, "notes", 0, 1, TXN_NOTES_MAX, &notes, &has_notes, err))
        return LEDGER_ERR;
    share_item = cJSON_GetObjectItemCaseSensitive(body, "my_share_percent");
    has_share = share_item != NULL;
    share_set = has_share && !cJSON_IsNull(share_item);
    if (share_set && ledger_percent_from_json(share_item, "my_share_percent", &share, err))
        return LEDGER_ERR;
    if (has_date && date == NULL)
        return error_field(err, "date", "date cannot be null");
    if (has_amount && (!amount_set || amount < 0))
        return error_field(err, "amount", "amount is a magnitude (0 or more)");
    /* The base values of a statement row are the bank's: only overrides,
     * type and payment method change there.  A manual row's own date,
     * amount and description are its owner's to change. */
    if (has_date || has_amount || has_desc) {
        const char *f = has_date ? "date" : has_amount ? "amount" : "description";

        if (a.statement_id)
            return error_field(err, f, "%s can only be changed on a manual transaction", f);
        if (!a.is_owner)
            return ledger_error_set(err, 403, "forbidden", f,
                                    "only the owner can change %s", f);
    }
    /* The type says which way the money went: a participant turning the
     * owner's debit into a refund or credit would turn their own debt
     * around. */
    if (has_type && !a.is_owner)
        return ledger_error_set(err, 403, "forbidden", "transaction_type",
                                "only the owner can change transaction_type");
    /* The notes are the owner's words about their row, on a statement
     * row as on a manual one. */
    if (has_notes && !a.is_owner)
        return ledger_error_set(err, 403, "forbidden", "notes", "only the owner can change notes");
    if (has_type && a.itemised && !itemised_type_ok(type))
        return error_field(err, "transaction_type", "%s", ITEMISED_TYPE_MESSAGE);
    /* One share override per row, and it is the owner's share of their
     * own row (txn_row.c): a participant setting it would set the owner's
     * share and the owner's mine basis. */
    if (has_share && !a.is_owner)
        return ledger_error_set(err, 403, "forbidden", "my_share_percent",
                                "only the owner can change my_share_percent");
    if (has_trip && trip_id) {
        char one[32];

        snprintf(one, sizeof one, "[%lld]", (long long)id);
        if (trip_check_member(db, me, trip_id, err)
            || trip_check_row_owners(db, me, trip_id, one, "trip_id", err))
            return LEDGER_ERR;
    }
    if (category) {
        if (merchant)
            snprintf(merch, sizeof merch, "%s", merchant);
        else if (txn_eff_merchant(db, id, merch, sizeof merch, err))
            return LEDGER_ERR;
        if (category_resolve(db, a.owner_id, merch, category, folded, err))
            return LEDGER_ERR;
    }
    if (has_amount && new_home_amount(db, id, amount, &aud_set, &aud, err))
        return LEDGER_ERR;
    /* A rename changes the names later rows take (merchant_name.c). */
    if (has_merchant)
        merchant_renames_forget(db);
    if (db_exec(db, err, "transaction update", SQL_TXN_PATCH, DB_INT(id),
                DB_INT(has_cat), DB_TEXT(category ? folded : NULL),
                DB_INT(has_merchant), DB_TEXT(merchant),
                DB_INT(has_share), share_set ? DB_INT(share) : DB_NULL,
                DB_INT(has_trip), trip_id ? DB_INT(trip_id) : DB_NULL,
                DB_INT(has_type), DB_TEXT(type),
                DB_INT(has_method), DB_TEXT(method),
                DB_INT(has_date), DB_TEXT(date),
                DB_INT(has_amount), DB_INT(amount),
                DB_INT(has_desc), DB_TEXT(description),
                DB_INT(aud_set), DB_INT(aud),
                DB_INT(has_notes), DB_TEXT(notes)))
        return LEDGER_ERR;
    return txn_get(db, me, id, out, err);
}

int ledger_txn_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err)
{
    struct txn_access a;

    if (access_txn(db, me, id, &a, err))
        return LEDGER_ERR;
    if (!a.is_owner)
        return ledger_error_set(err, 403, "forbidden", NULL, "only the owner can delete a transaction");
    if (a.statement_id)
        return ledger_error_set(err, 409, "conflict", NULL,
                                "a statement's transaction goes with its statement; "
                                "only manual transactions are deleted one by one");
    return db_exec(db, err, "transaction delete", SQL_TXN_DELETE, DB_INT(id));
}
