/* Users: the identity the proxy authenticated, mapped to a row. */
#include <string.h>

#include "db.h"
#include "text.h"

#define MAX_SUBJECT 512
#define MAX_PROFILE 320

/* The claims are stale when they differ from what is stored (the email in
 * case too: the column compares without it, the profile shows the claim's
 * spelling), except an email another signed-in account holds, which this
 * one never takes (checking it again on every request would take the
 * write lock every time).  A placeholder's email is stale: see bind_late. */
static const char SQL_USER_BY_SUBJECT[] =
    "SELECT id, email IS ?2 COLLATE BINARY OR ?2 IS NULL"
    "           OR EXISTS (SELECT 1 FROM users o WHERE o.email = ?2 AND o.id <> users.id"
    "                                              AND o.subject IS NOT NULL),"
    "       name IS ?3 OR ?3 IS NULL, name"
    "  FROM users WHERE subject = ?1";
static const char SQL_USER_PLACEHOLDER[] =
    "SELECT id FROM users WHERE email = ?1 AND subject IS NULL";
static const char SQL_USER_SET_NAME[] = "UPDATE users SET name = ?2 WHERE id = ?1";
/* A placeholder made for this email by someone who shares with the user
 * (typed in any case).  The profile is the person's own from now on: the
 * email as their claim spells it, and their name claim or none, never the
 * name whoever added them typed (which would become their own name, shown
 * to everyone). */
static const char SQL_USER_BIND_PLACEHOLDER[] =
    "UPDATE users SET subject = ?1, email = ?2, name = ?3"
    " WHERE email = ?2 AND subject IS NULL RETURNING id";
/* An email another account already holds is not taken from it. */
static const char SQL_USER_INSERT[] =
    "INSERT INTO users (subject, email, name)"
    " VALUES (?1, CASE WHEN EXISTS (SELECT 1 FROM users WHERE email = ?2)"
    "                  THEN NULL ELSE ?2 END, ?3)"
    " RETURNING id";
/* The email only when no other account holds it; the name regardless. */
static const char SQL_USER_UPDATE_PROFILE[] =
    "UPDATE users SET email = CASE WHEN ?2 IS NULL"
    "                              OR EXISTS (SELECT 1 FROM users o WHERE o.email = ?2 AND o.id <> ?1)"
    "                         THEN email ELSE ?2 END,"
    "                 name = COALESCE(?3, name)"
    " WHERE id = ?1";
static const char SQL_USER_GET[] =
    "SELECT id, email, name FROM users WHERE id = ?";

/* Looks the subject up; *found says whether it exists, *stale whether the
 * claims differ from what is stored, and had_name whether it has a name
 * (may be NULL). */
static int lookup(ledger_db *db, const char *subject, const char *email,
                  const char *name, int64_t *id, int *found, int *stale,
                  int *had_name, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_USER_BY_SUBJECT, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 1, subject);
    db_bind_text(db, st, 2, email);
    db_bind_text(db, st, 3, name);
    rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found) {
        *id = sqlite3_column_int64(st, 0);
        *stale = !sqlite3_column_int(st, 1) || !sqlite3_column_int(st, 2);
        if (had_name)
            *had_name = sqlite3_column_type(st, 3) != SQLITE_NULL;
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(db, err, "user lookup");
    return LEDGER_OK;
}

/* A user who signs in without an email claim (an empty claim from the
 * proxy) gets an account of their own, and the placeholder someone made
 * for their email must not stay apart when the claim comes later, or what
 * was shared with it never reaches them.  So the claim binds it late: the
 * placeholder is merged into the user (user_merge.c; it owns nothing,
 * only others' splits, payments and contacts name it), whose name stays
 * their own, never the one whoever added them typed.  A merge refused
 * (a conflict the people would have to settle, such as payments recorded
 * between the two) leaves both as they were, and is tried again at the
 * user's next request, under the write lock: rare, and then costly. */
static int bind_late(ledger_db *db, int64_t id, const char *email, int had_name,
                     ledger_error *err)
{
    int64_t placeholder;
    cJSON *report = NULL;
    ledger_error refused;

    if (db_int(db, err, "user lookup", &placeholder, 0, SQL_USER_PLACEHOLDER, DB_TEXT(email)))
        return LEDGER_ERR;
    if (placeholder == 0)
        return LEDGER_OK;
    if (ledger_user_merge(db, placeholder, id, &report, &refused)) {
        if (refused.status == 409)
            return LEDGER_OK;
        *err = refused;
        return LEDGER_ERR;
    }
    cJSON_Delete(report);
    /* The merge gave a nameless user the placeholder's typed name. */
    if (had_name)
        return LEDGER_OK;
    return db_exec(db, err, "user write", SQL_USER_SET_NAME, DB_INT(id), DB_NULL);
}

