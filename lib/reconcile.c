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

#include "db.h"
#include "fields.h"
#include "txn.h"

#define MATCHES_MAX 1000
#define WINDOW_DAYS 3

/* Amounts compare in the home currency, as spend does (rule D): a manual
 * row of USD 50.00 that cost AUD 75.55 is the card's 75.55, not an AUD
 * 50.00 purchase of the same day. */
#define HOME(x) "COALESCE(" x ".amount_aud, " x ".amount)"
#define WITHIN_1PCT "abs(" HOME("t") " - " HOME("m") ") * 100 <= " HOME("m")

/* Newest first; after a cursor (?4 its date, ?5 its id) the rows past
 * it, so rows reconciled or written meanwhile move no other row to
 * another page (by offset alone, rows another client reconciles push
 * rows never shown onto the page already read). */
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
    "   AND (t.transaction_type IN " MONEY_OUT_TYPES_SQL ")"
    "       = (m.transaction_type IN " MONEY_OUT_TYPES_SQL ")"
    "   AND NOT EXISTS (SELECT 1 FROM transactions o WHERE o.reconciled_with_id = t.id)"
    " ORDER BY abs(julianday(t.date) - julianday(m.date)), abs(" HOME("t") " - " HOME("m") "), t.id";
static const char SQL_ROW_STATE[] =
    "SELECT owner_id, statement_id, reconciled_with_id, payment_method FROM transactions WHERE id = ?";
static const char SQL_IS_CANDIDATE[] =
    "SELECT 1 FROM transactions m, transactions t"
    " WHERE m.id = ?1 AND t.id = ?2"
    "   AND t.date BETWEEN date(m.date, '-3 days') AND date(m.date, '+3 days')"
    "   AND " WITHIN_1PCT
    "   AND (t.transaction_type IN " MONEY_OUT_TYPES_SQL ")"
    "       = (m.transaction_type IN " MONEY_OUT_TYPES_SQL ")";
static const char SQL_IS_TARGET[] =
    "SELECT 1 FROM transactions WHERE reconciled_with_id = ?";
/* The manual row's overrides win; a category the user gave the manual row
 * becomes the statement row's override; the payment method fills a gap.
 * So does the type, where the bank gave only the direction (debit,
 * credit), which the manual row shares: a card's debit the user knew for
 * a fee, a credit they knew for a refund (so that the refund keeps
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
/* after_run: the last rule run before it (reconciliations.after_run; see SQL_LATER_RUN). */
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
 * theirs, not the owner's to undo (a participant's settle stays
 * settled, a share he took off stays off).  So the
 * splits stay with the row they came from: those the manual row ?2
 * brought, as they are now (shares, parties and settled flags, whoever
 * changed them: a split is a debt between people), go back to it, and
 * the statement row takes back its own; when the manual row brought none,
 * the statement row's own splits stayed through the match and stay as
 * they are.  A trip put in or taken out while matched (by the owner, a
 * participant who made his tag a trip, a trip's owner who took the row
 * out of hers) goes with the split, so that a debt stays in the
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

/* The cursor is the last row's date and id, "YYYY-MM-DD.id"; the page
 * after it starts there (offset, if given too, skips past that).
 * *after_id is 0 when there is none. */
static int cursor_parse(const struct ledger_params *p, char after_date[11], int64_t *after_id,
                        ledger_error *err)
{
    const char *cursor = param_get(p, "cursor");

    *after_id = 0;
    if (cursor == NULL || *cursor == '\0')
        return LEDGER_OK;
    if (strlen(cursor) > 11 && cursor[10] == '.')
        memcpy(after_date, cursor, 10);
    if (!valid_date(after_date) || parse_whole(cursor + 11, 1, INT64_MAX, after_id))
        return error_field(err, "cursor", "cursor is not one this list gave out");
    return LEDGER_OK;
}

/* One page of pending rows.  The caller frees ids. */
struct pending_page {
    int64_t *ids;
    size_t n;
    int more;               /* another page follows */
    char last_date[11];     /* the date of ids[n - 1] */
};

/* Reads the page's ids, one more than the limit asked to learn whether
 * another page follows. */
