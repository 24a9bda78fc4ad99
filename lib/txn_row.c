/*
 * One transaction as the API shows it, built from one result row of
 * TXN_COLUMNS: effective values, the overrides, the viewer's tags, the
 * splits with their apportioned amounts, and the viewer's own share.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Column indexes of TXN_COLUMNS. */
enum {
    C_ID, C_STATEMENT, C_OWNER, C_DATE, C_DESCRIPTION, C_MERCHANT, C_MERCHANT_NORM,
    C_CATEGORY, C_TYPE, C_AMOUNT, C_CURRENCY, C_AMOUNT_AUD, C_RATE, C_PAYMENT,
    C_PRINCIPAL, C_INTEREST, C_CREATED, C_RECONCILED_FROM, C_O_CATEGORY, C_O_MERCHANT,
    C_O_SHARE, C_O_TRIP, C_BANK, C_TAGS, C_SPLITS
};

static void add_percent(cJSON *o, const char *k, int64_t hundredths)
{
    json_add(o, k, ledger_money_to_json(hundredths));
}

/* Effective value: the override when there is one, else the base column. */
static void add_effective(cJSON *o, const char *k, sqlite3_stmt *st, int ovr, int base)
{
    json_text_col(o, k, st, sqlite3_column_type(st, ovr) != SQLITE_NULL ? ovr : base);
}

/* Half away from zero, for an amount times a share in hundredths. */
static int64_t share_of(int64_t amount, int64_t share)
{
    __int128 p = (__int128)amount * share;

    return (int64_t)((p + 5000) / 10000);
}

static cJSON *tags_json(sqlite3_stmt *st)
{
    const char *text = (const char *)sqlite3_column_text(st, C_TAGS);
    cJSON *raw = NULL, *out = cJSON_CreateArray(), *t;
    ledger_error e;

    if (text && ledger_json_parse(text, strlen(text), &raw, &e) == LEDGER_OK) {
        cJSON_ArrayForEach(t, raw) {
            cJSON *tag = cJSON_CreateObject();

            json_add(tag, "id", cJSON_CreateNumber(cJSON_GetArrayItem(t, 0)->valuedouble));
            json_add(tag, "name", cJSON_CreateString(cJSON_GetArrayItem(t, 1)->valuestring));
            if (cJSON_IsString(cJSON_GetArrayItem(t, 2)))
                json_add(tag, "color", cJSON_CreateString(cJSON_GetArrayItem(t, 2)->valuestring));
            else
                json_add(tag, "color", cJSON_CreateNull());
            cJSON_AddItemToArray(out, tag);
        }
    }
    cJSON_Delete(raw);
    return out;
}

