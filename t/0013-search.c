/*
 * search= and q= words: the list must find exactly the rows whose
 * description, merchant or effective normalized merchant holds every term,
 * in any case, whichever way it reads them: through the trigram index
 * (schema 0017, txn_search.c) when a term has a trigram of ASCII
 * characters and the index gives few rows, by testing every row
 * otherwise.  The answer is held to a recount in SQL (instr over lowered
 * texts) after every kind of write the index must follow, and the rows
 * listed must be the rows counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "db.h"
#include "txn.h"
#include "sqltest.h"
#include "tap.h"

/* The rows `me` sees (their own and those shared with them by a split),
 * not reconciled away and not transfers (the list's default), whose texts
 * hold the term: each text lowered (ledger_fold, which lowers as the list
 * does) and searched with instr, not with the list's own test. */
static const char SQL_RECOUNT[] =
    "SELECT t.id FROM transactions t"
    " WHERE (t.owner_id = ?1 OR EXISTS (SELECT 1 FROM splits s WHERE s.transaction_id = t.id"
    "                                     AND s.participant_id = ?1))"
    "   AND t.reconciled_with_id IS NULL AND COALESCE(t.eff_category, '') <> 'transfers'"
    "   AND (instr(ledger_fold(t.description), ?2) OR instr(ledger_fold(t.merchant), ?2)"
    "        OR instr(ledger_fold(COALESCE(t.override_merchant_normalized,"
    "                                      t.merchant_normalized)), ?2))"
    "   AND (instr(ledger_fold(t.description), ?3) OR instr(ledger_fold(t.merchant), ?3)"
    "        OR instr(ledger_fold(COALESCE(t.override_merchant_normalized,"
    "                                      t.merchant_normalized)), ?3))"
    " ORDER BY t.id";

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The recount's ids for one lowered term, or two (each in any of the
 * texts: not necessarily the same one); n set to how many. */
static int64_t *recount(ledger_db *db, int64_t me, const char *term, const char *term2, size_t *n)
{
    sqlite3_stmt *st;
    int64_t *ids = NULL;
    size_t cap = 0;

    *n = 0;
    if (sqlite3_prepare_v2(db->sql, SQL_RECOUNT, -1, &st, NULL) != SQLITE_OK) {
        printf("# recount: %s\n", sqlite3_errmsg(db->sql));
        return NULL;
    }
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_text(st, 2, term, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, term2 ? term2 : term, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            ids = realloc(ids, cap * sizeof *ids);
        }
        ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return ids;
}

/* Every id the list gives for key=value, paging by cursor; *total is the
 * first page's total.  NULL with *n = -1 on an error. */
static int64_t *listed(ledger_db *db, int64_t me, const char *key, const char *value,
                       int64_t *total, long *n)
{
    char cursor[1200] = "";
    int64_t *ids = NULL;
    size_t cap = 0;

    *n = 0;
    *total = -1;
    for (;;) {
        struct ledger_param items[3] = {
            { (char *)key, (char *)value }, { "limit", "500" }, { "cursor", cursor }
        };
        struct ledger_params p = { items, cursor[0] ? 3 : 2 };
        ledger_error err;
        cJSON *doc = NULL, *row, *next;

        ledger_error_clear(&err);
        if (ledger_txn_list(db, me, &p, &doc, &err) != LEDGER_OK) {
            printf("# list %s=%s: %s\n", key, value, err.message);
            free(ids);
            *n = -1;
            return NULL;
        }
        if (*total < 0)
            *total = (int64_t)cJSON_GetObjectItem(doc, "total")->valuedouble;
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "items")) {
            if ((size_t)*n == cap) {
                cap = cap ? 2 * cap : 64;
                ids = realloc(ids, cap * sizeof *ids);
            }
            ids[(*n)++] = (int64_t)cJSON_GetObjectItem(row, "id")->valuedouble;
        }
        next = cJSON_GetObjectItem(doc, "next_cursor");
        if (!cJSON_IsString(next) || strlen(next->valuestring) >= sizeof cursor) {
            cJSON_Delete(doc);
            break;
        }
        snprintf(cursor, sizeof cursor, "%s", next->valuestring);
        cJSON_Delete(doc);
    }
    if (ids)
        qsort(ids, (size_t)*n, sizeof *ids, cmp_id);
    return ids;
}

/* key=value (search=term, or q= two words, lowered and lowered2) lists
 * exactly the recount's rows, and its total says so. */
