/*
 * Recurring-charge detection: GET /api/analytics/subscriptions.
 *
 * For each merchant the caller buys from, the charges are grouped by amount
 * (a chain of amounts each within 15% of the last, so a price rise stays
 * one subscription while two plans at one merchant stay two), and each
 * group of three or more is tested against the cadences below.  A cadence
 * fits when most gaps between charges are one period long, within its
 * tolerance, and nearly all are one, two or three periods (a missed or
 * skipped charge).  A date that slides over a weekend stays within the
 * tolerance.  A one-off or irregular merchant fits no cadence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "spend.h"

struct cadence {
    const char *name;
    double days;      /* nominal period */
    double tolerance; /* days either side of one period */
    int per_year;
    int months;       /* calendar months per period, 0 for day-based */
    int grace;        /* days after the expected date before it is inactive */
    int min_count;
};

static const struct cadence cadences[] = {
    { "weekly", 7, 2, 52, 0, 4, 4 },
    { "fortnightly", 14, 3, 26, 0, 6, 3 },
    { "monthly", 30.44, 4.5, 12, 1, 10, 3 },
    { "quarterly", 91.31, 12, 4, 3, 25, 3 },
    { "yearly", 365.25, 20, 1, 12, 45, 2 },
};
#define NCADENCES (sizeof cadences / sizeof cadences[0])

static const char SQL_CHARGES[] =
    "SELECT t.eff_merchant, t.date, COALESCE(t.amount_aud, t.amount)"
    "  FROM transactions t"
    " WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL AND t.eff_merchant <> ''"
    "   AND t.transaction_type IN ('debit', 'fee')"
    "   AND COALESCE(t.eff_category, '') NOT IN ('transfers', 'investment', 'income')"
    "   AND t.date <= ?2"
    " ORDER BY t.eff_merchant, t.date, t.id";

struct charge {
    int64_t day;
    int64_t amount;
};

static int by_amount(const void *a, const void *b)
{
    const struct charge *x = a, *y = b;

    return x->amount != y->amount ? (x->amount < y->amount ? -1 : 1)
                                  : (x->day < y->day ? -1 : x->day > y->day);
}

static int by_day(const void *a, const void *b)
{
    const struct charge *x = a, *y = b;

    return x->day < y->day ? -1 : x->day > y->day;
}


/* How well a run of charges (sorted by day) fits cadence c: the share of
 * gaps that are exactly one period, and of those that are 1-3 periods. */
static void fit(const struct charge *v, size_t n, const struct cadence *c, double *single,
                double *any)
{
    size_t i, one = 0, some = 0;

    for (i = 1; i < n; i++) {
        double gap = (double)(v[i].day - v[i - 1].day);
        int k;

        for (k = 1; k <= 3; k++)
            if (gap >= k * c->days - c->tolerance * k && gap <= k * c->days + c->tolerance * k) {
                one += k == 1;
                some++;
                break;
            }
    }
    *single = n > 1 ? (double)one / (double)(n - 1) : 0;
    *any = n > 1 ? (double)some / (double)(n - 1) : 0;
}

/* Whether amounts a and b are within 15% (and a cent) of each other. */
static int near(int64_t a, int64_t b)
{
    int64_t lo = a < b ? a : b, hi = a < b ? b : a;

    return hi * 100 <= lo * 115 + 100;
}

/* A subscription costs the same from one charge to the next, but for a
 * price change now and then: at least 80% of the steps between charges
 * (sorted by day) stay near.  A chain by amount alone would make a weekly
 * shop of 40 to 79 a subscription, each amount near the next larger one
 * but the week's total jumping about. */
static int steady(const struct charge *v, size_t n)
{
    size_t i, still = 0;

    for (i = 1; i < n; i++)
        still += near(v[i - 1].amount, v[i].amount);
    return n < 2 || still * 5 >= (n - 1) * 4;
}

