/*
 * Four trigger-kept tables serve the transaction list: visible_count
 * (schema 0005) gives its `total` when only category filters are set, and
 * visible_total (schema 0019) the same over every month; shared_rows
 * (schema 0006) lets it read rows shared through a split in sort order,
 * and transactions_search (schema 0017) finds searched rows.  All must
 * equal a recount whatever writes happen: rows and splits added and
 * removed, overrides, new dates, amounts and merchants, a change of owner,
 * reconciliation hiding a row, deletes by cascade.  And
 * the list's total must equal the rows the list itself returns, in order,
 * or a client paging to `total` would stop early or wait for rows that
 * never come.
 */
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "fields.h"
#include "sqltest.h"
#include "tap.h"

/* The number of (viewer, month, category, type, manual, split) cells where
 * the summary and a recount disagree. */
static int drift(ledger_db *db)
{
    return sql_differ(db,
        "WITH recount AS (SELECT viewer_id, month, category, type, manual, split, COUNT(*) AS n"
        "                   FROM visible_rows GROUP BY 1, 2, 3, 4, 5, 6),"
        "     kept AS (SELECT viewer_id, month, category, type, manual, split, n"
        "                FROM visible_count WHERE n <> 0)",
        "SELECT * FROM recount", "SELECT * FROM kept");
}

/* The same for visible_total (schema 0019): the recount over the months. */
static int total_drift(ledger_db *db)
{
    return sql_differ(db,
        "WITH recount AS (SELECT viewer_id, category, type, manual, split, COUNT(*) AS n"
        "                   FROM visible_rows GROUP BY 1, 2, 3, 4, 5),"
        "     kept AS (SELECT viewer_id, category, type, manual, split, n"
        "                FROM visible_total WHERE n <> 0)",
        "SELECT * FROM recount", "SELECT * FROM kept");
}

/* The same for shared_rows: entries missing, extra, or with stale keys or
 * searched texts (schema 0017). */
static int shared_drift(ledger_db *db)
{
    return sql_differ(db,
        "WITH recount AS (SELECT t.id, s.participant_id, t.date, t.amount, t.created_at, t.eff_merchant,"
        "                        t.description, t.merchant,"
        "                        COALESCE(t.override_merchant_normalized, t.merchant_normalized)"
        "                   FROM splits s JOIN transactions t ON t.id = s.transaction_id"
        "                  WHERE s.participant_id <> t.owner_id),"
        "     kept AS (SELECT transaction_id, viewer_id, date, amount, created_at, merchant,"
        "                     description, bank_merchant, merchant_normalized FROM shared_rows)",
        "SELECT * FROM recount", "SELECT * FROM kept");
}

/* The search indexes (schema 0017): a rowid per row, owner * 2^40 + id,
 * but for rows pending; in merchants_search only for rows with a
 * normalized merchant. */
static int search_drift(ledger_db *db)
{
#define INDEXED                                                                    \
    "SELECT owner_id * 1099511627776 + id FROM transactions"                      \
    " WHERE id BETWEEN 1 AND 1099511627775 AND owner_id BETWEEN 1 AND 8388607"    \
    "   AND id NOT IN (SELECT id FROM search_pending)"
    int a = sql_differ(db, "", INDEXED, "SELECT rowid FROM transactions_search");
    int b = sql_differ(db, "",
                       INDEXED " AND COALESCE(override_merchant_normalized, merchant_normalized)"
                       " IS NOT NULL",
                       "SELECT rowid FROM merchants_search");
#undef INDEXED

    return a < 0 || b < 0 ? -1 : a + b;
}

/* The same for has_split (schema 0027): rows flagged and rows split. */
static int split_flag_drift(ledger_db *db)
{
    return sql_differ(db, "", "SELECT id FROM transactions WHERE has_split",
                      "SELECT DISTINCT transaction_id FROM splits");
}

static int both_drift(ledger_db *db)
{
    int a = drift(db), b = shared_drift(db), c = search_drift(db), d = total_drift(db);
    int e = split_flag_drift(db);

    return a < 0 || b < 0 || c < 0 || d < 0 || e < 0 ? -1 : a + b + c + d + e;
}

/* The list's total and the number of rows it returns on one 500-row page,
 * for one user and one filter (key NULL: none). */
