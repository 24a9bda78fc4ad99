/*
 * Sums past 2^63 cents in the reports SQL adds up itself.  SQL's SUM()
 * stops there with "integer overflow" (the merchant lists, a merchant's
 * history, fees, trip analytics and payments answered 400 for a ledger
 * with nothing wrong in it), and C's int64 += past it is undefined.
 * ledger_sum (db_func.c) adds in 128 bits and hands the sum over as a BLOB whose
 * bytes sort as the numbers do; every figure below must be exact, and
 * lists ordered by such a sum must keep their order across signs.
 *
 * The rows are the largest amount the API takes (10^13, 10^15 cents),
 * 9,300 of each kind, spread over two months so that no one cell of the
 * monthly summary (int64, schema 0018) passes 2^63 on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "fields.h"
#include "sqltest.h"
#include "tap.h"

#define BIG "1000000000000000"             /* 10^15 cents */
#define HALF "46500000000000000.00"        /* 4,650 rows of them */
#define ALL "93000000000000000.00"         /* 9,300: past 2^63 cents */

/* The text of o's item at the path of keys (an array index as "#n"). */
static const char *money_at(const cJSON *o, const char *const *path)
{
    for (; o && *path; path++)
        o = (*path)[0] == '#' ? cJSON_GetArrayItem(o, atoi(*path + 1))
                              : cJSON_GetObjectItemCaseSensitive(o, *path);
    return o && cJSON_IsRaw(o) ? o->valuestring : NULL;
}

#define MONEY_IS(o, want, name, ...)                                                     \
    do {                                                                                 \
        static const char *const path_[] = { __VA_ARGS__, NULL };                       \
        const char *got_ = money_at((o), path_);                                         \
        is_str(got_ ? got_ : "(none)", (want), (name));                                  \
    } while (0)

