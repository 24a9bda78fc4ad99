/*
 * Participants: the users a caller shares with.  Split counterparts (in
 * either direction), payment counterparts, and the people the caller added
 * by email.  Only these can be named in a split or a payment, so a user
 * id alone names nobody: sharing with someone takes their email address.
 * (API.md has no invitation step: the person added is not asked.)
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"

#define EMAIL_MAX 320
#define NAME_MAX_LEN 200

/* Everyone related to ?1, with how (for the list); the union keeps it one
 * row each. */
#define RELATED_SQL \
    "SELECT contact_id AS uid FROM user_contacts WHERE user_id = ?1" \
    " UNION SELECT user_id FROM user_contacts WHERE contact_id = ?1" \
    " UNION SELECT s.participant_id FROM transactions t JOIN splits s ON s.transaction_id = t.id" \
    "        WHERE t.owner_id = ?1 AND t.has_split" \
    " UNION SELECT t.owner_id FROM splits s JOIN transactions t ON t.id = s.transaction_id" \
    "        WHERE s.participant_id = ?1" \
    " UNION SELECT to_user_id FROM split_payments WHERE from_user_id = ?1" \
    " UNION SELECT from_user_id FROM split_payments WHERE to_user_id = ?1"

static const char SQL_PARTICIPANTS[] =
    "SELECT u.id, u.email, u.name, u.subject IS NULL FROM users u"
    " WHERE u.id IN (" RELATED_SQL ") AND u.id <> ?1"
    " ORDER BY COALESCE(u.name, u.email) COLLATE NOCASE, u.id";

/* Whether ?2 is ?1 or related to ?1: each test stops at its first row. */
static const char SQL_KNOWN[] =
    "SELECT ?2 = ?1"
    " OR EXISTS (SELECT 1 FROM user_contacts WHERE user_id = ?1 AND contact_id = ?2)"
    " OR EXISTS (SELECT 1 FROM user_contacts WHERE user_id = ?2 AND contact_id = ?1)"
    " OR EXISTS (SELECT 1 FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "             WHERE s.participant_id = ?2 AND t.owner_id = ?1)"
    " OR EXISTS (SELECT 1 FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "             WHERE s.participant_id = ?1 AND t.owner_id = ?2)"
    " OR EXISTS (SELECT 1 FROM split_payments WHERE from_user_id = ?1 AND to_user_id = ?2)"
    " OR EXISTS (SELECT 1 FROM split_payments WHERE from_user_id = ?2 AND to_user_id = ?1)";

static const char SQL_USER_BY_EMAIL[] = "SELECT id FROM users WHERE email = ?";
static const char SQL_PLACEHOLDER_INSERT[] = "INSERT INTO users (email, name) VALUES (?, ?)";
static const char SQL_CONTACT_ADD[] =
    "INSERT OR IGNORE INTO user_contacts (user_id, contact_id) VALUES (?, ?)";
static const char SQL_USER_ROW[] =
    "SELECT id, email, name, subject IS NULL FROM users WHERE id = ?";
static const char SQL_USER_EXISTS2[] = "SELECT 1 FROM users WHERE id = ?";

int participant_known(ledger_db *db, int64_t me, int64_t other, int *known, ledger_error *err)
{
    int64_t v;
    int rc = db_int(db, err, "participant", &v, 0, SQL_KNOWN, DB_INT(me), DB_INT(other));

    *known = rc == LEDGER_OK && v;
    return rc;
}

int participant_check(ledger_db *db, int64_t me, int64_t other, const char *field, int yours,
                      ledger_error *err)
{
    int known, exists;

    if (participant_known(db, me, other, &known, err))
        return LEDGER_ERR;
    if (known)
        return LEDGER_OK;
    if (db_exists(db, err, "participant", &exists, SQL_USER_EXISTS2, DB_INT(other)))
        return LEDGER_ERR;
    if (!exists)
        return error_field(err, field, "participant %lld does not exist", (long long)other);
    if (!yours)
        return error_field(err, field, "user %lld is not one of the participants of the row's owner"
                           " (only the owner can add them)", (long long)other);
    return error_field(err, field, "user %lld is not one of your participants: add them by email "
                       "with POST /api/participants first", (long long)other);
}

static cJSON *user_row(sqlite3_stmt *st)
{
    cJSON *row = cJSON_CreateObject();

    cJSON_AddNumberToObject(row, "id", (double)sqlite3_column_int64(st, 0));
    json_text_col(row, "email", st, 1);
    json_text_col(row, "name", st, 2);
    /* Not signed in yet: added by email, bound at their first sign-in. */
    cJSON_AddBoolToObject(row, "placeholder", sqlite3_column_int(st, 3));
    return row;
}

int ledger_participant_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_PARTICIPANTS, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, user_row, out, err);
}

/* Whether s..end is dot-separated non-empty labels ("a.b", not ".a", "a."
 * or "a..b"), as both halves of an address must be. */
static int dotted_labels(const char *s, const char *end)
{
    const char *p;

    if (s == end || *s == '.' || end[-1] == '.')
        return 0;
    for (p = s + 1; p < end; p++)
        if (p[0] == '.' && p[-1] == '.')
            return 0;
    return 1;
}

/* An address a message could be sent to: one '@', a local part and a
 * domain of at least two labels, no spaces, controls or the characters
 * that separate addresses in a header.  Not RFC 5322's quoted forms: the
 * address is how a person is found, and people are not found by those. */
static int valid_email(const char *s)
{
    const char *at = strchr(s, '@'), *end = s + strlen(s);
    const unsigned char *p;

    if (at == NULL || strchr(at + 1, '@') || !memchr(at + 1, '.', (size_t)(end - at - 1))
        || !dotted_labels(s, at) || !dotted_labels(at + 1, end))
        return 0;
    for (p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == 0x7f || *p == '<' || *p == '>' || *p == ',')
            return 0;
    return 1;
}

int ledger_participant_add(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                           int *created, ledger_error *err)
{
    const char *email, *name;
    sqlite3_stmt *st;
    int64_t id;
    int rc;

    *created = 0;
    if (field_require_object(body, err)
        || field_text(body, "email", 1, 0, EMAIL_MAX, &email, NULL, err)
        || field_text(body, "name", 0, 1, NAME_MAX_LEN, &name, NULL, err))
        return LEDGER_ERR;
    if (!valid_email(email))
        return error_field(err, "email", "email must be an address such as someone@example.org");
    if (db_int(db, err, "participant", &id, 0, SQL_USER_BY_EMAIL, DB_TEXT(email)))
        return LEDGER_ERR;
    if (id == me)
        return error_field(err, "email", "that is your own address");
    if (id == 0) {
        if (db_exec(db, err, "participant insert", SQL_PLACEHOLDER_INSERT, DB_TEXT(email),
                    DB_TEXT(name)))
            return LEDGER_ERR;
        id = sqlite3_last_insert_rowid(db->sql);
        *created = 1;
    }
    if (db_exec(db, err, "participant", SQL_CONTACT_ADD, DB_INT(me), DB_INT(id))
        || (st = db_stmt(db, SQL_USER_ROW, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? user_row(st) : NULL;
    db_stmt_done(st);
    return *out ? LEDGER_OK : db_error(db, err, "participant");
}