static void same_rows_of(ledger_db *db, int64_t me, const char *key, const char *value,
                         const char *lowered, const char *lowered2, const char *what)
{
    size_t expect_n;
    long got_n;
    int64_t total, *expect = recount(db, me, lowered, lowered2, &expect_n);
    int64_t *got = listed(db, me, key, value, &total, &got_n);
    int same = got_n >= 0 && (size_t)got_n == expect_n
               && (expect_n == 0 || memcmp(got, expect, expect_n * sizeof *got) == 0);

    ok(same && total == (int64_t)expect_n, "%s: %s=%s lists the %zu rows that hold it (total %lld)",
       what, key, value, expect_n, (long long)total);
    if (!same)
        printf("#   listed %ld rows\n", got_n);
    free(expect);
    free(got);
}

static void same_rows(ledger_db *db, int64_t me, const char *term, const char *lowered,
                      const char *what)
{
    same_rows_of(db, me, "search", term, lowered, NULL, what);
}

/* The texts rows are made of: words that hold each other ("coffee" in
 * "coffeehouse"), every trigram of "abcd" but not "abcd" itself ("abc
 * xbcd"), quotes and LIKE's wildcards, and letters beyond ASCII. */
static const char *const words[] = {
    "Coffee", "COFFEE BAR", "coffeehouse", "abc xbcd", "abcd", "Joe's \"Diner\"", "50% off",
    "under_score", "Caf\xc3\xa9 Noir", "CAF\xc3\x89", "cafe", "Grocer", "Fuel", NULL
};

static const char *word(unsigned *seed)
{
    size_t n = 0;

    while (words[n])
        n++;
    *seed = *seed * 1103515245u + 12345u;
    return words[(*seed >> 16) % n];
}

/* n rows for owner with texts drawn from words; some with an override of
 * the normalized merchant, some transfers, one in nine reconciled away. */
static void add_rows(ledger_db *db, int64_t owner, int n, unsigned seed)
{
    sqlite3_stmt *st;
    int i;

    sqlite3_prepare_v2(db->sql,
                       "INSERT INTO transactions (owner_id, date, description, merchant,"
                       " merchant_normalized, override_merchant_normalized, category,"
                       " transaction_type, amount)"
                       " VALUES (?1, printf('2026-%02d-%02d', ?2 % 12 + 1, ?2 % 28 + 1), ?3, ?4, ?5, ?6,"
                       " ?7, 'debit', 100 + ?2)", -1, &st, NULL);
    for (i = 0; i < n; i++) {
        char description[80];

        snprintf(description, sizeof description, "%s card %d", word(&seed), i);
        sqlite3_bind_int64(st, 1, owner);
        sqlite3_bind_int(st, 2, i);
        sqlite3_bind_text(st, 3, description, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, i % 5 ? word(&seed) : NULL, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, i % 3 ? word(&seed) : NULL, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, i % 7 == 0 ? word(&seed) : NULL, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, i % 11 == 0 ? "transfers" : "dining", -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            printf("# insert: %s\n", sqlite3_errmsg(db->sql));
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sql_exec(db, "UPDATE transactions SET reconciled_with_id = id - 1 WHERE id % 9 = 0");
}

/* Every term, for one user. */
static void all_terms(ledger_db *db, int64_t me, const char *what)
{
    static const char *const terms[][2] = {
        { "coffee", "coffee" },
        { "COFFEE", "coffee" },          /* the term is lowered too */
        { "ffeeh", "ffeeh" },
        { "abcd", "abcd" },              /* "abc xbcd" holds its trigrams, not it */
        { "joe's \"diner\"", "joe's \"diner\"" },  /* quotes inside the index query */
        { "\"", "\"" },
        { "50%", "50%" },
        { "r_s", "r_s" },
        { "caf\xc3\xa9", "caf\xc3\xa9" },  /* its trigram "caf" from the index */
        { "CAF\xc3\x89 N", "caf\xc3\xa9 n" },
        { "\xc3\xa9", "\xc3\xa9" },        /* no ASCII trigram: every row tested */
        { "co", "co" },                    /* too short for a trigram */
        { "card 1", "card 1" },
        { "zzz", "zzz" },
    };
    /* Two words, each in any text of the row: one in the description and
     * the other in the normalized merchant is a match (the two indexes
     * each hold one of them). */
    static const char *const pairs[][3] = {
        { "coffee fuel", "coffee", "fuel" },
        { "grocer abcd", "grocer", "abcd" },
        { "CAFÃ card", "cafÃ©", "card" },
        { "fuel co", "fuel", "co" },
        { "diner coffee", "diner", "coffee" },
        /* More words than the list writes into its SQL (TERMS_INLINE). */
        { "coffee fuel coff fue coffee", "coffee", "fuel" },
    };
    size_t i;

    for (i = 0; i < sizeof terms / sizeof terms[0]; i++)
        same_rows(db, me, terms[i][0], terms[i][1], what);
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        same_rows_of(db, me, "q", pairs[i][0], pairs[i][1], pairs[i][2], what);
}

static void no_problems(ledger_db *db, const char *what)
{
    ledger_error err;
    cJSON *doc = NULL;
    int problems = -1;

    ledger_error_clear(&err);
    if (ledger_check(db, &doc, &err) == LEDGER_OK)
        problems = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "problems"));
    is_int(problems, 0, "%s: ledger-admin check finds nothing wrong", what);
    if (problems) {
        char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;

        printf("#   %s\n", text ? text : err.message);
        free(text);
    }
    cJSON_Delete(doc);
}

