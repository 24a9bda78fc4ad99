/*
 * The list query never scans a table: for every single filter and every
 * sort, EXPLAIN QUERY PLAN must show index searches on the real tables
 * (json_each and the page subquery may be scanned; they are the request's
 * own few values).  This is what keeps a page fast on a million rows; the
 * benchmark measures the time itself.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "tap.h"

static int is_table_scan(const char *line)
{
    static const char *const tables[] = {
        "t", "r", "tt", "g", "sp", "s", "u", "transactions", "splits", "tags",
        "transaction_tags", "users", "statements", "trips", "shared_rows", NULL
    };
    int i;

    line += strspn(line, " ");  /* the plan's indent */
    if (strncmp(line, "SCAN ", 5) != 0)
        return 0;
    for (i = 0; tables[i]; i++) {
        size_t n = strlen(tables[i]);

        if (strncmp(line + 5, tables[i], n) == 0 && (line[5 + n] == '\0' || line[5 + n] == ' '))
            return 1;
    }
    return 0;
}

static void no_scan(ledger_db *db, const char *what, const struct ledger_param *items, size_t n)
{
    struct ledger_params p = { items, n };
    ledger_error err;
    cJSON *plan = NULL, *line;
    int scans = 0;

    ledger_error_clear(&err);
    if (txn_list_plan(db, 1, &p, &plan, &err)) {
        ok(0, "%s: plan (%s)", what, err.message);
        return;
    }
    cJSON_ArrayForEach(line, plan)
        if (is_table_scan(line->valuestring)) {
            scans++;
            printf("#   %s\n", line->valuestring);
        }
    ok(scans == 0, "%s: no table scan", what);
    cJSON_Delete(plan);
}

/* The number of sorts the plan needs, each line printed.  A sort inside a
 * correlated subquery (a row's own few tags in name order) is not counted:
 * it is not a sort of the page's rows. */
static int sorts(ledger_db *db, const struct ledger_param *items, size_t n)
{
    struct ledger_params p = { items, n };
    ledger_error err;
    cJSON *plan = NULL, *line;
    int count = 0;
    size_t inside = 0;  /* the indent of the correlated subquery we are in, +1 */

    ledger_error_clear(&err);
    if (txn_list_plan(db, 1, &p, &plan, &err))
        return -1;
    cJSON_ArrayForEach(line, plan) {
        size_t indent = strspn(line->valuestring, " ");

        printf("#   %s\n", line->valuestring);
        if (inside && indent < inside)
            inside = 0;
        if (!inside && strstr(line->valuestring, "CORRELATED SCALAR SUBQUERY"))
            inside = indent + 1;
        count += !inside && strstr(line->valuestring, "TEMP B-TREE") != NULL;
    }
    cJSON_Delete(plan);
    return count;
}

/* Whether some line of the plan contains `what`; the plan printed if not. */
static int plan_has(ledger_db *db, const struct ledger_param *items, size_t n, const char *what)
{
    struct ledger_params p = { items, n };
    ledger_error err;
    cJSON *plan = NULL, *line;
    int found = 0;

    ledger_error_clear(&err);
    if (txn_list_plan(db, 1, &p, &plan, &err))
        return 0;
    cJSON_ArrayForEach(line, plan)
        found |= strstr(line->valuestring, what) != NULL;
    if (!found)
        cJSON_ArrayForEach(line, plan)
            printf("#   %s\n", line->valuestring);
    cJSON_Delete(plan);
    return found;
}

/* Whether a line of the plan of sql (not a list query) contains what;
 * the plan printed if not. */
static int raw_plan_has(ledger_db *db, const char *sql, const char *what)
{
    char eqp[1024];
    sqlite3_stmt *st;
    int found = 0;

    snprintf(eqp, sizeof eqp, "EXPLAIN QUERY PLAN %s", sql);
    if (sqlite3_prepare_v2(db->sql, eqp, -1, &st, NULL) != SQLITE_OK) {
        printf("# %s: %s\n", sql, sqlite3_errmsg(db->sql));
        return 0;
    }
    while (sqlite3_step(st) == SQLITE_ROW)
        found |= strstr((const char *)sqlite3_column_text(st, 3), what) != NULL;
    sqlite3_reset(st);
    while (!found && sqlite3_step(st) == SQLITE_ROW)
        printf("#   %s\n", (const char *)sqlite3_column_text(st, 3));
    sqlite3_finalize(st);
    return found;
}

