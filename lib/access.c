/*
 * Who may touch what.  Every transaction-scoped operation goes through
 * access_txn (canAccessTransactions of the specification): the owner, or a
 * participant with a split on the row.  A row that does not exist is 404,
 * one the caller may not touch is 403.  Reconciled manual rows are hidden
 * from every query, so they do not exist here either.
 */
#include <stdlib.h>

#include "db.h"
#include "share.h"

static const char SQL_ACCESS_TXN[] =
    "SELECT t.owner_id, t.statement_id,"
    "       t.owner_id = ?2 OR EXISTS (SELECT 1 FROM splits s"
    "                                   WHERE s.transaction_id = t.id AND s.participant_id = ?2),"
    "       t.principal_amount IS NOT NULL"
    "  FROM transactions t WHERE t.id = ?1 AND t.reconciled_with_id IS NULL";

/* For a set of ids (a JSON array bound once): how many distinct ids were
 * asked for, how many exist, and how many the caller may touch. */
static const char SQL_ACCESS_SET[] =
    "WITH ids AS (SELECT DISTINCT value AS id FROM json_each(?1))"
    " SELECT (SELECT COUNT(*) FROM ids), COUNT(t.id),"
    "        COALESCE(SUM(t.owner_id = ?2 OR EXISTS (SELECT 1 FROM splits s"
    "                  WHERE s.transaction_id = t.id AND s.participant_id = ?2)), 0)"
    "   FROM ids JOIN transactions t ON t.id = ids.id AND t.reconciled_with_id IS NULL";

/* Participation is derived as in the participants list: a reconciled
 * manual row is hidden everywhere, so it makes nobody a participant.
 * CASE stops at the first test that holds (OR evaluates every EXISTS).
 * The split test walks the trip's rows and looks each up in splits by
 * key; the CROSS JOIN keeps SQLite from walking every split naming the
 * caller instead, which grows with the caller's shared rows. */
static const char SQL_TRIP_ACCESS[] =
    "SELECT CASE WHEN tr.owner_id = ?2 THEN 1"
    "  WHEN EXISTS (SELECT 1 FROM transactions t WHERE t.override_trip_id = tr.id AND t.owner_id = ?2"
    "               AND t.reconciled_with_id IS NULL) THEN 1"
    "  WHEN EXISTS (SELECT 1 FROM transactions t CROSS JOIN splits s ON s.transaction_id = t.id"
    "               WHERE t.override_trip_id = tr.id AND t.owner_id = tr.owner_id"
    "                 AND t.reconciled_with_id IS NULL AND s.participant_id = ?2) THEN 1"
    "  WHEN EXISTS (SELECT 1 FROM split_payments p WHERE p.trip_id = tr.id"
    "               AND ((p.from_user_id = ?2 AND p.to_user_id = tr.owner_id)"
    "                    OR (p.to_user_id = ?2 AND p.from_user_id = tr.owner_id))) THEN 1"
    "  ELSE 0 END"
    "  FROM trips tr WHERE tr.id = ?1";

int access_txn(ledger_db *db, int64_t me, int64_t txn_id, struct txn_access *out,
               ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ACCESS_TXN, err);
    int rc, allowed = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, txn_id);
    sqlite3_bind_int64(st, 2, me);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->owner_id = sqlite3_column_int64(st, 0);
        out->statement_id = sqlite3_column_int64(st, 1);
        out->is_owner = out->owner_id == me;
        allowed = sqlite3_column_int(st, 2);
        out->itemised = sqlite3_column_int(st, 3);
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such transaction");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "access");
    if (!allowed)
        return ledger_error_set(err, 403, "forbidden", NULL,
                                "the transaction is not yours or shared with you");
    return LEDGER_OK;
}

