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

/* Whether u has turned to ?1 (share.h), or split a row of its own with
 * ?1 (a placeholder can do neither).  Until then ?1 sees the address as
 * ?1 typed it and ?1's own label for them, so an account and a
 * placeholder look alike; after it, the person's own name (else the
 * label) and address. */
#define TURNED_SQL \
    "(" PERSON_TURNED_SQL("u.id", "?1") \
    " OR EXISTS (SELECT 1 FROM transactions t JOIN splits s ON s.transaction_id = t.id" \
    "             WHERE t.owner_id = u.id AND s.participant_id = ?1))"

static const char SQL_PARTICIPANTS[] =
    "SELECT id, email, name FROM"
    " (SELECT u.id, CASE WHEN " TURNED_SQL " THEN u.email ELSE COALESCE(c.email, u.email) END AS email,"
    "         CASE WHEN " TURNED_SQL " THEN COALESCE(u.name, c.label) ELSE c.label END AS name"
    "    FROM users u LEFT JOIN user_contacts c ON c.user_id = ?1 AND c.contact_id = u.id"
    "   WHERE u.id IN (" RELATED_SQL ") AND u.id <> ?1)"
    " ORDER BY COALESCE(name, email) COLLATE NOCASE, id";

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
/* A placeholder has no name: each adder's name for it is their label. */
static const char SQL_PLACEHOLDER_INSERT[] = "INSERT INTO users (email) VALUES (?)";
/* A name given replaces the caller's label; none keeps it.  The address
 * is kept as the caller last typed it. */
static const char SQL_CONTACT_ADD[] =
    "INSERT INTO user_contacts (user_id, contact_id, label, email) VALUES (?1, ?2, ?3, ?4)"
    " ON CONFLICT (user_id, contact_id) DO UPDATE SET label = COALESCE(excluded.label, label),"
    "                                                 email = excluded.email";
static const char SQL_CONTACT_ROW[] =
    "SELECT contact_id, email, label FROM user_contacts WHERE user_id = ? AND contact_id = ?";

int participant_known(ledger_db *db, int64_t me, int64_t other, int *known, ledger_error *err)
{
    int64_t v;
    int rc = db_int(db, err, "participant", &v, 0, SQL_KNOWN, DB_INT(me), DB_INT(other));

    *known = rc == LEDGER_OK && v;
    return rc;
}

/* One message whether user `other` exists or not: an id is probed no more
 * than an address is. */
int participant_check(ledger_db *db, int64_t me, int64_t other, const char *field, int yours,
                      ledger_error *err)
{
    int known;

    if (participant_known(db, me, other, &known, err))
        return LEDGER_ERR;
    if (known)
        return LEDGER_OK;
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

/* The answer is the same whether the address had an account or not: the
 * id, the address as typed and the caller's own label, nothing of the
 * account's (its name, spelling, sign-in), so adding probes nothing. */
int ledger_participant_add(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                           ledger_error *err)
{
    const char *email, *name;
    sqlite3_stmt *st;
    int64_t id;
    int rc;

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
        if (db_exec(db, err, "participant insert", SQL_PLACEHOLDER_INSERT, DB_TEXT(email)))
            return LEDGER_ERR;
        id = sqlite3_last_insert_rowid(db->sql);
    }
    if (db_exec(db, err, "participant", SQL_CONTACT_ADD, DB_INT(me), DB_INT(id), DB_TEXT(name),
                DB_TEXT(email))
        || (st = db_stmt(db, SQL_CONTACT_ROW, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, id);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? user_row(st) : NULL;
    db_stmt_done(st);
    return *out ? LEDGER_OK : db_error(db, err, "participant");
}
