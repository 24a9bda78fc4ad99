/*
 * Spend (Business rule D) over the caller's rows, for budgets and
 * analytics.  Two bases:
 *
 *   gross  the caller's own rows at their full spend (default);
 *   mine   the caller's own rows and the rows shared with them, each at
 *          the caller's part: the my_share_percent override on a row they
 *          own (it is the owner's), else their split row's apportioned
 *          cents, else all of an unsplit row they own.  These are the same
 *          cents my_amount shows on the row.
 *
 * The gross sums are plain SQL aggregates over a covering index; the mine
 * basis walks the rows in C because largest-remainder apportioning is not
 * something SQL can do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "fields.h"
#include "share.h"
#include "spend.h"

/* Rows of the range [?2, ?3) that count as spend, with the fields the mine
 * basis needs; ?1 is the caller.  MINE_ROWS(which) takes the rows the
 * condition `which` on t picks. */
#define MINE_ROWS(which) \
    "SELECT t.id, t.owner_id, " SPEND_SQL("t") ", t.override_share," \
    "       CASE WHEN t.has_split THEN " SPLITS_TEXT_SQL("t.id") " END," \
    "       substr(t.date, 1, 7), " SPEND_CATEGORY_SQL("t") ", t.eff_merchant, t.date" \
    "  FROM transactions t" \
    " WHERE t.reconciled_with_id IS NULL AND t.date >= ?2 AND t.date < ?3" \
    "   AND " which " AND " SPEND_COUNTS_SQL("t")
/* Every row the caller owns or has a split of. */
static const char SQL_MINE_ROWS[] = MINE_ROWS(
    "(t.owner_id = ?1 OR t.id IN (SELECT transaction_id FROM splits WHERE participant_id = ?1))");
/* Only those whose mine part may differ from their spend: the caller's
 * split rows (transactions_owner_split indexes them; "+" keeps SQLite off the date
 * index, which would test every row of the range), the rows
 * with an override share (transactions_override_share), and the rows shared with the
 * caller.  Every other row the caller owns counts its whole spend, which
 * the gross summary already holds. */
static const char SQL_MINE_ROWS_DIFFERENT[] = MINE_ROWS(
    "t.id IN (SELECT transaction_id FROM splits WHERE participant_id = ?1"
    "         UNION ALL"
    "         SELECT o.id FROM transactions o WHERE o.owner_id = ?1 AND o.has_split"
    "            AND +o.date >= ?2 AND +o.date < ?3"
    "         UNION ALL"
    "         SELECT o.id FROM transactions o WHERE o.owner_id = ?1 AND o.override_share IS NOT NULL"
    "            AND o.date >= ?2 AND o.date < ?3)");

int spend_basis(const struct ledger_params *p, int *mine, ledger_error *err)
{
    const char *v = param_get(p, "basis");

    *mine = 0;
    if (v == NULL || strcmp(v, "gross") == 0)
        return LEDGER_OK;
    if (strcmp(v, "mine") == 0) {
        *mine = 1;
        return LEDGER_OK;
    }
    return error_field(err, "basis", "basis must be gross or mine");
}

/* Half away from zero, as the row's my_amount rounds an override share. */
static int64_t share_of(int64_t amount, int64_t share)
{
    __int128 p = (__int128)amount * share;

    return (int64_t)(p >= 0 ? (p + 5000) / 10000 : -((-p + 5000) / 10000));
}

int spend_mine_part(int64_t me, int64_t owner, int64_t spend, int has_override,
                    int64_t override_share, const char *splits, struct split_buf *sb,
                    int64_t *mine)
{
    int64_t mag = spend < 0 ? -spend : spend;
    size_t k;

    sb->n = 0;
    if (splits) {
        if (split_buf_parse(sb, splits))
            return -1;
        split_apportion(mag, sb->v, sb->n, owner, sb->cents);
    }
    if (has_override && owner == me) {
        *mine = share_of(spend, override_share);
    } else if (splits) {
        *mine = 0;
        for (k = 0; k < sb->n; k++)
            if (sb->v[k].participant_id == me)
                *mine = spend < 0 ? -sb->cents[k] : sb->cents[k];
    } else {
        *mine = owner == me ? spend : 0;
    }
    return 0;
}

static void rows_free(struct spend_row *rows, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(rows[i].merchant);
        free(rows[i].splits);
    }
    free(rows);
}