int access_txn_set(ledger_db *db, int64_t me, const cJSON *ids, const char *field,
                   ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ACCESS_SET, err);
    char *text = cJSON_PrintUnformatted(ids);
    int64_t asked = 0, found = 0, allowed = 0;
    int rc;

    if (st == NULL || text == NULL) {
        free(text);
        return st ? ledger_error_oom(err) : LEDGER_ERR;
    }
    db_bind_text(db, st, 1, text);
    sqlite3_bind_int64(st, 2, me);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        asked = sqlite3_column_int64(st, 0);
        found = sqlite3_column_int64(st, 1);
        allowed = sqlite3_column_int64(st, 2);
    }
    db_stmt_done(st);
    free(text);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "access");
    if (found < asked)
        return ledger_error_set(err, 404, "not_found", field,
                                asked - found == 1 ? "%lld of the transactions does not exist"
                                                   : "%lld of the transactions do not exist",
                                (long long)(asked - found));
    if (allowed < found)
        return ledger_error_set(err, 403, "forbidden", field,
                                "%lld of the transactions are not yours or shared with you",
                                (long long)(found - allowed));
    return LEDGER_OK;
}

int access_trip(ledger_db *db, int64_t me, int64_t trip_id, int *participant,
                ledger_error *err)
{
    int64_t v = -1;  /* -1: no such trip */

    *participant = 0;
    if (db_int(db, err, "trip access", &v, -1, SQL_TRIP_ACCESS, DB_INT(trip_id), DB_INT(me)))
        return LEDGER_ERR;
    if (v < 0)
        return ledger_error_set(err, 404, "not_found", "trip_id", "no such trip");
    *participant = v == 1;
    return LEDGER_OK;
}

/* Who the rows of ?1 (ids as a JSON array) would make take part in trip
 * ?3, when the caller ?2 is not its owner: each row's owner, and the
 * people with a split on a row of the trip owner's (trip.c), but the
 * caller and the trip's owner; each once, with the first row bringing
 * them (a bulk move of thousands of one owner's rows is one check). */
static const char SQL_ROWS_OF_OTHERS[] =
    "SELECT MIN(id), person FROM ("
    " SELECT t.id, t.owner_id AS person FROM trips tr JOIN transactions t"
    "    ON t.id IN (SELECT value FROM json_each(?1)) AND t.owner_id NOT IN (?2, tr.owner_id)"
    " WHERE tr.id = ?3 AND tr.owner_id <> ?2"
    " UNION ALL"
    " SELECT t.id, s.participant_id FROM trips tr JOIN transactions t"
    "    ON t.id IN (SELECT value FROM json_each(?1)) AND t.owner_id = tr.owner_id"
    "  JOIN splits s ON s.transaction_id = t.id AND s.participant_id NOT IN (?2, tr.owner_id)"
    " WHERE tr.id = ?3 AND tr.owner_id <> ?2)"
    " GROUP BY person ORDER BY 1, 2";

/* A row moved into a trip by someone other than its owner must bring
 * nobody new in: the row's owner would become a participant and read all
 * of the trip, and could bring in the next person the same way; so would
 * the people on the split of one of the trip owner's rows moved in from
 * outside it. */
int trip_check_row_owners(ledger_db *db, int64_t me, int64_t trip_id, const char *ids,
                          const char *field, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_ROWS_OF_OTHERS, err);
    int64_t row = 0, owner = 0;
    int rc = SQLITE_DONE, participant = 1;

    if (st == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 1, ids);
    sqlite3_bind_int64(st, 2, me);
    sqlite3_bind_int64(st, 3, trip_id);
    while (participant && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        row = sqlite3_column_int64(st, 0);
        owner = sqlite3_column_int64(st, 1);
        if (access_trip(db, owner, trip_id, &participant, err)) {
            db_stmt_done(st);
            return LEDGER_ERR;
        }
    }
    db_stmt_done(st);
    if (participant && rc != SQLITE_DONE)
        return db_error(db, err, "trip rows");
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", field,
                                "transaction %lld would bring user %lld into trip %lld, which they"
                                " do not take part in, and only its owner brings people in",
                                (long long)row, (long long)owner, (long long)trip_id);
    return LEDGER_OK;
}

int trip_check_member(ledger_db *db, int64_t me, int64_t trip_id, ledger_error *err)
{
    int participant;

    if (access_trip(db, me, trip_id, &participant, err))
        return error_in_body(err, "trip_id");
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", "trip_id",
                                "trip %lld is not one you take part in", (long long)trip_id);
    return LEDGER_OK;
}
