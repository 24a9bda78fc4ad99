/*
 * The operator's consistency check: SQLite's own integrity and foreign-key
 * checks, then every table the triggers keep (spend_monthly, visible_count
 * and visible_total, shared_rows, has_split, the eff_* columns, the search
 * index)
 * against a recount from the rows, and Business rule A (splits total
 * 100%).  A summary that drifted answers wrong totals without any error,
 * so only a recount finds it.
 *
 * The recounts read every row once: seconds on a million-row ledger, which
 * is fine for a command an operator runs, not for a request.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"

/* How many problems of one check are described; the rest are counted. */
#define DETAILS_MAX 5

/* Each check is one query whose rows are problems; every column is text
 * (or NULL) and the first column is the description. */
struct check {
    const char *name;
    const char *sql;
};

static const struct check checks[] = {
    { "integrity_check",
      "SELECT integrity_check FROM pragma_integrity_check WHERE integrity_check <> 'ok'" },
    { "foreign_key_check",
      "SELECT printf('%s rowid %s: no %s row (constraint %d)', \"table\", rowid, parent, fkid)"
      "  FROM pragma_foreign_key_check" },
    /* The cells that differ: a key on one side only, or a different value.
     * A cell brought back to 0 by the triggers is left in place and means
     * nothing, so zeros are left out on both sides. */
    { "spend_monthly",
      "WITH recount AS (SELECT owner_id, month, category, SUM(cents) AS cents"
      "                   FROM spend_contribution GROUP BY 1, 2, 3),"
      "     kept AS (SELECT owner_id, month, category, cents FROM spend_monthly WHERE cents <> 0),"
      "     keys AS (SELECT owner_id, month, category FROM kept"
      "              UNION SELECT owner_id, month, category FROM recount WHERE cents <> 0)"
      " SELECT printf('owner %d, %s, %s: kept %d, recount %d', keys.owner_id, keys.month,"
      "               keys.category, COALESCE(k.cents, 0), COALESCE(r.cents, 0))"
      "   FROM keys LEFT JOIN kept k USING (owner_id, month, category)"
      "             LEFT JOIN recount r USING (owner_id, month, category)"
      "  WHERE COALESCE(k.cents, 0) <> COALESCE(r.cents, 0)" },
    { "visible_count",
      "WITH recount AS (SELECT viewer_id, month, category, type, manual, split, COUNT(*) AS n"
      "                   FROM visible_rows GROUP BY 1, 2, 3, 4, 5, 6),"
      "     kept AS (SELECT viewer_id, month, category, type, manual, split, n"
      "                FROM visible_count WHERE n <> 0),"
      "     keys AS (SELECT viewer_id, month, category, type, manual, split FROM kept"
      "              UNION SELECT viewer_id, month, category, type, manual, split FROM recount)"
      " SELECT printf('viewer %d, %s, category ''%s'', %s, manual %d, split %d: kept %d, recount %d',"
      "               keys.viewer_id, keys.month, keys.category, keys.type, keys.manual, keys.split,"
      "               COALESCE(k.n, 0), COALESCE(r.n, 0))"
      "   FROM keys LEFT JOIN kept k USING (viewer_id, month, category, type, manual, split)"
      "             LEFT JOIN recount r USING (viewer_id, month, category, type, manual, split)"
      "  WHERE COALESCE(k.n, 0) <> COALESCE(r.n, 0)" },
    /* Against visible_count, which the check above holds to the rows. */
    { "visible_total",
      "WITH recount AS (SELECT viewer_id, category, type, manual, split, SUM(n) AS n"
      "                   FROM visible_count GROUP BY 1, 2, 3, 4, 5 HAVING SUM(n) <> 0),"
      "     kept AS (SELECT viewer_id, category, type, manual, split, n"
      "                FROM visible_total WHERE n <> 0),"
      "     keys AS (SELECT viewer_id, category, type, manual, split FROM kept"
      "              UNION SELECT viewer_id, category, type, manual, split FROM recount)"
      " SELECT printf('viewer %d, category ''%s'', %s, manual %d, split %d: kept %d, recount %d',"
      "               keys.viewer_id, keys.category, keys.type, keys.manual, keys.split,"
      "               COALESCE(k.n, 0), COALESCE(r.n, 0))"
      "   FROM keys LEFT JOIN kept k USING (viewer_id, category, type, manual, split)"
      "             LEFT JOIN recount r USING (viewer_id, category, type, manual, split)"
      "  WHERE COALESCE(k.n, 0) <> COALESCE(r.n, 0)" },
    /* Committed only by a crash mid-way through a bulk insert, which its
     * transaction prevents; if it ever is, no insert is counted. */
    { "bulk_insert",
      "SELECT 'a row in bulk_insert holds the summaries'' insert triggers off' FROM bulk_insert" },
    /* The has_split flag the triggers keep for the index of split rows. */
    { "has_split",
      "SELECT printf('transaction %d: has_split %d, with %d splits', t.id, t.has_split,"
      "              (SELECT COUNT(*) FROM splits s WHERE s.transaction_id = t.id))"
      "  FROM transactions t"
      " WHERE t.has_split <> EXISTS (SELECT 1 FROM splits s WHERE s.transaction_id = t.id)" },
    { "shared_rows",
      "WITH recount AS (SELECT t.id AS transaction_id, s.participant_id AS viewer_id, t.date,"
      "                        t.amount, t.created_at, t.eff_merchant AS merchant,"
      "                        t.description, t.merchant AS bank_merchant,"
      "                        COALESCE(t.override_merchant_normalized, t.merchant_normalized)"
      "                          AS merchant_normalized"
      "                   FROM splits s JOIN transactions t ON t.id = s.transaction_id"
      "                  WHERE s.participant_id <> t.owner_id),"
      "     keys AS (SELECT transaction_id, viewer_id FROM shared_rows"
      "              UNION SELECT transaction_id, viewer_id FROM recount)"
      " SELECT printf('transaction %d, viewer %d: %s', keys.transaction_id, keys.viewer_id,"
      "               CASE WHEN k.transaction_id IS NULL THEN 'missing'"
      "                    WHEN r.transaction_id IS NULL THEN 'should not be there'"
      "                    ELSE 'stale copies' END)"
      "   FROM keys LEFT JOIN shared_rows k USING (transaction_id, viewer_id)"
      "             LEFT JOIN recount r USING (transaction_id, viewer_id)"
      "  WHERE k.transaction_id IS NULL OR r.transaction_id IS NULL"
      "     OR (k.date, k.amount, k.created_at, k.merchant)"
      "        IS NOT (r.date, r.amount, r.created_at, r.merchant)"
      "     OR (k.description, k.bank_merchant, k.merchant_normalized)"
      "        IS NOT (r.description, r.bank_merchant, r.merchant_normalized)" },
    /* A row the search index lacks (and that is not pending in
     * search_pending) is never found by a search; one it keeps after the row is
     * gone or has moved owner is harmless (the list tests every match
     * against the row) but means a trigger was bypassed.  Its texts
     * cannot be read back (it is contentless). */
    { "transactions_search",
      "WITH kept AS (SELECT rowid AS k FROM transactions_search),"
      "     rows AS (SELECT entry AS k, id FROM search_entries"
      "               WHERE id NOT IN (SELECT id FROM search_pending))"
      " SELECT printf('transaction %d: not in the search index', id)"
      "   FROM rows WHERE k NOT IN (SELECT k FROM kept)"
      " UNION ALL"
      " SELECT printf('search index entry %d (user %d, transaction %d): no such row', k,"
      "               k / 1099511627776, k % 1099511627776)"
      "   FROM kept WHERE k NOT IN (SELECT k FROM rows)" },
    { "merchants_search",
      "WITH kept AS (SELECT rowid AS k FROM merchants_search),"
      "     rows AS (SELECT entry AS k, id FROM merchant_search_entries"
      "               WHERE id NOT IN (SELECT id FROM search_pending))"
      " SELECT printf('transaction %d: its normalized merchant is not in the search index', id)"
      "   FROM rows WHERE k NOT IN (SELECT k FROM kept)"
      " UNION ALL"
      " SELECT printf('merchant search entry %d (user %d, transaction %d): no such row,"
      "               or none with a normalized merchant', k, k / 1099511627776,"
      "               k % 1099511627776)"
      "   FROM kept WHERE k NOT IN (SELECT k FROM rows)" },
    /* The suggestion counts (schema/0029_category_suggestions.sql) against a recount of the rows
     * counted now (suggest_counted); zeros mean nothing. */
    { "suggest_words",
      "WITH recount AS (SELECT c.owner_id, j.value AS word, c.category, COUNT(*) AS n"
      "                   FROM suggest_counted c,"
      "                        json_each(ledger_words(c.description, c.merchant, c.type)) j"
      "                  GROUP BY 1, 2, 3),"
      "     kept AS (SELECT owner_id, word, category, n FROM suggest_words WHERE n <> 0),"
      "     keys AS (SELECT owner_id, word, category FROM kept"
      "              UNION SELECT owner_id, word, category FROM recount)"
      " SELECT printf('owner %d, word %d, %s: kept %d, recount %d', keys.owner_id, keys.word,"
      "               keys.category, COALESCE(k.n, 0), COALESCE(r.n, 0))"
      "   FROM keys LEFT JOIN kept k USING (owner_id, word, category)"
      "             LEFT JOIN recount r USING (owner_id, word, category)"
      "  WHERE COALESCE(k.n, 0) <> COALESCE(r.n, 0)" },
    { "suggest_classes",
      "WITH recount AS (SELECT owner_id, category, COUNT(*) AS rows,"
      "                        SUM(json_array_length(ledger_words(description, merchant, type)))"
      "                          AS words"
      "                   FROM suggest_counted GROUP BY 1, 2),"
      "     kept AS (SELECT owner_id, category, rows, words FROM suggest_classes"
      "               WHERE rows <> 0 OR words <> 0),"
      "     keys AS (SELECT owner_id, category FROM kept"
      "              UNION SELECT owner_id, category FROM recount)"
      " SELECT printf('owner %d, %s: kept %d rows %d words, recount %d rows %d words',"
      "               keys.owner_id, keys.category, COALESCE(k.rows, 0), COALESCE(k.words, 0),"
      "               COALESCE(r.rows, 0), COALESCE(r.words, 0))"
      "   FROM keys LEFT JOIN kept k USING (owner_id, category)"
      "             LEFT JOIN recount r USING (owner_id, category)"
      "  WHERE COALESCE(k.rows, 0) <> COALESCE(r.rows, 0)"
      "     OR COALESCE(k.words, 0) <> COALESCE(r.words, 0)" },
    { "suggest_merchants",
      "WITH recount AS (SELECT owner_id, merchant, category, COUNT(*) AS n"
      "                   FROM suggest_counted WHERE merchant <> '' GROUP BY 1, 2, 3),"
      "     kept AS (SELECT owner_id, merchant, category, n FROM suggest_merchants WHERE n <> 0),"
      "     keys AS (SELECT owner_id, merchant, category FROM kept"
      "              UNION SELECT owner_id, merchant, category FROM recount)"
      " SELECT printf('owner %d, merchant %Q, %s: kept %d, recount %d', keys.owner_id,"
      "               keys.merchant, keys.category, COALESCE(k.n, 0), COALESCE(r.n, 0))"
      "   FROM keys LEFT JOIN kept k USING (owner_id, merchant, category)"
      "             LEFT JOIN recount r USING (owner_id, merchant, category)"
      "  WHERE COALESCE(k.n, 0) <> COALESCE(r.n, 0)" },
    { "effective_values",
      "SELECT printf('transaction %d: eff_category %Q, eff_merchant %Q are stale', id,"
      "              eff_category, eff_merchant)"
      "  FROM transactions"
      " WHERE eff_category IS NOT COALESCE(override_category, category)"
      "    OR eff_merchant IS NOT COALESCE(override_merchant_normalized, merchant_normalized,"
      "                                    merchant, '')" },
    { "split_totals",
      "SELECT printf('transaction %d: splits total %d.%02d%%', transaction_id,"
      "              SUM(share_percent) / 100, SUM(share_percent) % 100)"
      "  FROM splits GROUP BY transaction_id HAVING SUM(share_percent) <> 10000" },
    /* A split shares a row with someone (rule A's remainder is the owner's
     * after the named participants): one naming its owner alone listed
     * the row as split with nobody. */
    { "split_owner_alone",
      "SELECT printf('transaction %d: split with its owner %d alone', s.transaction_id, t.owner_id)"
      "  FROM splits s JOIN transactions t ON t.id = s.transaction_id"
      " GROUP BY s.transaction_id HAVING COUNT(*) = 1 AND MIN(s.participant_id) = t.owner_id" },
    /* owner_id is stored on statement rows too (transactions.owner_id) and scoping
     * relies on it equalling the statement's owner. */
    { "statement_owner",
      "SELECT printf('transaction %d: owner %d, its statement %d belongs to %d', t.id,"
      "              t.owner_id, s.id, s.owner_id)"
      "  FROM transactions t JOIN statements s ON s.id = t.statement_id"
      " WHERE t.owner_id <> s.owner_id" },
};

