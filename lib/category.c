/*
 * Categories (Business rule C): every write path stores the folded slug, so
 * "Dining", "DINING" and " dining " are one category in every report.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "text.h"

static const char *const builtin[] = {
    "groceries", "dining", "transport", "fuel", "travel", "accommodation",
    "entertainment", "shopping", "health", "fitness", "personal_care",
    "education", "utilities", "phone_internet", "rent", "home", "insurance",
    "subscriptions", "gifts", "pets", "investment", "other", "fees",
    "transfers", "income", "loan_interest", NULL
};

/* Names that fold to another canonical category. */
static const struct { const char *from, *to; } synonyms[] = {
    { "payment", "transfers" },
    { "payments", "transfers" },
    { "transfer", "transfers" },
    { "fee", "fees" },
    { "phone_and_internet", "phone_internet" },
    { "personal", "personal_care" },
    { "subscription", "subscriptions" },
    { "gift", "gifts" },
    { "pet", "pets" },
    { "investments", "investment" },
    { NULL, NULL }
};

const char *const *ledger_category_builtin(void)
{
    return builtin;
}

enum ledger_category_fold ledger_category_fold(const char *in, char *out)
{
    size_t n = 0;
    int gap = 0, i;

    if (in == NULL) {
        out[0] = '\0';
        return LEDGER_CATEGORY_EMPTY;
    }
    /* Lower-case ASCII letters and digits; any run of other characters
     * (Unicode spaces too) becomes one '_' between words, and characters
     * with no look of their own go (unicode_kind).  Other non-ASCII
     * characters are kept, so a category named in another script survives
     * folding, and lowered at the end (utf8_lower), so "CAFÉ" and "café"
     * are one. */
    for (; *in; in++) {
        unsigned char c = (unsigned char)*in;
        size_t len;

        if (c < 0x80 && !ascii_alpha(c) && !ascii_digit(c)) {
            gap = 1;
            continue;
        }
        if (c >= 0x80) {
            int kind = unicode_kind((const unsigned char *)in, &len);

            if (kind) {
                gap |= kind == 1;
                in += len - 1;
                continue;
            }
        }
        if (gap && n > 0) {
            if (n + 2 > LEDGER_CATEGORY_MAX - 1)
                break;
            out[n++] = '_';
        }
        if (n + 1 > LEDGER_CATEGORY_MAX - 1)
            break;
        gap = 0;
        out[n++] = (char)ascii_lower(c);
    }
    /* A name cut at the length limit must not end inside a UTF-8 sequence:
     * if the next input byte continues one, drop its lead and tail. */
    if (((unsigned char)*in & 0xC0) == 0x80) {
        while (n > 0 && ((unsigned char)out[n - 1] & 0xC0) == 0x80)
            n--;
        if (n > 0)
            n--;
    }
    while (n > 0 && out[n - 1] == '_')
        n--;
    out[n] = '\0';
    utf8_lower(out);
    if (n == 0)
        return LEDGER_CATEGORY_EMPTY;
    if (strcmp(out, "refund") == 0 || strcmp(out, "refunds") == 0)
        return LEDGER_CATEGORY_REFUND;
    for (i = 0; synonyms[i].from; i++)
        if (strcmp(out, synonyms[i].from) == 0) {
            strcpy(out, synonyms[i].to);
            break;
        }
    if (strcmp(out, "uncategorised") == 0 || strcmp(out, "uncategorized") == 0) {
        strcpy(out, "uncategorised");
        return LEDGER_CATEGORY_NONE;
    }
    return LEDGER_CATEGORY_OK;
}

/* Usage counts are over the caller's own rows that any query would show:
 * reconciled manual rows are hidden everywhere, so they are not counted. */
static const char SQL_CATEGORY_USAGE[] =
    "SELECT eff_category, COUNT(*) FROM transactions"
    " WHERE owner_id = ? AND reconciled_with_id IS NULL AND eff_category IS NOT NULL"
    " GROUP BY eff_category ORDER BY eff_category";

/* One category's row added to items, or NULL when memory ran out (never
 * a row with a part left out: the usage count finds rows by "category"). */
static cJSON *add_category(cJSON *items, const char *name, int is_builtin, double count)
{
    cJSON *row = cJSON_CreateObject();

    if (row == NULL || !cJSON_AddStringToObject(row, "category", name)
        || !cJSON_AddBoolToObject(row, "builtin", is_builtin)
        || !cJSON_AddNumberToObject(row, "usage_count", count)
        || !cJSON_AddItemToArray(items, row)) {
        cJSON_Delete(row);
        return NULL;
    }
    return row;
}