cJSON *txn_row_json(sqlite3_stmt *st, int64_t me)
{
    cJSON *o = cJSON_CreateObject(), *ov, *splits, *raw = NULL, *s;
    int64_t owner = sqlite3_column_int64(st, C_OWNER);
    int64_t home = sqlite3_column_type(st, C_AMOUNT_AUD) != SQLITE_NULL
                   ? sqlite3_column_int64(st, C_AMOUNT_AUD) : sqlite3_column_int64(st, C_AMOUNT);
    const char *stext = (const char *)sqlite3_column_text(st, C_SPLITS);
    struct split_share *shares = NULL;
    int64_t *cents = NULL, my_pct, my_amount;
    size_t n = 0, i;
    int mine = -1;
    ledger_error e;

    if (o == NULL)
        return NULL;
    json_id_col(o, "id", st, C_ID);
    json_id_col(o, "statement_id", st, C_STATEMENT);
    json_id_col(o, "owner_id", st, C_OWNER);
    json_text_col(o, "date", st, C_DATE);
    json_text_col(o, "description", st, C_DESCRIPTION);
    json_text_col(o, "merchant", st, C_MERCHANT);
    add_effective(o, "merchant_normalized", st, C_O_MERCHANT, C_MERCHANT_NORM);
    add_effective(o, "category", st, C_O_CATEGORY, C_CATEGORY);
    json_text_col(o, "transaction_type", st, C_TYPE);
    json_money_col(o, "amount", st, C_AMOUNT);
    json_text_col(o, "currency", st, C_CURRENCY);
    json_money_col(o, "amount_aud", st, C_AMOUNT_AUD);
    if (sqlite3_column_type(st, C_RATE) == SQLITE_NULL)
        json_add(o, "exchange_rate_to_aud", cJSON_CreateNull());
    else  /* validated decimal text: printed as the number it is */
        json_add(o, "exchange_rate_to_aud", cJSON_CreateRaw((const char *)sqlite3_column_text(st, C_RATE)));
    json_text_col(o, "payment_method", st, C_PAYMENT);
    json_id_col(o, "trip_id", st, C_O_TRIP);
    json_money_col(o, "principal_amount", st, C_PRINCIPAL);
    json_money_col(o, "interest_amount", st, C_INTEREST);
    if (sqlite3_column_type(st, C_BANK) == SQLITE_NULL && sqlite3_column_type(st, C_STATEMENT) == SQLITE_NULL)
        json_add(o, "bank_name", cJSON_CreateString(LEDGER_BANK_MANUAL));
    else
        json_text_col(o, "bank_name", st, C_BANK);
    json_text_col(o, "created_at", st, C_CREATED);
    json_add(o, "reconciled", cJSON_CreateBool(sqlite3_column_type(st, C_RECONCILED_FROM) != SQLITE_NULL));

    json_add(o, "overrides", ov = cJSON_CreateObject());
    json_text_col(ov, "category", st, C_O_CATEGORY);
    json_text_col(ov, "merchant_normalized", st, C_O_MERCHANT);
    /* The owner's own share of their row: theirs to see (a participant's
     * part is their split row). */
    if (sqlite3_column_type(st, C_O_SHARE) == SQLITE_NULL || owner != me)
        json_add(ov, "my_share_percent", cJSON_CreateNull());
    else
        add_percent(ov, "my_share_percent", sqlite3_column_int64(st, C_O_SHARE));
    json_id_col(ov, "trip_id", st, C_O_TRIP);

    json_add(o, "tags", tags_json(st));

    /* Splits arrive as [[participant_id, name, share, settled, email], ...]. */
    json_add(o, "splits", splits = cJSON_CreateArray());
    if (stext && ledger_json_parse(stext, strlen(stext), &raw, &e) == LEDGER_OK)
        n = (size_t)cJSON_GetArraySize(raw);
    if (n) {
        shares = calloc(n, sizeof *shares);
        cents = calloc(n, sizeof *cents);
    }
    if (shares && cents) {
        i = 0;
        cJSON_ArrayForEach(s, raw) {
            shares[i].participant_id = (int64_t)cJSON_GetArrayItem(s, 0)->valuedouble;
            shares[i].share = (int64_t)cJSON_GetArrayItem(s, 2)->valuedouble;
            if (shares[i].participant_id == me)
                mine = (int)i;
            i++;
        }
        split_apportion(home, shares, n, owner, cents);
        i = 0;
        cJSON_ArrayForEach(s, raw) {
            cJSON *row = cJSON_CreateObject(), *name = cJSON_GetArrayItem(s, 1);

            json_add(row, "participant_id", cJSON_CreateNumber((double)shares[i].participant_id));
            if (cJSON_IsString(name))
                json_add(row, "name", cJSON_CreateString(name->valuestring));
            else if (cJSON_IsString(cJSON_GetArrayItem(s, 4)))
                json_add(row, "name", cJSON_CreateString(cJSON_GetArrayItem(s, 4)->valuestring));
            else
                json_add(row, "name", cJSON_CreateNull());
            add_percent(row, "share_percent", shares[i].share);
            json_add(row, "amount", ledger_money_to_json(cents[i]));
            json_add(row, "settled", cJSON_CreateBool(cJSON_GetArrayItem(s, 3)->valuedouble != 0));
            cJSON_AddItemToArray(splits, row);
            i++;
        }
    }

    /* The viewer's share: the override, when the viewer is the owner who
     * set it; else their split row; else 100 for the owner of an unsplit
     * row.  Only the owner may set the override (txn.c): it is the owner's
     * share of their own row, and a participant's part stays the split row
     * their balance counts (bob saw alice's 100% of a row split 50/50 with
     * him as his own, and his spend on basis=mine with it). */
    if (sqlite3_column_type(st, C_O_SHARE) != SQLITE_NULL && owner == me) {
        my_pct = sqlite3_column_int64(st, C_O_SHARE);
        my_amount = share_of(home, my_pct);
    } else if (n && cents) {
        my_pct = mine >= 0 ? shares[mine].share : 0;
        my_amount = mine >= 0 ? cents[mine] : 0;
    } else {
        my_pct = owner == me ? 10000 : 0;
        my_amount = owner == me ? home : 0;
    }
    add_percent(o, "my_share_pct", my_pct);
    json_add(o, "my_amount", ledger_money_to_json(my_amount));
    free(shares);
    free(cents);
    cJSON_Delete(raw);
    return o;
}
