/*
 * The schema: which files this release serves, and bringing them to its
 * latest version.  The rule: nothing is written to a file that is not a
 * ledger this release can serve (another application's database, a newer
 * release's, one from before the baseline), and the migrations a file
 * needs run all in one transaction or not at all.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "db.h"
#include "suggest.h"

int ledger_schema_latest(void)
{
    return db_migrations[db_migration_count - 1].version;
}

int ledger_schema_baseline(void)
{
    return db_migrations[0].version;
}

/* PRAGMA user_version into *v (-1 when it cannot be read): prepared once,
 * as ledger_db_current reads it on every request. */
static int user_version(ledger_db *db, int *v, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, "PRAGMA user_version", err);

    *v = -1;
    if (st == NULL)
        return LEDGER_ERR;
    if (sqlite3_step(st) == SQLITE_ROW)
        *v = sqlite3_column_int(st, 0);
    db_stmt_done(st);
    return LEDGER_OK;
}

int ledger_schema_version(ledger_db *db)
{
    ledger_error err;
    int v;

    user_version(db, &v, &err);
    return v;
}

/* Version 0 is a new, empty file: one that holds tables already is
 * another application's SQLite database, which --db may name by mistake,
 * and the ledger's tables are never written into it.  The version and the
 * tables are read in one statement, so from one snapshot: another process
 * creating the schema commits both at once, and read apart they could show
 * its tables beside the version 0 read before it committed.  LEDGER_ERR,
 * said in err, when it is. */
static int foreign_tables(ledger_db *db, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, "SELECT (SELECT user_version FROM pragma_user_version),"
                                   " (SELECT COUNT(*) FROM sqlite_master)", err);
    int version = -1, objects = -1;

    if (st == NULL)
        return LEDGER_ERR;
    if (sqlite3_step(st) == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
        objects = sqlite3_column_int(st, 1);
    }
    db_stmt_done(st);
    if (objects < 0)
        return db_error(db, err, "schema");
    if (version == 0 && objects > 0)
        return ledger_error_set(err, 500, "not_a_ledger", NULL,
                                "the file holds tables of its own and no ledger schema version:"
                                " not a ledger database");
    return LEDGER_OK;
}

/* A version of ours is not enough (user_version is any application's to
 * set), nor tables by our names: the baseline's users and transactions
 * tables with their own columns must be there.  LEDGER_ERR, said in err,
 * when they are not. */
static int ledger_tables(ledger_db *db, int have, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db,
        "SELECT (SELECT COUNT(*) FROM pragma_table_info('users')"
        "         WHERE name IN ('subject', 'email', 'name')),"
        "       (SELECT COUNT(*) FROM pragma_table_info('transactions')"
        "         WHERE name IN ('owner_id', 'statement_id', 'amount', 'transaction_type'))", err);
    int users = -1, txns = -1;

    if (st == NULL)
        return LEDGER_ERR;
    if (sqlite3_step(st) == SQLITE_ROW) {
        users = sqlite3_column_int(st, 0);
        txns = sqlite3_column_int(st, 1);
    }
    db_stmt_done(st);
    if (users < 0)
        return db_error(db, err, "schema");
    if (users < 3 || txns < 4)
        return ledger_error_set(err, 500, "not_a_ledger", NULL,
                                "the file says schema version %d but has not the ledger's tables:"
                                " not a ledger database", have);
    return LEDGER_OK;
}

/* Whether this release can open a database at schema version have: a new
 * file (0), or one at the baseline (the first migration, which holds the
 * whole schema) or after it, up to the latest.  Nothing migrates a
 * database from before the baseline: those versions were never released.
 * LEDGER_ERR, said in err, when it cannot. */
static int known_version(int have, ledger_error *err)
{
    int baseline = ledger_schema_baseline(), latest = ledger_schema_latest();

    if (have > latest)
        return ledger_error_set(err, 500, "schema_too_new", NULL,
                                "database schema version %d is newer than this program "
                                "knows (%d); run a newer ledger-fcgi", have, latest);
    if (have > 0 && have < baseline)
        return ledger_error_set(err, 503, "unavailable", NULL,
                                "the database is at schema version %d, from before this"
                                " release's baseline (%d): no release migrates it, so this"
                                " release cannot open it", have, baseline);
    return LEDGER_OK;
}

/* A file that is no ledger this release can serve (another application's
 * database, a newer release's, one from before the baseline), refused
 * before anything is written: the switch to WAL below would change such a
 * file's header.  migrate() asks again inside its transaction, for a file
 * changing meanwhile. */
int db_refuse(ledger_db *db, ledger_error *err)
{
    int have = ledger_schema_version(db);

    if (known_version(have, err))
        return LEDGER_ERR;
    return have == 0 ? foreign_tables(db, err) : ledger_tables(db, have, err);
}

/* All pending migrations run in one transaction, and the version is read
 * again inside it: two processes starting together must not both migrate.
 * A new database gets the baseline, then each migration after it. */
int db_migrate(ledger_db *db, ledger_error *err)
{
    int have, i;
    char pragma[64];

    if (db_exec_script(db, "BEGIN IMMEDIATE", err))
        return LEDGER_ERR;
    if (db_refuse(db, err))
        goto fail;
    have = ledger_schema_version(db);
    for (i = 0; i < db_migration_count; i++) {
        const struct db_migration *m = &db_migrations[i];

        if (m->version <= have)
            continue;
        if (db_exec_script(db, m->sql, err)) {
            char why[sizeof err->message];

            snprintf(why, sizeof why, "%s", err->message);
            ledger_error_set(err, 500, "migration_failed", NULL,
                             "migration %04d_%s failed: %s", m->version, m->name, why);
            goto fail;
        }
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if (db_exec_script(db, pragma, err))
            goto fail;
    }
    /* Rows noted for the suggestion counts (by the migration that makes
     * them, or by a program without the library) are counted here, once,
     * rather than by the first request that writes. */
    if (suggest_flush(db, err))
        goto fail;
    return db_exec_script(db, "COMMIT", err);
fail:
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    return LEDGER_ERR;
}

int ledger_db_current(ledger_db *db, ledger_error *err)
{
    const char *file = sqlite3_db_filename(db->sql, "main");
    struct stat stb;
    int version;

    if (db->has_file && (stat(file, &stb) != 0 || stb.st_dev != db->file_dev
                         || stb.st_ino != db->file_ino))
        return ledger_error_set(err, 503, "unavailable", NULL,
                                "the database file was replaced or removed under this process;"
                                " it restarts on the file there now");
    if (user_version(db, &version, err))
        return LEDGER_ERR;
    if (version > ledger_schema_latest())
        return ledger_error_set(err, 503, "unavailable", NULL,
                                "the database is at schema version %d, newer than this program"
                                " knows (%d): a newer release migrated it", version,
                                ledger_schema_latest());
    return LEDGER_OK;
}
