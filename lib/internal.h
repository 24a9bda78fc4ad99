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
