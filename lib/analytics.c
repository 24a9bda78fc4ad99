/*
 * Analytics: spend per month and category with budgets, one month's
 * category in detail, top merchants and one merchant's history, and fees
 * and interest.  Spend is Business rule D (SPEND_SQL); the basis is gross
 * or mine (spend.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MONTHS_MAX 240

/* The caller's own rows in [?2, ?3) that count as spend. */
#define OWN_SPEND_ROWS \
    " FROM transactions t WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL" \
    "   AND t.date >= ?2 AND t.date < ?3 AND " SPEND_COUNTS_SQL("t")

/* Gross spend comes from the trigger-kept summary (schema 0003), which
 * t/0008 holds equal to a recount of the rows. */
static const char SQL_MONTHLY[] =
    "SELECT month, category, cents FROM spend_monthly"
    " WHERE owner_id = ?1 AND month >= substr(?2, 1, 7) AND month < substr(?3, 1, 7)"
    "   AND cents <> 0";
static const char SQL_BUDGETS[] =
    "SELECT category, amount FROM budgets WHERE owner_id = ? ORDER BY category";
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

/* from and to as YYYY-MM (inclusive), defaulting to the twelve months up to
 * this one; first and end are the date bounds [first, end). */
static int month_range(const struct ledger_params *p, char *from, char *to, char *first,
                       char *end, int *months, ledger_error *err)
{
    const char *f = param_get(p, "from"), *t = param_get(p, "to");
    char scratch[11];

    if (t)
        snprintf(to, 8, "%.7s", t);
    else
        month_now(to);
    if ((t && strlen(t) != 7) || month_bounds(to, scratch, end))
        return ledger_error_set(err, 400, "invalid_field", "to", "to must be a month YYYY-MM");
    if (f)
        snprintf(from, 8, "%.7s", f);
    else
        month_add(to, -11, from);
    /* A default from before the first month there is (to in 1900) starts
     * at the first: the error would name a parameter the caller never
     * sent (an audit). */
    if (!f && strcmp(from, "1900-01") < 0)
        memcpy(from, "1900-01", 8);
    if ((f && strlen(f) != 7) || month_bounds(from, first, scratch))
        return ledger_error_set(err, 400, "invalid_field", "from", "from must be a month YYYY-MM");
    if (strcmp(from, to) > 0)
        return t ? ledger_error_set(err, 400, "invalid_field", "to", "to is before from")
                 : ledger_error_set(err, 400, "invalid_field", "from",
                                    "from is after this month, where to defaults to: give to as well");
    *months = (atoi(to) - atoi(from)) * 12 + atoi(to + 5) - atoi(from + 5) + 1;
    if (*months > MONTHS_MAX)
        return ledger_error_set(err, 400, "invalid_field", "from",
                                "at most %d months at a time", MONTHS_MAX);
    return LEDGER_OK;
}

/* The month table being filled: a cell per month of the range and
 * category.  Categories are numbered as they first appear (names, whose
 * sums are unused) and each has a column of n months in cells, so a row's
 * cell is one search of some tens of names, and each name is copied once
 * rather than once a month (a five-year report's tallies were a fifth of
 * its time). */
struct month_table {
    char from[8];
    int from_number;     /* from as month_number gives it, read once */
    int n;
    int64_t me;
    money_sum *total;    /* per month */
    struct tally names;  /* the categories, numbered by position */
    money_sum *cells;    /* cells[category * n + month]: cents */
    size_t columns;      /* the categories cells has room for */
    size_t next;         /* the category after the last one found */
};

/* A month "YYYY-MM..." as a count of months (four atoi calls a row were a
 * twentieth of a monthly report's time); -1 when it is not one. */
static int month_number(const char *m)
{
    int i, year = 0;

    if (m == NULL)
        return -1;
    for (i = 0; i < 4; i++) {
        if (m[i] < '0' || m[i] > '9')
            return -1;
        year = year * 10 + m[i] - '0';
    }
    if (m[4] != '-' || m[5] < '0' || m[5] > '9' || m[6] < '0' || m[6] > '9')
        return -1;
    return year * 12 + (m[5] - '0') * 10 + m[6] - '0' - 1;
}

/* How many months month is after from; -1 when either is not a month. */
static int month_offset(const char *month, const char *from)
{
    int m = month_number(month), f = month_number(from);

    return m < 0 || f < 0 ? -1 : m - f;
}

/* The number of a category, given a column of cells when new; -1 when
 * out of memory. */
