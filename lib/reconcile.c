/*
 * Reconciliation: a manual row (typed in or CSV-imported) matched with the
 * statement row the bank later reported for the same purchase.
 *
 * A manual row is pending when it is not reconciled and was paid by card,
 * bank transfer or an unknown method (cash and credits never reach a
 * statement).  Its candidates are the owner's statement rows within 3 days
 * and 1% of its amount (in the home currency), in the same direction,
 * that no other manual row was reconciled into.  Applying a match copies
 * the manual row's overrides, tags and splits (and its type where the
 * bank gave only the direction) onto the statement row,
 * hides the manual row (reconciled_with_id), and keeps the statement row's
 * previous state so the match can be undone.  A batch is all or nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MATCHES_MAX 1000
#define WINDOW_DAYS 3

#define OUT_TYPES "('debit', 'fee', 'interest')"
/* Amounts compare in the home currency, as spend does (rule D): a manual
 * row of USD 50.00 that cost AUD 75.55 is the card's 75.55, not an AUD
 * 50.00 purchase of the same day (an audit found it offered that one). */
#define HOME(x) "COALESCE(" x ".amount_aud, " x ".amount)"
#define WITHIN_1PCT "abs(" HOME("t") " - " HOME("m") ") * 100 <= " HOME("m")

/* Newest first; after a cursor (?4 its date, ?5 its id) the rows past
 * it, so rows reconciled or written meanwhile move no other row to
 * another page (an audit: by offset, two rows reconciled by another
 * client pushed two never-shown rows onto the page already read). */
static const char SQL_PENDING[] =
    "SELECT id, date FROM transactions"
    " WHERE owner_id = ?1 AND statement_id IS NULL AND reconciled_with_id IS NULL"
    "   AND (payment_method IS NULL OR payment_method IN ('card', 'bank_transfer'))"
    "   AND (?4 IS NULL OR date < ?4 OR (date = ?4 AND id < ?5))"
    " ORDER BY date DESC, id DESC LIMIT ?2 OFFSET ?3";
static const char SQL_PENDING_COUNT[] =
    "SELECT COUNT(*) FROM transactions"
    " WHERE owner_id = ?1 AND statement_id IS NULL AND reconciled_with_id IS NULL"
    "   AND (payment_method IS NULL OR payment_method IN ('card', 'bank_transfer'))";
/* Statement rows that could be manual row ?2 (owner ?1). */
static const char SQL_CANDIDATES[] =
    "SELECT t.id FROM transactions m, transactions t"
    " WHERE m.id = ?2 AND t.owner_id = ?1 AND t.statement_id IS NOT NULL"
    "   AND t.date BETWEEN date(m.date, '-3 days') AND date(m.date, '+3 days')"
    "   AND " WITHIN_1PCT
    "   AND (t.transaction_type IN " OUT_TYPES ") = (m.transaction_type IN " OUT_TYPES ")"
    "   AND NOT EXISTS (SELECT 1 FROM transactions o WHERE o.reconciled_with_id = t.id)"
    " ORDER BY abs(julianday(t.date) - julianday(m.date)), abs(" HOME("t") " - " HOME("m") "), t.id";
static const char SQL_ROW_STATE[] =
    "SELECT owner_id, statement_id, reconciled_with_id, payment_method FROM transactions WHERE id = ?";
static const char SQL_IS_CANDIDATE[] =
    "SELECT 1 FROM transactions m, transactions t"
    " WHERE m.id = ?1 AND t.id = ?2"
    "   AND t.date BETWEEN date(m.date, '-3 days') AND date(m.date, '+3 days')"
    "   AND " WITHIN_1PCT
    "   AND (t.transaction_type IN " OUT_TYPES ") = (m.transaction_type IN " OUT_TYPES ")";
static const char SQL_IS_TARGET[] =
    "SELECT 1 FROM transactions WHERE reconciled_with_id = ?";
/* The manual row's overrides win; a category the user gave the manual row
 * becomes the statement row's override; the payment method fills a gap.
 * So does the type, where the bank gave only the direction (debit,
 * credit), which the manual row shares: a card's debit the user knew for
 * a fee, a credit they knew for a refund (an audit: the refund stopped
 * offsetting spend once matched).  A type the bank gave precisely stays. */
