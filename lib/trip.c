/*
 * Trips.  Participants are derived, never stored: the trip's owner, the
 * owners of its rows (who paid), the people with a split on one of the
 * owner's rows in it, and whoever paid the owner, or was paid by the
 * owner, in a payment scoped to it.  Only the owner decides who sees the
 * trip: a participant's own row in it split with a contact of theirs, or
 * a payment between two others, brings nobody in (else the new person
 * would read every row of the trip; see payment.c).  Every trip operation
 * is open to its participants; deleting it is for its owner only, and the
 * foreign keys (ON DELETE SET NULL) untag its rows and clear the trip
 * scope of its payments in the same statement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"

#define NAME_MAX_LEN 200
#define NOTES_MAX 2000

#define PARTICIPANTS_SQL(trip) \
    "SELECT owner_id AS uid FROM trips WHERE id = " trip \
    " UNION SELECT owner_id FROM transactions WHERE override_trip_id = " trip \
    "        AND reconciled_with_id IS NULL" \
    " UNION SELECT s.participant_id FROM transactions t JOIN splits s ON s.transaction_id = t.id" \
    "        WHERE t.override_trip_id = " trip " AND t.reconciled_with_id IS NULL" \
    "          AND t.owner_id = (SELECT owner_id FROM trips WHERE id = " trip ")" \
    " UNION SELECT from_user_id FROM split_payments WHERE trip_id = " trip \
    "        AND to_user_id = (SELECT owner_id FROM trips WHERE id = " trip ")" \
    " UNION SELECT to_user_id FROM split_payments WHERE trip_id = " trip \
    "        AND from_user_id = (SELECT owner_id FROM trips WHERE id = " trip ")"

static const char SQL_TRIP_INSERT[] =
    "INSERT INTO trips (id, owner_id, name, start_date, end_date, notes)"
    " VALUES (" NEXT_ID("trips") ", ?, ?, ?, ?, ?)";
static const char SQL_TRIP_ONE[] =
    "SELECT id, owner_id, name, start_date, end_date, notes, created_at,"
    "       (SELECT COUNT(*) FROM transactions WHERE override_trip_id = trips.id"
    "         AND reconciled_with_id IS NULL)"
    "  FROM trips WHERE id = ?";
/* Trips the caller owns or takes part in, newest first. */
static const char SQL_TRIP_LIST[] =
    "SELECT id, owner_id, name, start_date, end_date, notes, created_at,"
    "       (SELECT COUNT(*) FROM transactions WHERE override_trip_id = trips.id"
    "         AND reconciled_with_id IS NULL)"
    "  FROM trips WHERE id IN ("
    "   SELECT id FROM trips WHERE owner_id = ?1"
    "   UNION SELECT override_trip_id FROM transactions"
    "          WHERE owner_id = ?1 AND override_trip_id IS NOT NULL AND reconciled_with_id IS NULL"
    "   UNION SELECT t.override_trip_id FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "          JOIN trips o ON o.id = t.override_trip_id AND o.owner_id = t.owner_id"
    "          WHERE s.participant_id = ?1 AND t.reconciled_with_id IS NULL"
    "   UNION SELECT p.trip_id FROM split_payments p JOIN trips o ON o.id = p.trip_id"
    "          WHERE (p.from_user_id = ?1 AND p.to_user_id = o.owner_id)"
    "             OR (p.to_user_id = ?1 AND p.from_user_id = o.owner_id))"
    " ORDER BY COALESCE(start_date, created_at) DESC, id DESC";
static const char SQL_TRIP_UPDATE[] =
    "UPDATE trips SET name = COALESCE(?2, name),"
    " start_date = CASE WHEN ?3 THEN ?4 ELSE start_date END,"
    " end_date = CASE WHEN ?5 THEN ?6 ELSE end_date END,"
    " notes = CASE WHEN ?7 THEN ?8 ELSE notes END WHERE id = ?1";
