/*
 * One transaction as the API shows it, built from one result row of
 * TXN_COLUMNS: effective values, the overrides, the viewer's tags, the
 * splits with their apportioned amounts, and the viewer's own share.
 *
 * The row is described once (row_put) to a sink (json_sink.c): a cJSON
 * tree (txn_row_json: one row, a library caller's list) or JSON text
 * (txn_row_write: a page for ledger-fcgi, which only prints it).
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"

static void text_col(struct json_sink *s, const char *k, sqlite3_stmt *st, int col)
{
    sink_text(s, k, (const char *)sqlite3_column_text(st, col));
}

static void id_col(struct json_sink *s, const char *k, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        sink_raw(s, k, NULL);
    else
        sink_int(s, k, sqlite3_column_int64(st, col));
}

static void money_col(struct json_sink *s, const char *k, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        sink_raw(s, k, NULL);
    else
        sink_money(s, k, sqlite3_column_int64(st, col));
}

/* Effective value: the override when there is one, else the base column. */
static void effective_col(struct json_sink *s, const char *k, sqlite3_stmt *st, int ovr, int base)
{
    text_col(s, k, st, sqlite3_column_type(st, ovr) != SQLITE_NULL ? ovr : base);
}

/* Half away from zero, for an amount times a share in hundredths. */
static int64_t share_of(int64_t amount, int64_t share)
{
    __int128 p = (__int128)amount * share;

    return (int64_t)((p + 5000) / 10000);
}

/* The viewer's tags arrive as the API's [{id, name, color}, ...] already
 * (TXN_COLUMNS): as they are into text, read into a tree. */
static void tags_col(struct json_sink *s, sqlite3_stmt *st)
{
    const char *text = (const char *)sqlite3_column_text(st, TXN_TAGS);
    cJSON *tags = NULL;
    ledger_error e;

    if (s->w) {
        sink_raw(s, "tags", text ? text : "[]");
        return;
    }
    if (text == NULL || ledger_json_parse(text, strlen(text), &tags, &e) != LEDGER_OK)
        tags = cJSON_CreateArray();
    sink_tree(s, "tags", tags);
}

/* The splits, and from them the viewer's share (*my_pct, *my_amount) as
 * row_put takes it when there is no override of the owner's. */
static void splits_col(struct json_sink *s, sqlite3_stmt *st, int64_t me, int64_t owner, int64_t home,
                       int64_t *my_pct, int64_t *my_amount)
{
    const char *stext = (const char *)sqlite3_column_text(st, TXN_SPLITS);
    struct split_share *shares = NULL;
    cJSON *raw = NULL, *r;
    int64_t *cents = NULL;
    size_t n = 0, i;
    int mine = -1;
    ledger_error e;

    *my_pct = owner == me ? 10000 : 0;
    *my_amount = owner == me ? home : 0;
    sink_open(s, "splits", 1);
    /* [[participant_id, name, share, settled, email], ...] */
    if (stext && ledger_json_parse(stext, strlen(stext), &raw, &e) == LEDGER_OK)
        n = (size_t)cJSON_GetArraySize(raw);
    if (n) {
        shares = calloc(n, sizeof *shares);
        cents = calloc(n, sizeof *cents);
    }
    if (shares && cents) {
        i = 0;
        cJSON_ArrayForEach(r, raw) {
            shares[i].participant_id = (int64_t)cJSON_GetArrayItem(r, 0)->valuedouble;
            shares[i].share = (int64_t)cJSON_GetArrayItem(r, 2)->valuedouble;
            if (shares[i].participant_id == me)
                mine = (int)i;
            i++;
        }
        split_apportion(home, shares, n, owner, cents);
        i = 0;
        cJSON_ArrayForEach(r, raw) {
            const cJSON *name = cJSON_GetArrayItem(r, 1), *email = cJSON_GetArrayItem(r, 4);

            sink_open(s, NULL, 0);
            sink_int(s, "participant_id", shares[i].participant_id);
            sink_text(s, "name", cJSON_IsString(name) ? name->valuestring
                                : cJSON_IsString(email) ? email->valuestring : NULL);
            sink_money(s, "share_percent", shares[i].share);
            sink_money(s, "amount", cents[i]);
            sink_bool(s, "settled", cJSON_GetArrayItem(r, 3)->valuedouble != 0);
            sink_close(s, 0);
            i++;
        }
        *my_pct = mine >= 0 ? shares[mine].share : 0;
        *my_amount = mine >= 0 ? cents[mine] : 0;
    }
    sink_close(s, 1);
    free(shares);
    free(cents);
    cJSON_Delete(raw);
}