static long table_category(struct month_table *mt, const char *name)
{
    struct tally_item *it;

    /* The summary's rows come by month, then category: each month names
     * its categories in the order the first month did, so the one after
     * the last found is nearly always the next one asked for. */
    if (mt->next < mt->names.n && strcmp(mt->names.v[mt->next].name, name) == 0)
        it = &mt->names.v[mt->next];
    else if ((it = tally_get(&mt->names, name)) == NULL)
        return -1;
    mt->next = (size_t)(it - mt->names.v) + 1;
    if (mt->names.n > mt->columns) {
        size_t columns = mt->columns ? 2 * mt->columns : 16;
        money_sum *cells = realloc(mt->cells, columns * (size_t)mt->n * sizeof *cells);

        if (cells == NULL)
            return -1;
        memset(cells + mt->columns * (size_t)mt->n, 0,
               (columns - mt->columns) * (size_t)mt->n * sizeof *cells);
        mt->cells = cells;
        mt->columns = columns;
    }
    return (long)(it - mt->names.v);
}

/* Adds cents to a category of a month; -1 when out of memory. */
static int table_add(struct month_table *mt, const char *month, const char *category,
                     int64_t cents)
{
    int i = month_number(month);
    long c;

    if (i < 0 || (i -= mt->from_number) < 0 || i >= mt->n)
        return 0;
    if ((c = table_category(mt, category)) < 0)
        return -1;
    mt->total[i] += cents;
    mt->cells[(size_t)c * (size_t)mt->n + (size_t)i] += cents;
    return 0;
}

/* The mine basis from the gross table: a row the caller owns moves from
 * its spend to its mine part; a row shared with them adds their part. */
static int table_correct_mine(void *ctx, const struct spend_row *r)
{
    struct month_table *mt = ctx;

    return table_add(mt, r->month, r->category, r->owner == mt->me ? r->mine - r->spend : r->mine);
}

/* Standing monthly budgets of the caller, as {category: cents}. */
static int load_budgets(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_BUDGETS, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    *out = cJSON_CreateObject();
    sqlite3_bind_int64(st, 1, me);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        cJSON_AddNumberToObject(*out, (const char *)sqlite3_column_text(st, 0),
                                (double)sqlite3_column_int64(st, 1));
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        /* The caller frees *out on every path: not twice (a failed read
         * here was a double free). */
        cJSON_Delete(*out);
        *out = NULL;
        return db_error(db, err, "budgets");
    }
    return *out ? LEDGER_OK : ledger_error_set(err, 500, "internal", NULL, "out of memory");
}

/* Fills mt over [first, end) on the basis asked for: gross from the
 * summary, mine as gross corrected by the few rows where they differ (a
 * walk of every row took 130 ms over five years of 50,000 rows). */
