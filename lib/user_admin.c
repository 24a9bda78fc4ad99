/* Users as the operator sees them: found by any name they go by, and
 * listed with how much each holds.  No viewer, no access checks: these are
 * for ledger-admin, which has the database file itself. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_out.h"

/* Every user the text could name: their subject, their email (any case), or
 * "id:N".  A bare number is not taken as an id: many providers' subjects
 * are numbers. */
static const char SQL_USER_FIND[] =
    "SELECT id FROM users WHERE subject = ?1 OR email = ?1 COLLATE NOCASE OR id = ?2"
    " ORDER BY id LIMIT 3";

static const char SQL_USER_ADMIN_LIST[] =
    "SELECT u.id, u.subject, u.email, u.name, u.created_at,"
    "       (SELECT COUNT(*) FROM transactions WHERE owner_id = u.id),"
    "       (SELECT COUNT(*) FROM statements WHERE owner_id = u.id),"
    "       (SELECT COUNT(*) FROM splits s JOIN transactions t ON t.id = s.transaction_id"
    "         WHERE s.participant_id = u.id AND t.owner_id <> u.id),"
    "       (SELECT COUNT(*) FROM split_payments WHERE from_user_id = u.id OR to_user_id = u.id),"
    "       (SELECT COUNT(*) FROM tags WHERE owner_id = u.id),"
    "       (SELECT COUNT(*) FROM rules WHERE owner_id = u.id),"
    "       (SELECT COUNT(*) FROM trips WHERE owner_id = u.id),"
    "       (SELECT COUNT(*) FROM budgets WHERE owner_id = u.id)"
    "  FROM users u ORDER BY u.id";

int ledger_user_find(ledger_db *db, const char *who, int64_t *id, ledger_error *err)
{
    sqlite3_stmt *st;
    int64_t found[3], by_id = 0;
    int n = 0, rc;

    if (who == NULL || *who == '\0')
        return error_field(err, "user", "no user given");
    if (strncmp(who, "id:", 3) == 0) {
        char *end;

        errno = 0;
        by_id = strtoll(who + 3, &end, 10);
        if (errno || *end || end == who + 3 || by_id <= 0)
            return error_field(err, "user",
                               "'id:' must be followed by a user id, a number above 0");
    }
    if ((st = db_stmt(db, SQL_USER_FIND, err)) == NULL)
        return LEDGER_ERR;
    db_bind_text(db, st, 1, who);
    sqlite3_bind_int64(st, 2, by_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 3)
        found[n++] = sqlite3_column_int64(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return db_error(db, err, "user lookup");
    if (n == 0)
        return ledger_error_set(err, 404, "not_found", "user", "no user '%s' (by identity, "
                                "email or id:N); a user exists once they have signed in "
                                "or been added as a participant", who);
    if (n > 1)
        return ledger_error_set(err, 409, "ambiguous", "user",
                                "'%s' names more than one user (ids %lld and %lld: one by "
                                "identity, one by email); give id:N", who,
                                (long long)found[0], (long long)found[1]);
    *id = found[0];
    return LEDGER_OK;
}

static cJSON *admin_row(sqlite3_stmt *st)
{
    static const char *const counts[] = { "transactions", "statements", "shared_with",
                                          "payments", "tags", "rules", "trips", "budgets" };
    cJSON *o = cJSON_CreateObject();
    size_t i;

    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    json_text_col(o, "subject", st, 1);
    json_text_col(o, "email", st, 2);
    json_text_col(o, "name", st, 3);
    json_text_col(o, "created_at", st, 4);
    cJSON_AddBoolToObject(o, "placeholder", sqlite3_column_type(st, 1) == SQLITE_NULL);
    for (i = 0; i < sizeof counts / sizeof counts[0]; i++)
        cJSON_AddNumberToObject(o, counts[i], (double)sqlite3_column_int64(st, 5 + (int)i));
    return o;
}

int ledger_user_admin_list(ledger_db *db, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_USER_ADMIN_LIST, err);

    return st ? db_list(db, st, admin_row, out, err) : LEDGER_ERR;
}