static void add_problem(cJSON *problems, const char *check, const char *detail)
{
    cJSON *p = cJSON_CreateObject();

    cJSON_AddStringToObject(p, "check", check);
    cJSON_AddStringToObject(p, "detail", detail ? detail : "(null)");
    cJSON_AddItemToArray(problems, p);
}

/* Runs one check into problems; *found is how many it found.  A damaged
 * file stops the check that meets the damage (SQLITE_CORRUPT or NOTADB
 * after integrity_check has named pages): that is a finding, reported
 * with what was found before it, and *damaged tells the caller to run no
 * more: the report is kept, and --json prints it, on the very file check
 * is for. */
static int run_check(ledger_db *db, const struct check *c, cJSON *problems, int64_t *found,
                     int *damaged, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, c->sql, err);
    int64_t n = 0;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (n++ < DETAILS_MAX)
            add_problem(problems, c->name, (const char *)sqlite3_column_text(st, 0));
    db_stmt_done(st);
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
        char why[256];

        snprintf(why, sizeof why, "stopped: %s (no further check was run)", sqlite3_errmsg(db->sql));
        add_problem(problems, c->name, why);
        *found = n + 1;
        *damaged = 1;
        return LEDGER_OK;
    }
    if (rc != SQLITE_DONE)
        return db_error(db, err, c->name);
    if (n > DETAILS_MAX) {
        char more[64];

        snprintf(more, sizeof more, "... and %lld more", (long long)(n - DETAILS_MAX));
        add_problem(problems, c->name, more);
    }
    /* integrity_check may name the damage and end without an error (which
     * page it meets first varies): the file is damaged all the same, and
     * the recounts after it would report what they cannot read as drift
     * (foreign_key_check's "no transactions row", say). */
    if (n > 0 && strcmp(c->name, "integrity_check") == 0) {
        add_problem(problems, c->name, "stopped: the file is damaged (no further check was run)");
        n++;
        *damaged = 1;
    }
    *found = n;
    return LEDGER_OK;
}

int ledger_check(ledger_db *db, cJSON **out, ledger_error *err)
{
    cJSON *doc = cJSON_CreateObject(), *problems, *counts;
    int64_t total = 0, n = 0;
    int damaged = 0;
    size_t i;

    if (doc == NULL)
        return ledger_error_oom(err);
    counts = cJSON_AddObjectToObject(doc, "checks");
    problems = cJSON_AddArrayToObject(doc, "problems");
    for (i = 0; i < sizeof checks / sizeof checks[0] && !damaged; i++) {
        if (run_check(db, &checks[i], problems, &n, &damaged, err)) {
            cJSON_Delete(doc);
            return LEDGER_ERR;
        }
        cJSON_AddNumberToObject(counts, checks[i].name, (double)n);
        total += n;
    }
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddBoolToObject(doc, "ok", total == 0);
    *out = doc;
    return LEDGER_OK;
}
