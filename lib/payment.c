/*
 * Payments between participants (Behaviour rule 8).  One payment carries
 * one scope or several: the household (trip_id NULL) or a trip.  It is
 * stored as one row per scope; the rows of one payment share
 * linked_transaction_id, and deleting any of them deletes the payment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"

#define NOTES_MAX 1000
#define SCOPES_MAX 20

static const char SQL_PAY_INSERT[] =
    "INSERT INTO split_payments (id, from_user_id, to_user_id, amount, date, notes, trip_id,"
    " linked_transaction_id, created_by)"
    " VALUES (" NEXT_ROW_ID("split_payments") ", ?, ?, ?, ?, ?, ?, ?, ?)";
static const char SQL_PAY_LINK[] = "SELECT lower(hex(randomblob(16)))";
static const char SQL_PAY_BY_LINK[] =
    "SELECT id, linked_transaction_id, from_user_id, to_user_id, amount, date, notes, trip_id"
    "  FROM split_payments WHERE linked_transaction_id = ? ORDER BY trip_id IS NOT NULL, trip_id, id";
static const char SQL_PAY_LIST[] =
    "SELECT id, linked_transaction_id, from_user_id, to_user_id, amount, date, notes, trip_id"
    "  FROM split_payments"
    " WHERE (from_user_id = ?1 OR to_user_id = ?1)"
    "   AND (?2 IS NULL OR from_user_id = ?2 OR to_user_id = ?2)"
    "   AND (?3 IS NULL OR trip_id = ?3)"
    "   AND (NOT ?4 OR trip_id IS NULL)"
    " ORDER BY date DESC, id DESC";
static const char SQL_PAY_PARTIES[] =
    "SELECT from_user_id, to_user_id, linked_transaction_id FROM split_payments WHERE id = ?";
static const char SQL_PAY_DELETE[] = "DELETE FROM split_payments WHERE linked_transaction_id = ?";
/* Whether ?2 has taken part in something with ?1 (the caller): a split
 * between the two, either way; ?2's adding ?1 by email; or a payment
 * between the two that ?2 recorded.  Each test stops at its first row. */
static const char SQL_PAY_RELATED[] =
    "SELECT EXISTS (SELECT 1 FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "                WHERE s.participant_id = ?2 AND t.owner_id = ?1)"
    " OR EXISTS (SELECT 1 FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "             WHERE s.participant_id = ?1 AND t.owner_id = ?2)"
    " OR EXISTS (SELECT 1 FROM user_contacts WHERE user_id = ?2 AND contact_id = ?1)"
    " OR EXISTS (SELECT 1 FROM split_payments WHERE created_by = ?2"
    "             AND ((from_user_id = ?1 AND to_user_id = ?2)"
    "                  OR (from_user_id = ?2 AND to_user_id = ?1)))";
/* Whether either party of a payment is the trip's owner. */
static const char SQL_TRIP_OWNER_PARTY[] =
    "SELECT owner_id IN (?2, ?3) FROM trips WHERE id = ?1";

static cJSON *payment_row(sqlite3_stmt *st)
{
    cJSON *row = cJSON_CreateObject();

    cJSON_AddNumberToObject(row, "id", (double)sqlite3_column_int64(st, 0));
    cJSON_AddStringToObject(row, "linked_transaction_id", (const char *)sqlite3_column_text(st, 1));
    cJSON_AddNumberToObject(row, "from_participant_id", (double)sqlite3_column_int64(st, 2));
    cJSON_AddNumberToObject(row, "to_participant_id", (double)sqlite3_column_int64(st, 3));
    cJSON_AddItemToObject(row, "amount", ledger_money_to_json(sqlite3_column_int64(st, 4)));
    cJSON_AddStringToObject(row, "date", (const char *)sqlite3_column_text(st, 5));
    json_text_col(row, "notes", st, 6);
    if (sqlite3_column_type(st, 7) == SQLITE_NULL) {
        cJSON_AddNullToObject(row, "trip_id");
        cJSON_AddStringToObject(row, "scope", "household");
    } else {
        cJSON_AddNumberToObject(row, "trip_id", (double)sqlite3_column_int64(st, 7));
        cJSON_AddStringToObject(row, "scope", "trip");
    }
    return row;
}

/* One scope of a payment, as given. */
struct scope {
    int64_t trip_id;  /* 0: household */
    int64_t amount;
};

/* A payment may settle a trip only for someone who is part of it, and
 * brings nobody new into it but by its owner: a party who does not take
 * part yet is let in only when the other party is the trip's owner (a
 * payment to or from the owner makes its other party a participant, see
 * trip.c).  Else a participant could add a contact of their own, by a
 * payment of 0.01 between the two of them, to someone else's trip and all
 * its rows, and the owner could not take them out. */
