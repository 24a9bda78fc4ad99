/* Opening, migrating, users, categories: the library against a database. */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "internal.h"
#include "tap.h"

static int user_version(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -1;

    sqlite3_open(path, &db);
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* SQL taking away what migrations 0027, 0026, 0023 and 0022 add, for a
 * database set back to an older version. */
#define UNDO_0027                                                  \
    "DROP TRIGGER has_split_insert;"                               \
    "DROP TRIGGER has_split_delete;"                               \
    "DROP TRIGGER has_split_move;"                                 \
    "DROP INDEX transactions_owner_split;"                         \
    "ALTER TABLE transactions DROP COLUMN has_split;"
#define UNDO_0026                                                  \
    UNDO_0027                                                      \
    "ALTER TABLE transactions DROP COLUMN fitid_out;"
#define UNDO_0023                                                  \
    UNDO_0026                                                      \
    "DROP TRIGGER transactions_high_water;"                        \
    "DROP TRIGGER statements_high_water;"                          \
    "DROP TRIGGER split_payments_high_water;"                      \
    "DELETE FROM id_high_water"                                    \
    " WHERE name IN ('transactions', 'statements', 'split_payments');"
#define UNDO_0022                                                  \
    UNDO_0023                                                      \
    "DROP TRIGGER rule_runs_high_water;"                           \
    "DELETE FROM id_high_water WHERE name = 'rule_runs';"          \
    "ALTER TABLE reconciliations DROP COLUMN after_run;"

static void set_user_version(const char *path, int v)
{
    sqlite3 *db;
    char sql[64];

    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    sqlite3_open(path, &db);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
}

/* Whether a database file is in rollback-journal mode (bytes 18 and 19 of
 * its header 1 and 1; 2 and 2 once switched to WAL). */
static int in_rollback_mode(const char *path)
{
    unsigned char hdr[20] = { 0 };
    FILE *f = fopen(path, "rb");
    int yes = f && fread(hdr, 1, sizeof hdr, f) == sizeof hdr && hdr[18] == 1 && hdr[19] == 1;

    if (f)
        fclose(f);
    return yes;
}

/* ledger_open of a path in a thread of its own, for the lock race below. */
struct opening {
    const char *path;
    int rc;
    ledger_error err;
};

static void *open_in_thread(void *arg)
{
    struct opening *o = arg;
    ledger_db *db = NULL;

    ledger_error_clear(&o->err);
    o->rc = ledger_open(o->path, &db, &o->err);
    ledger_close(db);
    return NULL;
}

static void run_sql(const char *path, const char *sql)
{
    sqlite3 *db;

    sqlite3_open(path, &db);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        printf("# %s: %s\n", sql, sqlite3_errmsg(db));
    sqlite3_close(db);
}

static int count(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -1;

    sqlite3_open(path, &db);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* User 1's manual row of the JSON body json, in a transaction of its
 * own; its id, or 0. */
static int64_t create_row(ledger_db *db, const char *json)
{
    cJSON *body = NULL, *out = NULL;
    ledger_error err;
    int64_t id = 0;

    ledger_error_clear(&err);
    ledger_begin(db, 1, &err);
    if (ledger_json_parse(json, strlen(json), &body, &err) == LEDGER_OK
        && ledger_txn_create(db, 1, body, &out, &err) == LEDGER_OK)
        id = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
    ledger_commit(db, &err);
    cJSON_Delete(body);
    cJSON_Delete(out);
    return id;
}

static off_t file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/* A database file with its WAL and shared-memory files gone. */
static void remove_db(const char *path)
{
    char side[200];

    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

/* A new database at the latest version with one user (id 1), then sql
 * run on it outside the library: how an older database is made.  The
 * SQL's result code. */
static int database_with_user(const char *path, const char *sql)
{
    ledger_db *db = NULL;
    ledger_error err;
    int64_t uid = 0;
    sqlite3 *raw;
    int rc;

    ledger_error_clear(&err);
    ok(ledger_open(path, &db, &err) == LEDGER_OK
       && ledger_user_resolve(db, "ana", NULL, NULL, &uid, &err) == LEDGER_OK && uid == 1,
       "a database with a user");
    ledger_close(db);
    sqlite3_open(path, &raw);
    if ((rc = sqlite3_exec(raw, sql, NULL, NULL, NULL)) != SQLITE_OK)
        printf("# %s\n", sqlite3_errmsg(raw));
    sqlite3_close(raw);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/ledger-t0004-XXXXXX", path[128];
    ledger_db *db = NULL;
    ledger_error err;
    int64_t alice = 0, again = 0, bob = 0, placeholder = 0;
    cJSON *doc = NULL;
    int latest = ledger_schema_latest();

    ok(mkdtemp(dir) != NULL, "temporary directory");
    snprintf(path, sizeof path, "%s/ledger.db", dir);

    /* An empty database is migrated to the latest version. */
    ledger_error_clear(&err);
    ok(ledger_open(path, &db, &err) == LEDGER_OK, "open an empty database (%s)", err.message);
    is_int(ledger_schema_version(db), latest, "migrated to the latest version");
    ok(latest >= 2, "there are migrations to apply");
    ledger_close(db);
    is_int(user_version(path), latest, "PRAGMA user_version is stored");
    is_int(count(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'transactions'"), 1,
           "the transactions table exists");

    /* Re-opening an up-to-date database changes nothing. */
    ledger_error_clear(&err);
    ok(ledger_open(path, &db, &err) == LEDGER_OK, "re-open an up-to-date database");
    is_int(ledger_schema_version(db), latest, "still at the latest version");

    /* Users. */
    ok(ledger_user_resolve(db, "alice-sub", "alice@example.org", "Alice", &alice, &err) == 0
       && alice > 0, "a new identity creates a user");
    ok(ledger_user_resolve(db, "alice-sub", NULL, NULL, &again, &err) == 0 && again == alice,
       "the same identity maps to the same user");
    ok(ledger_user_resolve(db, "bob-sub", "bob@example.org", NULL, &bob, &err) == 0
       && bob != alice, "another identity is another user");
    ok(ledger_user_resolve(db, "", NULL, NULL, &again, &err) == LEDGER_ERR && err.status == 401,
       "an empty identity is 401");
    ok(ledger_user_resolve(db, NULL, NULL, NULL, &again, &err) == LEDGER_ERR && err.status == 401,
       "no identity is 401");
    ok(ledger_user_resolve(db, " \t ", NULL, NULL, &again, &err) == LEDGER_ERR && err.status == 401,
       "an identity of blanks alone is 401");
    ok(ledger_user_resolve(db, "\v\f", NULL, NULL, &again, &err) == LEDGER_ERR && err.status == 401,
       "so is one of a vertical tab and a form feed");
    ok(ledger_user_resolve(db, "\xc2\xa0\xe2\x80\x8b", NULL, NULL, &again, &err) == LEDGER_ERR
       && err.status == 401, "or of a no-break space and a zero-width space");
    ok(ledger_user_resolve(db, "\xe3\x85\xa4\xe2\xa0\x80\xef\xbf\xb9\xf0\x9d\x85\xb3", NULL, NULL,
                           &again, &err) == LEDGER_ERR && err.status == 401,
       "or of a Hangul filler, a blank Braille pattern, an annotation mark, a musical format control");
    ok(ledger_user_resolve(db, "\xe1\x9e\xb4\xef\xbf\xb0\xf0\x93\x90\xb0", NULL, NULL, &again, &err)
       == LEDGER_ERR && err.status == 401, "or of a Khmer inherent vowel, U+FFF0, an Egyptian format control");
    ok(ledger_user_resolve(db, "\xc2\xa0x", NULL, NULL, &again, &err) == LEDGER_OK,
       "a subject with something to see beside them is one");
    ok(ledger_user_resolve(db, "mallory", "alice@example.org", NULL, &again, &err) == 0
       && again != alice, "a second identity claiming a taken email gets its own user");
    ledger_user_get(db, again, &doc, &err);
    ok(cJSON_IsNull(cJSON_GetObjectItem(doc, "email")), "and the email stays with its owner");
    cJSON_Delete(doc);
    {
        /* A claimed email another account holds is not a change to make on
         * every request (each took the write lock): with another process
         * writing, the same claims resolve at once; a new name is kept. */
        ledger_db *other = NULL;
        int64_t m2 = 0;

        ok(ledger_open(path, &other, &err) == LEDGER_OK && ledger_begin(other, 1, &err) == LEDGER_OK,
           "another connection holds the write lock");
        ok(ledger_user_resolve(db, "mallory", "alice@example.org", NULL, &m2, &err) == 0 && m2 == again,
           "the same claims, a taken email among them, resolve without it");
        ledger_rollback(other);
        ledger_close(other);
        ok(ledger_user_resolve(db, "mallory", "alice@example.org", "Mallory", &m2, &err) == 0,
           "a new name beside the taken email");
        ledger_user_get(db, again, &doc, &err);
        is_str(cJSON_IsString(cJSON_GetObjectItem(doc, "name")) ? cJSON_GetObjectItem(doc, "name")->valuestring : "",
               "Mallory", "the name is kept though the email is not");
        cJSON_Delete(doc);
    }
    /* Answers are UTF-8 JSON: an identity that is not UTF-8 text is none,
     * and claims that are not are left out. */
    ok(ledger_user_resolve(db, "caf\xe9", NULL, NULL, &again, &err) == LEDGER_ERR && err.status == 401,
       "an identity that is not UTF-8 is 401");
    ok(ledger_user_resolve(db, "dave-sub", "dav\xe9@example.org", "Caf\xe9", &again, &err) == 0,
       "claims that are not UTF-8 do not stop the identity");
    ledger_user_get(db, again, &doc, &err);
    ok(cJSON_IsNull(cJSON_GetObjectItem(doc, "email")) && cJSON_IsNull(cJSON_GetObjectItem(doc, "name")),
       "and are left out of the profile");
    cJSON_Delete(doc);
    ledger_user_get(db, alice, &doc, &err);
    is_str(cJSON_GetObjectItem(doc, "email")->valuestring, "alice@example.org", "me: email");
    is_str(cJSON_GetObjectItem(doc, "name")->valuestring, "Alice", "me: name");
    cJSON_Delete(doc);
    ok(ledger_user_resolve(db, "alice-sub", NULL, "Alice Smith", &again, &err) == 0, "new name claim");
    ledger_user_get(db, alice, &doc, &err);
    is_str(cJSON_GetObjectItem(doc, "name")->valuestring, "Alice Smith", "the profile follows the claims");
    cJSON_Delete(doc);
    ok(ledger_user_get(db, 999999, &doc, &err) == LEDGER_ERR && err.status == 404, "unknown user 404");
    ledger_close(db);

    /* A placeholder (added by email, no subject yet) is bound at first sign-in. */
    {
        sqlite3 *raw;

        sqlite3_open(path, &raw);
        sqlite3_exec(raw, "INSERT INTO users (email, name) VALUES ('carol@example.org', 'Carol')",
                     NULL, NULL, NULL);
        placeholder = sqlite3_last_insert_rowid(raw);
        sqlite3_close(raw);
    }
    ledger_open(path, &db, &err);
    ok(ledger_user_resolve(db, "carol-sub", "Carol@Example.org", NULL, &again, &err) == 0
       && again == placeholder, "signing in with a placeholder's email binds that user");
    /* A first sign-in without the email claim makes an account of its own;
     * the claim, when it comes, binds the placeholder to it late: what
     * others shared with the placeholder (here alice's contact) is the
     * user's, and their name stays their own (none), not the typed one. */
    {
        sqlite3 *raw;
        char sql[256];
        int64_t frank = 0, frank2 = 0;

        sqlite3_open(path, &raw);
        sqlite3_exec(raw, "INSERT INTO users (email, name) VALUES ('frank@example.org', 'Frank as typed')",
                     NULL, NULL, NULL);
        placeholder = sqlite3_last_insert_rowid(raw);
        snprintf(sql, sizeof sql, "INSERT INTO user_contacts (user_id, contact_id) VALUES (%lld, %lld)",
                 (long long)alice, (long long)placeholder);
        sqlite3_exec(raw, sql, NULL, NULL, NULL);
        sqlite3_close(raw);
        ok(ledger_user_resolve(db, "frank-sub", NULL, NULL, &frank, &err) == 0 && frank != placeholder,
           "a first sign-in without an email claim: an account of its own");
        ok(ledger_user_resolve(db, "frank-sub", "Frank@example.org", NULL, &frank2, &err) == 0
           && frank2 == frank, "signing in again with the claim: the same account (%s)", err.message);
        ledger_user_get(db, frank, &doc, &err);
        is_str(cJSON_IsString(cJSON_GetObjectItem(doc, "email")) ? cJSON_GetObjectItem(doc, "email")->valuestring : "",
               "Frank@example.org", "which takes the email");
        ok(cJSON_IsNull(cJSON_GetObjectItem(doc, "name")), "and keeps its own name (none)");
        cJSON_Delete(doc);
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM users WHERE id = %lld", (long long)placeholder);
        is_int(count(path, sql), 0, "the placeholder is bound into it");
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM user_contacts WHERE user_id = %lld AND contact_id = %lld",
                 (long long)alice, (long long)frank);
        is_int(count(path, sql), 1, "alice's contact names the account");
        ok(ledger_user_resolve(db, "mallory", "alice@example.org", NULL, &again, &err) == 0 && again != alice,
           "a signed-in account's email is still never taken");
    }

    /* Categories: built-ins with the caller's usage counts. */
    {
        sqlite3 *raw;
        char sql[512];
        cJSON *row;
        int dining = -1, other_users = 0, custom = -1;

        sqlite3_open(path, &raw);
        snprintf(sql, sizeof sql,
                 "INSERT INTO transactions (owner_id, date, amount, category) VALUES"
                 " (%lld, '2026-01-01', 100, 'dining'), (%lld, '2026-01-02', 100, 'dining'),"
                 " (%lld, '2026-01-03', 100, 'kids_stuff'), (%lld, '2026-01-03', 100, 'dining')",
                 (long long)alice, (long long)alice, (long long)alice, (long long)bob);
        sqlite3_exec(raw, sql, NULL, NULL, NULL);
        sqlite3_close(raw);
        ok(ledger_categories_list(db, alice, &doc, &err) == 0, "categories list");
        cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "items")) {
            const char *c = cJSON_GetObjectItem(row, "category")->valuestring;
            int uses = cJSON_GetObjectItem(row, "usage_count")->valueint;

            if (strcmp(c, "dining") == 0)
                dining = uses;
            if (strcmp(c, "kids_stuff") == 0)
                custom = uses;
            if (uses > 2)
                other_users = 1;
        }
        is_int(dining, 2, "dining counts only the caller's two rows");
        is_int(custom, 1, "a used custom category is listed");
        ok(!other_users, "no other user's rows are counted");
        cJSON_Delete(doc);
    }
    ledger_close(db);

    /* Another application's SQLite database (tables, no ledger version)
     * is refused, untouched: the ledger's tables were written into it. */
    {
        char other[160];
        sqlite3 *raw;
        ledger_db *odb = NULL;

        snprintf(other, sizeof other, "%s/other-app.db", dir);
        sqlite3_open(other, &raw);
        sqlite3_exec(raw, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", NULL, NULL, NULL);
        sqlite3_close(raw);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "another application's database is refused (%s)", err.message);
        is_int(count(other, "SELECT COUNT(*) FROM sqlite_master"), 1, "and left with its one table");
        /* A version of ours does not make it a ledger: its tables do. */
        set_user_version(other, 5);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "nor is it one at user_version 5 (%s)", err.message);
        set_user_version(other, latest);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "or at the latest version");
        /* Nor do tables by our names make it one: their columns must be ours. */
        sqlite3_open(other, &raw);
        sqlite3_exec(raw, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
                     "CREATE TABLE transactions (id INTEGER PRIMARY KEY, total REAL);",
                     NULL, NULL, NULL);
        sqlite3_close(raw);
        set_user_version(other, 1);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "nor one with tables of our names at version 1");
        {
            /* Our users table beside someone else's transactions, at 1. */
            char mixed[200];

            snprintf(mixed, sizeof mixed, "%s/mixed.db", dir);
            sqlite3_open(mixed, &raw);
            sqlite3_exec(raw, "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT, email TEXT, name TEXT);"
                         "CREATE TABLE transactions (id INTEGER PRIMARY KEY, total REAL);"
                         "PRAGMA user_version = 1;", NULL, NULL, NULL);
            sqlite3_close(raw);
            ok(ledger_open(mixed, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one with our users beside another transactions table at version 1");
        }
        set_user_version(other, 5);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "or at version 5");
        is_int(count(other, "SELECT COUNT(*) FROM sqlite_master"), 3, "left with its three tables");
        ok(in_rollback_mode(other), "in its own journal mode, not switched to WAL");
        /* A users table with fewer of our columns than it takes, and a
         * transactions table with all but one. */
        {
            char few[200];

            snprintf(few, sizeof few, "%s/few-users.db", dir);
            run_sql(few, "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);"
                         "PRAGMA user_version = 1;");
            ok(ledger_open(few, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one whose users table has only id, email and name, at version 1");
            snprintf(few, sizeof few, "%s/few-txns.db", dir);
            run_sql(few, "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT, email TEXT, name TEXT);"
                         "CREATE TABLE transactions (id INTEGER PRIMARY KEY, owner_id INTEGER,"
                         " amount INTEGER, transaction_type TEXT);"
                         "PRAGMA user_version = 5;");
            ok(ledger_open(few, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one whose transactions table has no statement_id, at version 5");
            ok(in_rollback_mode(few), "and it is not switched to WAL");
        }
        /* Another program's tables committed while ledger_open waits for
         * the lock on an empty file: migrate looks again once it holds it. */
        {
            char race[200];
            sqlite3 *holder;
            pthread_t t;
            struct opening o;

            snprintf(race, sizeof race, "%s/race.db", dir);
            o.path = race;
            o.rc = -7;
            sqlite3_open(race, &holder);
            sqlite3_exec(holder, "BEGIN IMMEDIATE; CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);",
                         NULL, NULL, NULL);
            ok(pthread_create(&t, NULL, open_in_thread, &o) == 0, "an open waits on the lock");
            usleep(300000);
            sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL);
            pthread_join(t, NULL);
            sqlite3_close(holder);
            ok(o.rc == LEDGER_ERR && strcmp(o.err.code, "not_a_ledger") == 0,
               "a table committed while the open waited makes it no ledger (%s)", o.err.message);
            is_int(count(race, "SELECT COUNT(*) FROM sqlite_master"), 1, "and nothing was written into it");
        }
    }

    /* A database from a newer release is refused, untouched. */
    set_user_version(path, latest + 1);
    ledger_error_clear(&err);
    db = NULL;
    ok(ledger_open(path, &db, &err) == LEDGER_ERR && db == NULL
       && strstr(err.message, "newer") != NULL, "a newer database is refused (%s)", err.message);
    is_int(user_version(path), latest + 1, "and left as it was");
    {
        /* One in rollback-journal mode stays in it. */
        char newer[160];

        snprintf(newer, sizeof newer, "%s/newer.db", dir);
        ok(ledger_open(newer, &db, &err) == LEDGER_OK, "a ledger");
        ledger_close(db);
        db = NULL;
        {
            char sql[96];

            snprintf(sql, sizeof sql, "PRAGMA journal_mode = DELETE; PRAGMA user_version = %d;", latest + 1);
            run_sql(newer, sql);
        }
        ok(in_rollback_mode(newer), "(set back to a rollback journal, at a newer version)");
        ok(ledger_open(newer, &db, &err) == LEDGER_ERR && strcmp(err.code, "schema_too_new") == 0,
           "a newer release's ledger in rollback mode is refused");
        ok(in_rollback_mode(newer), "before it was switched to WAL");
        db = NULL;
    }

    /* A partly migrated database catches up. */
    {
        char path1[140];

        snprintf(path1, sizeof path1, "%s/v1.db", dir);
        {
            sqlite3 *raw;

            sqlite3_open(path1, &raw);
            sqlite3_exec(raw, "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT UNIQUE,"
                         " email TEXT COLLATE NOCASE, name TEXT, created_at TEXT NOT NULL DEFAULT 'x');"
                         "CREATE UNIQUE INDEX users_email ON users(email) WHERE email IS NOT NULL;"
                         "CREATE TABLE user_contacts (user_id INTEGER, contact_id INTEGER,"
                         " PRIMARY KEY (user_id, contact_id)) WITHOUT ROWID;"
                         "PRAGMA user_version = 1;", NULL, NULL, NULL);
            sqlite3_close(raw);
        }
        ok(ledger_open(path1, &db, &err) == LEDGER_OK && ledger_schema_version(db) == latest,
           "a version-1 database is migrated forward");
        ledger_close(db);
        remove_db(path1);
    }

    /* Migration 0015: categories stored with a capital the lowering did
     * not know before 14 are folded again, with the summaries in step.
     * (0016 runs too, on a table it has not changed yet.) */
    {
        char path14[140];

        snprintf(path14, sizeof path14, "%s/v14.db", dir);
        /* Back to version 14: what 0022 to 0016 added is taken away again
         * (0017 drops shared_rows' triggers by name: stand-ins), then rows
         * and budgets with capitals 0015 folds. */
        is_int(database_with_user(path14,
                     UNDO_0022
                     "DROP TRIGGER visible_total_insert;"
                     "DROP TRIGGER visible_total_update;"
                     "DROP TRIGGER visible_total_rekey;"
                     "DROP TRIGGER visible_total_delete;"
                     "DROP TABLE visible_total;"
                     "DROP TRIGGER spend_monthly_exact_insert;"
                     "DROP TRIGGER spend_monthly_exact_update;"
                     "DROP TRIGGER search_insert;"
                     "DROP TRIGGER search_update_old;"
                     "DROP TRIGGER search_update_new;"
                     "DROP TRIGGER search_delete;"
                     "DROP TRIGGER merchants_search_update;"
                     "DROP TABLE search_pending;"
                     "DROP TABLE transactions_search;"
                     "DROP TABLE merchants_search;"
                     "DROP VIEW search_entries;"
                     "DROP VIEW merchant_search_entries;"
                     "DROP INDEX shared_rows_search;"
                     "DROP TRIGGER shared_rows_split_insert;"
                     "DROP TRIGGER shared_rows_split_move;"
                     "DROP TRIGGER shared_rows_owner;"
                     "DROP TRIGGER shared_rows_keys;"
                     "DROP VIEW shared_row_copy;"
                     "ALTER TABLE shared_rows DROP COLUMN description;"
                     "ALTER TABLE shared_rows DROP COLUMN bank_merchant;"
                     "ALTER TABLE shared_rows DROP COLUMN merchant_normalized;"
                     "CREATE TRIGGER shared_rows_split_insert AFTER INSERT ON splits BEGIN SELECT 1; END;"
                     "CREATE TRIGGER shared_rows_split_move AFTER UPDATE ON splits BEGIN SELECT 1; END;"
                     "CREATE TRIGGER shared_rows_owner AFTER UPDATE ON transactions BEGIN SELECT 1; END;"
                     "CREATE TRIGGER shared_rows_keys AFTER UPDATE ON transactions BEGIN SELECT 1; END;"
                     "ALTER TABLE rule_run_rows DROP COLUMN changed;"
                     "INSERT INTO transactions (owner_id, date, description, transaction_type, amount,"
                     " category, eff_category) VALUES"
                     " (1, '2026-01-05', 'a', 'debit', 1000, '\xc8\x98osea', '\xc8\x98osea'),"
                     " (1, '2026-01-06', 'b', 'debit', 500, '\xc8\x99osea', '\xc8\x99osea');"
                     "INSERT INTO transactions (owner_id, date, description, transaction_type, amount,"
                     " category, override_category, eff_category) VALUES"
                     " (1, '2026-01-07', 'c', 'debit', 200, 'dining', '\xc8\x9a" "ara', '\xc8\x9a" "ara');"
                     "INSERT INTO budgets (owner_id, category, amount) VALUES"
                     " (1, '\xc8\x98osea', 100), (1, '\xc8\x99osea', 200), (1, '\xc8\x9a" "ara', 300);"),
               SQLITE_OK, "0022 to 0016 taken away, old rows written");
        set_user_version(path14, 14);
        db = NULL;
        ok(ledger_open(path14, &db, &err) == LEDGER_OK && ledger_schema_version(db) >= 15,
           "a version-14 database is migrated forward (%s)", db ? "" : err.message);
        ledger_close(db);
        /* 0019 summed the months of the cells written before it. */
        is_int(count(path14, "SELECT SUM(n) FROM visible_total WHERE viewer_id = 1"
                             " AND category = '\xc8\x99osea'"),
               2, "0019: visible_total counts the rows written before it, as 0015 refolded them");
        /* 0017 put the rows written before it in the search index. */
        is_int(count(path14, "SELECT COUNT(*) FROM transactions_search"
                             " WHERE rowid BETWEEN 1099511627776 AND 2199023255551"), 3,
               "0017: the rows written before it are in the search index, as user 1's");
        is_int(count(path14, "SELECT COUNT(*) FROM transactions WHERE category = '\xc8\x99osea'"
                             " AND eff_category = '\xc8\x99osea'"), 2,
               "0015: \"Șosea\" is now \"șosea\", the category written as \"șosea\"");
        is_int(count(path14, "SELECT COUNT(*) FROM transactions WHERE override_category = '\xc8\x9b" "ara'"
                             " AND eff_category = '\xc8\x9b" "ara'"), 1, "0015: and an override too");
        is_int(count(path14, "SELECT cents FROM spend_monthly WHERE category = '\xc8\x99osea'"), 1500,
               "0015: the monthly summary moved with them");
        is_int(count(path14, "SELECT COUNT(*) FROM spend_monthly WHERE category LIKE '\xc8\x98%' AND cents <> 0"),
               0, "0015: nothing left under the old name");
        is_int(count(path14, "SELECT COUNT(*) FROM budgets"), 2, "0015: two budgets of three left");
        is_int(count(path14, "SELECT amount FROM budgets WHERE category = '\xc8\x99osea'"), 200,
               "0015: the budget already under the folded name kept");
        is_int(count(path14, "SELECT amount FROM budgets WHERE category = '\xc8\x9b" "ara'"), 300,
               "0015: a budget with no folded twin renamed");
        remove_db(path14);
    }

    /* 0021: a category folded before utf8_lower knew Ꞵ is folded again. */
    {
        char path20[140];

        snprintf(path20, sizeof path20, "%s/v20.db", dir);
        is_int(database_with_user(path20,
                           UNDO_0022
                           "INSERT INTO transactions (owner_id, date, description, transaction_type, amount,"
                           " category, eff_category) VALUES"
                           " (1, '2026-01-05', 'a', 'debit', 1000, '\xea\x9e\xb4" "eta', '\xea\x9e\xb4" "eta');"
                           "INSERT INTO budgets (owner_id, category, amount) VALUES (1, '\xea\x9e\xb4" "eta', 100);"),
               SQLITE_OK, "an old-style category written");
        set_user_version(path20, 20);
        db = NULL;
        ok(ledger_open(path20, &db, &err) == LEDGER_OK, "a version-20 database is migrated forward");
        ledger_close(db);
        is_int(count(path20, "SELECT COUNT(*) FROM transactions WHERE category = '\xea\x9e\xb5" "eta'"
                             " AND eff_category = '\xea\x9e\xb5" "eta'"), 1,
               "0021: \"\xea\x9e\xb4" "eta\" is now \"\xea\x9e\xb5" "eta\"");
        is_int(count(path20, "SELECT cents FROM spend_monthly WHERE category = '\xea\x9e\xb5" "eta'"), 1000,
               "0021: the monthly summary moved with it");
        is_int(count(path20, "SELECT amount FROM budgets WHERE category = '\xea\x9e\xb5" "eta'"), 100,
               "0021: and the budget");
        remove_db(path20);
    }

    /* 0022: a reconciliation made before knows the runs of its second or
     * earlier as before it; run ids go on from the highest. */
    {
        char path21[140];

        snprintf(path21, sizeof path21, "%s/v21.db", dir);
        is_int(database_with_user(path21,
                           UNDO_0022
                           "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                           " VALUES (10, 1, '2026-01-05', 'm', 'debit', 1000),"
                           "        (11, 1, '2026-01-05', 's', 'debit', 1000);"
                           "INSERT INTO rule_runs (id, owner_id, created_at) VALUES"
                           " (7, 1, '2026-02-01T10:00:00Z'), (8, 1, '2026-02-01T10:00:05Z'),"
                           " (9, 1, '2026-02-01T10:00:06Z');"
                           "INSERT INTO reconciliations (manual_id, statement_txn_id, snapshot,"
                           " statement_created_at, created_at)"
                           " VALUES (10, 11, '{}', '2026-01-06T00:00:00Z', '2026-02-01T10:00:05Z');"
                           "DELETE FROM rule_runs WHERE id = 9;"),
               SQLITE_OK, "runs and a reconciliation written as before 0022");
        set_user_version(path21, 21);
        db = NULL;
        ok(ledger_open(path21, &db, &err) == LEDGER_OK, "a version-21 database is migrated forward");
        ledger_close(db);
        is_int(count(path21, "SELECT after_run FROM reconciliations WHERE manual_id = 10"), 8,
               "0022: the runs of the reconciliation's second or earlier are before it");
        is_int(count(path21, "SELECT last FROM id_high_water WHERE name = 'rule_runs'"), 8,
               "0022: run ids go on from the highest there is");
        remove_db(path21);
    }

    /* 0023: the marks of transactions, statements and payments start at
     * the largest ids there are, and a deleted newest id is not given out
     * again. */
    {
        char path22[140];
        int64_t id = 0;

        snprintf(path22, sizeof path22, "%s/v22.db", dir);
        is_int(database_with_user(path22,
                           UNDO_0023
                           "INSERT INTO statements (id, owner_id, bank_name, account_type, statement_type,"
                           " period_start, period_end) VALUES (5, 1, 'B', 'Visa', 'credit_card',"
                           " '2026-01-01', '2026-01-31');"
                           "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                           " VALUES (40, 1, '2026-01-05', 'm', 'debit', 1000);"),
               SQLITE_OK, "rows written as before 0023");
        set_user_version(path22, 22);
        db = NULL;
        ok(ledger_open(path22, &db, &err) == LEDGER_OK, "a version-22 database is migrated forward");
        ledger_close(db);
        is_int(count(path22, "SELECT last FROM id_high_water WHERE name = 'transactions'"), 40,
               "0023: the transactions' mark is their largest id");
        is_int(count(path22, "SELECT last FROM id_high_water WHERE name = 'statements'"), 5,
               "0023: the statements' mark is theirs");
        is_int(count(path22, "SELECT last FROM id_high_water WHERE name = 'split_payments'"), 0,
               "0023: no payments, a mark of 0");
        db = NULL;
        ledger_open(path22, &db, &err);
        id = create_row(db, "{\"date\": \"2026-01-06\", \"amount\": 2, \"description\": \"n\"}");
        is_int(id, 41, "a new row takes the id after the largest");
        ledger_begin(db, 1, &err);
        ok(ledger_txn_delete(db, 1, id, &err) == LEDGER_OK, "and is deleted");
        ledger_commit(db, &err);
        ledger_close(db);
        is_int(count(path22, "SELECT last FROM id_high_water WHERE name = 'transactions'"), 41,
               "deleting it leaves the mark at its id");
        db = NULL;
        ledger_open(path22, &db, &err);
        id = create_row(db, "{\"date\": \"2026-01-07\", \"amount\": 3, \"description\": \"o\"}");
        ledger_close(db);
        is_int(id, 42, "the next row is 42: the deleted newest id is not given out again");
        remove_db(path22);
    }

    /* 0024: categories stored with a Unicode space or an invisible
     * character are folded again; a budget that names nothing goes. */
    {
        char path23[140];

        snprintf(path23, sizeof path23, "%s/v23.db", dir);
        is_int(database_with_user(path23,
                           UNDO_0026
                           "INSERT INTO transactions (owner_id, date, description, transaction_type, amount,"
                           " category, eff_category) VALUES"
                           " (1, '2026-01-05', 'a', 'debit', 1000, 'transfers\xe2\x80\x8b',"
                           "  'transfers\xe2\x80\x8b'),"
                           " (1, '2026-01-06', 'b', 'debit', 500, 'dining\xc2\xa0out', 'dining\xc2\xa0out');"
                           "INSERT INTO budgets (owner_id, category, amount) VALUES"
                           " (1, 'dining\xc2\xa0out', 100), (1, '\xe2\x80\x8b', 5);"),
               SQLITE_OK, "categories written with a zero-width space and an NBSP");
        set_user_version(path23, 23);
        db = NULL;
        ok(ledger_open(path23, &db, &err) == LEDGER_OK, "a version-23 database is migrated forward");
        ledger_close(db);
        is_int(count(path23, "SELECT COUNT(*) FROM transactions WHERE category = 'transfers'"
                             " AND eff_category = 'transfers'"), 1,
               "0024: \"transfers\" with a zero-width space is transfers");
        is_int(count(path23, "SELECT COUNT(*) FROM spend_monthly WHERE month = '2026-01' AND cents <> 0"
                             " AND category = 'dining_out'"), 1,
               "0024: the NBSP one is dining_out, and the summary moved with it");
        is_int(count(path23, "SELECT COALESCE(SUM(cents), 0) FROM spend_monthly WHERE month = '2026-01'"
                             " AND category = 'transfers\xe2\x80\x8b'"), 0,
               "0024: nothing is spent under the invisible name any more");
        is_int(count(path23, "SELECT COUNT(*) FROM budgets WHERE category = 'dining_out'"), 1,
               "0024: the budget is dining_out's");
        is_int(count(path23, "SELECT COUNT(*) FROM budgets"), 1, "0024: the budget naming nothing is gone");
        remove_db(path23);
    }

    /* 0025: an itemised repayment in transfers counts its interest under
     * loan_interest; the summary is counted again (a version-24 one had
     * no cell for it). */
    {
        char path24[140];

        snprintf(path24, sizeof path24, "%s/v24.db", dir);
        is_int(database_with_user(path24,
                           UNDO_0026
                           "INSERT INTO transactions (owner_id, date, description, transaction_type, amount,"
                           " principal_amount, interest_amount, category, eff_category) VALUES"
                           " (1, '2026-02-15', 'repayment', 'payment', 200000, 150000, 50000,"
                           "  'transfers', 'transfers');"
                           "DELETE FROM spend_monthly;"),
               SQLITE_OK, "a version-24 database: an itemised repayment in transfers, no spend");
        set_user_version(path24, 24);
        db = NULL;
        ok(ledger_open(path24, &db, &err) == LEDGER_OK, "a version-24 database is migrated forward");
        ledger_close(db);
        is_int(count(path24, "SELECT COUNT(*) FROM pragma_table_info('transactions') WHERE name = 'fitid_out'"),
               1, "0026: transactions have fitid_out");
        is_int(count(path24, "SELECT cents FROM spend_monthly WHERE owner_id = 1 AND month = '2026-02'"
                             " AND category = 'loan_interest'"), 50000,
               "0025: its interest is spent under loan_interest");
        remove_db(path24);
    }

    /* 0027: the rows with a split are flagged, and the flag then follows
     * their splits. */
    {
        char path26[140];

        snprintf(path26, sizeof path26, "%s/v26.db", dir);
        is_int(database_with_user(path26,
                           UNDO_0027
                           "INSERT INTO users (id, subject) VALUES (2, 'ben');"
                           "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                           " VALUES (1, 1, '2026-03-01', 'split', 'debit', 1000),"
                           "        (2, 1, '2026-03-02', 'whole', 'debit', 500);"
                           "INSERT INTO splits (transaction_id, participant_id, share_percent)"
                           " VALUES (1, 1, 5000), (1, 2, 5000);"),
               SQLITE_OK, "a version-26 database: one row split, one not");
        set_user_version(path26, 26);
        db = NULL;
        ok(ledger_open(path26, &db, &err) == LEDGER_OK, "a version-26 database is migrated forward");
        ledger_close(db);
        is_int(count(path26, "SELECT has_split FROM transactions WHERE id = 1"), 1, "0027: the split row is flagged");
        is_int(count(path26, "SELECT has_split FROM transactions WHERE id = 2"), 0, "0027: the other is not");
        run_sql(path26, "DELETE FROM splits WHERE transaction_id = 1 AND participant_id = 2;");
        is_int(count(path26, "SELECT has_split FROM transactions WHERE id = 1"), 1,
               "0027: a row keeps its flag while a split is left");
        run_sql(path26, "UPDATE splits SET transaction_id = 2 WHERE transaction_id = 1;");
        is_int(count(path26, "SELECT 10 * (SELECT has_split FROM transactions WHERE id = 1)"
                             " + (SELECT has_split FROM transactions WHERE id = 2)"), 1,
               "0027: a split moved to another row takes the flag with it");
        run_sql(path26, "DELETE FROM splits;");
        is_int(count(path26, "SELECT COUNT(*) FROM transactions WHERE has_split"), 0,
               "0027: the last split gone, no row is flagged");
        remove_db(path26);
    }

    /* A placeholder bound late (the account's first sign-in had no email
     * claim) whose merge into the account is refused (both are on one
     * row's split) leaves the two apart, and still signs the account in. */
    {
        char pathu[140], sql[400];
        static const char row_json[] = "{\"date\":\"2025-01-01\",\"amount\":10,\"description\":\"x\"}";
        int64_t carol = 0, u = 0, signed_in = 0, row = 0;
        cJSON *body = NULL, *out = NULL;

        snprintf(pathu, sizeof pathu, "%s/late.db", dir);
        db = NULL;
        ok(ledger_open(pathu, &db, &err) == LEDGER_OK
           && ledger_user_resolve(db, "carol-sub", "carol@example.org", "Carol", &carol, &err) == LEDGER_OK
           && ledger_user_resolve(db, "u-sub", NULL, "U", &u, &err) == LEDGER_OK,
           "carol, and an account that signed in without an email claim");
        if (ledger_json_parse(row_json, strlen(row_json), &body, &err) == LEDGER_OK
            && ledger_begin(db, 1, &err) == LEDGER_OK) {
            if (ledger_txn_create(db, carol, body, &out, &err) == LEDGER_OK)
                row = (int64_t)cJSON_GetObjectItem(out, "id")->valuedouble;
            ledger_commit(db, &err);
        }
        cJSON_Delete(body);
        cJSON_Delete(out);
        ledger_close(db);
        snprintf(sql, sizeof sql,
                 "INSERT INTO users (email, name) VALUES ('u@example.org', 'typed');"
                 "INSERT INTO splits VALUES (%lld, (SELECT id FROM users WHERE email = 'u@example.org'), 3000, 1);"
                 "INSERT INTO splits VALUES (%lld, %lld, 3000, 0);",
                 (long long)row, (long long)row, (long long)u);
        run_sql(pathu, sql);
        db = NULL;
        ok(row > 0 && ledger_open(pathu, &db, &err) == LEDGER_OK, "carol's row split with both");
        ok(ledger_user_resolve(db, "u-sub", "u@example.org", "U", &signed_in, &err) == LEDGER_OK && signed_in == u,
           "the email claim whose late binding is refused still signs the account in (%s)", err.message);
        is_int(count(pathu, "SELECT COUNT(*) FROM users WHERE email = 'u@example.org' AND subject IS NULL"), 1,
               "and the placeholder is left as it was");
        ledger_close(db);
        remove_db(pathu);
    }

    /* An in-memory database works for tests. */
    ok(ledger_open(":memory:", &db, &err) == LEDGER_OK, "in-memory database");
    ok(ledger_set_home_currency(db, "EUR", &err) == 0
       && strcmp(ledger_home_currency(db), "EUR") == 0, "home currency is settable");
    ok(ledger_set_home_currency(db, "eur", &err) == LEDGER_ERR, "lower-case currency refused");
    ok(ledger_db_current(db, &err) == LEDGER_OK, "an in-memory database is always current");
    ledger_close(db);

    /* A full disk is a 507 the client can act on, not a 500: SQLite says
     * SQLITE_FULL, here when the file may not grow past its pages now. */
    {
        char full[512];
        int64_t me = 0;
        cJSON *in = NULL, *out = NULL;
        int i, refused = 0;

        snprintf(full, sizeof full, "%s/full.db", dir);
        ok(ledger_open(full, &db, &err) == LEDGER_OK, "open a database to fill");
        ledger_user_resolve(db, "alice", NULL, NULL, &me, &err);
        ok(sqlite3_exec(db->sql, "PRAGMA max_page_count = 1; PRAGMA wal_checkpoint(TRUNCATE)",
                        NULL, NULL, NULL) == SQLITE_OK,
           "it may grow no more");
        in = cJSON_Parse("{\"date\": \"2026-01-05\", \"amount\": 1, \"description\": \"long enough"
                         " to need a new page, again and again and again and again\"}");
        for (i = 0; i < 200 && !refused; i++) {
            ledger_error_clear(&err);
            if (ledger_begin(db, 1, &err) || ledger_txn_create(db, me, in, &out, &err)
                || ledger_commit(db, &err)) {
                ledger_rollback(db);
                refused = 1;
            }
            cJSON_Delete(out);
            out = NULL;
        }
        ok(refused && err.status == 507 && strcmp(err.code, "insufficient_storage") == 0,
           "writing into a full database is a 507 insufficient_storage (%d %s)", err.status, err.code);
        ok(ledger_db_current(db, &err) == LEDGER_OK, "and the database is still there for reads");
        cJSON_Delete(in);
        ledger_close(db);
        remove_db(full);
    }

    /* Deferred checkpoints (ledger-fcgi's): a commit leaves a long
     * write-ahead log as it is, and ledger_idle copies it into the
     * database; without them SQLite's commit does (1,000 pages). */
    {
        char deferred[160], plain[160];
        const char *fill = "CREATE TABLE fill (x);"
                           "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)"
                           " INSERT INTO fill SELECT zeroblob(4000) FROM n";
        ledger_db *other = NULL;
        off_t before, after_commit, after_idle;

        snprintf(deferred, sizeof deferred, "%s/deferred.db", dir);
        snprintf(plain, sizeof plain, "%s/plain.db", dir);
        ledger_error_clear(&err);
        ok(ledger_open(deferred, &db, &err) == LEDGER_OK && ledger_open(plain, &other, &err) == LEDGER_OK,
           "two new databases");
        ledger_defer_checkpoints(db);
        before = file_size(deferred);
        ok(db && sqlite3_exec(db->sql, fill, NULL, NULL, NULL) == SQLITE_OK, "1,500 pages written");
        after_commit = file_size(deferred);
        ledger_idle(db);
        after_idle = file_size(deferred);
        ok(after_commit == before, "deferred: the commit leaves them in the log (%lld bytes, then %lld)",
           (long long)before, (long long)after_commit);
        ok(after_idle > before + 1500 * 4000LL, "ledger_idle copies them into the database (%lld bytes)",
           (long long)after_idle);
        before = file_size(plain);
        ok(other && sqlite3_exec(other->sql, fill, NULL, NULL, NULL) == SQLITE_OK
           && file_size(plain) > before + 1500 * 4000LL,
           "not deferred: the commit copies them, as SQLite does by default");
        ledger_close(db);
        ledger_close(other);
        remove_db(deferred);
        remove_db(plain);
    }

    remove_db(path);
    rmdir(dir);
    return done_testing();
}