static int fill_table(ledger_db *db, int64_t me, int mine, const char *first, const char *end,
                      struct month_table *mt, ledger_error *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((st = db_stmt(db, SQL_MONTHLY, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, first);
    db_bind_text(db, st, 3, end);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (table_add(mt, (const char *)sqlite3_column_text(st, 0),
                      (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2)))
            break;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    if (rc != SQLITE_DONE)
        return db_error(db, err, "monthly");
    mt->me = me;
    return mine ? spend_mine_each(db, me, first, end, 1, table_correct_mine, mt, err) : LEDGER_OK;
}

/* Whether category c shows in month i: a category whose parts net to
 * nothing (rows given away whole on basis=mine) is left out, as on gross,
 * unless it has a budget. */
static int cell_shown(const struct month_table *mt, const cJSON *const *budget, size_t c, int i)
{
    return mt->cells[c * (size_t)mt->n + (size_t)i] != 0 || budget[c] != NULL;
}

/* One category of a month as the report shows it. */
struct month_cell {
    money_sum cents;
    const char *category;
    size_t column;        /* its number in the month table */
};

/* The text of a category's cell but for its total, written once for all
 * the report's months: column c's cell is the bytes from at[c] to mid[c]
 * ({"category":"...","total":), its total, then those from mid[c] to
 * at[c + 1] (,"budget":...}).  Escaping its name and writing each key
 * again in every cell was some 40% of a five-year report's time outside
 * SQLite. */
struct cell_pieces {
    struct json_writer text;
    size_t *at, *mid;
};

static int cell_pieces_make(struct cell_pieces *cp, const struct month_table *mt,
                            const cJSON *const *budget)
{
    size_t c;
    char buf[32];

    if ((cp->at = calloc(mt->names.n + 1, sizeof *cp->at)) == NULL
        || (cp->mid = calloc(mt->names.n + 1, sizeof *cp->mid)) == NULL)
        return -1;
    for (c = 0; c < mt->names.n; c++) {
        cp->at[c] = cp->text.t.len;
        jw_piece(&cp->text, "{\"category\":", 12);
        jw_piece_string(&cp->text, mt->names.v[c].name);
        jw_piece(&cp->text, ",\"total\":", 9);
        cp->mid[c] = cp->text.t.len;
        jw_piece(&cp->text, ",\"budget\":", 10);
        if (budget[c])
            ledger_decimal2_format((int64_t)budget[c]->valuedouble, buf, sizeof buf);
        else
            memcpy(buf, "null", 5);
        jw_piece(&cp->text, buf, strlen(buf));
        jw_piece(&cp->text, "}", 1);
    }
    cp->at[c] = cp->text.t.len;
    return cp->text.t.failed ? -1 : 0;
}

/* Room for the report's text, of a cell for each category a month shows
 * with a total of up to 13 digits, and each month's own items: growing
 * the text by doubling from 4 kB moved a five-year report's 80 kB five
 * times, and took the heap's top from the kernel again each time. */
static size_t monthly_text_size(const struct month_table *mt, const struct cell_pieces *cp,
                                const cJSON *const *budget)
{
    size_t size = 64, c;
    int i;

    for (i = 0; i < mt->n; i++) {
        size += 96;
        for (c = 0; c < mt->names.n; c++)
            if (cell_shown(mt, budget, c, i))
                size += cp->at[c + 1] - cp->at[c] + 16;
    }
    return size;
}

static void cell_pieces_free(struct cell_pieces *cp)
{
    free(cp->text.t.p);
    free(cp->at);
    free(cp->mid);
}

/* Whether x comes before y: largest sum first, then by name. */
static int cell_before(const struct month_cell *x, const struct month_cell *y)
{
    if (x->cents != y->cents)
        return x->cents > y->cents;
    return strcmp(x->category, y->category) < 0;
}

static int by_cell_order(const void *a, const void *b)
{
    return cell_before(a, b) ? -1 : cell_before(b, a) ? 1 : 0;
}

/* A month's cells in report order.  A month has some fifteen categories,
 * and these are put in place one by one: qsort's merge sort through a
 * comparison callback was a tenth of a five-year report's time in perf's
 * samples (the report 435 -> 417 us without it).  A ledger may name
 * thousands (categories are the user's own words), and those go to
 * qsort, whose time grows as k log k rather than k * k. */
static void sort_cells(struct month_cell *cell, size_t k)
{
    size_t i, j;

    if (k > 32) {
        qsort(cell, k, sizeof *cell, by_cell_order);
        return;
    }
    for (i = 1; i < k; i++) {
        struct month_cell c = cell[i];

        for (j = i; j > 0 && cell_before(&c, &cell[j - 1]); j--)
            cell[j] = cell[j - 1];
        cell[j] = c;
    }
}

/* Month i's categories as {category, total, budget}, largest first, with
 * every budgeted category present; budget[c] is category c's budget or
 * NULL, cell is room for every category, and cp the cells' text when the
 * sink writes text. */
static void month_categories(struct json_sink *s, const struct month_table *mt, int i,
                             const cJSON *const *budget, struct month_cell *cell,
                             const struct cell_pieces *cp)
{
    size_t c, k = 0, j;

    for (c = 0; c < mt->names.n; c++) {
        if (!cell_shown(mt, budget, c, i))
            continue;
        cell[k].cents = mt->cells[c * (size_t)mt->n + (size_t)i];
        cell[k].category = mt->names.v[c].name;
        cell[k++].column = c;
    }
    sort_cells(cell, k);
    sink_open(s, "categories", 1);
    for (j = 0; j < k && cp; j++) {
        const char *p = cp->text.t.p;
        size_t at = cp->at[cell[j].column], mid = cp->mid[cell[j].column], n;
        char buf[48];

        n = money_sum_text(cell[j].cents, buf, sizeof buf);
        jw_begin(s->w, NULL);
        jw_piece(s->w, p + at, mid - at);
        jw_piece(s->w, buf, n);
        jw_piece(s->w, p + mid, cp->at[cell[j].column + 1] - mid);
    }
    for (j = 0; j < k && !cp; j++) {
        sink_open(s, NULL, 0);
        sink_text(s, "category", cell[j].category);
        sink_money_sum(s, "total", cell[j].cents);
        if (budget[cell[j].column])
            sink_money(s, "budget", (int64_t)budget[cell[j].column]->valuedouble);
        else
            sink_raw(s, "budget", NULL);
        sink_close(s, 0);
    }
    sink_close(s, 1);
}

/* The report's items as a tree, or (text) as one cJSON_Raw item of their
 * JSON text: building, printing and freeing a five-year report's thousand
 * objects took longer than its SQL. */
static int monthly(ledger_db *db, int64_t me, const struct ledger_params *p, int text,
                   cJSON **out, ledger_error *err)
{
    char first[11], end[11];
    struct month_table mt;
    struct month_cell *cell = NULL;
    struct cell_pieces cp;
    struct json_writer w;
    struct json_sink s = { NULL, { NULL }, 0 };
    const cJSON **budget = NULL, *b;
    cJSON *budgets = NULL, *doc, *items;
    int mine, i, rc = LEDGER_ERR;

    memset(&mt, 0, sizeof mt);
    memset(&cp, 0, sizeof cp);
    memset(&w, 0, sizeof w);
    if (spend_basis(p, &mine, err)
        || month_range(p, mt.from, (char[8]){ 0 }, first, end, &mt.n, err))
        return LEDGER_ERR;
    mt.from_number = month_number(mt.from);
    if ((mt.total = calloc((size_t)mt.n, sizeof *mt.total)) == NULL)
        goto oom;
    if (load_budgets(db, me, &budgets, err) || fill_table(db, me, mine, first, end, &mt, err))
        goto out;
    /* Every budgeted category has a column, spent in or not. */
    cJSON_ArrayForEach(b, budgets)
        if (table_category(&mt, b->string) < 0)
            goto oom;
    if ((budget = calloc(mt.names.n + 1, sizeof *budget)) == NULL
        || (cell = calloc(mt.names.n + 1, sizeof *cell)) == NULL)
        goto oom;
    cJSON_ArrayForEach(b, budgets)
        budget[table_category(&mt, b->string)] = b;
    if (text) {
        s.w = &w;
        if (cell_pieces_make(&cp, &mt, budget) || jw_reserve(&w, monthly_text_size(&mt, &cp, budget)))
            goto oom;
    }
    sink_open(&s, NULL, 1);
    for (i = 0; i < mt.n; i++) {
        char month[8];

        month_add(mt.from, i, month);
        sink_open(&s, NULL, 0);
        sink_text(&s, "month", month);
        sink_money_sum(&s, "total", mt.total[i]);
        month_categories(&s, &mt, i, budget, cell, text ? &cp : NULL);
        sink_close(&s, 0);
    }
    sink_close(&s, 1);
    if (text) {
        if ((items = jw_finish_raw(&w)) == NULL)
            goto oom;
    } else {
        items = s.at[0];
    }
    doc = cJSON_CreateObject();
    cJSON_AddItemToObjectCS(doc, "items", items);
    cJSON_AddNumberToObject(doc, "total", mt.n);
    cJSON_AddStringToObject(doc, "basis", mine ? "mine" : "gross");
    *out = doc;
    rc = LEDGER_OK;
    goto out;
oom:
    ledger_error_set(err, 500, "internal", NULL, "out of memory");
    if (!text)
        cJSON_Delete(s.at[0]);
out:
    tally_free(&mt.names);
    free(mt.cells);
    free(mt.total);
    free(budget);
    free(cell);
    cell_pieces_free(&cp);
    free(w.t.p);
    cJSON_Delete(budgets);
    return rc;
}

int ledger_analytics_monthly(ledger_db *db, int64_t me, const struct ledger_params *p,
                             cJSON **out, ledger_error *err)
{
    return monthly(db, me, p, 0, out, err);
}

int ledger_analytics_monthly_text(ledger_db *db, int64_t me, const struct ledger_params *p,
                                  cJSON **out, ledger_error *err)
{
    return monthly(db, me, p, 1, out, err);
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

int ledger_analytics_drilldown(ledger_db *db, int64_t me, const char *month,
                               const char *category, const struct ledger_params *p,
                               cJSON **out, ledger_error *err)
{
    char first[11], end[11], folded[LEDGER_CATEGORY_MAX];
    struct drill d = { NULL, 0, { NULL, 0, 0, NULL, 0 }, cJSON_CreateArray() };
    cJSON *doc = NULL, *arr, *m, *rows;
    sqlite3_stmt *st;
    size_t i;
    int mine, step, rc = LEDGER_ERR;

    if (spend_basis(p, &mine, err))
        goto out;
    if (month_bounds(month, first, end)) {
        ledger_error_set(err, 400, "invalid_field", "month", "month must be YYYY-MM");
        goto out;
    }
    if (category_of_report(category, folded, err))
        goto out;
    d.category = folded;
    if (mine) {
        if (spend_mine_each(db, me, first, end, 0, drill_mine, &d, err))
            goto out;
    } else {
        static const char SQL_DRILL[] =
            "SELECT t.id, t.eff_merchant, " SPEND_SQL("t") OWN_SPEND_ROWS
            " AND " SPEND_CATEGORY_SQL("t") " = ?4 ORDER BY t.date, t.id";

        if ((st = db_stmt(db, SQL_DRILL, err)) == NULL)
            goto out;
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(db, st, 2, first);
        db_bind_text(db, st, 3, end);
        db_bind_text(db, st, 4, folded);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            if (drill_add(&d, (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                          sqlite3_column_int64(st, 0)))
                break;
        db_stmt_done(st);
        if (rc == SQLITE_ROW) {
            rc = ledger_error_set(err, 500, "internal", NULL, "out of memory");
            goto out;
        }
        if (rc != SQLITE_DONE) {
            rc = db_error(db, err, "drill-down");
            goto out;
        }
        rc = LEDGER_ERR;
    }
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
    rows = cJSON_AddArrayToObject(doc, "transactions");
    cJSON_ArrayForEach(m, d.ids) {
        cJSON *row = NULL;

        if ((st = db_stmt(db, SQL_ROW_BY_ID, err)) == NULL)
            goto out;
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), (int64_t)m->valuedouble);
        sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":me"), me);
        /* Each id is a row just summed in this transaction: no row, or
         * no memory for it, is an error, not a row to leave out. */
        if ((step = sqlite3_step(st)) == SQLITE_ROW)
            row = txn_row_json(st, me);
        db_stmt_done(st);
        if (step != SQLITE_ROW) {
            db_error(db, err, "monthly drill-down");
            goto out;
        }
        if (row == NULL) {
            ledger_error_set(err, 500, "internal", NULL, "out of memory");
            goto out;
        }
        cJSON_AddItemToArray(rows, row);
    }
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
    const char *v = param_get(p, "limit");
    struct merchant_walk w;
    int64_t limit = 20, total = 0;
    int months, mine, rc;
    size_t i;
    sqlite3_stmt *st;
    cJSON *doc, *items;

    memset(&w, 0, sizeof w);
    if (month_range(p, from, to, first, end, &months, err) || spend_basis(p, &mine, err))
        return LEDGER_ERR;
    if (v && parse_whole(v, 1, 500, &limit))
        return ledger_error_set(err, 400, "invalid_field", "limit",
                                "limit must be a whole number from 1 to 500");
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
        if ((st = db_stmt(db, SQL_MERCHANTS_TOP, err)) == NULL) {
            cJSON_Delete(doc);
            return LEDGER_ERR;
        }
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(db, st, 2, first);
        db_bind_text(db, st, 3, end);
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
        return ledger_error_set(err, 400, "invalid_field", "merchant",
                                "merchant must be at most %d bytes", MERCHANT_MAX);
    if (month_range(p, from, to, first, end, &months, err) || spend_basis(p, &mine, err))
        return LEDGER_ERR;
    w.merchant = merchant;
    w.from = from;
    w.months = months;
    w.sums = calloc((size_t)months, sizeof *w.sums);
    w.counts = calloc((size_t)months, sizeof *w.counts);
    if (w.sums == NULL || w.counts == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    if (mine) {
        if (spend_mine_each(db, me, first, end, 0, merchant_mine, &w, err))
            goto out;
    } else {
        if ((st = db_stmt(db, SQL_MERCHANT_MONTHS, err)) == NULL)
            goto out;
        sqlite3_bind_int64(st, 1, me);
        db_bind_text(db, st, 2, first);
        db_bind_text(db, st, 3, end);
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
    if ((st = db_stmt(db, SQL_FEES_MONTHS, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, first);
    db_bind_text(db, st, 3, end);
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
    if ((st = db_stmt(db, SQL_FEES_STATEMENTS, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(db, st, 2, first);
    db_bind_text(db, st, 3, end);
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
