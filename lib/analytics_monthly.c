/*
 * The monthly report: spend per month and category, with the standing
 * budgets beside it, on the gross or mine basis (spend.c).  Gross spend
 * comes from the trigger-kept summary; mine corrects it by the few rows
 * where the two differ.  The report is given as a tree or as its JSON
 * text (ledger_analytics_monthly_text), which the front end writes as is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_out.h"
#include "spend.h"
#include "analytics.h"

/* Gross spend comes from the trigger-kept summary (spend_monthly), which
 * t/0008 holds equal to a recount of the rows. */
static const char SQL_MONTHLY[] =
    "SELECT month, category, cents FROM spend_monthly"
    " WHERE owner_id = ?1 AND month >= substr(?2, 1, 7) AND month < substr(?3, 1, 7)"
    "   AND cents <> 0";
static const char SQL_BUDGETS[] =
    "SELECT category, amount FROM budgets WHERE owner_id = ? ORDER BY category";

/* The month table being filled: a cell per month of the range and
 * category.  Categories are numbered as they first appear (names, whose
 * sums are unused) and each has a column of n months in cells, so a row's
 * cell is one search of some tens of names, and each name is copied once
 * rather than once a month. */
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
        /* The caller frees *out on every path: it must not be freed
         * twice. */
        cJSON_Delete(*out);
        *out = NULL;
        return db_error(db, err, "budgets");
    }
    return *out ? LEDGER_OK : ledger_error_oom(err);
}

/* Fills mt over [first, end) on the basis asked for: gross from the
 * summary, mine as gross corrected by the few rows where they differ,
 * since a walk of every row costs time in proportion to the ledger. */
static int fill_table(ledger_db *db, int64_t me, int mine, const char *first, const char *end,
                      struct month_table *mt, ledger_error *err)
{
    sqlite3_stmt *st;
    int rc;

    if ((st = report_stmt(db, SQL_MONTHLY, me, first, end, err)) == NULL)
        return LEDGER_ERR;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (table_add(mt, (const char *)sqlite3_column_text(st, 0),
                      (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2)))
            break;
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return ledger_error_oom(err);
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
 * at[c + 1] (,"budget":...}).  A name is escaped and each key written
 * once, not once per month: that work outweighs the rest of the report
 * outside SQLite. */
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
 * with a total of up to 13 digits, and each month's own items, reserved
 * once: growing it by doubling would move the text at each step and take
 * the heap's top from the kernel again each time. */
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
 * and these are put in place one by one, which for so few is cheaper
 * than qsort's calls through a comparison callback.  A ledger may name
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
 * JSON text: building, printing and freeing a long report's thousand
 * objects costs more than its SQL. */
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
    ledger_error_oom(err);
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
