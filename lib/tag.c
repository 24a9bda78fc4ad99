/* Tags: the caller's own labels, with usage counts. */
#include <string.h>
#include <strings.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"


/* A tag's uses are the rows its owner can list with it: not a hidden
 * (reconciled) row, nor a row shared with them once whose split is gone
 * (tag_ids= on the list finds neither). */
#define TAG_USAGE \
    "(SELECT COUNT(*) FROM transaction_tags tt JOIN transactions t ON t.id = tt.transaction_id" \
    "  WHERE tt.tag_id = g.id AND t.reconciled_with_id IS NULL" \
    "    AND (t.owner_id = g.owner_id OR EXISTS (SELECT 1 FROM splits s" \
    "         WHERE s.transaction_id = t.id AND s.participant_id = g.owner_id)))"
static const char SQL_TAG_LIST[] =
    "SELECT g.id, g.name, g.color, " TAG_USAGE
    "  FROM tags g WHERE g.owner_id = ? ORDER BY g.name COLLATE NOCASE, g.id";
static const char SQL_TAG_ONE[] =
    "SELECT g.id, g.name, g.color, " TAG_USAGE " FROM tags g WHERE g.id = ?";
static const char SQL_TAG_OWNER[] = "SELECT owner_id FROM tags WHERE id = ?";
static const char SQL_TAG_NAME_TAKEN[] =
    "SELECT 1 FROM tags WHERE owner_id = ? AND ledger_fold(name) = ledger_fold(?) AND id IS NOT ?";
static const char SQL_TAG_COUNT[] = "SELECT COUNT(*) FROM tags WHERE owner_id = ?";
static const char SQL_TAG_INSERT[] =
    "INSERT INTO tags (id, owner_id, name, color) VALUES (" NEXT_ID("tags") ", ?, ?, ?)";
static const char SQL_TAG_UPDATE[] =
    "UPDATE tags SET name = COALESCE(?2, name), color = CASE WHEN ?3 THEN ?4 ELSE color END"
    " WHERE id = ?1";
static const char SQL_TAG_DELETE[] = "DELETE FROM tags WHERE id = ?";

static cJSON *tag_row(sqlite3_stmt *st)
{
    cJSON *row = cJSON_CreateObject();

    if (row == NULL)
        return NULL;
    cJSON_AddNumberToObject(row, "id", (double)sqlite3_column_int64(st, 0));
    cJSON_AddStringToObject(row, "name", (const char *)sqlite3_column_text(st, 1));
    json_text_col(row, "color", st, 2);
    cJSON_AddNumberToObject(row, "usage_count", (double)sqlite3_column_int64(st, 3));
    return row;
}

int ledger_tag_list(ledger_db *db, int64_t user_id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TAG_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, user_id);
    return db_list(db, st, tag_row, out, err);
}

int ledger_tag_get(ledger_db *db, int64_t user_id, int64_t tag_id, cJSON **out,
                   ledger_error *err)
{
    if (tag_check_owner(db, user_id, tag_id, err) || ledger_tag_list(db, user_id, out, err))
        return LEDGER_ERR;
    list_pick(out, "id", tag_id, NULL);
    return *out ? LEDGER_OK : ledger_error_set(err, 404, "not_found", NULL, "no such tag");
}

static int tag_get(ledger_db *db, int64_t tag_id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TAG_ONE, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, tag_id);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? tag_row(st) : NULL;
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such tag");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "tag");
    return *out ? LEDGER_OK : ledger_error_oom(err);
}

/* Tags belong to one user: another user's tag is 403, a missing one 404. */
int tag_check_owner(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err)
{
    int64_t owner;

    if (db_int(db, err, "tag", &owner, 0, SQL_TAG_OWNER, DB_INT(tag_id)))
        return LEDGER_ERR;
    if (owner == 0)
        return ledger_error_set(err, 404, "not_found", NULL, "no such tag");
    if (owner != user_id)
        return ledger_error_set(err, 403, "forbidden", NULL, "the tag belongs to another user");
    return LEDGER_OK;
}

/* 400 when the user already has TAGS_PER_USER_MAX tags. */
static int tag_room(ledger_db *db, int64_t user_id, ledger_error *err)
{
    int64_t n;

    if (db_int(db, err, "tag", &n, 0, SQL_TAG_COUNT, DB_INT(user_id)))
        return LEDGER_ERR;
    if (n >= TAGS_PER_USER_MAX)
        return ledger_error_set(err, 400, "invalid_field", NULL,
                                "a user has at most %d tags (tags per user): delete one to make another",
                                TAGS_PER_USER_MAX);
    return LEDGER_OK;
}