static void list_counts(ledger_db *db, int64_t me, const char *key, const char *value,
                        int64_t *total, int64_t *rows)
{
    char limit_key[] = "limit", limit_value[] = "500";
    struct ledger_param items[2] = { { limit_key, limit_value }, { (char *)key, (char *)value } };
    struct ledger_params p = { items, key ? 2 : 1 };
    ledger_error err;
    cJSON *doc = NULL;

    ledger_error_clear(&err);
    *total = *rows = -1;
    if (ledger_txn_list(db, me, &p, &doc, &err) == LEDGER_OK) {
        *total = (int64_t)cJSON_GetObjectItem(doc, "total")->valuedouble;
        *rows = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items"));
    } else {
        printf("# list: %s\n", err.message);
    }
    cJSON_Delete(doc);
}

static void total_matches_rows(ledger_db *db, int64_t me, const char *key, const char *value,
                               int64_t expect, const char *what)
{
    int64_t total, rows;

    list_counts(db, me, key, value, &total, &rows);
    is_int(total, expect, "%s", what);
    is_int(rows, total, "  and the page holds that many rows");
}

/* A date range's total (summary for the whole months, rows counted at
 * the edges) equals the rows the list returns for it. */
static void range_total_ok(ledger_db *db, int64_t me, const char *from, const char *to,
                           const char *category)
{
    char k_limit[] = "limit", v_limit[] = "500", k_from[] = "date_from", k_to[] = "date_to";
    char k_cat[] = "categories", v_from[16], v_to[16], v_cat[32];
    struct ledger_param items[4] = { { k_limit, v_limit } };
    struct ledger_params p = { items, 1 };
    ledger_error err;
    cJSON *doc = NULL;
    int64_t total = -1, rows = -2;

    if (from) {
        snprintf(v_from, sizeof v_from, "%s", from);
        items[p.count].key = k_from;
        items[p.count++].value = v_from;
    }
    if (to) {
        snprintf(v_to, sizeof v_to, "%s", to);
        items[p.count].key = k_to;
        items[p.count++].value = v_to;
    }
    if (category) {
        snprintf(v_cat, sizeof v_cat, "%s", category);
        items[p.count].key = k_cat;
        items[p.count++].value = v_cat;
    }
    ledger_error_clear(&err);
    if (ledger_txn_list(db, me, &p, &doc, &err) == LEDGER_OK) {
        total = (int64_t)cJSON_GetObjectItem(doc, "total")->valuedouble;
        rows = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "items"));
    }
    cJSON_Delete(doc);
    ok(total == rows && rows < 500, "user %lld, %s .. %s%s%s: total %lld, rows listed %lld",
       (long long)me, from ? from : "", to ? to : "", category ? ", " : "", category ? category : "",
       (long long)total, (long long)rows);
}

/* Appends ",id" to buf for each id the query returns. */
static void reference_ids(ledger_db *db, int64_t me, const char *column, int desc, char *buf, size_t len)
{
    char sql[512];
    sqlite3_stmt *st;

    snprintf(sql, sizeof sql,
             "SELECT v.id FROM visible_rows v JOIN transactions t ON t.id = v.id"
             " WHERE v.viewer_id = ? ORDER BY t.%s %s, t.id %s", column,
             desc ? "DESC" : "ASC", desc ? "DESC" : "ASC");
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, me);
    while (sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf + strlen(buf), len - strlen(buf), ",%lld", (long long)sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
}

/* Walks the whole list seven rows at a time by cursor; the ids in order. */
static void listed_ids(ledger_db *db, int64_t me, const char *sort, int desc, char *buf, size_t len)
{
    char k_limit[] = "limit", v_limit[] = "7", k_sort[] = "sort", k_order[] = "order";
    char k_excl[] = "exclude_categories", v_excl[] = "", k_cursor[] = "cursor";
    char v_sort[32], v_order[8], cursor[1300] = "";
    int pages = 0;

    snprintf(v_sort, sizeof v_sort, "%s", sort);
    snprintf(v_order, sizeof v_order, "%s", desc ? "desc" : "asc");
    buf[0] = '\0';
    do {
        struct ledger_param items[5] = { { k_limit, v_limit }, { k_sort, v_sort }, { k_order, v_order },
                                         { k_excl, v_excl }, { k_cursor, cursor } };
        struct ledger_params p = { items, 5 };
        ledger_error err;
        cJSON *doc = NULL, *row, *next;

        ledger_error_clear(&err);
        if (ledger_txn_list(db, me, &p, &doc, &err) != LEDGER_OK) {
            printf("# list: %s\n", err.message);
            return;
        }
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "items"))
            snprintf(buf + strlen(buf), len - strlen(buf), ",%lld",
                     (long long)cJSON_GetObjectItem(row, "id")->valuedouble);
        next = cJSON_GetObjectItem(doc, "next_cursor");
        snprintf(cursor, sizeof cursor, "%s", cJSON_IsString(next) ? next->valuestring : "");
        cJSON_Delete(doc);
    } while (cursor[0] && ++pages < 1000);
}