static const char *text_at(const cJSON *arr, int i, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, i), key);

    return cJSON_IsString(v) ? v->valuestring : "(none)";
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me = 0, bob = 0;
    cJSON *doc = NULL, *body;
    char from[] = "from", to[] = "to", jan[] = "2027-01", feb[] = "2027-02";
    struct ledger_param pv[] = { { from, jan }, { to, feb } };
    struct ledger_params range = { pv, 2 }, none = { NULL, 0 };

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open (%s)", err.message);
    ledger_user_resolve(db, "alice", "alice@example.org", NULL, &me, &err);
    ledger_user_resolve(db, "bob", "bob@example.org", NULL, &bob, &err);
    body = cJSON_Parse("{\"email\": \"bob@example.org\"}");
    ok(ledger_participant_add(db, me, body, &doc, &err) == 0, "bob is alice's participant");
    cJSON_Delete(body);
    cJSON_Delete(doc);
    doc = NULL;

    /* Alice's trip and card statement; at merchant Big 9,300 debits in the
     * trip, at the statement 9,300 fees (of no merchant); Small a little spend and Neg only
     * a refund, to order around; bob pays alice 9,300 times in the trip. */
    sql_exec(db, "INSERT INTO trips (id, owner_id, name) VALUES (1, 1, 'far');"
                 "INSERT INTO statements (id, owner_id, bank_name, statement_type,"
                 "                        opening_balance, closing_balance)"
                 " VALUES (1, 1, 'Bank', 'credit_card', 0, 0);"
                 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 9300)"
                 " INSERT INTO transactions (owner_id, date, transaction_type, amount, category,"
                 "                           merchant, override_trip_id)"
                 " SELECT 1, printf('2027-%02d-01', 1 + i % 2), 'debit', " BIG ", 'dining', 'Big', 1"
                 "   FROM k;"
                 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 9300)"
                 " INSERT INTO transactions (statement_id, owner_id, date, transaction_type, amount,"
                 "                           category)"
                 " SELECT 1, 1, printf('2027-%02d-02', 1 + i % 2), 'fee', " BIG ", 'fees'"
                 "   FROM k;"
                 "INSERT INTO transactions (owner_id, date, transaction_type, amount, category, merchant)"
                 " VALUES (1, '2027-01-03', 'debit', 700, 'dining', 'Small'),"
                 "        (1, '2027-01-04', 'refund', 500, 'dining', 'Neg');"
                 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 9300)"
                 " INSERT INTO split_payments (from_user_id, to_user_id, amount, date, trip_id,"
                 "                             linked_transaction_id, created_by)"
                 " SELECT 2, 1, " BIG ", '2027-01-05', 1, 'pay-' || i, 2 FROM k;");
    is_int(sql_int(db, "SELECT COUNT(*) FROM transactions"), 2 * 9300 + 2, "18,602 rows");
    ok(sql_int(db, "SELECT COUNT(*) FROM spend_monthly WHERE typeof(cents) <> 'integer'") == 0,
       "every summary cell is still an integer");

    /* The aggregate itself. */
    is_int(sql_int(db, "SELECT ledger_sum(amount) IS NULL FROM transactions WHERE 0"), 1,
           "ledger_sum of no rows is NULL, as SUM's");
    is_int(sql_int(db, "SELECT COUNT(*) FROM (SELECT ledger_sum(amount) AS s FROM transactions"
                       " GROUP BY merchant) WHERE typeof(s) <> 'blob' OR length(s) <> 16"),
           0, "and of some rows 16 bytes");
    {
        static const money_sum v[] = { -((money_sum)1 << 100), (money_sum)INT64_MIN - 1, INT64_MIN,
                                       -1, 0, 1, INT64_MAX, (money_sum)INT64_MAX + 1,
                                       (money_sum)1 << 100 };
        unsigned char a[MONEY_SUM_BYTES], b[MONEY_SUM_BYTES];
        size_t i, wrong = 0;
        sqlite3_stmt *st = NULL;

        for (i = 0; i + 1 < sizeof v / sizeof *v; i++) {
            money_sum_pack(v[i], a);
            money_sum_pack(v[i + 1], b);
            wrong += memcmp(a, b, sizeof a) >= 0;
        }
        is_int((int)wrong, 0, "packed sums sort as the numbers do, across the sign and 2^63");
        sqlite3_prepare_v2(db->sql, "SELECT ?1, 42", -1, &st, NULL);
        for (i = 0; i < sizeof v / sizeof *v; i++) {
            money_sum_pack(v[i], a);
            sqlite3_bind_blob(st, 1, a, sizeof a, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_ROW || money_sum_column(st, 0) != v[i])
                wrong++;
            sqlite3_reset(st);
        }
        is_int((int)wrong, 0, "and read back as they were");
        sqlite3_step(st);
        ok(money_sum_column(st, 1) == 42, "a plain integer column reads as itself");
        sqlite3_finalize(st);
    }

    ok(ledger_merchant_list(db, me, &none, &doc, &err) == 0, "GET /api/merchants (%s)", err.message);
    MONEY_IS(doc, ALL, "Big's net spend past 2^63 cents", "items", "#0", "total");
    cJSON_Delete(doc);

    ok(ledger_analytics_merchants(db, me, &range, &doc, &err) == 0,
       "GET /api/analytics/merchants (%s)", err.message);
    MONEY_IS(doc, ALL, "the top merchant's spend past 2^63 cents", "items", "#0", "total");
    is_str(text_at(cJSON_GetObjectItem(doc, "items"), 0, "merchant"), "Big", "Big first");
    is_str(text_at(cJSON_GetObjectItem(doc, "items"), 1, "merchant"), "Small", "then Small");
    is_str(text_at(cJSON_GetObjectItem(doc, "items"), 2, "merchant"), "Neg", "then Neg, below zero");
    MONEY_IS(doc, "-5.00", "Neg's refund", "items", "#2", "total");
    cJSON_Delete(doc);

    ok(ledger_analytics_merchant(db, me, "Big", &range, &doc, &err) == 0,
       "GET /api/analytics/merchants/Big (%s)", err.message);
    MONEY_IS(doc, HALF, "January", "items", "#0", "total");
    MONEY_IS(doc, HALF, "February", "items", "#1", "total");
    MONEY_IS(doc, ALL, "the two months together", "spend");
    cJSON_Delete(doc);

    ok(ledger_analytics_fees(db, me, &range, &doc, &err) == 0, "GET /api/analytics/fees (%s)",
       err.message);
    MONEY_IS(doc, HALF, "January's fees", "by_month", "#0", "fees");
    MONEY_IS(doc, ALL, "the statement's fees", "by_statement", "#0", "fees");
    MONEY_IS(doc, ALL, "total_fees", "total_fees");
    cJSON_Delete(doc);

    ok(ledger_trip_analytics(db, me, 1, &doc, &err) == 0, "GET /api/trips/1/analytics (%s)",
       err.message);
    MONEY_IS(doc, ALL, "the trip's total", "total");
    MONEY_IS(doc, ALL, "by_category", "by_category", "#0", "total");
    MONEY_IS(doc, ALL, "by_merchant", "by_merchant", "#0", "total");
    MONEY_IS(doc, HALF, "by_day", "by_day", "#0", "total");
    cJSON_Delete(doc);

    ok(ledger_statement_get(db, me, 1, &doc, &err) == 0, "GET /api/statements/1 (%s)", err.message);
    ok(cJSON_IsFalse(cJSON_GetObjectItem(doc, "balance_ok")),
       "a card statement of 0 to 0 with 9,300 fees does not balance");
    MONEY_IS(doc, ALL, "off by exactly the fees", "balance_difference");
    cJSON_Delete(doc);

    ok(ledger_balance_get(db, me, bob, &doc, &err) == 0, "GET /api/participants/bob/balance (%s)",
       err.message);
    MONEY_IS(doc, ALL, "bob's payments to alice", "payments_to_me");
    MONEY_IS(doc, "-" ALL, "net: alice owes bob them back", "net");
    cJSON_Delete(doc);

    ok(ledger_trip_owed(db, me, 1, &doc, &err) == 0, "GET /api/trips/1/owed (%s)", err.message);
    MONEY_IS(doc, "-" ALL, "bob's trip payments, past 2^63 cents, less the nothing he owed",
             "owed_to_me", "#0", "amount");
    cJSON_Delete(doc);

    ledger_close(db);
    return done_testing();
}