static int pending_read(ledger_db *db, int64_t me, const struct page *pg, const char *after_date,
                        int64_t after_id, struct pending_page *pp, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PENDING, err);
    size_t cap = 0;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, pg->limit + 1);
    sqlite3_bind_int64(st, 3, pg->offset);
    if (after_id) {
        db_bind_text(db, st, 4, after_date);
        sqlite3_bind_int64(st, 5, after_id);
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if ((int64_t)pp->n == pg->limit) {
            pp->more = 1;
            continue;
        }
        snprintf(pp->last_date, sizeof pp->last_date, "%s",
                 (const char *)sqlite3_column_text(st, 1));
        if (pp->n == cap) {
            int64_t *nv = realloc(pp->ids, (cap = cap ? 2 * cap : 64) * sizeof *pp->ids);

            if (nv == NULL) {
                db_stmt_done(st);
                return ledger_error_oom(err);
            }
            pp->ids = nv;
        }
        pp->ids[pp->n++] = sqlite3_column_int64(st, 0);
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "reconcile");
}

/* The first CANDIDATES_MAX of manual row id's candidates. */
#define CANDIDATES_MAX 64
static int candidates_read(ledger_db *db, int64_t me, int64_t id, int64_t *cids, size_t *nc,
                           ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_CANDIDATES, err);
    int rc = SQLITE_DONE;

    *nc = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, id);
    while (*nc < CANDIDATES_MAX && (rc = sqlite3_step(st)) == SQLITE_ROW)
        cids[(*nc)++] = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (*nc < CANDIDATES_MAX && rc != SQLITE_DONE)
        return db_error(db, err, "reconcile");
    return LEDGER_OK;
}

/* Adds pending row id to the list: with its candidates to pending, or to
 * unmatched when it has none.  Every row here is the caller's and
 * unreconciled, read in this transaction: one that cannot be read is an
 * error, not a row to leave out. */
static int pending_add(ledger_db *db, int64_t me, int64_t id, cJSON *pending, cJSON *unmatched,
                       ledger_error *err)
{
    cJSON *cands = cJSON_CreateArray(), *row = NULL, *o;
    int64_t cids[CANDIDATES_MAX];
    size_t nc = 0, k;

    if (cands == NULL || txn_get(db, me, id, &row, err)
        || candidates_read(db, me, id, cids, &nc, err))
        goto fail;
    for (k = 0; k < nc; k++) {
        cJSON *c = NULL;

        if (txn_get(db, me, cids[k], &c, err))
            goto fail;
        cJSON_AddItemToArray(cands, c);
    }
    if (nc == 0) {
        cJSON_Delete(cands);
        cJSON_AddItemToArray(unmatched, row);
        return LEDGER_OK;
    }
    o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "transaction", row);
    cJSON_AddItemToObject(o, "candidates", cands);
    cJSON_AddItemToArray(pending, o);
    return LEDGER_OK;
fail:
    cJSON_Delete(cands);
    cJSON_Delete(row);
    return LEDGER_ERR;
}

/* next_cursor: where the page after this one starts, or null. */
static void cursor_add(cJSON *doc, const struct pending_page *pp)
{
    char next[40];

    if (!pp->more) {
        cJSON_AddNullToObject(doc, "next_cursor");
        return;
    }
    snprintf(next, sizeof next, "%s.%lld", pp->last_date, (long long)pp->ids[pp->n - 1]);
    cJSON_AddStringToObject(doc, "next_cursor", next);
}

