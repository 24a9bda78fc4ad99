/*
 * Analytics: one month's category in detail, top merchants and one
 * merchant's history, and fees and interest, with the month range every
 * report reads (the monthly report is analytics_monthly.c).  Spend is
 * Business rule D (SPEND_SQL); the basis is gross or mine (spend.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"
#include "spend.h"
#include "analytics.h"
#include "text.h"

/* The caller's own rows in [?2, ?3) that count as spend. */
#define OWN_SPEND_ROWS \
    " FROM transactions t WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL" \
    "   AND t.date >= ?2 AND t.date < ?3 AND " SPEND_COUNTS_SQL("t")

/* With, on every row, how many merchants there are before the limit. */
static const char SQL_MERCHANTS_TOP[] =
    "SELECT t.eff_merchant, ledger_sum(" SPEND_SQL("t") "), COUNT(*), COUNT(*) OVER ()" OWN_SPEND_ROWS
    "   AND t.eff_merchant <> '' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?4";
static const char SQL_MERCHANT_MONTHS[] =
    "SELECT substr(t.date, 1, 7), ledger_sum(" SPEND_SQL("t") "), COUNT(*)" OWN_SPEND_ROWS
    "   AND t.eff_merchant = ?4 GROUP BY 1 ORDER BY 1";
static const char SQL_ROW_BY_ID[] =
    "SELECT " TXN_COLUMNS " FROM transactions t" TXN_JOIN_RECONCILED " WHERE t.id = :id";
/* Fees are fee rows; interest is interest rows plus the interest of
 * itemised loan repayments. */
static const char SQL_FEES_MONTHS[] =
    "SELECT substr(t.date, 1, 7),"
    "       ledger_sum(CASE WHEN t.transaction_type = 'fee' THEN COALESCE(t.amount_aud, t.amount) ELSE 0 END),"
    "       ledger_sum(CASE WHEN t.transaction_type = 'interest' THEN COALESCE(t.amount_aud, t.amount)"
    "                WHEN " SPEND_ITEMISED_SQL("t") " THEN t.interest_amount ELSE 0 END)"
    "  FROM transactions t WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL"
    "   AND t.date >= ?2 AND t.date < ?3"
    "   AND (t.transaction_type IN ('fee', 'interest') OR " SPEND_ITEMISED_SQL("t") ")"
    " GROUP BY 1 ORDER BY 1";
static const char SQL_FEES_STATEMENTS[] =
    "SELECT s.id, s.bank_name, s.account_name, s.period_end,"
    "       ledger_sum(CASE WHEN t.transaction_type = 'fee' THEN COALESCE(t.amount_aud, t.amount) ELSE 0 END),"
    "       ledger_sum(CASE WHEN t.transaction_type = 'interest' THEN COALESCE(t.amount_aud, t.amount)"
    "                WHEN " SPEND_ITEMISED_SQL("t") " THEN t.interest_amount ELSE 0 END)"
    "  FROM transactions t JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND t.date >= ?2 AND t.date < ?3"
    "   AND (t.transaction_type IN ('fee', 'interest') OR " SPEND_ITEMISED_SQL("t") ")"
    " GROUP BY s.id ORDER BY s.period_end, s.id";

sqlite3_stmt *report_stmt(ledger_db *db, const char *sql, int64_t me, const char *first,
                          const char *end, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);

    if (st) {
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(db, st, 2, first);
        db_bind_text(db, st, 3, end);
    }
    return st;
}

int month_range(const struct ledger_params *p, char *from, char *to, char *first, char *end,
                int *months, ledger_error *err)
{
    const char *f = param_get(p, "from"), *t = param_get(p, "to");
    char scratch[11];

    if (t)
        snprintf(to, 8, "%.7s", t);
    else
        month_now(to);
    if ((t && strlen(t) != 7) || month_bounds(to, scratch, end))
        return error_field(err, "to", "to must be a month YYYY-MM");
    if (f)
        snprintf(from, 8, "%.7s", f);
    else
        month_add(to, -11, from);
    /* A default from before the first month there is (to in 1900) starts
     * at the first: an error would name a parameter the caller never
     * sent. */
    if (!f && strcmp(from, "1900-01") < 0)
        memcpy(from, "1900-01", 8);
    if ((f && strlen(f) != 7) || month_bounds(from, first, scratch))
        return error_field(err, "from", "from must be a month YYYY-MM");
    if (strcmp(from, to) > 0)
        return t ? error_field(err, "to", "to is before from")
                 : error_field(err, "from",
                               "from is after this month, where to defaults to: give to as well");
    *months = (atoi(to) - atoi(from)) * 12 + atoi(to + 5) - atoi(from + 5) + 1;
    if (*months > MONTHS_MAX)
        return error_field(err, "from", "at most %d months at a time", MONTHS_MAX);
    return LEDGER_OK;
}