static void row_put(struct json_sink *s, sqlite3_stmt *st, int64_t me)
{
    int64_t owner = sqlite3_column_int64(st, TXN_OWNER);
    int64_t home = sqlite3_column_type(st, TXN_AMOUNT_AUD) != SQLITE_NULL
                   ? sqlite3_column_int64(st, TXN_AMOUNT_AUD) : sqlite3_column_int64(st, TXN_AMOUNT);
    int own_share = sqlite3_column_type(st, TXN_O_SHARE) != SQLITE_NULL && owner == me;
    int64_t my_pct, my_amount;

    sink_open(s, NULL, 0);
    id_col(s, "id", st, TXN_ID);
    id_col(s, "statement_id", st, TXN_STATEMENT);
    id_col(s, "owner_id", st, TXN_OWNER);
    text_col(s, "date", st, TXN_DATE);
    text_col(s, "description", st, TXN_DESCRIPTION);
    text_col(s, "notes", st, TXN_NOTES);
    text_col(s, "merchant", st, TXN_MERCHANT);
    effective_col(s, "merchant_normalized", st, TXN_O_MERCHANT, TXN_MERCHANT_NORM);
    effective_col(s, "category", st, TXN_O_CATEGORY, TXN_CATEGORY);
    text_col(s, "transaction_type", st, TXN_TYPE);
    money_col(s, "amount", st, TXN_AMOUNT);
    text_col(s, "currency", st, TXN_CURRENCY);
    money_col(s, "amount_aud", st, TXN_AMOUNT_AUD);
    /* validated decimal text: printed as the number it is */
    sink_raw(s, "exchange_rate_to_aud", (const char *)sqlite3_column_text(st, TXN_RATE));
    text_col(s, "payment_method", st, TXN_PAYMENT);
    id_col(s, "trip_id", st, TXN_O_TRIP);
    money_col(s, "principal_amount", st, TXN_PRINCIPAL);
    money_col(s, "interest_amount", st, TXN_INTEREST);
    if (sqlite3_column_type(st, TXN_BANK) == SQLITE_NULL && sqlite3_column_type(st, TXN_STATEMENT) == SQLITE_NULL)
        sink_text(s, "bank_name", LEDGER_BANK_MANUAL);
    else
        text_col(s, "bank_name", st, TXN_BANK);
    text_col(s, "created_at", st, TXN_CREATED);
    sink_bool(s, "reconciled", sqlite3_column_type(st, TXN_RECONCILED_FROM) != SQLITE_NULL);

    sink_open(s, "overrides", 0);
    text_col(s, "category", st, TXN_O_CATEGORY);
    text_col(s, "merchant_normalized", st, TXN_O_MERCHANT);
    /* The owner's own share of their row: theirs to see (a participant's
     * part is their split row). */
    if (own_share)
        sink_money(s, "my_share_percent", sqlite3_column_int64(st, TXN_O_SHARE));
    else
        sink_raw(s, "my_share_percent", NULL);
    id_col(s, "trip_id", st, TXN_O_TRIP);
    sink_close(s, 0);

    tags_col(s, st);
    splits_col(s, st, me, owner, home, &my_pct, &my_amount);

    /* The viewer's share: the override, when the viewer is the owner who
     * set it; else their split row; else 100 for the owner of an unsplit
     * row.  Only the owner may set the override (txn.c): it is the owner's
     * share of their own row, and a participant's part stays the split row
     * their balance counts: a participant shown the owner's override (100%
     * of a row split 50/50) would count it as their own, and their spend
     * on basis=mine with it. */
    if (own_share) {
        my_pct = sqlite3_column_int64(st, TXN_O_SHARE);
        my_amount = share_of(home, my_pct);
    }
    sink_money(s, "my_share_pct", my_pct);
    sink_money(s, "my_amount", my_amount);
    sink_close(s, 0);
}

cJSON *txn_row_json(sqlite3_stmt *st, int64_t me)
{
    struct json_sink s = { NULL, { NULL }, 0 };

    row_put(&s, st, me);
    return s.at[0];
}

void txn_row_write(struct json_writer *w, sqlite3_stmt *st, int64_t me)
{
    struct json_sink s = { w, { NULL }, 0 };

    row_put(&s, st, me);
}
