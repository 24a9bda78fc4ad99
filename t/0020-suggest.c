/*
 * Category suggestions (lib/suggest*.c, schema/0029_category_suggestions.sql): the counts they
 * read equal a recount after every kind of write, and each source gives
 * what its rule says: merchant memory with its counts, naive Bayes with
 * its words, the built-in prior for a user with no history; another
 * user's rows never move a suggestion; applying is all or nothing, never
 * replaces a category, and reverts like a rule run.
 */
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "fields.h"
#include "suggest.h"
#include "sqltest.h"
#include "tap.h"

/* The problems ledger-admin check finds in the suggestion counts,
 * described as TAP diagnostics; -1 when the check failed to run. */
static int drift(ledger_db *db)
{
    ledger_error err;
    cJSON *doc = NULL, *p;
    int n = 0;

    if (ledger_check(db, &doc, &err))
        return -1;
    cJSON_ArrayForEach(p, json_get(doc, "problems")) {
        const char *check = json_get(p, "check")->valuestring;

        if (strncmp(check, "suggest_", 8) == 0) {
            printf("# %s: %s\n", check, json_get(p, "detail")->valuestring);
            n++;
        }
    }
    cJSON_Delete(doc);
    return n;
}

/* Runs sql in a writing transaction, committed as a request is (which
 * counts the rows it wrote). */
static void write_sql(ledger_db *db, const char *sql)
{
    ledger_error err;

    ledger_begin(db, 1, &err);
    sql_exec(db, sql);
    if (ledger_commit(db, &err))
        printf("# commit: %s\n", err.message);
}

static struct suggestion suggest(ledger_db *db, int64_t owner, const char *desc,
                                 const char *merchant, int *found)
{
    struct suggestion s;
    ledger_error err;

    ledger_begin(db, 0, &err);
    if (suggest_row(db, owner, desc, merchant, "debit", &s, found, &err))
        printf("# suggest: %s\n", err.message);
    ledger_rollback(db);
    return s;
}