static const char SQL_COPY_ROW[] =
    "UPDATE transactions SET"
    " transaction_type = CASE WHEN transaction_type IN ('debit', 'credit')"
    "                         THEN (SELECT transaction_type FROM transactions WHERE id = ?2)"
    "                         ELSE transaction_type END,"
    " override_category = COALESCE((SELECT COALESCE(override_category, category) FROM transactions"
    "                               WHERE id = ?2), override_category),"
    " override_merchant_normalized = COALESCE((SELECT override_merchant_normalized FROM transactions"
    "                                          WHERE id = ?2), override_merchant_normalized),"
    " override_share = COALESCE((SELECT override_share FROM transactions WHERE id = ?2), override_share),"
    " override_trip_id = COALESCE((SELECT override_trip_id FROM transactions WHERE id = ?2),"
    "                             override_trip_id),"
    " payment_method = COALESCE(payment_method, (SELECT payment_method FROM transactions WHERE id = ?2))"
    " WHERE id = ?1";
static const char SQL_COPY_TAGS[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT ?1, tag_id FROM transaction_tags WHERE transaction_id = ?2";
static const char SQL_HAS_SPLITS[] = "SELECT 1 FROM splits WHERE transaction_id = ?";
static const char SQL_CLEAR_SPLITS[] = "DELETE FROM splits WHERE transaction_id = ?";
static const char SQL_COPY_SPLITS[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
    " SELECT ?1, participant_id, share_percent, settled FROM splits WHERE transaction_id = ?2";
static const char SQL_HIDE[] = "UPDATE transactions SET reconciled_with_id = ?2 WHERE id = ?1";
/* The statement row takes the manual row's Imported date. */
/* after_run: the last rule run before it (schema 0022; see SQL_LATER_RUN). */
static const char SQL_RECORD[] =
    "INSERT INTO reconciliations (manual_id, statement_txn_id, snapshot, statement_created_at,"
    " after_run)"
    " VALUES (?1, ?2, json_set(?3, '$.manual_trip_id',"
    "                          (SELECT override_trip_id FROM transactions WHERE id = ?1)),"
    "         (SELECT created_at FROM transactions WHERE id = ?2),"
    "         (SELECT last FROM id_high_water WHERE name = 'rule_runs'))";
static const char SQL_TAKE_DATE[] =
    "UPDATE transactions SET created_at = (SELECT created_at FROM transactions WHERE id = ?2)"
    " WHERE id = ?1";
static const char SQL_GIVE_DATE_BACK[] =
    "UPDATE transactions SET created_at = (SELECT statement_created_at FROM reconciliations"
    "                                       WHERE manual_id = ?2) WHERE id = ?1";
static const char SQL_RECORD_GET[] =
    "SELECT statement_txn_id, snapshot, after_run FROM reconciliations WHERE manual_id = ?";
/* A rule run since the reconciliation (?2), still applied, that changed
 * the statement row ?1.  Undoing puts the statement row's old state back
 * over the run's, and reverting the run then would bring the copied
 * state back onto it beside the manual row's own: the run goes first.
 * (The hidden manual row no run can reach.) */
static const char SQL_LATER_RUN[] =
    "SELECT rr.run_id FROM rule_run_rows rr JOIN rule_runs r ON r.id = rr.run_id"
    " WHERE rr.transaction_id = ?1 AND rr.changed AND rr.run_id > ?2 AND r.reverted_at IS NULL"
    " ORDER BY rr.run_id DESC LIMIT 1";
static const char SQL_RECORD_DELETE[] = "DELETE FROM reconciliations WHERE manual_id = ?";
/* Undoing puts the statement row ?1 back as the snapshot ?3 has it, the
 * owner's later edits with it; but while matched it was the only row of
 * the purchase its other parties could see, and what they did there is
 * theirs, not the owner's to undo (audits: a participant's settle was
 * lost, and a participant who took his share off had it back).  So the
 * splits stay with the row they came from: those the manual row ?2
 * brought, as they are now (shares, parties and settled flags, whoever
 * changed them: a split is a debt between people), go back to it, and
 * the statement row takes back its own; when the manual row brought none,
 * the statement row's own splits stayed through the match and stay as
 * they are.  A trip put in or taken out while matched (by the owner, a
 * participant who made his tag a trip, a trip's owner who took the row
 * out of hers: audits) goes with the split, so that a debt stays in the
 * trip it was run up in; with no split, to the row the trip came from;
 * and the other row leaves the trip the purchase left.  An unchanged
 * trip, or one deleted meanwhile, stays where each row had it (the match
 * keeps the manual row's, manual_trip_id beside the snapshot).  The tags
 * of the manual row's parties (those of the split it takes back) become
 * those they left on the matched row, less any the statement row had
 * before; theirs leave the statement row unless they take part in that. */
#define NOT_ROW_OWNERS(tag, row) \
    tag " NOT IN (SELECT g.id FROM tags g JOIN transactions o ON o.id = " row \
    "              WHERE g.owner_id = o.owner_id)"
#define NOT_SAVED(tag) tag " NOT IN (SELECT value FROM json_each(?3, '$.tags'))"
#define BROUGHT_SPLITS "EXISTS (SELECT 1 FROM splits WHERE transaction_id = ?2)"
#define PARTY_NOW(user) user " IN (SELECT participant_id FROM splits WHERE transaction_id = ?1)"
static const char SQL_UNCARRY_TAGS[] =
    "DELETE FROM transaction_tags"
    " WHERE transaction_id = ?2 AND " BROUGHT_SPLITS " AND " NOT_ROW_OWNERS("tag_id", "?2")
    "   AND (tag_id NOT IN (SELECT tag_id FROM transaction_tags WHERE transaction_id = ?1)"
    "        OR NOT " PARTY_NOW("(SELECT owner_id FROM tags WHERE id = tag_id)") ")";
static const char SQL_CARRY_TAGS[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT ?2, tt.tag_id FROM transaction_tags tt JOIN tags g ON g.id = tt.tag_id"
    "  WHERE tt.transaction_id = ?1 AND " BROUGHT_SPLITS
    "    AND " NOT_ROW_OWNERS("tt.tag_id", "?1") " AND " NOT_SAVED("tt.tag_id")
    "    AND " PARTY_NOW("g.owner_id");
static const char SQL_DROP_CARRIED_TAGS[] =
    "DELETE FROM transaction_tags"
    " WHERE transaction_id = ?1 AND " NOT_ROW_OWNERS("tag_id", "?1") " AND " NOT_SAVED("tag_id")
    "   AND NOT " PARTY_NOW("(SELECT owner_id FROM tags WHERE id = tag_id)");
static const char SQL_TRIP_NOW[] = "SELECT override_trip_id FROM transactions WHERE id = ?";
static const char SQL_TRIP_EXISTS[] = "SELECT 1 FROM trips WHERE id = ?";
static const char SQL_TRIP_PUT[] =
    "UPDATE transactions SET override_trip_id = (SELECT id FROM trips WHERE id = ?2) WHERE id = ?1";
/* Row ?1's splits become exactly those of the snapshot ?3 (the matched
 * row's as it is at the undo; a party deleted since is left out). */
static const char SQL_SPLITS_PRUNE[] =
    "DELETE FROM splits WHERE transaction_id = ?1"
    "   AND participant_id NOT IN (SELECT json_extract(value, '$[0]') FROM json_each(?3, '$.splits'))";
static const char SQL_SPLITS_PUT[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
    " SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')"
    "   FROM json_each(?3, '$.splits') WHERE json_extract(value, '$[0]') IN (SELECT id FROM users)"
    " ON CONFLICT (transaction_id, participant_id) DO UPDATE"
    "    SET share_percent = excluded.share_percent, settled = excluded.settled"
    "  WHERE share_percent IS NOT excluded.share_percent OR settled IS NOT excluded.settled";
static const char SQL_UNHIDE[] = "UPDATE transactions SET reconciled_with_id = NULL WHERE id = ?";

/* Runs a statement binding two ids (and an optional text third). */
static int run2(ledger_db *db, const char *sql, int64_t a, int64_t b, const char *text,
                int want_row, int *row, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, a);
    if (b)
        sqlite3_bind_int64(st, 2, b);
    if (text)
        db_bind_text(db, st, b ? 3 : 2, text);
    rc = sqlite3_step(st);
    if (row)
        *row = rc == SQLITE_ROW;
    db_stmt_done(st);
    if (rc != SQLITE_DONE && !(want_row && rc == SQLITE_ROW))
        return db_error(db, err, "reconcile");
    return LEDGER_OK;
}

int ledger_reconcile_list(ledger_db *db, int64_t me, const struct ledger_params *p, cJSON **out,
                          ledger_error *err)
{
    const char *v, *cursor;
    int64_t limit = 50, offset = 0, total = 0, *ids = NULL, after_id = 0;
    char after_date[11] = "", last_date[11] = "";
    size_t n = 0, cap = 0, i;
    sqlite3_stmt *st;
    cJSON *doc, *pending, *unmatched;
    int rc, more = 0;

    if ((v = param_get(p, "limit")) && parse_whole(v, 1, 500, &limit))
        return ledger_error_set(err, 400, "invalid_field", "limit", "limit must be from 1 to 500");
    if ((v = param_get(p, "offset")) && parse_whole(v, 0, INT64_C(1) << 40, &offset))
        return ledger_error_set(err, 400, "invalid_field", "offset", "offset must be 0 or more");
    /* The cursor is the last row's date and id, "YYYY-MM-DD.id"; the page
     * after it starts there (offset, if given too, skips past that). */
    if ((cursor = param_get(p, "cursor")) && *cursor) {
        if (strlen(cursor) > 11 && cursor[10] == '.')
            memcpy(after_date, cursor, 10);
        if (!valid_date(after_date) || parse_whole(cursor + 11, 1, INT64_MAX, &after_id))
            return ledger_error_set(err, 400, "invalid_field", "cursor",
                                    "cursor is not one this list gave out");
    }
    if ((st = db_stmt(db, SQL_PENDING_COUNT, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        total = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "reconcile");
    if ((st = db_stmt(db, SQL_PENDING, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, limit + 1);  /* one more: is there a next page? */
    sqlite3_bind_int64(st, 3, offset);
    if (after_id) {
        db_bind_text(db, st, 4, after_date);
        sqlite3_bind_int64(st, 5, after_id);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((int64_t)n == limit) {
            more = 1;  /* the one more */
            continue;
        }
        snprintf(last_date, sizeof last_date, "%s", (const char *)sqlite3_column_text(st, 1));
        if (n == cap) {
            int64_t *nv = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof *ids);

            if (nv == NULL) {
                db_stmt_done(st);
                free(ids);
                return ledger_error_set(err, 500, "internal", NULL, "out of memory");
            }
            ids = nv;
        }
        ids[n++] = sqlite3_column_int64(st, 0);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        free(ids);
        return db_error(db, err, "reconcile");
    }
    doc = cJSON_CreateObject();
    pending = cJSON_AddArrayToObject(doc, "pending");
    unmatched = cJSON_AddArrayToObject(doc, "unmatched");
    for (i = 0; i < n; i++) {
        cJSON *cands = cJSON_CreateArray(), *row = NULL;
        int64_t cids[64];
        size_t nc = 0, k;

        /* Every row here is the caller's and unreconciled, read in this
         * transaction: one that cannot be read is an error, not a row to
         * leave out. */
        if (cands == NULL || txn_get(db, me, ids[i], &row, err)
            || (st = db_stmt(db, SQL_CANDIDATES, err)) == NULL) {
            cJSON_Delete(cands);
            cJSON_Delete(row);
            goto fail;
        }
        sqlite3_bind_int64(st, 1, me);
        sqlite3_bind_int64(st, 2, ids[i]);
        while (nc < 64 && (rc = sqlite3_step(st)) == SQLITE_ROW)
            cids[nc++] = sqlite3_column_int64(st, 0);
        db_stmt_done(st);
        if (nc < 64 && rc != SQLITE_DONE) {
            cJSON_Delete(cands);
            cJSON_Delete(row);
            db_error(db, err, "reconcile");
            goto fail;
        }
        for (k = 0; k < nc; k++) {
            cJSON *c = NULL;

            if (txn_get(db, me, cids[k], &c, err)) {
                cJSON_Delete(cands);
                cJSON_Delete(row);
                goto fail;
            }
            cJSON_AddItemToArray(cands, c);
        }
        if (nc) {
            cJSON *o = cJSON_CreateObject();

            cJSON_AddItemToObject(o, "transaction", row);
            cJSON_AddItemToObject(o, "candidates", cands);
            cJSON_AddItemToArray(pending, o);
        } else {
            cJSON_Delete(cands);
            cJSON_AddItemToArray(unmatched, row);
        }
    }
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddNumberToObject(doc, "limit", (double)limit);
    cJSON_AddNumberToObject(doc, "offset", (double)offset);
    if (more) {
        char next[40];

        snprintf(next, sizeof next, "%s.%lld", last_date, (long long)ids[n - 1]);
        cJSON_AddStringToObject(doc, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(doc, "next_cursor");
    }
    free(ids);
    *out = doc;
    return LEDGER_OK;
fail:
    free(ids);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

/* The state of row id, for checks: 404 when it does not exist. */
static int row_state(ledger_db *db, int64_t id, int64_t *owner, int64_t *statement,
                     int64_t *reconciled, char *method, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ROW_STATE, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *owner = sqlite3_column_int64(st, 0);
        *statement = sqlite3_column_int64(st, 1);
        *reconciled = sqlite3_column_int64(st, 2);
        snprintf(method, 16, "%s", sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such transaction %lld", (long long)id);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "reconcile");
}

/* Every check of one match, before anything is written. */
static int check_match(ledger_db *db, int64_t me, int64_t manual, int64_t stmt, ledger_error *err)
{
    int64_t owner, statement, reconciled;
    char method[16];
    int yes;

    if (row_state(db, manual, &owner, &statement, &reconciled, method, err))
        return LEDGER_ERR;
    if (owner != me)
        return ledger_error_set(err, 403, "forbidden", "manual_id", "transaction %lld is not yours",
                                (long long)manual);
    if (statement)
        return ledger_error_set(err, 400, "invalid_field", "manual_id",
                                "transaction %lld is a statement row, not a manual one", (long long)manual);
    if (reconciled)
        return ledger_error_set(err, 409, "conflict", "manual_id",
                                "transaction %lld is already reconciled", (long long)manual);
    /* The rows the list offers: unknown, card or bank transfer. */
    if (method[0] && strcmp(method, "card") != 0 && strcmp(method, "bank_transfer") != 0)
        return ledger_error_set(err, 400, "invalid_field", "manual_id",
                                "transaction %lld was paid by %s; only card, bank_transfer or"
                                " unknown payments are reconciled", (long long)manual, method);
    if (row_state(db, stmt, &owner, &statement, &reconciled, method, err))
        return LEDGER_ERR;
    if (owner != me)
        return ledger_error_set(err, 403, "forbidden", "statement_transaction_id",
                                "transaction %lld is not yours", (long long)stmt);
    if (!statement)
        return ledger_error_set(err, 400, "invalid_field", "statement_transaction_id",
                                "transaction %lld is not a statement row", (long long)stmt);
    if (run2(db, SQL_IS_TARGET, stmt, 0, NULL, 1, &yes, err))
        return LEDGER_ERR;
    if (yes)
        return ledger_error_set(err, 409, "conflict", "statement_transaction_id",
                                "transaction %lld is already reconciled with another row", (long long)stmt);
    if (run2(db, SQL_IS_CANDIDATE, manual, stmt, NULL, 1, &yes, err))
        return LEDGER_ERR;
    if (!yes)
        return ledger_error_set(err, 400, "invalid_field", "statement_transaction_id",
                                "transaction %lld is not within %d days and 1%% of transaction %lld",
                                (long long)stmt, WINDOW_DAYS, (long long)manual);
    return LEDGER_OK;
}

static int apply_match(ledger_db *db, int64_t manual, int64_t stmt, ledger_error *err)
{
    char *snapshot = NULL;
    int splits, rc;

    if (row_snapshot(db, stmt, &snapshot, err))
        return LEDGER_ERR;
    rc = run2(db, SQL_COPY_ROW, stmt, manual, NULL, 0, NULL, err)
         || run2(db, SQL_COPY_TAGS, stmt, manual, NULL, 0, NULL, err)
         || run2(db, SQL_HAS_SPLITS, manual, 0, NULL, 1, &splits, err)
         || (splits && (run2(db, SQL_CLEAR_SPLITS, stmt, 0, NULL, 0, NULL, err)
                        || run2(db, SQL_COPY_SPLITS, stmt, manual, NULL, 0, NULL, err)))
         || run2(db, SQL_HIDE, manual, stmt, NULL, 0, NULL, err)
         || run2(db, SQL_RECORD, manual, stmt, snapshot, 0, NULL, err)
         || run2(db, SQL_TAKE_DATE, stmt, manual, NULL, 0, NULL, err);
    free(snapshot);
    return rc ? LEDGER_ERR : LEDGER_OK;
}

int ledger_reconcile_apply(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                           ledger_error *err)
{
    const cJSON *matches, *m;
    int64_t (*pairs)[2] = NULL;
    size_t n = 0, i, k;
    cJSON *done;

    if (field_require_object(body, err))
        return LEDGER_ERR;
    matches = cJSON_GetObjectItemCaseSensitive(body, "matches");
    if (!cJSON_IsArray(matches) || cJSON_GetArraySize(matches) < 1
        || cJSON_GetArraySize(matches) > MATCHES_MAX)
        return ledger_error_set(err, 400, "invalid_field", "matches",
                                "matches must be an array of 1 to %d {manual_id, statement_transaction_id}",
                                MATCHES_MAX);
    pairs = calloc((size_t)cJSON_GetArraySize(matches), sizeof *pairs);
    if (pairs == NULL)
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    /* Every match is checked before the first is applied: all or nothing
     * (and the request's transaction undoes anything half-done). */
    cJSON_ArrayForEach(m, matches) {
        if (!cJSON_IsObject(m)) {
            ledger_error_set(err, 400, "invalid_field", "matches", "each match must be an object");
            goto fail;
        }
        if (field_id(m, "manual_id", 1, 0, &pairs[n][0], NULL, err)
            || field_id(m, "statement_transaction_id", 1, 0, &pairs[n][1], NULL, err))
            goto fail;
        for (k = 0; k < n; k++)
            if (pairs[k][0] == pairs[n][0] || pairs[k][1] == pairs[n][1]) {
                ledger_error_set(err, 400, "invalid_field", "matches",
                                 "a transaction appears in two matches");
                goto fail;
            }
        if (check_match(db, me, pairs[n][0], pairs[n][1], err))
            goto fail;
        n++;
    }
    done = cJSON_CreateArray();
    for (i = 0; i < n; i++) {
        cJSON *row = NULL;

        if (apply_match(db, pairs[i][0], pairs[i][1], err)) {
            cJSON_Delete(done);
            goto fail;
        }
        if (txn_get(db, me, pairs[i][1], &row, err)) {
            cJSON_Delete(done);
            goto fail;
        }
        cJSON_AddItemToArray(done, row);
    }
    free(pairs);
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "reconciled", (double)n);
    cJSON_AddItemToObject(*out, "transactions", done);
    return LEDGER_OK;
fail:
    free(pairs);
    return LEDGER_ERR;
}

/* *later: the newest SQL_LATER_RUN, or 0. */
static int later_run(ledger_db *db, int64_t stmt, int64_t after_run, int64_t *later,
                     ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_LATER_RUN, err);
    int rc;

    *later = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, stmt);
    sqlite3_bind_int64(st, 2, after_run);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        *later = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "reconcile");
}

/* Row id's trip into *trip, 0 for none. */
static int trip_of(ledger_db *db, int64_t id, int64_t *trip, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TRIP_NOW, err);
    int step;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    if ((step = sqlite3_step(st)) == SQLITE_ROW)
        *trip = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    return step == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "reconcile");
}

/* The id at key of a parsed snapshot, 0 for none. */
static int64_t snapshot_id(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

/* Undoes the match of manual with stmt, whose saved state is snapshot
 * (the comment above SQL_UNCARRY_TAGS says how). */
static int undo_match(ledger_db *db, int64_t manual, int64_t stmt, const char *snapshot,
                      ledger_error *err)
{
    int64_t trip, manual_trip = 0, saved_trip, brought_trip_id, trip_left;
    int64_t split_row, trip_row, other_row, other_trip;
    char *now = NULL;
    cJSON *saved = NULL, *now_doc = NULL;
    const cJSON *m;
    int brought, trip_moved, rc = LEDGER_ERR;

    /* The matched row as it is, in the snapshot's form: its splits (which
     * SQL_SPLITS_PUT writes from it) and its trip. */
    if (row_snapshot(db, stmt, &now, err) || trip_of(db, manual, &manual_trip, err))
        goto out;
    if ((now_doc = cJSON_Parse(now)) == NULL || (saved = cJSON_Parse(snapshot)) == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    trip = snapshot_id(now_doc, "override_trip_id");
    saved_trip = snapshot_id(saved, "override_trip_id");
    /* Matched before it was kept: the manual row's trip as it is. */
    m = cJSON_GetObjectItemCaseSensitive(saved, "manual_trip_id");
    brought_trip_id = m != NULL ? snapshot_id(saved, "manual_trip_id") : manual_trip;
    /* Before anything changes the two rows' splits, trips or tags. */
    if (run2(db, SQL_HAS_SPLITS, manual, 0, NULL, 1, &brought, err))
        goto out;
    split_row = brought ? manual : stmt;
    trip_left = brought_trip_id ? brought_trip_id : saved_trip;
    trip_moved = trip != trip_left;
    /* A trip deleted meanwhile, the row in none since, is no move (a row
     * put in another trip since is: an audit). */
    if (trip_moved && trip_left && trip == 0
        && run2(db, SQL_TRIP_EXISTS, trip_left, 0, NULL, 1, &trip_moved, err))
        goto out;
    trip_row = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(now_doc, "splits")) > 0
               ? split_row : brought_trip_id ? manual : stmt;
    other_row = trip_row == manual ? stmt : manual;
    other_trip = other_row == manual ? manual_trip : saved_trip;
    if (run2(db, SQL_UNCARRY_TAGS, stmt, manual, NULL, 0, NULL, err)
        || run2(db, SQL_CARRY_TAGS, stmt, manual, snapshot, 0, NULL, err)
        || row_restore(db, stmt, snapshot, err)
        || run2(db, SQL_GIVE_DATE_BACK, stmt, manual, NULL, 0, NULL, err)
        || run2(db, SQL_UNHIDE, manual, 0, NULL, 0, NULL, err)
        || run2(db, SQL_SPLITS_PRUNE, split_row, manual, now, 0, NULL, err)
        || run2(db, SQL_SPLITS_PUT, split_row, manual, now, 0, NULL, err)
        || (trip_moved && run2(db, SQL_TRIP_PUT, trip_row, trip, NULL, 0, NULL, err))
        || (trip_moved && other_trip == trip_left
            && run2(db, SQL_TRIP_PUT, other_row, 0, NULL, 0, NULL, err))
        || run2(db, SQL_DROP_CARRIED_TAGS, stmt, manual, snapshot, 0, NULL, err)
        || run2(db, SQL_RECORD_DELETE, manual, 0, NULL, 0, NULL, err))
        goto out;
    rc = LEDGER_OK;
out:
    free(now);
    cJSON_Delete(now_doc);
    cJSON_Delete(saved);
    return rc;
}

int ledger_reconcile_undo(ledger_db *db, int64_t me, int64_t manual, ledger_error *err)
{
    int64_t owner, statement, reconciled, stmt = 0, after_run = 0, later = 0;
    char method[16], *snapshot = NULL;
    sqlite3_stmt *st;
    int step, rc = LEDGER_ERR;

    if (row_state(db, manual, &owner, &statement, &reconciled, method, err))
        return LEDGER_ERR;
    if (owner != me)
        return ledger_error_set(err, 403, "forbidden", NULL, "the transaction is not yours");
    if ((st = db_stmt(db, SQL_RECORD_GET, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, manual);
    if ((step = sqlite3_step(st)) == SQLITE_ROW) {
        stmt = sqlite3_column_int64(st, 0);
        snapshot = db_column_dup(st, 1);
        after_run = sqlite3_column_int64(st, 2);
    }
    db_stmt_done(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
        db_error(db, err, "reconcile record");
        goto out;
    }
    if (step == SQLITE_ROW && snapshot == NULL) {
        ledger_error_set(err, 500, "internal", NULL, "out of memory");
        goto out;
    }
    if (!reconciled || snapshot == NULL) {
        ledger_error_set(err, 409, "conflict", NULL, "the transaction is not reconciled");
        goto out;
    }
    if (later_run(db, stmt, after_run, &later, err))
        goto out;
    if (later) {
        ledger_error_set(err, 409, "conflict", NULL,
                         "rule run %lld changed transaction %lld after it was reconciled:"
                         " revert the run first", (long long)later, (long long)stmt);
        goto out;
    }
    rc = undo_match(db, manual, stmt, snapshot, err);
out:
    free(snapshot);
    return rc;
}

/* The matches into statement ?1's rows, as (manual, statement row,
 * snapshot). */
static const char SQL_STATEMENT_MATCHES[] =
    "SELECT r.manual_id, r.statement_txn_id, r.snapshot, r.after_run FROM reconciliations r"
    "  JOIN transactions t ON t.id = r.statement_txn_id WHERE t.statement_id = ?1";

int reconcile_release_statement(ledger_db *db, int64_t statement_id, ledger_error *err)
{
    struct match { int64_t manual, stmt, after_run; char *snapshot; } *m = NULL;
    int64_t later = 0;
    size_t n = 0, cap = 0, i;
    sqlite3_stmt *st = db_stmt(db, SQL_STATEMENT_MATCHES, err);
    int step, rc = LEDGER_ERR;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, statement_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            struct match *more = realloc(m, (cap = cap ? 2 * cap : 16) * sizeof *m);

            if (more == NULL)
                break;
            m = more;
        }
        m[n].manual = sqlite3_column_int64(st, 0);
        m[n].stmt = sqlite3_column_int64(st, 1);
        m[n].after_run = sqlite3_column_int64(st, 3);
        if ((m[n].snapshot = db_column_dup(st, 2)) == NULL)
            break;
        n++;
    }
    db_stmt_done(st);
    if (step != SQLITE_DONE) {
        if (step == SQLITE_ROW)
            ledger_error_set(err, 500, "internal", NULL, "out of memory");
        else
            db_error(db, err, "reconcile");
        goto out;
    }
    /* As an undo would: a run since that changed a matched row goes first
     * (it carried the run's split onto the manual row, which the run's
     * revert, its row gone, could no longer take off: an audit). */
    for (i = 0; i < n; i++) {
        if (later_run(db, m[i].stmt, m[i].after_run, &later, err))
            goto out;
        if (later) {
            ledger_error_set(err, 409, "conflict", NULL,
                             "rule run %lld changed transaction %lld, reconciled with %lld, since:"
                             " revert the run first", (long long)later, (long long)m[i].stmt,
                             (long long)m[i].manual);
            goto out;
        }
    }
    for (i = 0; i < n; i++)
        if (undo_match(db, m[i].manual, m[i].stmt, m[i].snapshot, err))
            goto out;
    rc = LEDGER_OK;
out:
    for (i = 0; i < n; i++)
        free(m[i].snapshot);
    free(m);
    return rc;
}
