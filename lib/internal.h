/* Private to libledger: the connection and the prepared-statement cache. */
#ifndef LEDGER_INTERNAL_H
#define LEDGER_INTERNAL_H

#include <sqlite3.h>
#include "ledger.h"

struct stmt_cache;

struct ledger_db {
    sqlite3 *sql;
    struct stmt_cache *cache;
    char home_currency[4];
};

/* A migration compiled in from schema/NNNN_name.sql (see schema_sql.c). */
struct db_migration {
    int version;
    const char *name;
    const char *sql;
};
extern const struct db_migration db_migrations[];
extern const int db_migration_count;

/* Returns the cached prepared statement for sql, preparing it (persistent)
 * on first use.  The statement is reset and its bindings cleared; the caller
 * hands it back with db_stmt_done when finished.  The cache owns it. */
sqlite3_stmt *db_stmt(ledger_db *db, const char *sql, ledger_error *err);
void db_stmt_done(sqlite3_stmt *st);
void db_stmt_cache_free(struct stmt_cache *cache);

/* Turns the connection's last error into a 500 (or 409 for a constraint). */
int db_error(ledger_db *db, ledger_error *err, const char *what);

/* Binds NULL when text is NULL. */
int db_bind_text(sqlite3_stmt *st, int idx, const char *text);

#endif

/* ---- reading fields of a JSON request body (fields.c) ----------------------
 * Each returns LEDGER_OK, or LEDGER_ERR with a 400 invalid_field naming the
 * field.  *present says whether the key was there at all (NULL: don't care);
 * a JSON null counts as present with the value NULL / unset. */

/* The body must be an object: else 400 invalid_json. */
int field_require_object(const cJSON *body, ledger_error *err);
/* A string of 1..maxlen bytes after trimming spaces (or null when nullable).
 * *out points into the document. */
int field_text(const cJSON *obj, const char *name, int required, int nullable,
               size_t maxlen, const char **out, int *present, ledger_error *err);
/* A color "#rgb" or "#rrggbb" (or null). */
int field_color(const cJSON *obj, const char *name, const char **out, int *present,
                ledger_error *err);

/* 404 when the tag does not exist, 403 when it is not the user's. */
int tag_check_owner(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err);
