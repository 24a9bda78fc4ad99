/* Opening the database: pragmas, migrations, SQL functions, transactions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "merchant_clean.h"
#include "suggest.h"
#include "txn.h"

int db_error(ledger_db *db, ledger_error *err, const char *what)
{
    int rc = sqlite3_extended_errcode(db->sql);

    /* After a failed bind a statement runs on NULL: a NOT NULL or other
     * constraint it then breaks is not the client's conflict. */
    if (db->in_txn && db->bind_failed)
        return ledger_txn_failed(db, err);

    /* A sum past 2^63 cents: a summary cell that would stop being exact
     * (spend_monthly's exact triggers), or SQL's SUM() where reports do
     * not use ledger_sum.  Rows of the largest amounts the API takes
     * (10^15 cents each), some thousands of them. */
    if (((rc & 0xff) == SQLITE_ERROR || rc == SQLITE_CONSTRAINT_TRIGGER)
        && strstr(sqlite3_errmsg(db->sql), "integer overflow"))
        return ledger_error_set(err, 400, "invalid_field", NULL,
                                "%s: the amounts add up to more than the ledger can hold", what);
    /* A constraint the checks before the write did not foresee: the
     * client hears that its change conflicts, not the schema's names. */
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: the change conflicts with the data already there", what);
    if ((rc & 0xff) == SQLITE_ERROR && strstr(sqlite3_errmsg(db->sql), REGEXP_TOO_COMPLEX))
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: a pattern needs too much backtracking on one of the rows;"
                                " make it simpler", what);
    if ((rc & 0xff) == SQLITE_ERROR && strstr(sqlite3_errmsg(db->sql), REGEXP_OVER_BUDGET))
        return ledger_error_set(err, 409, "conflict", NULL,
                                "%s: matching patterns took longer than one request may (half a"
                                " second a rule, two in all); make them simpler or apply fewer"
                                " rules at once", what);
    if ((rc & 0xff) == SQLITE_BUSY)
        return ledger_error_set(err, 503, "busy", NULL,
                                "the database is busy; try again");
    /* A known condition, not a bug: the client hears that nothing was
     * written and that the same request works once there is room. */
    if ((rc & 0xff) == SQLITE_FULL)
        return ledger_error_set(err, 507, "insufficient_storage", NULL,
                                "the server is out of disk space; nothing was written,"
                                " try again later");
    return ledger_error_set(err, 500, "internal", NULL, "%s: %s", what,
                            sqlite3_errmsg(db->sql));
}

int db_bind_text(ledger_db *db, sqlite3_stmt *st, int idx, const char *text)
{
    int rc = text ? sqlite3_bind_text(st, idx, text, -1, SQLITE_TRANSIENT)
                  : sqlite3_bind_null(st, idx);

    /* Not SQLITE_RANGE: a parameter the statement does not have is bound
     * to nothing, and some callers bind what only some statements use. */
    if (rc == SQLITE_NOMEM || rc == SQLITE_TOOBIG)
        db->bind_failed = 1;
    return rc;
}

char *db_column_dup(sqlite3_stmt *st, int col)
{
    const char *text = (const char *)sqlite3_column_text(st, col);

    return text ? strdup(text) : NULL;
}

static int exec(ledger_db *db, const char *sql, ledger_error *err)
{
    char *msg = NULL;

    if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
        ledger_error_set(err, 500, "internal", NULL, "%.40s: %s", sql, msg ? msg : "sqlite error");
        sqlite3_free(msg);
        return LEDGER_ERR;
    }
    return LEDGER_OK;
}

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
static int refuse(ledger_db *db, ledger_error *err)
{
    int have = ledger_schema_version(db);

    if (known_version(have, err))
        return LEDGER_ERR;
    return have == 0 ? foreign_tables(db, err) : ledger_tables(db, have, err);
}

/* All pending migrations run in one transaction, and the version is read
 * again inside it: two processes starting together must not both migrate.
 * A new database gets the baseline, then each migration after it. */
static int migrate(ledger_db *db, ledger_error *err)
{
    int have, i;
    char pragma[64];

    if (exec(db, "BEGIN IMMEDIATE", err))
        return LEDGER_ERR;
    if (refuse(db, err))
        goto fail;
    have = ledger_schema_version(db);
    for (i = 0; i < db_migration_count; i++) {
        const struct db_migration *m = &db_migrations[i];

        if (m->version <= have)
            continue;
        if (exec(db, m->sql, err)) {
            char why[sizeof err->message];

            snprintf(why, sizeof why, "%s", err->message);
            ledger_error_set(err, 500, "migration_failed", NULL,
                             "migration %04d_%s failed: %s", m->version, m->name, why);
            goto fail;
        }
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if (exec(db, pragma, err))
            goto fail;
    }
    /* Rows noted for the suggestion counts (by the migration that makes
     * them, or by a program without the library) are counted here, once,
     * rather than by the first request that writes. */
    if (suggest_flush(db, err))
        goto fail;
    return exec(db, "COMMIT", err);
fail:
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
    return LEDGER_ERR;
}