int ledger_reconcile_list(ledger_db *db, int64_t me, const struct ledger_params *p, cJSON **out,
                          ledger_error *err)
{
    struct page pg;
    struct pending_page pp = {NULL, 0, 0, ""};
    char after_date[11] = "";
    int64_t after_id, total;
    cJSON *doc = NULL, *pending, *unmatched;
    size_t i;

    if (page_parse(p, 50, &pg, err) || cursor_parse(p, after_date, &after_id, err))
        return LEDGER_ERR;
    if (db_int(db, err, "reconcile", &total, 0, SQL_PENDING_COUNT, DB_INT(me))
        || pending_read(db, me, &pg, after_date, after_id, &pp, err))
        goto fail;
    doc = cJSON_CreateObject();
    pending = cJSON_AddArrayToObject(doc, "pending");
    unmatched = cJSON_AddArrayToObject(doc, "unmatched");
    for (i = 0; i < pp.n; i++)
        if (pending_add(db, me, pp.ids[i], pending, unmatched, err))
            goto fail;
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddNumberToObject(doc, "limit", (double)pg.limit);
    cJSON_AddNumberToObject(doc, "offset", (double)pg.offset);
    cursor_add(doc, &pp);
    free(pp.ids);
    *out = doc;
    return LEDGER_OK;
fail:
    free(pp.ids);
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
        return error_field(err, "manual_id", "transaction %lld is a statement row, not a manual one",
                           (long long)manual);
    if (reconciled)
        return ledger_error_set(err, 409, "conflict", "manual_id",
                                "transaction %lld is already reconciled", (long long)manual);
    /* The rows the list offers: unknown, card or bank transfer. */
    if (method[0] && strcmp(method, "card") != 0 && strcmp(method, "bank_transfer") != 0)
        return error_field(err, "manual_id",
                           "transaction %lld was paid by %s; only card, bank_transfer or"
                           " unknown payments are reconciled", (long long)manual, method);
    if (row_state(db, stmt, &owner, &statement, &reconciled, method, err))
        return LEDGER_ERR;
    if (owner != me)
        return ledger_error_set(err, 403, "forbidden", "statement_transaction_id",
                                "transaction %lld is not yours", (long long)stmt);
    if (!statement)
        return error_field(err, "statement_transaction_id",
                           "transaction %lld is not a statement row", (long long)stmt);
    if (db_exists(db, err, "reconcile", &yes, SQL_IS_TARGET, DB_INT(stmt)))
        return LEDGER_ERR;
    if (yes)
        return ledger_error_set(err, 409, "conflict", "statement_transaction_id",
                                "transaction %lld is already reconciled with another row", (long long)stmt);
    if (db_exists(db, err, "reconcile", &yes, SQL_IS_CANDIDATE, DB_INT(manual), DB_INT(stmt)))
        return LEDGER_ERR;
    if (!yes)
        return error_field(err, "statement_transaction_id",
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
    rc = db_exec(db, err, "reconcile", SQL_COPY_ROW, DB_INT(stmt), DB_INT(manual))
         || db_exec(db, err, "reconcile", SQL_COPY_TAGS, DB_INT(stmt), DB_INT(manual))
         || db_exists(db, err, "reconcile", &splits, SQL_HAS_SPLITS, DB_INT(manual))
         || (splits && (db_exec(db, err, "reconcile", SQL_CLEAR_SPLITS, DB_INT(stmt))
                        || db_exec(db, err, "reconcile", SQL_COPY_SPLITS, DB_INT(stmt),
                                   DB_INT(manual))))
         || db_exec(db, err, "reconcile", SQL_HIDE, DB_INT(manual), DB_INT(stmt))
         || db_exec(db, err, "reconcile", SQL_RECORD, DB_INT(manual), DB_INT(stmt),
                    DB_TEXT(snapshot))
         || db_exec(db, err, "reconcile", SQL_TAKE_DATE, DB_INT(stmt), DB_INT(manual));
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
        return error_field(err, "matches",
                           "matches must be an array of 1 to %d {manual_id, statement_transaction_id}",
                           MATCHES_MAX);
    pairs = calloc((size_t)cJSON_GetArraySize(matches), sizeof *pairs);
    if (pairs == NULL)
        return ledger_error_oom(err);
    /* Every match is checked before the first is applied: all or nothing
     * (and the request's transaction undoes anything half-done). */
    cJSON_ArrayForEach(m, matches) {
        if (!cJSON_IsObject(m)) {
            error_field(err, "matches", "each match must be an object");
            goto fail;
        }
        if (field_id(m, "manual_id", 1, 0, &pairs[n][0], NULL, err)
            || field_id(m, "statement_transaction_id", 1, 0, &pairs[n][1], NULL, err))
            goto fail;
        for (k = 0; k < n; k++)
            if (pairs[k][0] == pairs[n][0] || pairs[k][1] == pairs[n][1]) {
                error_field(err, "matches", "a transaction appears in two matches");
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
    return db_int(db, err, "reconcile", later, 0, SQL_LATER_RUN, DB_INT(stmt), DB_INT(after_run));
}

/* Row id's trip into *trip, 0 for none. */
static int trip_of(ledger_db *db, int64_t id, int64_t *trip, ledger_error *err)
{
    return db_int(db, err, "reconcile", trip, 0, SQL_TRIP_NOW, DB_INT(id));
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
        ledger_error_oom(err);
        goto out;
    }
    trip = snapshot_id(now_doc, "override_trip_id");
    saved_trip = snapshot_id(saved, "override_trip_id");
    /* Matched before it was kept: the manual row's trip as it is. */
    m = cJSON_GetObjectItemCaseSensitive(saved, "manual_trip_id");
    brought_trip_id = m != NULL ? snapshot_id(saved, "manual_trip_id") : manual_trip;
    /* Before anything changes the two rows' splits, trips or tags. */
    if (db_exists(db, err, "reconcile", &brought, SQL_HAS_SPLITS, DB_INT(manual)))
        goto out;
    split_row = brought ? manual : stmt;
    trip_left = brought_trip_id ? brought_trip_id : saved_trip;
    trip_moved = trip != trip_left;
    /* A trip deleted meanwhile, the row in none since, is no move (a row
     * put in another trip since is one). */
    if (trip_moved && trip_left && trip == 0
        && db_exists(db, err, "reconcile", &trip_moved, SQL_TRIP_EXISTS, DB_INT(trip_left)))
        goto out;
    trip_row = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(now_doc, "splits")) > 0
               ? split_row : brought_trip_id ? manual : stmt;
    other_row = trip_row == manual ? stmt : manual;
    other_trip = other_row == manual ? manual_trip : saved_trip;
    if (db_exec(db, err, "reconcile", SQL_UNCARRY_TAGS, DB_INT(stmt), DB_INT(manual))
        || db_exec(db, err, "reconcile", SQL_CARRY_TAGS, DB_INT(stmt), DB_INT(manual),
                   DB_TEXT(snapshot))
        || row_restore(db, stmt, snapshot, err)
        || db_exec(db, err, "reconcile", SQL_GIVE_DATE_BACK, DB_INT(stmt), DB_INT(manual))
        || db_exec(db, err, "reconcile", SQL_UNHIDE, DB_INT(manual))
        || db_exec(db, err, "reconcile", SQL_SPLITS_PRUNE, DB_INT(split_row), DB_INT(manual),
                   DB_TEXT(now))
        || db_exec(db, err, "reconcile", SQL_SPLITS_PUT, DB_INT(split_row), DB_INT(manual),
                   DB_TEXT(now))
        || (trip_moved && db_exec(db, err, "reconcile", SQL_TRIP_PUT, DB_INT(trip_row),
                                  trip ? DB_INT(trip) : DB_NULL))
        || (trip_moved && other_trip == trip_left
            && db_exec(db, err, "reconcile", SQL_TRIP_PUT, DB_INT(other_row), DB_NULL))
        || db_exec(db, err, "reconcile", SQL_DROP_CARRIED_TAGS, DB_INT(stmt), DB_INT(manual),
                   DB_TEXT(snapshot))
        || db_exec(db, err, "reconcile", SQL_RECORD_DELETE, DB_INT(manual)))
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
        ledger_error_oom(err);
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

/* The matches into statement statement_id's rows, checked as an undo
 * checks them, and with give_back undone. */
static int release_statement(ledger_db *db, int64_t statement_id, int give_back,
                             ledger_error *err)
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
            ledger_error_oom(err);
        else
            db_error(db, err, "reconcile");
        goto out;
    }
    /* As an undo would: a run since that changed a matched row goes first
     * (it carried the run's split onto the manual row, which the run's
     * revert, its row gone, could no longer take off). */
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
    for (i = 0; give_back && i < n; i++)
        if (undo_match(db, m[i].manual, m[i].stmt, m[i].snapshot, err))
            goto out;
    rc = LEDGER_OK;
out:
    for (i = 0; i < n; i++)
        free(m[i].snapshot);
    free(m);
    return rc;
}

int reconcile_check_statement(ledger_db *db, int64_t statement_id, ledger_error *err)
{
    return release_statement(db, statement_id, 0, err);
}

int reconcile_release_statement(ledger_db *db, int64_t statement_id, ledger_error *err)
{
    return release_statement(db, statement_id, 1, err);
}