/* A name: 1..64 bytes, no control characters, unique per owner ignoring
 * case, and not the name reserved for CSV imports. */
static int check_name(ledger_db *db, int64_t user_id, int64_t tag_id, const char *name,
                      ledger_error *err)
{
    const unsigned char *p;
    int taken;

    for (p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return error_field(err, "name", "name must not contain control characters");
    if (strcasecmp(name, LEDGER_TAG_CSV_IMPORT) == 0)
        return error_field(err, "name", "the tag name %s is reserved for CSV imports",
                           LEDGER_TAG_CSV_IMPORT);
    if (db_exists(db, err, "tag name", &taken, SQL_TAG_NAME_TAKEN, DB_INT(user_id),
                  DB_TEXT(name), tag_id ? DB_INT(tag_id) : DB_NULL))
        return LEDGER_ERR;
    if (taken)
        return ledger_error_set(err, 409, "conflict", "name", "a tag named '%s' already exists", name);
    return LEDGER_OK;
}

int ledger_tag_create(ledger_db *db, int64_t user_id, const cJSON *body, cJSON **out,
                      ledger_error *err)
{
    const char *name, *color;

    if (field_require_object(body, err)
        || field_text(body, "name", 1, 0, TAG_NAME_MAX, &name, NULL, err)
        || field_color(body, "color", &color, NULL, err)
        || check_name(db, user_id, 0, name, err)
        || tag_room(db, user_id, err)
        || db_exec(db, err, "tag insert", SQL_TAG_INSERT, DB_INT(user_id), DB_TEXT(name),
                   DB_TEXT(color)))
        return LEDGER_ERR;
    return tag_get(db, sqlite3_last_insert_rowid(db->sql), out, err);
}

int ledger_tag_update(ledger_db *db, int64_t user_id, int64_t tag_id, const cJSON *body,
                      cJSON **out, ledger_error *err)
{
    const char *name, *color;
    int has_color;
    cJSON *cur = NULL;

    if (tag_check_owner(db, user_id, tag_id, err)
        || field_require_object(body, err)
        || field_text(body, "name", 0, 0, TAG_NAME_MAX, &name, NULL, err)
        || field_color(body, "color", &color, &has_color, err))
        return LEDGER_ERR;
    if (name) {
        int is_csv, to_csv;

        /* The CSV import tag keeps its name (imports find it by that name),
         * and no other tag can take it. */
        if (tag_get(db, tag_id, &cur, err))
            return LEDGER_ERR;
        if (!cJSON_IsString(json_get(cur, "name"))) {  /* memory ran out reading it */
            cJSON_Delete(cur);
            return ledger_error_oom(err);
        }
        is_csv = strcmp(json_get(cur, "name")->valuestring, LEDGER_TAG_CSV_IMPORT) == 0;
        cJSON_Delete(cur);
        to_csv = strcasecmp(name, LEDGER_TAG_CSV_IMPORT) == 0;
        if (is_csv && strcmp(name, LEDGER_TAG_CSV_IMPORT) != 0)
            return error_field(err, "name", "the %s tag cannot be renamed",
                               LEDGER_TAG_CSV_IMPORT);
        if (!(is_csv && to_csv) && check_name(db, user_id, tag_id, name, err))
            return LEDGER_ERR;
    }
    if (db_exec(db, err, "tag update", SQL_TAG_UPDATE, DB_INT(tag_id), DB_TEXT(name),
                DB_INT(has_color), DB_TEXT(color)))
        return LEDGER_ERR;
    return tag_get(db, tag_id, out, err);
}

int ledger_tag_delete(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err)
{
    if (tag_check_owner(db, user_id, tag_id, err))
        return LEDGER_ERR;
    return db_exec(db, err, "tag delete", SQL_TAG_DELETE, DB_INT(tag_id));
}

static const char SQL_TAG_BY_NAME[] =
    "SELECT id FROM tags WHERE owner_id = ? AND ledger_fold(name) = ledger_fold(?) ORDER BY id LIMIT 1";

int tag_find_or_create(ledger_db *db, int64_t user_id, const char *name, int64_t *id,
                       ledger_error *err)
{
    if (db_int(db, err, "tag", id, 0, SQL_TAG_BY_NAME, DB_INT(user_id), DB_TEXT(name)))
        return LEDGER_ERR;
    if (*id)
        return LEDGER_OK;
    if (check_name(db, user_id, 0, name, err)
        || tag_room(db, user_id, err)
        || db_exec(db, err, "tag insert", SQL_TAG_INSERT, DB_INT(user_id), DB_TEXT(name), DB_NULL))
        return LEDGER_ERR;
    *id = sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}