int ledger_categories_list(ledger_db *db, int64_t user_id, cJSON **out,
                           ledger_error *err)
{
    cJSON *doc = cJSON_CreateObject(), *items, *row;
    sqlite3_stmt *st = NULL;
    int rc, i;

    if (doc == NULL || (items = cJSON_AddArrayToObject(doc, "items")) == NULL)
        goto oom;
    for (i = 0; builtin[i]; i++)
        if (add_category(items, builtin[i], 1, 0) == NULL)
            goto oom;
    st = db_stmt(db, SQL_CATEGORY_USAGE, err);
    if (st == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, user_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        double count = (double)sqlite3_column_int64(st, 1);

        if (name == NULL)
            goto oom;
        cJSON_ArrayForEach(row, items)
            if (strcmp(json_get(row, "category")->valuestring, name) == 0)
                break;
        if (row == NULL) {
            if (add_category(items, name, 0, count) == NULL)
                goto oom;
        } else {
            cJSON_SetNumberValue(json_get(row, "usage_count"), count);
        }
    }
    if (rc != SQLITE_DONE) {
        db_error(db, err, "categories");
        goto fail;
    }
    db_stmt_done(st);
    cJSON_AddNumberToObject(doc, "total", cJSON_GetArraySize(items));
    *out = doc;
    return LEDGER_OK;
oom:
    ledger_error_oom(err);
fail:
    db_stmt_done(st);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

/* The category a refund takes: the one the owner most often gives this
 * merchant (else "other"), so a refund offsets the spending it returns. */
static const char SQL_MERCHANT_USUAL[] =
    "SELECT eff_category FROM transactions"
    " WHERE owner_id = ?1 AND eff_merchant = ?2 AND eff_category IS NOT NULL"
    "   AND reconciled_with_id IS NULL"
    " GROUP BY eff_category ORDER BY COUNT(*) DESC, eff_category LIMIT 1";

int category_resolve(ledger_db *db, int64_t owner, const char *merchant, const char *in,
                     char *out, ledger_error *err)
{
    sqlite3_stmt *st;
    int rc;

    switch (ledger_category_fold(in, out)) {
    case LEDGER_CATEGORY_OK:
        return LEDGER_OK;
    case LEDGER_CATEGORY_EMPTY:
        return error_field(err, "category", "category must have at least one letter or digit");
    case LEDGER_CATEGORY_NONE:
        /* A row stored as "uncategorised" would be one with no category in
         * the reports but not in the list's filters. */
        return error_field(err, "category", "%s", CATEGORY_NONE_MESSAGE);
    case LEDGER_CATEGORY_REFUND:
        break;
    }
    /* No merchant, no history to follow. */
    if (merchant == NULL || merchant[0] == '\0') {
        snprintf(out, LEDGER_CATEGORY_MAX, "other");
        return LEDGER_OK;
    }
    if ((st = db_stmt(db, SQL_MERCHANT_USUAL, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, owner);
    db_bind_text(db, st, 2, merchant ? merchant : "");
    rc = sqlite3_step(st);
    snprintf(out, LEDGER_CATEGORY_MAX, "%s",
             rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : "other");
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(db, err, "category");
    return LEDGER_OK;
}

static const char SQL_ROW_CATEGORY[] = "UPDATE transactions SET category = ?2 WHERE id = ?1";

int category_resolve_refund_row(ledger_db *db, int64_t owner, int64_t id, const char *merchant,
                                ledger_error *err)
{
    char category[LEDGER_CATEGORY_MAX];

    if (category_resolve(db, owner, merchant, "refund", category, err))
        return LEDGER_ERR;
    return db_exec(db, err, "refund category", SQL_ROW_CATEGORY, DB_INT(id), DB_TEXT(category));
}

int category_of_report(const char *in, char *out, ledger_error *err)
{
    if (strlen(in) > LEDGER_CATEGORY_TEXT_MAX)
        return error_field(err, "category",
                           "category must be at most %d bytes", LEDGER_CATEGORY_TEXT_MAX);
    switch (ledger_category_fold(in, out)) {
    case LEDGER_CATEGORY_OK:
    case LEDGER_CATEGORY_NONE:
        return LEDGER_OK;
    case LEDGER_CATEGORY_REFUND:
        return error_field(err, "category",
                           "refund is no category of its own: each refund counts under its"
                           " merchant's category");
    default:
        return error_field(err, "category", "category must have at least one letter or digit");
    }
}