/* Every sort key in both orders, walked by cursor, gives the rows the
 * user sees in the order a plain ORDER BY over the rows gives. */
static void orders_match(ledger_db *db, int64_t me, const char *when)
{
    static const char *const sorts[][2] = {
        { "date", "date" }, { "amount", "amount" }, { "created_at", "created_at" },
        { "merchant", "eff_merchant" }
    };
    static char want[16384], got[16384];
    size_t i;
    int desc;

    for (i = 0; i < sizeof sorts / sizeof sorts[0]; i++)
        for (desc = 0; desc < 2; desc++) {
            reference_ids(db, me, sorts[i][1], desc, want, sizeof want);
            listed_ids(db, me, sorts[i][0], desc, got, sizeof got);
            ok(strcmp(want, got) == 0 && want[0], "%s: sort=%s %s by cursor: every row, in order",
               when, sorts[i][0], desc ? "desc" : "asc");
            if (strcmp(want, got) != 0)
                printf("# want %.200s\n#  got %.200s\n", want, got);
        }
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t alice, bob, carol;

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    ledger_user_resolve(db, "alice", NULL, NULL, &alice, &err);
    ledger_user_resolve(db, "bob", NULL, NULL, &bob, &err);
    ledger_user_resolve(db, "carol", NULL, NULL, &carol, &err);
    sql_exec(db, "INSERT INTO statements (id, owner_id, bank_name, statement_type) VALUES (1, 1, 'B', 'credit_card')");
    sql_exec(db, "INSERT INTO transactions (id, statement_id, owner_id, date, transaction_type, amount, category) VALUES"
             " (1, 1, 1, '2026-01-05', 'debit', 1000, 'dining'),"
             " (2, 1, 1, '2026-01-06', 'debit', 300, 'dining'),"
             " (3, 1, 1, '2026-01-07', 'payment', 250, 'transfers'),"
             " (4, 1, 1, '2026-01-08', 'debit', 5000, NULL),"
             " (5, NULL, 2, '2026-01-09', 'debit', 700, 'groceries'),"
             " (6, NULL, 2, '2026-02-01', 'debit', 1234, 'dining')");
    is_int(both_drift(db), 0, "after inserts");

    /* alice splits two rows with bob, one of them naming herself too;
     * bob splits one of his with alice. */
    sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent) VALUES"
             " (1, 1, 5000), (1, 2, 5000), (2, 2, 10000), (5, 1, 4000), (5, 2, 6000)");
    is_int(both_drift(db), 0, "after splits, one naming the owner");
    total_matches_rows(db, alice, NULL, NULL, 4, "alice: 3 of her own (transfers hidden) and 1 of bob's");
    total_matches_rows(db, bob, NULL, NULL, 4, "bob: 2 of his own and 2 of alice's");
    total_matches_rows(db, carol, NULL, NULL, 0, "carol sees nothing");
    total_matches_rows(db, alice, "exclude_categories", "", 5, "alice with nothing excluded");
    total_matches_rows(db, alice, "categories", "transfers", 1, "alice asking for transfers");
    total_matches_rows(db, bob, "categories", "Dining", 3, "bob asking for dining (folded)");
    total_matches_rows(db, bob, "exclude_categories", "dining", 1, "bob excluding dining");
    /* has_split and Manual are summary keys too (schema 0009). */
    total_matches_rows(db, alice, "has_split", "split", 3, "alice: her 2 split rows and bob's");
    total_matches_rows(db, alice, "has_split", "unsplit", 1, "alice: 1 unsplit (transfers hidden)");
    total_matches_rows(db, bob, "has_split", "split", 3, "bob: his split row and alice's 2");
    total_matches_rows(db, bob, "has_split", "unsplit", 1, "bob: 1 unsplit");
    total_matches_rows(db, alice, "bank_names", "Manual", 1, "alice: bob's manual row shared");
    total_matches_rows(db, bob, "bank_names", "Manual", 2, "bob: his 2 manual rows");
    total_matches_rows(db, bob, "bank_names", "B", 2, "bob: alice's 2 rows from bank B");

    orders_match(db, bob, "bob, own and shared rows");
    sql_exec(db, "UPDATE transactions SET date = '2025-12-31', amount = 1, override_merchant_normalized = 'Zed'"
             " WHERE id = 2");
    is_int(both_drift(db), 0, "after a shared row's date, amount and merchant change");
    orders_match(db, bob, "bob, after the shared row's keys change");
    sql_exec(db, "UPDATE transactions SET transaction_type = 'fee' WHERE id = 5");
    is_int(both_drift(db), 0, "after a shared row's type changes");
    total_matches_rows(db, alice, "transaction_types", "fee", 1, "alice sees bob's row as a fee");
    sql_exec(db, "UPDATE transactions SET override_category = 'groceries' WHERE id = 1");
    is_int(both_drift(db), 0, "after an override moves a shared row");
    total_matches_rows(db, bob, "categories", "groceries", 2, "bob sees the override");
    sql_exec(db, "UPDATE transactions SET reconciled_with_id = 2 WHERE id = 6");
    is_int(both_drift(db), 0, "after reconciliation hides a row");
    total_matches_rows(db, bob, NULL, NULL, 3, "bob no longer sees it");
    sql_exec(db, "UPDATE transactions SET reconciled_with_id = NULL WHERE id = 6");
    sql_exec(db, "UPDATE transactions SET owner_id = 2 WHERE id = 2");
    is_int(both_drift(db), 0, "after a change of owner to the split's participant");
    sql_exec(db, "UPDATE splits SET participant_id = 3 WHERE transaction_id = 1 AND participant_id = 2");
    is_int(both_drift(db), 0, "after a split moves to another participant");
    total_matches_rows(db, carol, NULL, NULL, 1, "carol now sees the row");
    sql_exec(db, "DELETE FROM splits WHERE transaction_id = 5 AND participant_id = 1");
    is_int(both_drift(db), 0, "after a split is removed");
    total_matches_rows(db, bob, "has_split", "split", 2, "bob: rows 2 (his now) and 5 still split");
    sql_exec(db, "DELETE FROM splits WHERE transaction_id = 5");
    is_int(both_drift(db), 0, "after a row's last split is removed");
    total_matches_rows(db, bob, "has_split", "unsplit", 2, "bob: rows 5 and 6 unsplit");
    sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent) VALUES (5, 2, 10000)");
    is_int(both_drift(db), 0, "after it gets a split naming only its owner");
    total_matches_rows(db, bob, "has_split", "split", 2, "bob: row 5 is split again");
    sql_exec(db, "DELETE FROM transactions WHERE id = 1");
    is_int(both_drift(db), 0, "after a split row is deleted (its splits by cascade)");
    total_matches_rows(db, carol, NULL, NULL, 0, "carol's view of it is gone");
    sql_exec(db, "DELETE FROM statements WHERE id = 1");
    is_int(both_drift(db), 0, "after a statement is deleted with its rows");
    sql_exec(db, "DELETE FROM users WHERE id = 3");
    is_int(both_drift(db), 0, "after a user is deleted with everything");

    /* Many mixed writes. */
    {
        int i;
        char sql[256];

        for (i = 0; i < 400; i++) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                     " VALUES (%d, '2026-%02d-%02d', '%s', %d, %s)", 1 + i % 2, 1 + i % 12,
                     1 + i % 28, i % 5 == 0 ? "fee" : i % 5 == 1 ? "credit" : "debit", 100 + i,
                     i % 3 == 0 ? "'dining'" : i % 3 == 1 ? "'transfers'" : "NULL");
            sql_exec(db, sql);
            if (i % 3 == 0)
                sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent)"
                         " SELECT MAX(id), 2, 5000 FROM transactions");
            if (i % 4 == 0)
                sql_exec(db, "UPDATE transactions SET override_category = 'fuel'"
                         " WHERE id = (SELECT MAX(id) FROM transactions)");
            if (i % 7 == 0)
                sql_exec(db, "UPDATE transactions SET reconciled_with_id = (SELECT MAX(id) FROM transactions)"
                         " WHERE id = (SELECT MIN(id) FROM transactions WHERE reconciled_with_id IS NULL)"
                         " AND id <> (SELECT MAX(id) FROM transactions)");
            if (i % 9 == 0)
                sql_exec(db, "DELETE FROM transactions WHERE id = (SELECT MIN(id) FROM transactions)");
            if (i % 11 == 0)
                sql_exec(db, "UPDATE transactions SET transaction_type = 'refund'"
                         " WHERE id = (SELECT MAX(id) FROM transactions WHERE transaction_type = 'debit')");
        }
        is_int(both_drift(db), 0, "after 400 mixed inserts, splits, overrides, reconciliations, deletes");
        sql_exec(db, "UPDATE transactions SET date = '2027-01-01', merchant_normalized = 'Aardvark'"
                 " WHERE id % 5 = 0");
        is_int(both_drift(db), 0, "after many rows take one date and merchant (ties broken by id)");
        orders_match(db, bob, "bob, 400 rows with ties");
        orders_match(db, alice, "alice, 400 rows with ties");
        {
            static const char *const ranges[][2] = {
                { "2026-02-15", "2026-06-10" }, { "2026-02-01", "2026-06-30" },
                { "2026-01-31", "2026-02-01" }, { "2026-03-05", "2026-03-20" },
                { "2026-06-10", "2026-02-15" }, { "2026-11-28", "2027-01-01" },
                { "2026-12-31", "2027-01-01" }, { "2026-04-01", NULL }, { NULL, "2026-04-01" },
                { "2026-04-02", NULL }, { NULL, "2026-03-31" }, { "2026-12-01", "2026-12-31" }
            };
            size_t r;

            for (r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
                range_total_ok(db, alice, ranges[r][0], ranges[r][1], NULL);
                range_total_ok(db, bob, ranges[r][0], ranges[r][1], NULL);
                range_total_ok(db, bob, ranges[r][0], ranges[r][1], "fuel");
            }
        }
        {
            static const char *const types[] = { "fee", "credit", "refund", "debit" };
            size_t k;
            int64_t total, rows;

            for (k = 0; k < sizeof types / sizeof types[0]; k++) {
                list_counts(db, alice, "transaction_types", types[k], &total, &rows);
                ok(total == rows && total > 0, "alice, transaction_types=%s: total %lld, rows %lld",
                   types[k], (long long)total, (long long)rows);
                list_counts(db, bob, "transaction_types", types[k], &total, &rows);
                ok(total == rows && total > 0, "bob, transaction_types=%s: total %lld, rows %lld",
                   types[k], (long long)total, (long long)rows);
            }
        }
        {
            static const char *const kv[][2] = {
                { "has_split", "split" }, { "has_split", "unsplit" }, { "bank_names", "Manual" }
            };
            size_t k;
            int64_t total, rows;

            for (k = 0; k < sizeof kv / sizeof kv[0]; k++) {
                list_counts(db, alice, kv[k][0], kv[k][1], &total, &rows);
                ok(total == rows && total > 0, "alice, %s=%s: total %lld, rows %lld", kv[k][0],
                   kv[k][1], (long long)total, (long long)rows);
                list_counts(db, bob, kv[k][0], kv[k][1], &total, &rows);
                ok(total == rows && total > 0, "bob, %s=%s: total %lld, rows %lld", kv[k][0],
                   kv[k][1], (long long)total, (long long)rows);
            }
        }
    }
    {
        /* A CSV commit counts its rows grouped, not by trigger (0011). */
        static const char body[] =
            "{\"rows\": ["
            "{\"date\": \"2026-05-01\", \"description\": \"csv a\", \"amount\": 1.00,"
            " \"category\": \"fuel\"},"
            "{\"date\": \"2026-05-02\", \"description\": \"csv b\", \"amount\": 2.00,"
            " \"transaction_type\": \"credit\"},"
            "{\"date\": \"2026-06-03\", \"description\": \"csv c\", \"amount\": 3.00,"
            " \"category\": \"transfers\"}]}";
        cJSON *in = NULL, *out = NULL;
        int64_t total0, total, rows;

        list_counts(db, alice, "exclude_categories", "", &total0, &rows);
        ok(ledger_json_parse(body, strlen(body), &in, &err) == 0
           && ledger_csv_commit(db, alice, in, &out, &err) == 0, "a CSV commit of three rows");
        is_int(both_drift(db), 0, "after a CSV commit");
        list_counts(db, alice, "exclude_categories", "", &total, &rows);
        is_int(total - total0, 3, "alice sees the three new rows");
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    {
        int64_t total, rows;

        list_counts(db, bob, "exclude_categories", "", &total, &rows);
        ok(total > 100, "bob's ledger is not empty (%lld rows)", (long long)total);
        is_int(rows, total > 500 ? 500 : total, "and the list returns them all");
        list_counts(db, alice, "categories", "fuel", &total, &rows);
        is_int(rows, total, "alice's fuel total equals the rows listed");
    }
    ledger_close(db);
    return done_testing();
}