static cJSON *detect_run(const char *merchant, struct charge *v, size_t n, int64_t as_of)
{
    const struct cadence *best = NULL;
    double best_single = 0;
    size_t i, k, last_n;
    int64_t amounts[3], typical, next, last;
    char date[11];
    cJSON *o;

    qsort(v, n, sizeof *v, by_day);
    if (!steady(v, n))
        return NULL;
    for (i = 0; i < NCADENCES; i++) {
        double single, any;

        if (n < (size_t)cadences[i].min_count)
            continue;
        fit(v, n, &cadences[i], &single, &any);
        if (single >= 0.6 && any >= 0.85 && single > best_single) {
            best = &cadences[i];
            best_single = single;
        }
    }
    if (best == NULL)
        return NULL;
    /* The typical amount is what it costs now: the median of the last three. */
    last_n = n < 3 ? n : 3;
    for (k = 0; k < last_n; k++)
        amounts[k] = v[n - last_n + k].amount;
    qsort(amounts, last_n, sizeof *amounts, cmp_int64);
    typical = amounts[last_n / 2];
    last = v[n - 1].day;
    if (best->months) {
        char last_date[11];

        date_of_days(last, last_date);
        date_add_months(last_date, best->months, date);
        next = days_of_date(date);
    } else {
        next = last + (int64_t)best->days;
        date_of_days(next, date);
    }
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "merchant", merchant);
    cJSON_AddStringToObject(o, "cadence", best->name);
    cJSON_AddItemToObject(o, "typical_amount", ledger_money_to_json(typical));
    cJSON_AddNumberToObject(o, "occurrences", (double)n);
    date_of_days(v[0].day, date);
    cJSON_AddStringToObject(o, "first_date", date);
    date_of_days(last, date);
    cJSON_AddStringToObject(o, "last_date", date);
    date_of_days(next, date);
    cJSON_AddStringToObject(o, "next_expected", date);
    cJSON_AddItemToObject(o, "annual_cost", ledger_money_to_json(typical * best->per_year));
    cJSON_AddBoolToObject(o, "active", as_of < next + best->grace);
    return o;
}

/* Splits one merchant's charges into amount groups and detects each. */
static void detect_merchant(const char *merchant, struct charge *v, size_t n, int64_t as_of,
                            cJSON *items)
{
    size_t start = 0, i;

    if (n < 2)
        return;
    qsort(v, n, sizeof *v, by_amount);
    for (i = 1; i <= n; i++) {
        /* A chain: each amount within 15% (and a cent) of the one before. */
        if (i < n && near(v[i - 1].amount, v[i].amount))
            continue;
        if (i - start >= 2) {
            cJSON *o = detect_run(merchant, v + start, i - start, as_of);

            if (o)
                cJSON_AddItemToArray(items, o);
        }
        start = i;
    }
}

static int by_importance(const void *a, const void *b)
{
    const cJSON *x = *(cJSON *const *)a, *y = *(cJSON *const *)b;
    int ax = cJSON_IsTrue(json_get(x, "active"));
    int ay = cJSON_IsTrue(json_get(y, "active"));
    double cx = atof(json_get(x, "annual_cost")->valuestring);
    double cy = atof(json_get(y, "annual_cost")->valuestring);

    if (ax != ay)
        return ay - ax;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(json_get(x, "merchant")->valuestring,
                  json_get(y, "merchant")->valuestring);
}

int ledger_analytics_subscriptions(ledger_db *db, int64_t me, const struct ledger_params *p,
                                   cJSON **out, ledger_error *err)
{
    const char *as_of_text = param_get(p, "as_of");
    char today[11], merchant[256] = "";
    sqlite3_stmt *st;
    struct charge *v = NULL;
    size_t n = 0, cap = 0, i, count;
    int64_t as_of;
    cJSON *doc, *items, **sorted;
    int rc;

    if (as_of_text) {
        if (!valid_date(as_of_text))
            return error_field(err, "as_of", "as_of must be a date YYYY-MM-DD");
    } else {
        date_today(today);
        as_of_text = today;
    }
    as_of = days_of_date(as_of_text);
    if ((st = db_stmt(db, SQL_CHARGES, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    /* The charges known on as_of: a report as of a past day is the one
     * that day would have given (nothing is "active" before its first
     * charge). */
    db_bind_text(db, st, 2, as_of_text);
    doc = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(doc, "items");
    /* Rows arrive merchant by merchant; each merchant is detected when the
     * next one starts. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(st, 0);

        if (strcmp(m, merchant) != 0) {
            detect_merchant(merchant, v, n, as_of, items);
            n = 0;
            snprintf(merchant, sizeof merchant, "%s", m);
        }
        if (n == cap) {
            void *nv = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof *v);

            if (nv == NULL)
                break;
            v = nv;
        }
        v[n].day = days_of_date((const char *)sqlite3_column_text(st, 1));
        v[n].amount = sqlite3_column_int64(st, 2);
        n++;
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        free(v);
        cJSON_Delete(doc);
        return rc == SQLITE_ROW ? ledger_error_oom(err)
                                : db_error(db, err, "subscriptions");
    }
    detect_merchant(merchant, v, n, as_of, items);
    free(v);
    /* Active first, then by what they cost a year. */
    count = (size_t)cJSON_GetArraySize(items);
    sorted = calloc(count ? count : 1, sizeof *sorted);
    if (sorted) {
        cJSON *fresh = cJSON_CreateArray();

        for (i = 0; i < count; i++)
            sorted[i] = cJSON_DetachItemFromArray(items, 0);
        qsort(sorted, count, sizeof *sorted, by_importance);
        for (i = 0; i < count; i++)
            cJSON_AddItemToArray(fresh, sorted[i]);
        cJSON_ReplaceItemInObject(doc, "items", fresh);
        free(sorted);
    }
    cJSON_AddNumberToObject(doc, "total", (double)count);
    *out = doc;
    return LEDGER_OK;
}
