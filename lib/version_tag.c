/* Version tags: the opaque strings a front end gives as entity tags
 * (HTTP's ETag), so that a client can ask whether what it holds is still
 * current, and write only over the version it has seen.
 *
 * A state tag names everything an answer can depend on without reading
 * it: the data version (schema/0031_data_version.sql, moved by every
 * committed write), the schema version and the release (which change
 * what an answer looks like), the home currency, the caller, the request,
 * and today's UTC date (budgets' default month, subscriptions' next
 * charge, the export's file name: the library reads no finer clock).
 * A content tag is a hash of a representation's bytes, so it moves only
 * when that representation does. */
#ifdef HAVE_CONFIG_H
#include <config.h>   /* PACKAGE_VERSION; other builds (the fuzz targets) pass it */
#endif
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "spend.h"

static const char SQL_DATA_VERSION[] =
    "SELECT v, (SELECT user_version FROM pragma_user_version) FROM data_version";

int ledger_data_version(ledger_db *db, int64_t *version, int *schema, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_DATA_VERSION, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *version = sqlite3_column_int64(st, 0);
        *schema = sqlite3_column_int(st, 1);
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? ledger_error_set(err, 500, "internal", NULL,
                                                    "the data version row is missing")
                                 : db_error(db, err, "data version");
    return LEDGER_OK;
}

/* Each field with its terminating NUL, so that no two lists of fields
 * hash the same bytes. */
static uint64_t hash_field(uint64_t h, const char *s)
{
    return hash_bytes(h, s ? s : "", strlen(s ? s : "") + 1);
}

static void put_tag(uint64_t h, char tag[LEDGER_TAG_SIZE])
{
    snprintf(tag, LEDGER_TAG_SIZE, "\"%016llx\"", (unsigned long long)h);
}

void ledger_tag_of_state(const struct ledger_tag_state *s, char tag[LEDGER_TAG_SIZE])
{
    uint64_t h = HASH_START;
    int64_t nums[3] = { s->data_version, s->schema, s->user_id };

    h = hash_bytes(h, nums, sizeof nums);
    h = hash_field(h, PACKAGE_VERSION);
    h = hash_field(h, s->home_currency);
    h = hash_field(h, s->method);
    h = hash_field(h, s->target);
    h = hash_field(h, s->date);
    put_tag(h, tag);
}

void ledger_tag_of_bytes(const void *p, size_t n, char tag[LEDGER_TAG_SIZE])
{
    put_tag(hash_bytes(HASH_START, p, n), tag);
}

int ledger_tag_now(ledger_db *db, int64_t user_id, const char *method, const char *target,
                   char tag[LEDGER_TAG_SIZE], ledger_error *err)
{
    struct ledger_tag_state s = { 0 };
    char today[11];

    if (ledger_data_version(db, &s.data_version, &s.schema, err))
        return LEDGER_ERR;
    date_today(today);
    s.user_id = user_id;
    s.home_currency = ledger_home_currency(db);
    s.method = method;
    s.target = target;
    s.date = today;
    ledger_tag_of_state(&s, tag);
    return LEDGER_OK;
}