/* Read digit by digit rather than by atoi: the monthly report reads one
 * a row. */
int month_number(const char *m)
{
    int i, year = 0;

    if (m == NULL)
        return -1;
    for (i = 0; i < 4; i++) {
        if (!ascii_digit((unsigned char)m[i]))
            return -1;
        year = year * 10 + m[i] - '0';
    }
    if (m[4] != '-' || !ascii_digit((unsigned char)m[5]) || !ascii_digit((unsigned char)m[6]))
        return -1;
    return year * 12 + (m[5] - '0') * 10 + m[6] - '0' - 1;
}

/* How many months month is after from; -1 when either is not a month. */
static int month_offset(const char *month, const char *from)
{
    int m = month_number(month), f = month_number(from);

    return m < 0 || f < 0 ? -1 : m - f;
}

/* ---- one month's category ------------------------------------------------------ */

struct drill {
    const char *category;
    money_sum total;
    struct tally merchants;
    cJSON *ids;
};

static int drill_add(struct drill *d, const char *merchant, int64_t cents, int64_t id)
{
    d->total += cents;
    cJSON_AddItemToArray(d->ids, cJSON_CreateNumber((double)id));
    return tally_add(&d->merchants, merchant, cents);
}

static int drill_mine(void *ctx, const struct spend_row *r)
{
    struct drill *d = ctx;

    if (strcmp(r->category, d->category) != 0)
        return 0;
    if (drill_add(d, r->merchant, r->mine, r->id))
        return -1;
    return 0;
}

/* The caller's own rows of d's category in [first, end), gross. */
static int drill_gross(ledger_db *db, int64_t me, const char *first, const char *end,
                       struct drill *d, ledger_error *err)
{
    static const char SQL_DRILL[] =
        "SELECT t.id, t.eff_merchant, " SPEND_SQL("t") OWN_SPEND_ROWS
        " AND " SPEND_CATEGORY_SQL("t") " = ?4 ORDER BY t.date, t.id";
    sqlite3_stmt *st = report_stmt(db, SQL_DRILL, me, first, end, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 4, d->category);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (drill_add(d, (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                      sqlite3_column_int64(st, 0)))
            break;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_oom(err);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "drill-down");
}

/* The rows of ids, as every transaction read shows them, into rows.  Each
 * id is a row just summed in this transaction: no row, or no memory for
 * it, is an error, not a row to leave out. */
static int drill_rows(ledger_db *db, int64_t me, const cJSON *ids, cJSON *rows, ledger_error *err)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, ids) {
        sqlite3_stmt *st = db_stmt(db, SQL_ROW_BY_ID, err);
        cJSON *row = NULL;
        int step;

        if (st == NULL)
            return LEDGER_ERR;
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), (int64_t)m->valuedouble);
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":me"), me);
        if ((step = sqlite3_step(st)) == SQLITE_ROW)
            row = txn_row_json(st, me);
        db_stmt_done(st);
        if (step != SQLITE_ROW)
            return db_error(db, err, "monthly drill-down");
        if (row == NULL)
            return ledger_error_oom(err);
        cJSON_AddItemToArray(rows, row);
    }
    return LEDGER_OK;
}

int ledger_analytics_drilldown(ledger_db *db, int64_t me, const char *month,
                               const char *category, const struct ledger_params *p,
                               cJSON **out, ledger_error *err)
{
    char first[11], end[11], folded[LEDGER_CATEGORY_MAX];
    struct drill d = { NULL, 0, { NULL, 0, 0, NULL, 0 }, cJSON_CreateArray() };
    cJSON *doc = NULL, *arr, *m;
    size_t i;
    int mine, rc = LEDGER_ERR;

    if (spend_basis(p, &mine, err))
        goto out;
    if (month_bounds(month, first, end)) {
        error_field(err, "month", "month must be YYYY-MM");
        goto out;
    }
    if (category_of_report(category, folded, err))
        goto out;
    d.category = folded;
    if (mine ? spend_mine_each(db, me, first, end, 0, drill_mine, &d, err)
             : drill_gross(db, me, first, end, &d, err))
        goto out;
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "month", month);
    cJSON_AddStringToObject(doc, "category", folded);
    cJSON_AddItemToObject(doc, "total", money_sum_to_json(d.total));
    arr = cJSON_AddArrayToObject(doc, "merchants");
    tally_sort(&d.merchants);
    for (i = 0; i < d.merchants.n; i++) {
        m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "merchant", d.merchants.v[i].name);
        cJSON_AddItemToObject(m, "total", money_sum_to_json(d.merchants.v[i].cents));
        cJSON_AddNumberToObject(m, "count", (double)d.merchants.v[i].count);
        cJSON_AddItemToArray(arr, m);
    }
    if (drill_rows(db, me, d.ids, cJSON_AddArrayToObject(doc, "transactions"), err))
        goto out;
    *out = doc;
    doc = NULL;
    rc = LEDGER_OK;
