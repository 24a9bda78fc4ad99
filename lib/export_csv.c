/*
 * The CSV export (RFC 4180: comma, CRLF, quotes doubled): one line per row
 * the caller can see, with the effective values the API row shows and the
 * caller's share, for a spreadsheet.  What a spreadsheet needs beside the
 * row (tags, splits) is flattened into one field each; the JSON export is
 * the one to rebuild a ledger from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "export.h"
#include "txn.h"

static const char HEADER[] =
    "id,date,description,merchant,merchant_normalized,category,transaction_type,amount,"
    "currency,amount_aud,exchange_rate_to_aud,payment_method,my_share_pct,my_amount,"
    "owner_id,owner,statement_id,bank_name,account_name,statement_type,trip_id,trip,"
    "tags,splits,principal_amount,interest_amount,created_at,notes\r\n";

/* A text field, quoted when it holds a comma, quote, line break or an
 * edge space.  A field a spreadsheet would take for a formula (=, +, -,
 * @, a tab or carriage return first) is written after a single quote, so
 * a description cannot run as one when the file is opened (OWASP's CSV
 * injection advice). */
static void field(struct export *x, const char *s)
{
    size_t n = strlen(s), i;
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ' || strpbrk(s, ",\"\r\n") != NULL);
    int formula = n > 0 && strchr("=+-@\t\r", s[0]) != NULL;

    if (quote)
        export_put(x, "\"", 1);
    if (formula)
        export_put(x, "'", 1);
    for (i = 0; quote && s[i]; i++)
        export_put(x, s[i] == '"' ? "\"\"" : s + i, s[i] == '"' ? 2 : 1);
    if (!quote)
        export_put(x, s, n);
    export_put(x, quote ? "\"," : ",", quote ? 2 : 1);
}

static void text_col(struct export *x, sqlite3_stmt *st, int col)
{
    field(x, export_text(st, col));
}

/* Cents as a decimal ("-12.34"), or an empty field for NULL. */
static void money(struct export *x, int64_t cents)
{
    char buf[32];

    export_puts(x, ledger_decimal2_format(cents, buf, sizeof buf));
    export_put(x, ",", 1);
}

static void money_col(struct export *x, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        export_put(x, ",", 1);
    else
        money(x, sqlite3_column_int64(st, col));
}

/* Numbers and ids are written as SQLite gives their text: no quoting. */
static void plain_col(struct export *x, sqlite3_stmt *st, int col)
{
    export_puts(x, export_text(st, col));
    export_put(x, ",", 1);
}

/* The splits as "name:share_percent:amount" (":settled" when settled)
 * joined by "; ", the amounts apportioned as the API row's. */
static int splits_field(struct export *x)
{
    char *text = NULL;
    size_t k, len = 0;
    int rc = -1;

    for (k = 0; k < x->sb.n; k++) {
        const char *name = export_name(x, x->sb.v[k].participant_id);
        char pct[32], amt[32];
        size_t need;
        char *t;

        if (name == NULL)
            goto out;
        ledger_decimal2_format(x->sb.v[k].share, pct, sizeof pct);
        ledger_decimal2_format(x->sb.cents[k], amt, sizeof amt);
        need = len + strlen(name) + strlen(pct) + strlen(amt) + 16;
        if ((t = realloc(text, need)) == NULL) {
            ledger_error_oom(x->err);
            goto out;
        }
        text = t;
        len += (size_t)snprintf(text + len, need - len, "%s%s:%s:%s", k ? "; " : "", name, pct, amt);
    }
    field(x, text ? text : "");
    rc = 0;
out:
    free(text);
    return rc;
}

static int row(struct export *x, sqlite3_stmt *st, void *ctx)
{
    const char *owner;

    (void)ctx;
    if (export_shares(x, st))
        return ledger_error_oom(x->err);
    if ((owner = export_name(x, sqlite3_column_int64(st, TXN_OWNER))) == NULL)
        return -1;
    plain_col(x, st, TXN_ID);
    text_col(x, st, TXN_DATE);
    text_col(x, st, TXN_DESCRIPTION);
    text_col(x, st, TXN_MERCHANT);
    text_col(x, st, sqlite3_column_type(st, TXN_O_MERCHANT) != SQLITE_NULL ? TXN_O_MERCHANT : TXN_MERCHANT_NORM);
    text_col(x, st, X_EFF_CATEGORY);
    text_col(x, st, TXN_TYPE);
    money_col(x, st, TXN_AMOUNT);
    text_col(x, st, TXN_CURRENCY);
    money_col(x, st, TXN_AMOUNT_AUD);
    plain_col(x, st, TXN_RATE);
    text_col(x, st, TXN_PAYMENT);
    money(x, x->my_pct);
    money(x, x->my_amount);
    plain_col(x, st, TXN_OWNER);
    field(x, owner);
    plain_col(x, st, TXN_STATEMENT);
    if (sqlite3_column_type(st, TXN_STATEMENT) == SQLITE_NULL)
        field(x, LEDGER_BANK_MANUAL);
    else
        text_col(x, st, TXN_BANK);
    text_col(x, st, X_ACCOUNT);
    text_col(x, st, X_STATEMENT_TYPE);
    plain_col(x, st, TXN_O_TRIP);
    text_col(x, st, X_TRIP_NAME);
    text_col(x, st, X_TAG_NAMES);
    if (splits_field(x))
        return -1;
    money_col(x, st, TXN_PRINCIPAL);
    money_col(x, st, TXN_INTEREST);
    /* The last field ends the line rather than taking a comma. */
    text_col(x, st, TXN_CREATED);
    text_col(x, st, TXN_NOTES);
    if (!x->w.t.failed)
        x->w.t.len--;
    export_put(x, "\r\n", 2);
    return 0;
}

int export_csv(struct export *x)
{
    export_put(x, HEADER, sizeof HEADER - 1);
    return export_rows(x, row, NULL);
}