static int check_trip_scope(ledger_db *db, int64_t me, int64_t other, int64_t trip,
                            ledger_error *err)
{
    int64_t owner_party;
    int participant;

    if (trip_check_member(db, me, trip, err) || access_trip(db, other, trip, &participant, err))
        return LEDGER_ERR;
    if (participant)
        return LEDGER_OK;
    if (db_int(db, err, "payment", &owner_party, 0, SQL_TRIP_OWNER_PARTY, DB_INT(trip), DB_INT(me),
               DB_INT(other)))
        return LEDGER_ERR;
    if (!owner_party)
        return error_field(err, "trip_id",
                           "user %lld does not take part in trip %lld, and only its owner"
                           " brings people in", (long long)other, (long long)trip);
    return LEDGER_OK;
}

/* A payment moves the other party's balance, so it needs something the
 * two already share: a split, or the other's own step towards the caller
 * (adding the caller by email, or recording a payment with them).  Adding
 * someone by email alone is not enough: anyone who knows an address can
 * do that. */
static int check_related(ledger_db *db, int64_t me, int64_t other, ledger_error *err)
{
    int64_t related;

    if (db_int(db, err, "payment", &related, 0, SQL_PAY_RELATED, DB_INT(me), DB_INT(other)))
        return LEDGER_ERR;
    if (!related)
        return ledger_error_set(err, 403, "forbidden", NULL,
                                "a payment needs something you share with user %lld first: a"
                                " split between you, or their adding you as a participant",
                                (long long)other);
    return LEDGER_OK;
}

static int read_scope(ledger_db *db, int64_t me, int64_t other, const cJSON *obj,
                      struct scope *s, ledger_error *err)
{
    int set;

    if (field_id(obj, "trip_id", 0, 1, &s->trip_id, NULL, err)
        || field_money(obj, "amount", 1, 0, &s->amount, &set, NULL, err))
        return LEDGER_ERR;
    if (s->amount <= 0)
        return error_field(err, "amount", "amount must be more than 0");
    return s->trip_id ? check_trip_scope(db, me, other, s->trip_id, err) : LEDGER_OK;
}

/* The scopes of a payment with other: a scopes array, or the body's own
 * amount and trip_id; *n of them, *total their sum. */
static int read_scopes(ledger_db *db, int64_t me, int64_t other, const cJSON *body,
                       struct scope *scopes, size_t *n, int64_t *total, ledger_error *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(body, "scopes"), *item;
    size_t i, k;

    *n = 0;
    if (arr && !cJSON_IsNull(arr)) {
        if (cJSON_GetObjectItemCaseSensitive(body, "amount")
            || cJSON_GetObjectItemCaseSensitive(body, "trip_id"))
            return error_field(err, "scopes", "give scopes, or amount and trip_id, not both");
        if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1
            || cJSON_GetArraySize(arr) > SCOPES_MAX)
            return error_field(err, "scopes",
                               "scopes must be an array of 1 to %d {trip_id, amount}",
                               SCOPES_MAX);
        cJSON_ArrayForEach(item, arr) {
            if (!cJSON_IsObject(item))
                return error_field(err, "scopes", "each scope must be an object {trip_id, amount}");
            if (read_scope(db, me, other, item, &scopes[*n], err))
                return err->field[0] ? error_in_item(err, "scopes", *n) : LEDGER_ERR;
            for (k = 0; k < *n; k++)
                if (scopes[k].trip_id == scopes[*n].trip_id)
                    return error_field(err, "scopes", "a scope appears twice");
            (*n)++;
        }
    } else {
        if (read_scope(db, me, other, body, &scopes[0], err))
            return LEDGER_ERR;
        *n = 1;
    }
    *total = 0;
    for (i = 0; i < *n; i++) {
        *total += scopes[i].amount;
        if (*total > LEDGER_MONEY_MAX_CENTS)
            return error_field(err, "amount", "the payment is larger than 10000000000000");
    }
    return LEDGER_OK;
}

/* A new payment's linked_transaction_id, random, into link (64 bytes). */
static int new_link(ledger_db *db, char *link, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PAY_LINK, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    snprintf(link, 64, "%s", rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : "");
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "payment");
}

/* The payment of link as a whole, total its amount, with its rows as
 * scopes. */