static const char SQL_TRIP_DELETE[] = "DELETE FROM trips WHERE id = ?";
/* Each named as the caller (?2) sees them: by their own name and address
 * when they are the caller, the trip's owner or have turned to the caller
 * (share.h), else by the address as the caller typed it and the
 * caller's own label for them. */
#define TRIP_SEEN "(u.id = ?2 OR u.id = o.owner_id OR " PERSON_TURNED_SQL("u.id", "?2") ")"
static const char SQL_TRIP_PARTICIPANTS[] =
    "SELECT id, email, name, owner FROM"
    " (SELECT u.id, CASE WHEN " TRIP_SEEN " THEN u.email ELSE COALESCE(c.email, u.email) END AS email,"
    "         CASE WHEN " TRIP_SEEN " THEN COALESCE(u.name, c.label) ELSE c.label END AS name,"
    "         u.id = o.owner_id AS owner"
    "    FROM users u JOIN (SELECT owner_id FROM trips WHERE id = ?1) o"
    "    LEFT JOIN user_contacts c ON c.user_id = ?2 AND c.contact_id = u.id"
    "   WHERE u.id IN (" PARTICIPANTS_SQL("?1") "))"
    " ORDER BY COALESCE(name, email) COLLATE NOCASE, id";
/* The rows trip ?2 would hold with the rows ids ?1 in it. */
static const char SQL_TRIP_ROOM[] =
    "SELECT (SELECT count(*) FROM transactions WHERE override_trip_id = ?2)"
    " + (SELECT count(*) FROM json_each(?1) j JOIN transactions t ON t.id = j.value"
    "    WHERE t.override_trip_id IS NOT ?2)";
static const char SQL_TRIP_ASSIGN[] =
    "UPDATE transactions SET override_trip_id = ?2 WHERE id IN (SELECT value FROM json_each(?1))";
/* A reconciled manual row is no row of the trip: hidden from everyone,
 * its owner's to have back as it was when the match is undone, so the
 * trip's owner cannot take it out of the trip. */
static const char SQL_TRIP_UNASSIGN[] =
    "UPDATE transactions SET override_trip_id = NULL"
    " WHERE override_trip_id = ?2 AND reconciled_with_id IS NULL"
    "   AND id IN (SELECT value FROM json_each(?1))";
/* The ids of ?1 that are not rows of trip ?2, as a JSON array. */
static const char SQL_NOT_IN_TRIP[] =
    "SELECT json_group_array(value) FROM json_each(?1)"
    " WHERE value NOT IN (SELECT id FROM transactions"
    "                      WHERE override_trip_id = ?2 AND reconciled_with_id IS NULL)";
static const char SQL_TAG_ROWS[] =
    "SELECT json_group_array(tt.transaction_id) FROM transaction_tags tt"
    "  JOIN transactions t ON t.id = tt.transaction_id"
    " WHERE tt.tag_id = ?2 AND t.reconciled_with_id IS NULL"
    "   AND (t.owner_id = ?1 OR EXISTS (SELECT 1 FROM splits s"
    "        WHERE s.transaction_id = t.id AND s.participant_id = ?1))";
static const char SQL_TAG_NAME[] = "SELECT name FROM tags WHERE id = ?";
static const char SQL_TAG_DROP[] = "DELETE FROM tags WHERE id = ?";

static cJSON *trip_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    cJSON_AddNumberToObject(o, "owner_id", (double)sqlite3_column_int64(st, 1));
    json_text_col(o, "name", st, 2);
    json_text_col(o, "start_date", st, 3);
    json_text_col(o, "end_date", st, 4);
    json_text_col(o, "notes", st, 5);
    json_text_col(o, "created_at", st, 6);
    cJSON_AddNumberToObject(o, "transaction_count", (double)sqlite3_column_int64(st, 7));
    return o;
}

/* The trip, if the caller takes part: 404 missing, 403 not a participant.
 * *owner says whether the caller owns it. */