#define P(k, v) { (char *)(k), (char *)(v) }

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me;

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    ledger_user_resolve(db, "alice", NULL, NULL, &me, &err);

    {
        struct ledger_param none[] = { P("x", "y") };
        no_scan(db, "default page", none, 0);
        is_int(sorts(db, none, 0), 1, "default page: both arms read in order, one sort of the page");
        ok(plan_has(db, none, 0, "SEARCH visible_total USING PRIMARY KEY (viewer_id=?)"),
           "default page: the total is the summary over the months");
        ok(plan_has(db, none, 0, "SEARCH tt USING PRIMARY KEY (transaction_id=?)"),
           "default page: a row's tags are read from its links, not from every tag the viewer has");
    }
    {
        struct ledger_param f[] = { P("date_from", "2026-01-01"), P("date_to", "2026-02-01") };
        no_scan(db, "date range", f, 2);
        ok(plan_has(db, f, 2, "SEARCH visible_count USING PRIMARY KEY (viewer_id=?"),
           "date range: the total is the months' summary");
    }
    {
        struct ledger_param f[] = { P("categories", "dining") };
        no_scan(db, "categories[]", f, 1);
    }
    {
        struct ledger_param f[] = { P("exclude_categories", "dining") };
        no_scan(db, "exclude_categories[]", f, 1);
    }
    {
        struct ledger_param f[] = { P("bank_names", "Manual") };
        no_scan(db, "bank_names[]", f, 1);
        ok(plan_has(db, f, 1, "visible_total"), "bank_names[]=Manual: total from the summary");
    }
    {
        struct ledger_param f[] = { P("bank_names", "Manual"), P("bank_names", "Westpac") };
        no_scan(db, "bank_names[] of Manual and a bank", f, 2);
        /* The date index carries statement_id (schemas 0009, 0014): the
         * rows are counted without reading them. */
        ok(plan_has(db, f, 2, "COVERING INDEX transactions_owner_date"),
           "bank_names[] of Manual and a bank: counted from the date index alone");
    }
    {
        struct ledger_param f[] = { P("tag_ids", "1") };
        no_scan(db, "tag_ids[]", f, 1);
    }
    {
        struct ledger_param f[] = { P("transaction_types", "fee") };
        no_scan(db, "transaction_types[]", f, 1);
    }
    {
        struct ledger_param f[] = { P("search", "coffee") };
        no_scan(db, "search", f, 1);
        /* ... and the searched columns (schema 0014). */
        ok(plan_has(db, f, 1, "COVERING INDEX transactions_owner_date"),
           "search: counted from the date index alone");
        /* With the search index (schema 0017): the caller's rows it gives,
         * one rowid range (FTS5 writes the range as "><"), and the shared
         * rows' texts from the index that holds them. */
        ok(plan_has(db, f, 1, "SCAN transactions_search VIRTUAL TABLE INDEX 0:M"),
           "search: the rows the search index gives");
        ok(plan_has(db, f, 1, "SCAN merchants_search VIRTUAL TABLE INDEX 0:M"),
           "  and those the normalized merchants' index gives");
        ok(plan_has(db, f, 1, "><"), "  only the caller's range of it");
        ok(plan_has(db, f, 1, "COVERING INDEX shared_rows_search"),
           "search: shared rows tested in shared_rows_search alone");
    }
    {
        struct ledger_param f[] = { P("amount_min", "10"), P("amount_max", "20") };
        no_scan(db, "amount range", f, 2);
    }
    {
        struct ledger_param f[] = { P("has_split", "split") };
        no_scan(db, "has_split=split", f, 1);
        ok(plan_has(db, f, 1, "visible_total"), "has_split=split: total from the summary");
    }
    {
        struct ledger_param f[] = { P("has_split", "unsplit") };
        no_scan(db, "has_split=unsplit", f, 1);
        ok(plan_has(db, f, 1, "visible_total"), "has_split=unsplit: total from the summary");
    }
    {
        struct ledger_param f[] = { P("statement_id", "3") };
        no_scan(db, "statement_id", f, 1);
        /* The owner indexes cover the list's columns; without statistics
         * SQLite would walk every row the caller owns instead. */
        ok(plan_has(db, f, 1, "INDEX transactions_statement"), "statement_id: read from its rows");
    }
    {
        struct ledger_param f[] = { P("trip_id", "3") };
        no_scan(db, "trip_id", f, 1);
        ok(plan_has(db, f, 1, "INDEX transactions_trip"), "trip_id: read from its rows");
    }
    {
        struct ledger_param f[] = { P("trip_id", "3"), P("trip_all_rows", "1") };
        no_scan(db, "trip_id with trip_all_rows", f, 2);
    }
    {
        struct ledger_param f[] = { P("q", ">20 coffee") };
        no_scan(db, "q", f, 1);
    }
    {
        struct ledger_param f[] = { P("sort", "amount"), P("order", "asc") };
        no_scan(db, "sort=amount asc", f, 2);
    }
    {
        struct ledger_param f[] = { P("sort", "created_at") };
        no_scan(db, "sort=created_at", f, 1);
    }
    {
        struct ledger_param f[] = { P("sort", "merchant") };
        no_scan(db, "sort=merchant", f, 1);
    }
    {
        /* a deep page by cursor: "date|desc|100|2026-01-01" in hex */
        struct ledger_param f[] = { P("cursor", "646174657c646573637c3130307c323032362d30312d3031") };
        no_scan(db, "cursor page", f, 1);
    }
    /* The CSV commit indexes its new rows by their id range (schema 0020):
     * the search views' owner range once made SQLite walk every user's
     * rows in a covering index instead. */
    ok(raw_plan_has(db, SEARCH_ENTRIES_ADD " WHERE id BETWEEN ?1 AND ?2",
                    "INTEGER PRIMARY KEY (rowid>? AND rowid<?)"),
       "new rows' search entries are read by their id range");
    ok(raw_plan_has(db, "SELECT entry FROM merchant_search_entries WHERE id BETWEEN ?1 AND ?2",
                    "INTEGER PRIMARY KEY (rowid>? AND rowid<?)"),
       "and their merchant entries too");
    ledger_close(db);
    return done_testing();
}