static int run_json(ledger_db *db, int64_t me, const char *body_text, cJSON **out,
                    ledger_error *err)
{
    cJSON *body = cJSON_Parse(body_text);
    int rc;

    ledger_begin(db, 1, err);
    rc = ledger_suggestion_apply(db, me, body, out, err);
    if (rc)
        ledger_rollback(db);
    else
        ledger_commit(db, err);
    cJSON_Delete(body);
    return rc;
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    struct suggestion s;
    struct suggest_words w;
    int64_t alice, bob, carol;
    int found, i;
    char sql[512];

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    ledger_user_resolve(db, "alice", NULL, NULL, &alice, &err);
    ledger_user_resolve(db, "bob", NULL, NULL, &bob, &err);
    ledger_user_resolve(db, "carol", NULL, NULL, &carol, &err);

    /* The words: numbers, filler and short tokens out, each word once,
     * the direction last. */
    suggest_cut("SQ *BLUE BOTTLE COFFEE 0123 SAN FRANCISCO CA", "Blue Bottle Coffee", "debit", &w);
    is_int(w.n, 5, "five words: blue, bottle, coffee, san, francisco");
    is_str(w.text[0], "blue", "the merchant's words come first, lowered");
    is_str(w.text[3], "san", "then the description's new ones");
    is_int(w.id[w.n], SUGGEST_WORD_OUT, "and a debit is money out");
    suggest_cut("Salary ACME", NULL, "credit", &w);
    is_int(w.id[w.n], SUGGEST_WORD_IN, "a credit is money in");

    /* A user with no history: the built-in prior, with low confidence. */
    s = suggest(db, alice, "STARBUCKS 1234 SYDNEY", "", &found);
    ok(found && strcmp(s.category, "dining") == 0 && strcmp(s.source, SUGGEST_BUILTIN) == 0,
       "no history: the built-in prior says dining for starbucks (%s, %s)", s.category, s.source);
    ok(s.confidence <= 30, "with low confidence (%d)", s.confidence);
    is_str(s.reason, "built-in: starbucks usually means dining", "and says why");
    s = suggest(db, alice, "XYZZY 42", "", &found);
    ok(!found, "no word the prior knows: no suggestion");

    /* Another user's history never reaches alice: bob files coffee under
     * groceries, many times. */
    for (i = 0; i < 30; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO transactions (owner_id, date, description, merchant, amount, category)"
                 " VALUES (%lld, '2026-01-%02d', 'COFFEE ROASTERS %d', 'Blue Bottle Coffee', 450,"
                 " 'groceries')", (long long)bob, i % 28 + 1, i);
        write_sql(db, sql);
    }
    is_int(drift(db), 0, "counts equal a recount after inserts");
    s = suggest(db, alice, "BLUE BOTTLE COFFEE ROASTERS", "Blue Bottle Coffee", &found);
    ok(found && strcmp(s.category, "dining") == 0 && strcmp(s.source, SUGGEST_BUILTIN) == 0,
       "bob's rows do not move alice's suggestion (%s, %s)", s.category, s.source);
    s = suggest(db, bob, "BLUE BOTTLE COFFEE", "Blue Bottle Coffee", &found);
    ok(found && strcmp(s.category, "groceries") == 0, "bob's own rows move bob's");

    /* Merchant memory, with its counts: 12 of 14 at one merchant. */
    for (i = 0; i < 14; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO transactions (owner_id, date, description, merchant, amount, category)"
                 " VALUES (%lld, '2026-02-%02d', 'SQ *BLUE BOTTLE COFFEE %d', 'Blue Bottle Coffee',"
                 " 500, '%s')", (long long)alice, i + 1, i, i < 12 ? "dining" : "groceries");
        write_sql(db, sql);
    }
    s = suggest(db, alice, "anything", "Blue Bottle Coffee", &found);
    ok(found && strcmp(s.source, SUGGEST_MERCHANT) == 0, "a known merchant: merchant memory");
    is_str(s.category, "dining", "its most used category");
    is_str(s.reason, "12 of your 14 rows at Blue Bottle Coffee are dining", "with the counts");
    is_int(s.confidence, 80, "confidence 12 / (14 + 1)");

    /* A merchant never categorised: the words. */
    write_sql(db, "INSERT INTO transactions (owner_id, date, description, merchant, amount, category)"
                  " VALUES (1, '2026-03-01', 'WOOLWORTHS METRO 1234', 'Woolworths', 8000, 'groceries'),"
                  " (1, '2026-03-02', 'WOOLWORTHS TOWN HALL', 'Woolworths', 9000, 'groceries'),"
                  " (1, '2026-03-03', 'NETFLIX.COM', 'Netflix', 1599, 'subscriptions'),"
                  " (1, '2026-03-04', 'SEVEN SEEDS COFFEE ROASTERS', '', 600, 'dining')");
    s = suggest(db, alice, "MARKET LANE COFFEE ROASTERS MELBOURNE", "Market Lane", &found);
    ok(found && strcmp(s.source, SUGGEST_WORDS) == 0, "a new merchant: the words (%s)", s.source);
    is_str(s.category, "dining", "coffee and roasters are dining here");
    ok(strncmp(s.reason, "words: ", 7) == 0 && strstr(s.reason, "roasters") && strstr(s.reason, "coffee"),
       "the reason names the words (%s)", s.reason);
    ok(s.confidence > 30 && s.confidence <= 95, "a confidence from the model (%d)", s.confidence);
    s = suggest(db, alice, "WOOLWORTHS 3321 NEWTOWN", "", &found);
    is_str(s.category, "groceries", "woolworths is groceries here");

    /* Every kind of write keeps the counts equal to a recount. */
    write_sql(db, "UPDATE transactions SET override_category = 'shopping' WHERE id = 31");
    is_int(drift(db), 0, "after an override");
    write_sql(db, "UPDATE transactions SET override_category = NULL, category = 'Dining' WHERE id = 32");
    is_int(drift(db), 0, "after an override cleared and a category changed");
    write_sql(db, "UPDATE transactions SET description = 'BLUE BOTTLE ESPRESSO' WHERE id = 33");
    is_int(drift(db), 0, "after a new description");
    write_sql(db, "UPDATE transactions SET override_merchant_normalized = 'Blue Bottle' WHERE id = 34");
    is_int(drift(db), 0, "after a new effective merchant");
    write_sql(db, "UPDATE transactions SET transaction_type = 'refund' WHERE id = 35");
    is_int(drift(db), 0, "after a new type (direction)");
    write_sql(db, "UPDATE transactions SET category = NULL WHERE id = 36");
    is_int(drift(db), 0, "after a category taken away");
    write_sql(db, "UPDATE transactions SET description = 'a', category = 'fees' WHERE id = 37;"
                  " UPDATE transactions SET description = 'b b b', merchant = 'X' WHERE id = 37");
    is_int(drift(db), 0, "after two changes of one row in one transaction");
    write_sql(db, "DELETE FROM transactions WHERE id = 38");
    is_int(drift(db), 0, "after a delete");
    write_sql(db, "UPDATE transactions SET owner_id = 3 WHERE id = 39");
    is_int(drift(db), 0, "after a change of owner");
    /* A write outside the library (the sqlite3 shell) leaves the row
     * pending, counted at its noted values until the next commit. */
    sql_exec(db, "UPDATE transactions SET override_category = 'health' WHERE id = 40");
    is_int(sql_int(db, "SELECT COUNT(*) FROM suggest_pending"), 1, "a direct write leaves its row pending");
    is_int(drift(db), 0, "and the check counts it as it was");
    write_sql(db, "SELECT 1");
    is_int(drift(db), 0, "after the next commit");
    sql_exec(db, "INSERT INTO transactions (owner_id, date, description, amount, category)"
                 " VALUES (2, '2026-04-01', 'pending row', 1, 'fees')");
    {
        cJSON *merged = NULL;

        /* Deleting a user is merging them into another (user_merge.c). */
        ledger_begin(db, 1, &err);
        ok(ledger_user_merge(db, bob, carol, &merged, &err) == 0, "bob merged into carol (%s)",
           err.message);
        ledger_commit(db, &err);
        cJSON_Delete(merged);
    }
    is_int(drift(db), 0, "after a merge moves one user's rows to another");
    is_int(sql_int(db, "SELECT COUNT(*) FROM suggest_words WHERE owner_id = 2"), 0, "their counts go");
    write_sql(db, "UPDATE transactions SET category = 'dining', override_category = NULL WHERE owner_id = 1");
    write_sql(db, "UPDATE transactions SET category = NULL WHERE owner_id = 1 AND id % 2 = 0");
    is_int(drift(db), 0, "after set-wide updates");
    is_int(sql_int(db, "SELECT COUNT(*) FROM suggest_words WHERE n = 0")
           + sql_int(db, "SELECT COUNT(*) FROM suggest_merchants WHERE n = 0")
           + sql_int(db, "SELECT COUNT(*) FROM suggest_classes WHERE rows = 0"), 0,
           "no cell is left at 0: the state is the pairs in use");

    /* Applying: all or nothing, never over a category, reverted as a run. */
    {
        cJSON *run = NULL;
        int64_t run_id;
        int before;

        write_sql(db, "INSERT INTO transactions (id, owner_id, date, description, merchant, amount)"
                      " VALUES (100, 1, '2026-05-01', 'BLUE BOTTLE 22', 'Blue Bottle Coffee', 450),"
                      " (101, 1, '2026-05-02', 'SOMETHING', '', 100),"
                      " (102, 3, '2026-05-02', 'carol row', '', 100)");
        before = sql_int(db, "SELECT COUNT(*) FROM rule_runs");
        ok(run_json(db, alice, "{\"items\":[{\"transaction_id\":100},{\"transaction_id\":31}]}",
                    &run, &err) && err.status == 409,
           "a row with a category in the set: 409 (%d %s)", err.status, err.message);
        ok(run_json(db, alice, "{\"items\":[{\"transaction_id\":100},{\"transaction_id\":102}]}",
                    &run, &err) && err.status == 403, "another user's row: 403");
        ok(run_json(db, alice, "{\"items\":[{\"transaction_id\":100},{\"transaction_id\":9999}]}",
                    &run, &err) && err.status == 404, "a row that is not there: 404");
        ok(run_json(db, alice, "{\"items\":[{\"transaction_id\":100},{\"transaction_id\":100}]}",
                    &run, &err) && err.status == 400, "a row named twice: 400");
        is_int(sql_int(db, "SELECT COUNT(*) FROM rule_runs"), before, "none of them recorded a run");
        ok(sql_int(db, "SELECT eff_category IS NULL FROM transactions WHERE id = 100"),
           "nor set a category");
        ok(run_json(db, alice, "{\"items\":[{\"transaction_id\":100},"
                               "{\"transaction_id\":101,\"category\":\"Gifts\"}]}", &run, &err) == 0,
           "applied (%s)", err.message);
        run_id = (int64_t)json_get(run, "id")->valuedouble;
        ok(cJSON_IsTrue(json_get(run, "suggestions")), "recorded as a suggestions run");
        cJSON_Delete(run);
        ok(sql_int(db, "SELECT eff_category = 'dining' FROM transactions WHERE id = 100"),
           "the suggestion went onto the row");
        ok(sql_int(db, "SELECT eff_category = 'gifts' FROM transactions WHERE id = 101"),
           "the category the client sent back, folded");
        is_int(drift(db), 0, "counts equal a recount after applying");
        ledger_begin(db, 1, &err);
        is_int(sql_int(db, "SELECT COUNT(*) FROM rule_run_rows WHERE changed"), 2,
               "the run holds a snapshot of each row it changed");
        ok(ledger_rule_revert(db, alice, run_id, &run, &err) == 0, "reverted as a rule run (%s)",
           err.message);
        ok(ledger_commit(db, &err) == 0, "and committed (%s)", err.message);
        cJSON_Delete(run);
        is_int(sql_int(db, "SELECT COUNT(*) FROM transactions WHERE id IN (100, 101)"
                           " AND eff_category IS NULL"), 2, "both rows are uncategorised again");
        is_int(drift(db), 0, "counts equal a recount after the revert");
    }
    ledger_close(db);
    return done_testing();
}