int spend_mine_each(ledger_db *db, int64_t me, const char *from, const char *to, int different,
                    int (*fn)(void *ctx, const struct spend_row *r), void *ctx,
                    ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, different ? SQL_MINE_ROWS_DIFFERENT : SQL_MINE_ROWS, err);
    struct spend_row *rows = NULL;
    struct split_buf sb = { NULL, NULL, 0, 0 };
    size_t n = 0, cap = 0, i;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, from);
    db_bind_text(db, st, 3, to);
    /* Collected first: a callback may use the statement cache. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct spend_row *r;

        if (n == cap) {
            void *nr = realloc(rows, (cap = cap ? 2 * cap : 256) * sizeof *rows);

            if (nr == NULL)
                break;
            rows = nr;
        }
        r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->owner = sqlite3_column_int64(st, 1);
        r->spend = sqlite3_column_int64(st, 2);
        r->has_override = sqlite3_column_type(st, 3) != SQLITE_NULL;
        r->override_share = sqlite3_column_int64(st, 3);
        if (sqlite3_column_type(st, 4) != SQLITE_NULL
            && (r->splits = db_column_dup(st, 4)) == NULL)
            break;
        snprintf(r->month, sizeof r->month, "%s", (const char *)sqlite3_column_text(st, 5));
        snprintf(r->category, sizeof r->category, "%s", (const char *)sqlite3_column_text(st, 6));
        if ((r->merchant = db_column_dup(st, 7)) == NULL)  /* NOT NULL: memory ran out */
            break;
        snprintf(r->date, sizeof r->date, "%s", (const char *)sqlite3_column_text(st, 8));
    }
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        goto oom;
    if (rc != SQLITE_DONE) {
        db_error(db, err, "spend");
        goto fail;
    }
    for (i = 0; i < n; i++) {
        struct spend_row *r = &rows[i];

        if (spend_mine_part(me, r->owner, r->spend, r->has_override, r->override_share,
                            r->splits, &sb, &r->mine)
            || fn(ctx, r))
            goto oom;
    }
    rows_free(rows, n);
    split_buf_free(&sb);
    return LEDGER_OK;
oom:
    ledger_error_oom(err);
fail:
    rows_free(rows, n);
    split_buf_free(&sb);
    return LEDGER_ERR;
}

/* Writes a date (day > 0) or a month (day 0) into out (11 or 8 bytes):
 * formatted in a roomy buffer first, as the compiler cannot know the
 * values are small. */
static void put_date(char *out, int y, int m, int d)
{
    char buf[48];

    /* Digit by digit where they fit: a report names each of its months,
     * and snprintf's parsing of its format costs more than the digits. */
    if (y >= 0 && y <= 9999 && m >= 0 && m <= 99 && d >= 0 && d <= 99) {
        out[0] = (char)('0' + y / 1000);
        out[1] = (char)('0' + y / 100 % 10);
        out[2] = (char)('0' + y / 10 % 10);
        out[3] = (char)('0' + y % 10);
        out[4] = '-';
        out[5] = (char)('0' + m / 10);
        out[6] = (char)('0' + m % 10);
        if (d == 0) {
            out[7] = '\0';
            return;
        }
        out[7] = '-';
        out[8] = (char)('0' + d / 10);
        out[9] = (char)('0' + d % 10);
        out[10] = '\0';
        return;
    }
    if (d > 0) {
        snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
        memcpy(out, buf, 10);
        out[10] = '\0';
    } else {
        snprintf(buf, sizeof buf, "%04d-%02d", y, m);
        memcpy(out, buf, 7);
        out[7] = '\0';
    }
}

/* "YYYY-MM" to the first day of that month, and of the month after: the
 * bounds [first, next) of its dates, and of its months by their first 7
 * characters.  After December 9999 (a date the API takes) comes no year
 * of four digits: "9999-13-01" sorts after every date and month of it. */
int month_bounds(const char *month, char *first, char *next)
{
    int y, m, i;

    if (month == NULL || strlen(month) != 7 || month[4] != '-')
        return -1;
    for (i = 0; i < 7; i++)
        if (i != 4 && (month[i] < '0' || month[i] > '9'))
            return -1;
    y = atoi(month);
    m = atoi(month + 5);
    if (y < 1900 || m < 1 || m > 12)
        return -1;
    put_date(first, y, m, 1);
    if (++m > 12 && y < 9999)
        m = 1, y++;
    put_date(next, y, m, 1);
    return 0;
}

void date_today(char *out)
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    put_date(out, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

void month_now(char *out)
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    put_date(out, tm.tm_year + 1900, tm.tm_mon + 1, 0);
}

/* The month n months after "YYYY-MM" (n may be negative). */
void month_add(const char *month, int n, char *out)
{
    int y = atoi(month), m = atoi(month + 5) - 1 + n;

    y += m >= 0 ? m / 12 : -((11 - m) / 12);
    m = ((m % 12) + 12) % 12;
    put_date(out, y, m + 1, 0);
}

/* Days since 1970-01-01 of a valid YYYY-MM-DD, and back (the civil-date
 * algorithms of Howard Hinnant's date library, in the proleptic Gregorian
 * calendar). */
int64_t days_of_date(const char *ymd)
{
    int64_t y = atoi(ymd), m = atoi(ymd + 5), d = atoi(ymd + 8), era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void date_of_days(int64_t z, char *out)
{
    int64_t era, doe, yoe, y, doy, mp, d, m;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    put_date(out, (int)(y + (m <= 2)), (int)m, (int)d);
}

void date_add_months(const char *ymd, int months, char *out)
{
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y = atoi(ymd), m = atoi(ymd + 5) - 1 + months, d = atoi(ymd + 8), last;

    y += m / 12;
    m %= 12;
    last = mdays[m] + (m == 1 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
    put_date(out, y, m + 1, d > last ? last : d);
}