/* Indexes the pending rows, as a commit does once SEARCH_FLUSH_ROWS are
 * waiting (schema 0017): a commit when that many are, else a flush of
 * however many there are. */
static void flush(ledger_db *db)
{
    ledger_error err;
    int waiting = sql_int(db, "SELECT COUNT(*) FROM search_pending");

    ledger_error_clear(&err);
    ok(ledger_begin(db, 1, &err) == LEDGER_OK
       && (waiting >= SEARCH_FLUSH_ROWS || search_flush(db, 1, &err) == LEDGER_OK)
       && ledger_commit(db, &err) == LEDGER_OK
       && sql_int(db, "SELECT COUNT(*) FROM search_pending") == 0,
       "%s indexes the %d rows written since the last",
       waiting >= SEARCH_FLUSH_ROWS ? "a commit" : "a flush", waiting);
}

/* A commit with fewer than SEARCH_FLUSH_ROWS rows waiting leaves them
 * waiting (they are found all the same: see all_terms before a flush);
 * the commit that brings them to that many indexes them all. */
static void commit_waits(ledger_db *db, int64_t owner)
{
    ledger_error err;
    int before = sql_int(db, "SELECT COUNT(*) FROM search_pending"), i;

    ledger_error_clear(&err);
    for (i = before; i < SEARCH_FLUSH_ROWS - 1; i++) {
        char sql[200];

        snprintf(sql, sizeof sql, "INSERT INTO transactions (owner_id, date, description,"
                 " transaction_type, amount) VALUES (%lld, '2026-04-01', 'Waiting coffee %d', 'debit', 7)",
                 (long long)owner, i);
        ledger_begin(db, 1, &err);
        sql_exec(db, sql);
        ledger_commit(db, &err);
    }
    is_int(sql_int(db, "SELECT COUNT(*) FROM search_pending"), SEARCH_FLUSH_ROWS - 1,
           "commits of one row each leave %d rows waiting", SEARCH_FLUSH_ROWS - 1);
    same_rows(db, owner, "waiting coffee", "waiting coffee", "rows waiting to be indexed");
    ledger_begin(db, 1, &err);
    {
        char sql[200];

        snprintf(sql, sizeof sql, "INSERT INTO transactions (owner_id, date, description,"
                 " transaction_type, amount) VALUES (%lld, '2026-04-02', 'Waiting coffee, the last',"
                 " 'debit', 7)", (long long)owner);
        sql_exec(db, sql);
    }
    ok(ledger_commit(db, &err) == LEDGER_OK, "the commit of one more");
    is_int(sql_int(db, "SELECT COUNT(*) FROM search_pending"), 0, "indexes them all");
    same_rows(db, owner, "waiting coffee", "waiting coffee", "rows indexed in one flush");
}

/* Every term for each of the three users, then ledger_check. */
static void everyone(ledger_db *db, const int64_t users[3], const char *when)
{
    static const char *const names[3] = { "alice", "bob", "carol" };
    char what[160];
    int i;

    for (i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "%s, %s", names[i], when);
        all_terms(db, users[i], what);
    }
    no_problems(db, when);
}