static int trip_open(ledger_db *db, int64_t me, int64_t id, cJSON **out, int *owner,
                     ledger_error *err)
{
    sqlite3_stmt *st;
    int participant, rc;

    if (access_trip(db, me, id, &participant, err)) {
        snprintf(err->field, sizeof err->field, "%s", "");
        return LEDGER_ERR;
    }
    if (!participant)
        return ledger_error_set(err, 403, "forbidden", NULL, "you do not take part in this trip");
    if ((st = db_stmt(db, SQL_TRIP_ONE, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (owner)
            *owner = sqlite3_column_int64(st, 1) == me;
        if (out)
            *out = trip_json(st);
    }
    db_stmt_done(st);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "trip");
}

static int read_trip_fields(const cJSON *body, int create, const char **name,
                            const char **start, int *has_start, const char **end,
                            int *has_end, const char **notes, int *has_notes, ledger_error *err)
{
    if (field_require_object(body, err)
        || field_text(body, "name", create, 0, NAME_MAX_LEN, name, NULL, err)
        || field_date_or_null(body, "start_date", start, has_start, err)
        || field_date_or_null(body, "end_date", end, has_end, err)
        || field_text(body, "notes", 0, 1, NOTES_MAX, notes, has_notes, err))
        return LEDGER_ERR;
    if (*start && *end && strcmp(*start, *end) > 0)
        return error_field(err, "end_date", "end_date is before start_date");
    return LEDGER_OK;
}

static int trip_insert(ledger_db *db, int64_t me, const char *name, const char *start,
                       const char *end, const char *notes, int64_t *id, ledger_error *err)
{
    if (db_exec(db, err, "trip insert", SQL_TRIP_INSERT, DB_INT(me), DB_TEXT(name),
                DB_TEXT(start), DB_TEXT(end), DB_TEXT(notes)))
        return LEDGER_ERR;
    *id = sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}

int ledger_trip_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                       ledger_error *err)
{
    const char *name, *start, *end, *notes;
    int hs, he, hn;
    int64_t id;

    if (read_trip_fields(body, 1, &name, &start, &hs, &end, &he, &notes, &hn, err)
        || trip_insert(db, me, name, start, end, notes, &id, err))
        return LEDGER_ERR;
    return trip_open(db, me, id, out, NULL, err);
}

int ledger_trip_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TRIP_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, trip_json, out, err);
}

int ledger_trip_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    return trip_open(db, me, id, out, NULL, err);
}

int ledger_trip_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body, cJSON **out,
                       ledger_error *err)
{
    const char *name, *start, *end, *notes;
    int hs, he, hn;
    cJSON *cur = NULL;
    const cJSON *s0, *e0;
    int bad;

    if (trip_open(db, me, id, &cur, NULL, err)
        || read_trip_fields(body, 0, &name, &start, &hs, &end, &he, &notes, &hn, err)) {
        cJSON_Delete(cur);
        return LEDGER_ERR;
    }
    /* The dates as they will be after the change must still be in order. */
    s0 = json_get(cur, "start_date");
    e0 = json_get(cur, "end_date");
    {
        const char *ns = hs ? start : cJSON_IsString(s0) ? s0->valuestring : NULL;
        const char *ne = he ? end : cJSON_IsString(e0) ? e0->valuestring : NULL;

        bad = ns && ne && strcmp(ns, ne) > 0;
    }
    cJSON_Delete(cur);
    if (bad)
        return error_field(err, he ? "end_date" : "start_date",
                           "the trip would end before it starts");
    if (db_exec(db, err, "trip update", SQL_TRIP_UPDATE, DB_INT(id), DB_TEXT(name), DB_INT(hs),
                DB_TEXT(start), DB_INT(he), DB_TEXT(end), DB_INT(hn), DB_TEXT(notes)))
        return LEDGER_ERR;
    return trip_open(db, me, id, out, NULL, err);
}