/* Blanks alone name nobody: a proxy passing " ", a vertical tab or a
 * no-break space makes no user of it. */
int ledger_identity_blank(const char *subject)
{
    return text_blank(subject);
}

int ledger_user_resolve(ledger_db *db, const char *subject, const char *email,
                        const char *name, int64_t *user_id, ledger_error *err)
{
    int64_t id = 0;
    int found, stale = 0, had_name = 0;

    if (subject == NULL || ledger_identity_blank(subject))
        return ledger_error_set(err, 401, "unauthenticated", NULL,
                                "no authenticated identity");
    if (strlen(subject) > MAX_SUBJECT)
        return ledger_error_set(err, 401, "unauthenticated", NULL,
                                "the identity is longer than %d bytes", MAX_SUBJECT);
    /* Every answer is UTF-8 JSON, and the subject, email and name go into
     * answers (another user's participant list among them). */
    if (!ledger_utf8_valid(subject, strlen(subject)))
        return ledger_error_set(err, 401, "unauthenticated", NULL, "the identity is not UTF-8 text");
    /* Empty, oversized or non-UTF-8 claims are treated as absent: the
     * identity itself is what authenticates, the claims only fill the
     * profile. */
    if (email && (email[0] == '\0' || strlen(email) > MAX_PROFILE || !strchr(email, '@')
                  || !ledger_utf8_valid(email, strlen(email))))
        email = NULL;
    if (name && (name[0] == '\0' || strlen(name) > MAX_PROFILE
                 || !ledger_utf8_valid(name, strlen(name))))
        name = NULL;

    if (lookup(db, subject, email, name, &id, &found, &stale, NULL, err))
        return LEDGER_ERR;
    if (found && !stale) {
        *user_id = id;
        return LEDGER_OK;
    }
    /* First sight or changed claims: decide again under the write lock, in
     * case another process got here first. */
    if (ledger_begin(db, 1, err))
        return LEDGER_ERR;
    if (lookup(db, subject, email, name, &id, &found, &stale, &had_name, err))
        goto fail;
    if (found) {
        if (stale && email && bind_late(db, id, email, had_name, err))
            goto fail;
        if (stale && db_exec(db, err, "user write", SQL_USER_UPDATE_PROFILE, DB_INT(id),
                             DB_TEXT(email), DB_TEXT(name)))
            goto fail;
    } else {
        /* Each statement's RETURNING id, 0 when it wrote no row. */
        id = 0;
        if (email && db_int(db, err, "user write", &id, 0, SQL_USER_BIND_PLACEHOLDER,
                            DB_TEXT(subject), DB_TEXT(email), DB_TEXT(name)))
            goto fail;
        if (id == 0 && db_int(db, err, "user write", &id, 0, SQL_USER_INSERT, DB_TEXT(subject),
                              DB_TEXT(email), DB_TEXT(name)))
            goto fail;
    }
    if (ledger_commit(db, err))
        return LEDGER_ERR;
    *user_id = id;
    return LEDGER_OK;
fail:
    ledger_rollback(db);
    return LEDGER_ERR;
}

int ledger_user_get(ledger_db *db, int64_t user_id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_USER_GET, err);
    cJSON *doc = NULL;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, user_id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *email = (const char *)sqlite3_column_text(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 2);

        doc = cJSON_CreateObject();
        if (doc) {
            cJSON_AddNumberToObject(doc, "id", (double)sqlite3_column_int64(st, 0));
            if (email)
                cJSON_AddStringToObject(doc, "email", email);
            else
                cJSON_AddNullToObject(doc, "email");
            if (name)
                cJSON_AddStringToObject(doc, "name", name);
            else
                cJSON_AddNullToObject(doc, "name");
            /* The currency amounts without their own are in: a client
             * labels home amounts with it (the service's setting). */
            cJSON_AddStringToObject(doc, "home_currency", ledger_home_currency(db));
        }
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such user");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "user");
    if (doc == NULL)
        return ledger_error_oom(err);
    *out = doc;
    return LEDGER_OK;
}
