/*
 * Opening and closing a connection: the pragmas every connection runs
 * with, its SQL functions (db_func.c), the schema brought up to date
 * (db_schema.c), the temporary tables the library's modules share, and
 * its one setting, the home currency.  The rule: ledger_open hands out a
 * connection ready for any request, or none, all it made freed again.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db.h"
#include "job.h"
#include "merchant_clean.h"

int db_exec_script(ledger_db *db, const char *sql, ledger_error *err)
{
    char *msg = NULL;

    if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
        ledger_error_set(err, 500, "internal", NULL, "%.40s: %s", sql, msg ? msg : "sqlite error");
        sqlite3_free(msg);
        return LEDGER_ERR;
    }
    return LEDGER_OK;
}

int ledger_open(const char *path, ledger_db **out, ledger_error *err)
{
    ledger_db *db;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

    db = calloc(1, sizeof *db);
    if (db == NULL)
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    memcpy(db->home_currency, "AUD", 4);
    db->job_fd = -1;
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
    if (db_refuse(db, err)
        || db_set_wal(db, err)
        || db_exec_script(db, "PRAGMA synchronous = FULL", err)
        || db_exec_script(db, "PRAGMA foreign_keys = ON", err)
        /* Every row written fires upserts in triggers, and each such
         * statement keeps a statement journal so it can be undone alone;
         * in a temporary file that was a file write per row, 70% of the
         * time a 100,000-row CSV import took.  The journal of one
         * statement is a few pages, so memory is the right place. */
        || db_exec_script(db, "PRAGMA temp_store = MEMORY", err)
        /* SQLite's default page cache is 2 MiB.  A write of many rows
         * touches pages of every index of transactions; with 2 MiB they
         * were spilled to the WAL and read back mid-transaction (130,000
         * writes and as many reads for a 100,000-row CSV commit), and a
         * count over a user's rows read its pages from the OS again on
         * every request.  The cache only grows as pages are read. */
        || db_exec_script(db, "PRAGMA cache_size = -65536", err))
        goto fail;
    /* The functions before the migrations: a migration may use them (one
     * that folds stored categories again calls ledger_fold or
     * ledger_category). */
    if (db_functions_register(db, err))
        goto fail;
    /* The pending rows' count changes on their way into the suggestion
     * counts, each row's words cut once (suggest_flush), the
     * migration that makes them among them. */
    if (db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS suggest_delta (owner_id INTEGER,"
                       " category TEXT, merchant TEXT, words TEXT, nwords INTEGER, k INTEGER)",
                       err))
        goto fail;
    if (db_migrate(db, err))
        goto fail;
    /* The rows a rule matched, and the part of them it is acting on
     * (rule.c), per connection. */
    if (db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS rule_matches (id INTEGER PRIMARY KEY)",
                       err)
        || db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS rule_ids (id INTEGER PRIMARY KEY)",
                          err))
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
    if (db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS csv_rows (seq INTEGER PRIMARY KEY,"
                       " date TEXT, description TEXT, merchant TEXT, category TEXT, type TEXT,"
                       " amount INTEGER, currency TEXT, payment_method TEXT, amount_aud INTEGER,"
                       " rate TEXT, notes TEXT)", err))
        goto fail;
    /* The rows of a statement on their way in (statement_rows.c). */
    if (db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS statement_rows (seq INTEGER PRIMARY"
                       " KEY, date TEXT, description TEXT, merchant TEXT, category TEXT, type TEXT,"
                       " amount INTEGER, currency TEXT, amount_aud INTEGER, rate TEXT,"
                       " principal INTEGER, interest INTEGER, fitid TEXT, payment_method TEXT,"
                       " fitid_out INTEGER, merchant_normalized TEXT, refund INTEGER)", err))
        goto fail;
    /* The merchants a merchant run is about to give rows (merchant_name.c). */
    if (db_exec_script(db, "CREATE TEMP TABLE IF NOT EXISTS merchant_fill (id INTEGER PRIMARY KEY,"
                       " name TEXT NOT NULL)", err))
        goto fail;
    *out = db;
    return LEDGER_OK;
fail:
    ledger_close(db);
    return LEDGER_ERR;
}

void ledger_close(ledger_db *db)
{
    if (db == NULL)
        return;
    db_stmt_cache_free(db->cache);
    merchant_cleaner_free(db->cleaner);
    merchant_renames_forget(db);
    job_close(db);
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