static int payment_doc(ledger_db *db, const char *link, int64_t total, cJSON **out,
                       ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PAY_BY_LINK, err);
    cJSON *doc = NULL, *list;

    if (st == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 1, link);
    list = cJSON_CreateArray();
    while (sqlite3_step(st) == SQLITE_ROW) {
        cJSON *row = payment_row(st);

        if (doc == NULL) {
            doc = cJSON_Duplicate(row, 1);
            cJSON_DeleteItemFromObject(doc, "trip_id");
            cJSON_DeleteItemFromObject(doc, "scope");
        }
        cJSON_DeleteItemFromObject(row, "linked_transaction_id");
        cJSON_DeleteItemFromObject(row, "from_participant_id");
        cJSON_DeleteItemFromObject(row, "to_participant_id");
        cJSON_DeleteItemFromObject(row, "date");
        cJSON_DeleteItemFromObject(row, "notes");
        cJSON_AddItemToArray(list, row);
    }
    db_stmt_done(st);
    if (doc == NULL) {
        cJSON_Delete(list);
        return db_error(db, err, "payment");
    }
    cJSON_ReplaceItemInObject(doc, "amount", ledger_money_to_json(total));
    cJSON_AddItemToObject(doc, "scopes", list);
    *out = doc;
    return LEDGER_OK;
}

int ledger_payment_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                          ledger_error *err)
{
    const char *date, *notes;
    int64_t from, to, other, total = 0;
    struct scope scopes[SCOPES_MAX];
    size_t n, i;
    char link[64];

    if (field_require_object(body, err)
        || field_id(body, "from_participant_id", 1, 0, &from, NULL, err)
        || field_id(body, "to_participant_id", 1, 0, &to, NULL, err)
        || field_date(body, "date", 1, &date, NULL, err)
        || field_text(body, "notes", 0, 1, NOTES_MAX, &notes, NULL, err))
        return LEDGER_ERR;
    if (from == to)
        return error_field(err, "to_participant_id", "a payment goes between two different people");
    if (from != me && to != me)
        return ledger_error_set(err, 403, "forbidden", NULL,
                                "you can only record payments you made or received");
    other = from == me ? to : from;
    if (participant_check(db, me, other, from == me ? "to_participant_id" : "from_participant_id",
                          1, err)
        || check_related(db, me, other, err)
        || read_scopes(db, me, other, body, scopes, &n, &total, err)
        || new_link(db, link, err))
        return LEDGER_ERR;
    for (i = 0; i < n; i++)
        if (db_exec(db, err, "payment insert", SQL_PAY_INSERT, DB_INT(from), DB_INT(to),
                    DB_INT(scopes[i].amount), DB_TEXT(date), DB_TEXT(notes),
                    scopes[i].trip_id ? DB_INT(scopes[i].trip_id) : DB_NULL, DB_TEXT(link),
                    DB_INT(me)))
            return LEDGER_ERR;
    return payment_doc(db, link, total, out, err);
}

int ledger_payment_list(ledger_db *db, int64_t me, const struct ledger_params *p, cJSON **out,
                        ledger_error *err)
{
    const char *v;
    int64_t participant = 0, trip = 0;
    int household = 0;
    sqlite3_stmt *st;

    if ((v = param_get(p, "participant_id")) && parse_whole(v, 1, INT64_C(1) << 53, &participant))
        return error_field(err, "participant_id", "participant_id must be a positive integer id");
    if ((v = param_get(p, "trip_id")) && parse_whole(v, 1, INT64_C(1) << 53, &trip))
        return error_field(err, "trip_id", "trip_id must be a positive integer id");
    if ((v = param_get(p, "scope"))) {
        if (strcmp(v, "household") != 0)
            return error_field(err, "scope", "scope must be household");
        household = 1;
    }
    if ((st = db_stmt(db, SQL_PAY_LIST, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if (participant)
        sqlite3_bind_int64(st, 2, participant);
    if (trip)
        sqlite3_bind_int64(st, 3, trip);
    sqlite3_bind_int(st, 4, household);
    return db_list(db, st, payment_row, out, err);
}

/* The payment's link (the key its rows share) when me is a party to it:
 * 404 for a missing payment, 403 for one between two others. */
static int payment_party(ledger_db *db, int64_t me, int64_t id, const char *what, char *link,
                         size_t len, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PAY_PARTIES, err);
    int64_t from = 0, to = 0;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        from = sqlite3_column_int64(st, 0);
        to = sqlite3_column_int64(st, 1);
        snprintf(link, len, "%s", (const char *)sqlite3_column_text(st, 2));
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such payment");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "payment");
    if (from != me && to != me)
        return ledger_error_set(err, 403, "forbidden", NULL,
                                "only the two people a payment is between can %s it", what);
    return LEDGER_OK;
}

int ledger_payment_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    struct ledger_params none = { NULL, 0 };
    char link[64];

    if (payment_party(db, me, id, "read", link, sizeof link, err)
        || ledger_payment_list(db, me, &none, out, err))
        return LEDGER_ERR;
    list_pick(out, "id", id, NULL);
    return *out ? LEDGER_OK : ledger_error_set(err, 404, "not_found", NULL, "no such payment");
}

int ledger_payment_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err)
{
    char link[64] = "";

    if (payment_party(db, me, id, "delete", link, sizeof link, err))
        return LEDGER_ERR;
    return db_exec(db, err, "payment delete", SQL_PAY_DELETE, DB_TEXT(link));
}
