/*
 * The spend_monthly summary (schema 0003) must always equal a recount from
 * the rows, whatever writes happen: inserts of every type, overrides,
 * date and amount changes, reconciliation hiding a row, deletes of rows and
 * of whole statements.  A drift here would make the monthly report and
 * budgets silently wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "sqltest.h"
#include "tap.h"

/* The number of (owner, month, category) cells where the summary and a
 * recount of the rows disagree. */
static int drift(ledger_db *db)
{
    return sql_differ(db,
        "WITH recount AS (SELECT owner_id, month, category, SUM(cents) AS cents"
        "                   FROM spend_contribution GROUP BY 1, 2, 3),"
        "     kept AS (SELECT owner_id, month, category, cents FROM spend_monthly WHERE cents <> 0)",
        "SELECT * FROM recount WHERE cents <> 0", "SELECT * FROM kept");
}

static int64_t cell(ledger_db *db, const char *month, const char *category)
{
    sqlite3_stmt *st;
    int64_t v = 0;

    sqlite3_prepare_v2(db->sql, "SELECT cents FROM spend_monthly WHERE month = ? AND category = ?",
                       -1, &st, NULL);
    sqlite3_bind_text(st, 1, month, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The JSON text of a money item (NULL: none) is want. */
static void money_text_is(const cJSON *item, const char *want, const char *name)
{
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;

    is_str(text ? text : "", want, "%s", name);
    free(text);
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me, other;

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    ledger_user_resolve(db, "alice", NULL, NULL, &me, &err);
    ledger_user_resolve(db, "bob", NULL, NULL, &other, &err);
    sql_exec(db, "INSERT INTO statements (id, owner_id, bank_name, statement_type) VALUES (1, 1, 'B', 'credit_card')");
    sql_exec(db, "INSERT INTO transactions (id, statement_id, owner_id, date, transaction_type, amount, category) VALUES"
             " (1, 1, 1, '2026-01-05', 'debit', 1000, 'dining'),"
             " (2, 1, 1, '2026-01-06', 'refund', 300, 'dining'),"
             " (3, 1, 1, '2026-01-07', 'fee', 250, 'fees'),"
             " (4, 1, 1, '2026-01-08', 'credit', 5000, 'income'),"
             " (5, 1, 1, '2026-01-09', 'debit', 700, 'transfers'),"
             " (6, NULL, 1, '2026-02-01', 'debit', 1234, NULL),"
             " (7, NULL, 1, '2026-02-02', 'payment', 250000, 'loan_interest'),"
             " (8, NULL, 2, '2026-01-05', 'debit', 999, 'dining')");
    sql_exec(db, "UPDATE transactions SET principal_amount = 200000, interest_amount = 50000 WHERE id = 7");
    sql_exec(db, "UPDATE transactions SET amount_aud = 1500 WHERE id = 1");
    is_int(drift(db), 0, "after inserts of every type");
    is_int(cell(db, "2026-01", "dining"), 1500 - 300, "dining: amount_aud 15.00 less a 3.00 refund");
    is_int(cell(db, "2026-02", "loan_interest"), 50000, "an itemised repayment counts at its interest");
    is_int(cell(db, "2026-01", "transfers"), 0, "transfers are not spend");
    is_int(cell(db, "2026-01", "income"), 0, "income is not spend");

    sql_exec(db, "UPDATE transactions SET override_category = 'groceries' WHERE id = 1");
    is_int(drift(db), 0, "after an override moves a row to another category");
    sql_exec(db, "UPDATE transactions SET override_category = NULL WHERE id = 1");
    sql_exec(db, "UPDATE transactions SET date = '2026-03-31' WHERE id = 6");
    is_int(drift(db), 0, "after a date moves a row to another month");
    sql_exec(db, "UPDATE transactions SET amount = 4321, transaction_type = 'refund' WHERE id = 6");
    is_int(drift(db), 0, "after amount and type change");
    sql_exec(db, "UPDATE transactions SET reconciled_with_id = 3 WHERE id = 6");
    is_int(drift(db), 0, "after reconciliation hides a row");
    sql_exec(db, "UPDATE transactions SET reconciled_with_id = NULL WHERE id = 6");
    is_int(drift(db), 0, "after it is undone");
    sql_exec(db, "UPDATE transactions SET description = 'x', merchant = 'y' WHERE id = 1");
    is_int(drift(db), 0, "after a change that does not touch spend");
    sql_exec(db, "DELETE FROM transactions WHERE id = 2");
    is_int(drift(db), 0, "after a row is deleted");
    sql_exec(db, "DELETE FROM statements WHERE id = 1");
    is_int(drift(db), 0, "after a statement is deleted with its rows (cascade)");
    is_int(cell(db, "2026-01", "dining"), 0, "its spend is gone");
    sql_exec(db, "DELETE FROM users WHERE id = 2");
    is_int(drift(db), 0, "after a user is deleted with everything");

    /* Many random writes through the library's own paths. */
    {
        int i;
        char sql[256];

        for (i = 0; i < 500; i++) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                     " VALUES (1, '2026-%02d-%02d', '%s', %d, '%s')", 1 + i % 12, 1 + i % 28,
                     i % 5 == 0 ? "refund" : i % 7 == 0 ? "credit" : "debit", 100 + i,
                     i % 3 == 0 ? "dining" : i % 3 == 1 ? "transfers" : "Groceries");
            sql_exec(db, sql);
            if (i % 4 == 0) {
                snprintf(sql, sizeof sql, "UPDATE transactions SET amount = amount + 7,"
                         " override_category = 'fuel' WHERE id = (SELECT MAX(id) FROM transactions)");
                sql_exec(db, sql);
            }
            if (i % 9 == 0)
                sql_exec(db, "DELETE FROM transactions WHERE id = (SELECT MIN(id) FROM transactions)");
        }
        is_int(drift(db), 0, "after 500 mixed inserts, updates and deletes");
    }
    {
        /* A CSV commit adds its rows to the summary grouped, with the row
         * trigger held off (schema 0011): the same sums, and nothing
         * left holding the triggers off. */
        static const char body[] =
            "{\"rows\": ["
            "{\"date\": \"2026-03-01\", \"description\": \"csv a\", \"amount\": 12.34,"
            " \"category\": \"dining\"},"
            "{\"date\": \"2026-03-02\", \"description\": \"csv b\", \"amount\": 1.00,"
            " \"transaction_type\": \"refund\", \"category\": \"dining\"},"
            "{\"date\": \"2026-03-03\", \"description\": \"csv c\", \"amount\": 99.00,"
            " \"transaction_type\": \"credit\", \"category\": \"income\"},"
            "{\"date\": \"2026-04-04\", \"description\": \"csv d\", \"amount\": 5.00},"
            "{\"date\": \"2026-04-05\", \"description\": \"csv e\", \"amount\": 7.00,"
            " \"category\": \"transfers\"}]}";
        int64_t before = cell(db, "2026-03", "dining");
        cJSON *in = NULL, *out = NULL;

        ok(ledger_json_parse(body, strlen(body), &in, &err) == 0
           && ledger_csv_commit(db, me, in, &out, &err) == 0, "a CSV commit of five rows");
        if (out == NULL)
            printf("#   %s: %s\n", err.field, err.message);
        is_int(drift(db), 0, "after a CSV commit");
        is_int(cell(db, "2026-03", "dining") - before, 1234 - 100, "its dining: 12.34 less a 1.00 refund");
        is_int(sql_int(db, "SELECT COUNT(*) FROM bulk_insert"), 0, "the insert triggers are on again");
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    {
        /* With a row at the highest id there is, SQLite hands out new ids
         * at random: a commit's ids are then no dense range, and other
         * rows (bob's, among those random ids) fall between its
         * lowest and highest.  The grouped sums must still count only the
         * commit's rows. */
        char body[4096];
        size_t len = 0;
        int i;
        cJSON *in = NULL, *out = NULL, *id;
        double lo = 0, hi = 0;

        sql_exec(db, "INSERT INTO transactions (id, owner_id, date, transaction_type, amount, category)"
                     " VALUES (2305843009213693952, 2, '2026-05-01', 'debit', 100, 'dining'),"
                     "        (9223372036854775807, 2, '2026-05-02', 'debit', 200, 'dining')");
        len += (size_t)snprintf(body + len, sizeof body - len, "{\"rows\": [");
        for (i = 0; i < 20; i++)
            len += (size_t)snprintf(body + len, sizeof body - len,
                                    "%s{\"date\": \"2026-05-%02d\", \"description\": \"scattered %d\","
                                    " \"amount\": 1.00, \"category\": \"dining\"}",
                                    i ? "," : "", i + 1, i);
        snprintf(body + len, sizeof body - len, "]}");
        ok(ledger_json_parse(body, strlen(body), &in, &err) == 0
           && ledger_csv_commit(db, me, in, &out, &err) == 0, "a CSV commit with ids at random");
        cJSON_ArrayForEach(id, cJSON_GetObjectItem(out, "transaction_ids")) {
            if (lo == 0 || id->valuedouble < lo)
                lo = id->valuedouble;
            if (id->valuedouble > hi)
                hi = id->valuedouble;
        }
        ok(lo < 2305843009213693952.0 && hi > 2305843009213693952.0,
           "bob's row lies between the commit's lowest and highest id");
        is_int(drift(db), 0, "after it");
        is_int(sql_int(db, "SELECT SUM(cents) FROM spend_monthly"
                           " WHERE month = '2026-05' AND category = 'dining'"),
               2000 + 300, "alice's 20.00 and bob's 3.00 in May");
        is_int(sql_int(db, "SELECT n FROM visible_count WHERE viewer_id = 2 AND month = '2026-05'"),
               2, "bob sees his two May rows, counted once");
        cJSON_Delete(in);
        cJSON_Delete(out);
    }
    /* A cell past 2^63 cents (schema 0018).  SQLite's + would carry on in
     * floating point and leave an inexact REAL; the write must fail with a
     * 400 instead, and leave the cell and the rows as they were.  9,223
     * rows of 10^15 cents fill a cell to within 3.7 * 10^14 of the top. */
    {
        static const char *const writes[][2] = {
            { "a debit into the full cell",
              "{\"date\": \"2027-03-15\", \"description\": \"top\", \"amount\": 10000000000000,"
              " \"category\": \"dining\"}" },
            { "a refund into the full negative cell",
              "{\"date\": \"2027-04-15\", \"description\": \"bottom\", \"amount\": 10000000000000,"
              " \"category\": \"dining\", \"transaction_type\": \"refund\"}" },
        };
        cJSON *in = NULL, *out = NULL;
        int i, rows;

        sql_exec(db, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 9223)"
                     " INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                     " SELECT 1, '2027-03-01', 'debit', 1000000000000000, 'dining' FROM k"
                     " UNION ALL SELECT 1, '2027-04-01', 'refund', 1000000000000000, 'dining' FROM k;"
                     "INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                     " VALUES (1, '2027-05-01', 'debit', 1000000000000000, 'dining')");
        is_int(sql_int(db, "SELECT COUNT(*) FROM spend_monthly WHERE owner_id = 1"
                           " AND month IN ('2027-03', '2027-04') AND typeof(cents) = 'integer'"
                           " AND abs(cents) = 9223000000000000000"), 2,
               "two cells filled to 9,223 * 10^15 cents, one each way");
        rows = sql_int(db, "SELECT COUNT(*) FROM transactions");
        for (i = 0; i < 2; i++) {
            ledger_error_clear(&err);
            ledger_begin(db, 1, &err);
            ok(ledger_json_parse(writes[i][1], strlen(writes[i][1]), &in, &err) == 0
               && ledger_txn_create(db, me, in, &out, &err) == LEDGER_ERR && err.status == 400
               && strstr(err.message, "more than the ledger can hold"),
               "%s is a 400 (%d %s)", writes[i][0], err.status, err.message);
            ledger_rollback(db);
            cJSON_Delete(in);
            cJSON_Delete(out);
            in = out = NULL;
        }
        /* The update path: a row of another month moved into the full one. */
        ledger_error_clear(&err);
        ledger_begin(db, 1, &err);
        ok(sqlite3_exec(db->sql, "UPDATE transactions SET date = '2027-03-20' WHERE date = '2027-05-01'",
                        NULL, NULL, NULL) == SQLITE_CONSTRAINT_TRIGGER
           && db_error(db, &err, "move") == LEDGER_ERR && err.status == 400,
           "a row moved into the full cell is refused, a 400 (%d %s)", err.status, err.message);
        ledger_rollback(db);
        is_int(sql_int(db, "SELECT COUNT(*) FROM transactions"), rows, "no row was written");
        is_int(sql_int(db, "SELECT COUNT(*) FROM spend_monthly WHERE owner_id = 1"
                           " AND month IN ('2027-03', '2027-04') AND typeof(cents) = 'integer'"
                           " AND abs(cents) = 9223000000000000000"), 2, "both cells are as they were");
        is_int(sql_int(db, "SELECT COUNT(*) FROM spend_monthly WHERE typeof(cents) <> 'integer'"), 0,
               "no cell holds anything but an integer");
        is_int(drift(db), 0, "and the summary still equals a recount");

        /* Two full cells of one month pass 2^63 cents together: the
         * month's total is their exact sum (it wrapped to a negative). */
        sql_exec(db, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 9223)"
                     " INSERT INTO transactions (owner_id, date, transaction_type, amount, category)"
                     " SELECT 1, '2027-03-02', 'debit', 1000000000000000, 'travel' FROM k");
        {
            char from[] = "from", to[] = "to", month[] = "2027-03";
            struct ledger_param pv[] = { { from, month }, { to, month } };
            struct ledger_params p = { pv, 2 };
            cJSON *doc = NULL, *m;

            ledger_error_clear(&err);
            ok(ledger_analytics_monthly(db, me, &p, &doc, &err) == LEDGER_OK,
               "the monthly report of the month (%s)", err.message);
            m = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0);
            money_text_is(cJSON_GetObjectItem(m, "total"), "184460000000000000.00",
                          "its total is dining's and travel's 9,223 * 10^15 cents each, past 2^63");
            cJSON_Delete(doc);
        }
        /* The same rows split 99.99% with user 2: what 2 owes passes 2^63
         * cents, and the balance is their exact sum (it wrapped, so the
         * debt pointed the wrong way). */
        sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
                     " SELECT id, p, CASE p WHEN 2 THEN 9999 ELSE 1 END, 0"
                     "   FROM transactions, (SELECT 1 AS p UNION ALL SELECT 2)"
                     "  WHERE owner_id = 1 AND date IN ('2027-03-01', '2027-03-02')");
        {
            cJSON *doc = NULL;

            ledger_error_clear(&err);
            ok(ledger_balance_get(db, me, 2, &doc, &err) == LEDGER_OK, "the balance with user 2 (%s)",
               err.message);
            money_text_is(cJSON_GetObjectItem(doc, "net"), "184441554000000000.00",
                          "18,446 rows of 10^15 cents at 99.99%: user 2 owes their exact sum, past 2^63");
            cJSON_Delete(doc);
        }
    }
    ledger_close(db);
    return done_testing();
}