int ledger_trip_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err)
{
    int owner = 0;

    if (trip_open(db, me, id, NULL, &owner, err))
        return LEDGER_ERR;
    if (!owner)
        return ledger_error_set(err, 403, "forbidden", NULL, "only the trip's owner can delete it");
    return db_exec(db, err, "trip delete", SQL_TRIP_DELETE, DB_INT(id));
}

static cJSON *trip_participant_json(sqlite3_stmt *st)
{
    cJSON *u = cJSON_CreateObject();

    cJSON_AddNumberToObject(u, "id", (double)sqlite3_column_int64(st, 0));
    json_text_col(u, "email", st, 1);
    json_text_col(u, "name", st, 2);
    cJSON_AddBoolToObject(u, "owner", sqlite3_column_int(st, 3));
    return u;
}

int ledger_trip_participants(ledger_db *db, int64_t me, int64_t id, cJSON **out,
                             ledger_error *err)
{
    sqlite3_stmt *st;

    if (trip_open(db, me, id, NULL, NULL, err)
        || (st = db_stmt(db, SQL_TRIP_PARTICIPANTS, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, me);
    return db_list(db, st, trip_participant_json, out, err);
}

/* The ids of rows the caller may take out of the trip without access to
 * them: the trip's owner decides what is in the trip (and so who takes
 * part), so any row in it, a participant's own included; the rest of ids
 * must be the caller's to touch.  *rest is the rest, a new array. */
static int ids_needing_access(ledger_db *db, int64_t trip_id, const char *text, int owner,
                              cJSON **rest, ledger_error *err)
{
    sqlite3_stmt *st;
    ledger_error e;
    int rc;

    *rest = NULL;
    if (!owner)
        return LEDGER_OK;
    if ((st = db_stmt(db, SQL_NOT_IN_TRIP, err)) == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 1, text);
    sqlite3_bind_int64(st, 2, trip_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* The text first, then its length (NULL when memory ran out). */
        const char *json = (const char *)sqlite3_column_text(st, 0);

        if (json)
            ledger_json_parse(json, (size_t)sqlite3_column_bytes(st, 0), rest, &e);
    }
    db_stmt_done(st);
    return rc == SQLITE_ROW && *rest ? LEDGER_OK : db_error(db, err, "trip rows");
}

/* The 400 (on field) of a trip that would hold n rows, past
 * TRIP_ROWS_MAX. */
static int too_many_rows(const char *field, int64_t n, ledger_error *err)
{
    return ledger_error_set(err, 400, "invalid_field", field,
                            "a trip holds at most %d rows (rows per trip); this would make it"
                            " %lld", TRIP_ROWS_MAX, (long long)n);
}

/* too_many_rows when the trip would hold more than TRIP_ROWS_MAX rows
 * with the rows ids (JSON text) assigned to it. */
static int trip_room(ledger_db *db, int64_t trip_id, const char *ids, ledger_error *err)
{
    int64_t n;

    if (db_int(db, err, "trip rows", &n, 0, SQL_TRIP_ROOM, DB_TEXT(ids), DB_INT(trip_id)))
        return LEDGER_ERR;
    return n > TRIP_ROWS_MAX ? too_many_rows("transaction_ids", n, err) : LEDGER_OK;
}

/* Assigns (assign) or unassigns rows: every id must be accessible, except
 * the rows in the trip its owner takes out (ids_needing_access); an
 * assignment past TRIP_ROWS_MAX is refused once they are found to be. */
static int set_rows(ledger_db *db, int64_t me, int64_t trip_id, const cJSON *ids, int assign,
                    int owner, int64_t *changed, ledger_error *err)
{
    char *text = cJSON_PrintUnformatted(ids);
    cJSON *rest = NULL;
    int rc;

    if (text == NULL)
        return ledger_error_oom(err);
    rc = (!assign && ids_needing_access(db, trip_id, text, owner, &rest, err))
         || access_txn_set(db, me, rest ? rest : ids, "transaction_ids", err)
         || (assign && trip_check_row_owners(db, me, trip_id, text, "transaction_ids", err))
         || (assign && trip_room(db, trip_id, text, err))
         || db_exec(db, err, "trip rows", assign ? SQL_TRIP_ASSIGN : SQL_TRIP_UNASSIGN,
                    DB_TEXT(text), DB_INT(trip_id));
    if (rc == 0)
        *changed = sqlite3_changes(db->sql);
    cJSON_Delete(rest);
    free(text);
    return rc ? LEDGER_ERR : LEDGER_OK;
}

int ledger_trip_rows(ledger_db *db, int64_t me, int64_t id, const cJSON *body, int assign,
                     cJSON **out, ledger_error *err)
{
    cJSON *ids = NULL;
    int64_t changed = 0;
    int owner = 0;

    if (trip_open(db, me, id, NULL, &owner, err) || field_require_object(body, err)
        || field_id_array(body, "transaction_ids", 5000, &ids, err))
        return LEDGER_ERR;
    if (set_rows(db, me, id, ids, assign, owner, &changed, err)) {
        cJSON_Delete(ids);
        return LEDGER_ERR;
    }
    cJSON_Delete(ids);
    *out = cJSON_CreateObject();
    cJSON_AddNumberToObject(*out, "updated", (double)changed);
    return LEDGER_OK;
}

int ledger_trip_from_tag(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                         ledger_error *err)
{
    const char *name;
    char tag_name[256] = "";
    int64_t tag_id, trip_id, changed = 0;
    const cJSON *keep = cJSON_GetObjectItemCaseSensitive(body, "keep_tag");
    sqlite3_stmt *st;
    cJSON *ids = NULL;
    ledger_error e;
    int rc;

    if (field_require_object(body, err) || field_id(body, "tag_id", 1, 0, &tag_id, NULL, err)
        || field_text(body, "name", 0, 1, NAME_MAX_LEN, &name, NULL, err))
        return LEDGER_ERR;
    if (keep && !cJSON_IsBool(keep) && !cJSON_IsNull(keep))
        return error_field(err, "keep_tag", "keep_tag must be true or false");
    if (tag_check_owner(db, me, tag_id, err))
        return error_in_body(err, "tag_id");
    if ((st = db_stmt(db, SQL_TAG_NAME, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, tag_id);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        snprintf(tag_name, sizeof tag_name, "%s", (const char *)sqlite3_column_text(st, 0));
    db_stmt_done(st);
    /* The tag is the caller's (checked above), so it has a name. */
    if (rc != SQLITE_ROW)
        return db_error(db, err, "tag");
    if (trip_insert(db, me, name ? name : tag_name, NULL, NULL, NULL, &trip_id, err))
        return LEDGER_ERR;
    /* Every row with the tag that the caller may access. */
    if ((st = db_stmt(db, SQL_TAG_ROWS, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, tag_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *json = (const char *)sqlite3_column_text(st, 0);  /* as above */

        if (json)
            ledger_json_parse(json, (size_t)sqlite3_column_bytes(st, 0), &ids, &e);
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW || ids == NULL)
        return db_error(db, err, "trip from tag");
    /* The trip is new, so it would hold every row of the tag's: refused
     * before their checks, which take a while for many rows. */
    if (cJSON_GetArraySize(ids) > TRIP_ROWS_MAX) {
        rc = too_many_rows("tag_id", cJSON_GetArraySize(ids), err);
        cJSON_Delete(ids);
        return rc;
    }
    if (cJSON_GetArraySize(ids) && set_rows(db, me, trip_id, ids, 1, 1, &changed, err)) {
        cJSON_Delete(ids);
        return LEDGER_ERR;
    }
    cJSON_Delete(ids);
    if (!cJSON_IsTrue(keep) && db_exec(db, err, "tag delete", SQL_TAG_DROP, DB_INT(tag_id)))
        return LEDGER_ERR;
    return trip_open(db, me, trip_id, out, NULL, err);
}
