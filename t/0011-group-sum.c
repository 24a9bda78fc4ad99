/*
 * group_sum (lib/group_sum.c) must give the groups and sums SQL's GROUP BY
 * gives, for keys of integers, text (of different lengths, empty, with the
 * same bytes as another key's integer) and NULL, across enough groups that
 * its table grows several times.  And tally, the named sums the reports
 * keep in memory.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "spend.h"
#include "sqltest.h"
#include "tap.h"

/* Rows of (a, b, c, v) whose (a, b, c) SQL groups into the expected
 * sums; group_sum's answer goes into got. */
static const char SQL_SETUP[] =
    "CREATE TEMP TABLE src (a, b, c, v INTEGER);"
    "CREATE TEMP TABLE got (a, b, c, v INTEGER);"
    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)"
    " INSERT INTO src SELECT"
    "  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END,"
    "  CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'x' || (i % 300)"
    "             ELSE substr('abcdefgh', 1, i % 9) END,"
    "  CASE WHEN i % 3 = 0 THEN i % 11 ELSE CAST(i % 11 AS TEXT) END,"
    "  (i * 7919) % 1000 - 400"
    "  FROM n;";

/* Groups in one table and not the other, either way round. */
static int groups_differ(ledger_db *db)
{
    return sql_differ(db, "WITH want AS (SELECT a, b, c, SUM(v) AS v FROM src GROUP BY a, b, c)",
                      "SELECT * FROM want", "SELECT * FROM got");
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t limit[1] = { 20000 };

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    sql_exec(db, SQL_SETUP);
    is_int(sql_int(db, "SELECT COUNT(*) FROM src"), 20000, "20,000 rows to group");
    ok(sql_int(db, "SELECT COUNT(*) FROM (SELECT 1 FROM src GROUP BY a, b, c)") > 2000,
       "in more than 2,000 groups");
    ok(group_sum(db, "SELECT a, b, c, v FROM temp.src WHERE rowid <= ?1", limit, 1,
                 "INSERT INTO temp.got VALUES (?1, ?2, ?3, ?4)", &err) == 0, "group_sum");
    is_int(groups_differ(db), 0, "the same groups and sums as GROUP BY");
    is_int(sql_int(db, "SELECT COUNT(*) FROM got WHERE typeof(c) = 'integer'")
               + sql_int(db, "SELECT COUNT(*) FROM got WHERE typeof(c) = 'text'"),
           sql_int(db, "SELECT COUNT(*) FROM got"), "keys keep their types");
    ok(sql_int(db, "SELECT COUNT(*) FROM got WHERE a IS NULL AND b IS NULL") > 0,
       "NULL keys are a group of their own");

    /* The parameters bound: only the rows the query picks. */
    sql_exec(db, "DELETE FROM got");
    limit[0] = 10;
    ok(group_sum(db, "SELECT 1, v FROM temp.src WHERE rowid <= ?1", limit, 1,
                 "INSERT INTO temp.got (a, v) VALUES (?1, ?2)", &err) == 0, "one key column");
    is_int(sql_int(db, "SELECT v FROM got"), sql_int(db, "SELECT SUM(v) FROM src WHERE rowid <= 10"),
           "the sum of the first ten rows");

    /* Errors come back as errors. */
    ok(group_sum(db, "SELECT v FROM temp.src", NULL, 0, "INSERT INTO temp.got (v) VALUES (?1)",
                 &err) != 0 && err.status == 500, "no key column: an error");
    ledger_error_clear(&err);
    ok(group_sum(db, "SELECT a, v FROM temp.src", NULL, 0, "INSERT INTO temp.missing VALUES (?1, ?2)",
                 &err) != 0 && err.status == 500, "a write that cannot be prepared: an error");
    /* A sum past 64 bits is refused, as SQL's SUM refuses it. */
    sql_exec(db, "CREATE TEMP TABLE big (k, v INTEGER);"
                 "INSERT INTO big VALUES (1, 9223372036854775807), (1, 1), (2, 5)");
    ledger_error_clear(&err);
    ok(group_sum(db, "SELECT k, v FROM temp.big", NULL, 0, "INSERT INTO temp.got (a, v) VALUES (?1, ?2)",
                 &err) != 0 && err.status == 400, "a sum past 64 bits: a 400 (%s)", err.message);
    ledger_close(db);

    /* tally (lib/tally.c), named sums found through a hash index: many
     * names, so the index grows several times, each summed in turn; the
     * same after tally_sort has moved every item (the index is made
     * again). */
    {
        struct tally t = { NULL, 0, 0, NULL, 0 };
        char name[32];
        int i, round, right = 0;
        const struct tally_item *it;

        for (round = 1; round <= 3; round++) {
            for (i = 0; i < 3000; i++) {
                snprintf(name, sizeof name, "name %d", i);
                if (tally_add(&t, name, i) != 0)
                    break;
            }
            if (round == 2)
                tally_sort(&t);
        }
        is_int((int)t.n, 3000, "3,000 names, each once");
        ok(t.v[0].cents == 3 * 2999 && strcmp(t.v[0].name, "name 2999") == 0,
           "sorted, the largest sum first (before its third round)");
        for (i = 0; i < 3000; i++) {
            snprintf(name, sizeof name, "name %d", i);
            it = tally_find(&t, name);
            right += it && it->cents == 3 * (money_sum)i && it->count == 3;
        }
        is_int(right, 3000, "each found with its three amounts summed");
        ok(tally_find(&t, "name 3000") == NULL && tally_find(&t, "") == NULL, "and no name never added");
        tally_sort(&t);
        ok(tally_find(&t, "name 17") && tally_find(&t, "name 17")->cents == 51, "found after a sort too");
        tally_free(&t);
        ok(t.n == 0 && t.slots == NULL, "freed");
    }
    return done_testing();
}