out:
    cJSON_Delete(doc);
    tally_free(&d.merchants);
    cJSON_Delete(d.ids);
    return rc;
}

/* ---- merchants -------------------------------------------------------------------------- */

/* basis=mine: the caller's part of the spend per merchant (rows without a
 * merchant have none to name), or per month of one merchant. */
struct merchant_walk {
    const char *merchant;  /* one merchant's months, or NULL: every merchant */
    const char *from;      /* the range's first month */
    int months;
    money_sum *sums;
    int64_t *counts;
    struct tally all;
};

static int merchant_mine(void *ctx, const struct spend_row *r)
{
    struct merchant_walk *w = ctx;
    int k;

    if (w->merchant == NULL)
        return r->merchant[0] ? tally_add(&w->all, r->merchant, r->mine) : 0;
    if (strcmp(r->merchant, w->merchant) != 0)
        return 0;
    k = month_offset(r->month, w->from);
    if (k >= 0 && k < w->months) {
        w->sums[k] += r->mine;
        w->counts[k]++;
    }
    return 0;
}

static cJSON *merchant_json(const char *name, money_sum cents, int64_t count)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "merchant", name);
    cJSON_AddItemToObject(o, "total", money_sum_to_json(cents));
    cJSON_AddNumberToObject(o, "count", (double)count);
    return o;
}

int ledger_analytics_merchants(ledger_db *db, int64_t me, const struct ledger_params *p,
                               cJSON **out, ledger_error *err)
{
    char from[8], to[8], first[11], end[11];
    struct merchant_walk w;
    int64_t limit, total = 0;
    int months, mine, rc;
    size_t i;
    sqlite3_stmt *st;
    cJSON *doc, *items;

    memset(&w, 0, sizeof w);
    if (month_range(p, from, to, first, end, &months, err) || spend_basis(p, &mine, err))
        return LEDGER_ERR;
    if (page_limit(p, 20, &limit, err))
        return LEDGER_ERR;
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "from", from);
    cJSON_AddStringToObject(doc, "to", to);
    items = cJSON_AddArrayToObject(doc, "items");
    if (mine) {
        if (spend_mine_each(db, me, first, end, 0, merchant_mine, &w, err)) {
            tally_free(&w.all);
            cJSON_Delete(doc);
            return LEDGER_ERR;
        }
        tally_sort(&w.all);
        for (i = 0; i < w.all.n && (int64_t)i < limit; i++)
            cJSON_AddItemToArray(items, merchant_json(w.all.v[i].name, w.all.v[i].cents, w.all.v[i].count));
        total = (int64_t)w.all.n;
        tally_free(&w.all);
    } else {
        if ((st = report_stmt(db, SQL_MERCHANTS_TOP, me, first, end, err)) == NULL) {
            cJSON_Delete(doc);
            return LEDGER_ERR;
        }
        sqlite3_bind_int64(st, 4, limit);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            /* The last column: how many merchants there are in all. */
            total = sqlite3_column_int64(st, 3);
            cJSON_AddItemToArray(items, merchant_json((const char *)sqlite3_column_text(st, 0),
                                                      money_sum_column(st, 1),
                                                      sqlite3_column_int64(st, 2)));
        }
        db_stmt_done(st);
        if (rc != SQLITE_DONE) {
            cJSON_Delete(doc);
            return db_error(db, err, "merchants");
        }
    }
    cJSON_AddNumberToObject(doc, "total", (double)total);
    *out = doc;
    return LEDGER_OK;
}