int main(void)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t alice, bob, carol, users[3];

    ledger_error_clear(&err);
    ok(ledger_open(":memory:", &db, &err) == 0, "open");
    ledger_user_resolve(db, "alice", NULL, NULL, &alice, &err);
    ledger_user_resolve(db, "bob", NULL, NULL, &bob, &err);
    ledger_user_resolve(db, "carol", NULL, NULL, &carol, &err);
    users[0] = alice;
    users[1] = bob;
    users[2] = carol;
    add_rows(db, alice, 400, 1);
    add_rows(db, bob, 300, 2);
    /* bob shares every fourth of his rows with alice. */
    sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent)"
                 " SELECT id, 1, 5000 FROM transactions WHERE owner_id = 2 AND id % 4 = 0"
                 " UNION ALL SELECT id, 2, 5000 FROM transactions WHERE owner_id = 2 AND id % 4 = 0");
    /* Written by SQL outside a transaction of the library's: pending. */
    all_terms(db, alice, "alice, rows pending");
    flush(db);
    /* alice with her own and shared rows, carol with none. */
    everyone(db, users, "indexed");
    commit_waits(db, alice);
    no_problems(db, "after rows waited to be indexed");

    /* The writes the index and the shared copies must follow. */
    sql_exec(db, "UPDATE transactions SET description = 'Coffee again' WHERE id IN (3, 404, 408)");
    sql_exec(db, "UPDATE transactions SET override_merchant_normalized = 'ABCD Coffee' WHERE id IN (5, 412)");
    sql_exec(db, "UPDATE transactions SET override_merchant_normalized = NULL WHERE id % 7 = 1");
    sql_exec(db, "UPDATE transactions SET merchant = 'abcd' WHERE id IN (6, 416)");
    sql_exec(db, "UPDATE transactions SET merchant_normalized = 'Coffee' WHERE id % 13 = 0");
    sql_exec(db, "UPDATE transactions SET owner_id = 3 WHERE id IN (7, 8, 420)");
    sql_exec(db, "INSERT INTO splits (transaction_id, participant_id, share_percent)"
                 " VALUES (10, 1, 5000), (10, 3, 5000), (11, 3, 10000)");
    sql_exec(db, "DELETE FROM splits WHERE transaction_id = 424");
    sql_exec(db, "DELETE FROM transactions WHERE id IN (12, 13, 428)");
    /* A row with an id beyond the index's rowids (schema 0017) is left
     * out of it; while it exists every row is tested. */
    sql_exec(db, "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                 " VALUES (4611686018427387904, 1, '2026-03-03', 'Coffee far away', 'debit', 5)");
    same_rows(db, alice, "coffee", "coffee", "alice, with a row at id 2^62");
    same_rows(db, alice, "far away", "far away", "alice, with a row at id 2^62");
    no_problems(db, "with a row at id 2^62");
    sql_exec(db, "DELETE FROM transactions WHERE id = 4611686018427387904");
    /* Rows moved to carol and shared with her among them. */
    everyone(db, users, "after edits");
    flush(db);
    everyone(db, users, "after edits, indexed");
    /* Once more on indexed rows, some changed twice before a commit. */
    sql_exec(db, "BEGIN");
    sql_exec(db, "UPDATE transactions SET description = 'abcd again' WHERE id IN (14, 15, 432)");
    sql_exec(db, "UPDATE transactions SET description = 'Joe''s \"Diner\" abcd' WHERE id = 14");
    sql_exec(db, "UPDATE transactions SET merchant_normalized = 'Coffee Co' WHERE id IN (16, 17, 436)");
    sql_exec(db, "UPDATE transactions SET override_merchant_normalized = 'Fuel' WHERE id = 16");
    sql_exec(db, "UPDATE transactions SET owner_id = 2 WHERE id = 18");
    sql_exec(db, "DELETE FROM transactions WHERE id IN (19, 440)");
    sql_exec(db, "COMMIT");
    everyone(db, users, "after edits of indexed rows");
    flush(db);
    everyone(db, users, "after they are indexed again");

    /* A term in more rows than the index is worth reading (txn_search.c's
     * SEARCH_INDEX_MAX): the count tests every row instead. */
    {
        sqlite3_stmt *st;
        int i;

        sqlite3_prepare_v2(db->sql,
                           "INSERT INTO transactions (owner_id, date, description, merchant, category,"
                           " transaction_type, amount)"
                           " VALUES (?1, '2025-06-01', printf('Debit card purchase %d', ?2),"
                           " CASE WHEN ?2 % 2 THEN 'Coffee' END, 'dining', 'debit', ?2)",
                           -1, &st, NULL);
        sql_exec(db, "BEGIN");
        for (i = 0; i < 12000; i++) {
            sqlite3_bind_int64(st, 1, carol);
            sqlite3_bind_int(st, 2, i);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sql_exec(db, "COMMIT");
        sqlite3_finalize(st);
    }
    flush(db);
    same_rows(db, carol, "debit", "debit", "carol, 12,000 rows");
    same_rows(db, carol, "coffee", "coffee", "carol, 12,000 rows");
    same_rows(db, carol, "purchase 11", "purchase 11", "carol, 12,000 rows");
    same_rows(db, carol, "abcd", "abcd", "carol, 12,000 rows");
    {
        int64_t total = -1;
        long n = 0;
        char key[] = "q", value[] = "coffee purchase >50.00";
        int64_t *ids = listed(db, carol, key, value, &total, &n);

        /* Odd amounts 5001..11999 cents: the merchant is Coffee. */
        is_int(total, (11999 - 5001) / 2 + 1, "carol: q= with two words and an amount bound");
        is_int(n, total, "  and the rows listed are the rows counted");
        free(ids);
    }
    sql_exec(db, "DELETE FROM transactions WHERE owner_id = 3 AND amount < 6000");
    same_rows(db, carol, "debit", "debit", "carol, after 6,000 deletes");
    no_problems(db, "at the end");
    ledger_close(db);
    return done_testing();
}