int ledger_open(const char *path, ledger_db **out, ledger_error *err)
{
    ledger_db *db;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

    db = calloc(1, sizeof *db);
    if (db == NULL)
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    memcpy(db->home_currency, "AUD", 4);
    if (sqlite3_open_v2(path, &db->sql, flags, NULL) != SQLITE_OK) {
        ledger_error_set(err, 500, "internal", NULL, "cannot open database %s: %s",
                         path, db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(db->sql, 1);
    sqlite3_busy_handler(db->sql, db_busy_wait, db);
    /* WAL lets readers in other processes run beside the one writer;
     * synchronous=FULL because an acknowledged write must survive a power
     * cut, which NORMAL does not promise in WAL mode. */
    if (refuse(db, err)
        || db_set_wal(db, err)
        || exec(db, "PRAGMA synchronous = FULL", err)
        || exec(db, "PRAGMA foreign_keys = ON", err)
        /* Every row written fires upserts in triggers, and each such
         * statement keeps a statement journal so it can be undone alone;
         * in a temporary file that was a file write per row, 70% of the
         * time a 100,000-row CSV import took.  The journal of one
         * statement is a few pages, so memory is the right place. */
        || exec(db, "PRAGMA temp_store = MEMORY", err)
        /* SQLite's default page cache is 2 MiB.  A write of many rows
         * touches pages of every index of transactions; with 2 MiB they
         * were spilled to the WAL and read back mid-transaction (130,000
         * writes and as many reads for a 100,000-row CSV commit), and a
         * count over a user's rows read its pages from the OS again on
         * every request.  The cache only grows as pages are read. */
        || exec(db, "PRAGMA cache_size = -65536", err))
        goto fail;
    /* The functions before the migrations: a migration may use them (one
     * that folds stored categories again calls ledger_fold or
     * ledger_category). */
    if (db_functions_register(db, err))
        goto fail;
    /* The pending rows' count changes on their way into the suggestion
     * counts, each row's words cut once (suggest_flush), the
     * migration that makes them among them. */
    if (exec(db, "CREATE TEMP TABLE IF NOT EXISTS suggest_delta (owner_id INTEGER,"
                 " category TEXT, merchant TEXT, words TEXT, nwords INTEGER, k INTEGER)", err))
        goto fail;
    if (migrate(db, err))
        goto fail;
    /* The rows a rule matched, and the part of them it is acting on
     * (rule.c), per connection. */
    if (exec(db, "CREATE TEMP TABLE IF NOT EXISTS rule_matches (id INTEGER PRIMARY KEY)", err)
        || exec(db, "CREATE TEMP TABLE IF NOT EXISTS rule_ids (id INTEGER PRIMARY KEY)", err))
        goto fail;
    /* The file it is, to notice another put in its place. */
    {
        const char *file = sqlite3_db_filename(db->sql, "main");
        struct stat stb;

        if (file && *file && stat(file, &stb) == 0) {
            db->has_file = 1;
            db->file_dev = stb.st_dev;
            db->file_ino = stb.st_ino;
        }
    }
    /* The rows of a CSV commit on their way in (csv_commit.c). */
    if (exec(db, "CREATE TEMP TABLE IF NOT EXISTS csv_rows (seq INTEGER PRIMARY KEY, date TEXT,"
                 " description TEXT, merchant TEXT, category TEXT, type TEXT, amount INTEGER,"
                 " currency TEXT, payment_method TEXT, amount_aud INTEGER, rate TEXT, notes TEXT)",
             err))
        goto fail;
    /* The merchants a merchant run is about to give rows (merchant_name.c). */
    if (exec(db, "CREATE TEMP TABLE IF NOT EXISTS merchant_fill (id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
             err))
        goto fail;
    *out = db;
    return LEDGER_OK;
fail:
    ledger_close(db);
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

void ledger_close(ledger_db *db)
{
    if (db == NULL)
        return;
    db_stmt_cache_free(db->cache);
    merchant_cleaner_free(db->cleaner);
    merchant_renames_forget(db);
    sqlite3_close(db->sql);
    free(db);
}

int ledger_set_home_currency(ledger_db *db, const char *code, ledger_error *err)
{
    int i;

    if (code == NULL || strlen(code) != 3)
        goto bad;
    for (i = 0; i < 3; i++)
        if (code[i] < 'A' || code[i] > 'Z')
            goto bad;
    memcpy(db->home_currency, code, 4);
    return LEDGER_OK;
bad:
    return ledger_error_set(err, 400, "invalid_field", "home_currency",
                            "home_currency must be three upper-case letters (ISO 4217)");
}

const char *ledger_home_currency(const ledger_db *db)
{
    return db->home_currency;
}