int ledger_analytics_merchant(ledger_db *db, int64_t me, const char *merchant,
                              const struct ledger_params *p, cJSON **out, ledger_error *err)
{
    char from[8], to[8], first[11], end[11];
    struct merchant_walk w;
    int months, mine, rc, i, result = LEDGER_ERR;
    money_sum spend = 0;
    sqlite3_stmt *st;
    cJSON *doc, *items;

    memset(&w, 0, sizeof w);
    if (strlen(merchant) > MERCHANT_MAX)
        return error_field(err, "merchant", "merchant must be at most %d bytes", MERCHANT_MAX);
    if (month_range(p, from, to, first, end, &months, err) || spend_basis(p, &mine, err))
        return LEDGER_ERR;
    w.merchant = merchant;
    w.from = from;
    w.months = months;
    w.sums = calloc((size_t)months, sizeof *w.sums);
    w.counts = calloc((size_t)months, sizeof *w.counts);
    if (w.sums == NULL || w.counts == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    if (mine) {
        if (spend_mine_each(db, me, first, end, 0, merchant_mine, &w, err))
            goto out;
    } else {
        if ((st = report_stmt(db, SQL_MERCHANT_MONTHS, me, first, end, err)) == NULL)
            goto out;
        db_bind_text(db, st, 4, merchant);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *m = (const char *)sqlite3_column_text(st, 0);
            int k = month_offset(m, from);

            if (k >= 0 && k < months) {
                w.sums[k] = money_sum_column(st, 1);
                w.counts[k] = sqlite3_column_int64(st, 2);
            }
        }
        db_stmt_done(st);
        if (rc != SQLITE_DONE) {
            db_error(db, err, "merchant history");
            goto out;
        }
    }
    /* Every month of the range, the quiet ones as zero. */
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "merchant", merchant);
    items = cJSON_AddArrayToObject(doc, "items");
    for (i = 0; i < months; i++) {
        char month[8];
        cJSON *o = cJSON_CreateObject();

        month_add(from, i, month);
        cJSON_AddStringToObject(o, "month", month);
        cJSON_AddItemToObject(o, "total", money_sum_to_json(w.sums[i]));
        cJSON_AddNumberToObject(o, "count", (double)w.counts[i]);
        cJSON_AddItemToArray(items, o);
        spend += w.sums[i];
    }
    /* total counts the items, as in every answer with items (API.md);
     * the money is spend. */
    cJSON_AddNumberToObject(doc, "total", months);
    cJSON_AddItemToObject(doc, "spend", money_sum_to_json(spend));
    *out = doc;
    result = LEDGER_OK;
out:
    free(w.sums);
    free(w.counts);
    return result;
}

/* ---- fees and interest ------------------------------------------------------------------- */

int ledger_analytics_fees(ledger_db *db, int64_t me, const struct ledger_params *p,
                          cJSON **out, ledger_error *err)
{
    char from[8], to[8], first[11], end[11];
    int months, rc;
    money_sum fees = 0, interest = 0;
    sqlite3_stmt *st;
    cJSON *doc, *by_month, *by_statement;

    if (month_range(p, from, to, first, end, &months, err))
        return LEDGER_ERR;
    doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "from", from);
    cJSON_AddStringToObject(doc, "to", to);
    by_month = cJSON_AddArrayToObject(doc, "by_month");
    by_statement = cJSON_AddArrayToObject(doc, "by_statement");
    if ((st = report_stmt(db, SQL_FEES_MONTHS, me, first, end, err)) == NULL)
        goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddStringToObject(o, "month", (const char *)sqlite3_column_text(st, 0));
        money_sum month_fees = money_sum_column(st, 1), month_interest = money_sum_column(st, 2);

        cJSON_AddItemToObject(o, "fees", money_sum_to_json(month_fees));
        cJSON_AddItemToObject(o, "interest", money_sum_to_json(month_interest));
        fees += month_fees;
        interest += month_interest;
        cJSON_AddItemToArray(by_month, o);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "fees");
        goto fail;
    }
    if ((st = report_stmt(db, SQL_FEES_STATEMENTS, me, first, end, err)) == NULL)
        goto fail;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNumberToObject(o, "statement_id", (double)sqlite3_column_int64(st, 0));
        json_text_col(o, "bank_name", st, 1);
        json_text_col(o, "account_name", st, 2);
        json_text_col(o, "period_end", st, 3);
        cJSON_AddItemToObject(o, "fees", money_sum_to_json(money_sum_column(st, 4)));
        cJSON_AddItemToObject(o, "interest", money_sum_to_json(money_sum_column(st, 5)));
        cJSON_AddItemToArray(by_statement, o);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        db_error(db, err, "fees");
        goto fail;
    }
    cJSON_AddItemToObject(doc, "total_fees", money_sum_to_json(fees));
    cJSON_AddItemToObject(doc, "total_interest", money_sum_to_json(interest));
    *out = doc;
    return LEDGER_OK;
fail:
    cJSON_Delete(doc);
    return LEDGER_ERR;
}
