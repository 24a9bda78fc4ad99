/* Opening, migrating, users, categories: the library against a database. */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db.h"
#include "fields.h"
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

/* The first column of sql's first row as text, malloc'd ("" for none). */
static char *text(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char *v = NULL;

    sqlite3_open(path, &db);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW
        && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v ? v : strdup("");
}

/* Every schema object of a database, in the order SQLite loads them. */
#define SCHEMA_SQL                                                                          \
    "SELECT group_concat(type || ' ' || name || ' ' || tbl_name || ' ' || COALESCE(sql, ''),"   \
    " char(10)) FROM (SELECT * FROM sqlite_master ORDER BY rowid)"

/* The bytes of a file, malloc'd, their number in *len (NULL when unreadable). */
static char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;

    *len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (buf = malloc(*len + 1)) != NULL && fread(buf, 1, *len, f) != (size_t)*len) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
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
    int latest = ledger_schema_latest(), baseline = db_migrations[0].version;

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
        set_user_version(other, latest);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "or at the latest version");
        /* Nor do tables by our names make it one: their columns must be ours. */
        sqlite3_open(other, &raw);
        sqlite3_exec(raw, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
                     "CREATE TABLE transactions (id INTEGER PRIMARY KEY, total REAL);",
                     NULL, NULL, NULL);
        sqlite3_close(raw);
        ok(ledger_open(other, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
           "nor one with tables of our names");
        {
            /* Our users table beside someone else's transactions. */
            char mixed[200];

            snprintf(mixed, sizeof mixed, "%s/mixed.db", dir);
            run_sql(mixed, "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT, email TEXT, name TEXT);"
                           "CREATE TABLE transactions (id INTEGER PRIMARY KEY, total REAL);");
            set_user_version(mixed, latest);
            ok(ledger_open(mixed, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one with our users beside another transactions table");
        }
        is_int(count(other, "SELECT COUNT(*) FROM sqlite_master"), 3, "left with its three tables");
        ok(in_rollback_mode(other), "in its own journal mode, not switched to WAL");
        /* A users table with fewer of our columns than it takes, and a
         * transactions table with all but one. */
        {
            char few[200];

            snprintf(few, sizeof few, "%s/few-users.db", dir);
            run_sql(few, "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);");
            set_user_version(few, latest);
            ok(ledger_open(few, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one whose users table has only id, email and name");
            snprintf(few, sizeof few, "%s/few-txns.db", dir);
            run_sql(few, "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT, email TEXT, name TEXT);"
                         "CREATE TABLE transactions (id INTEGER PRIMARY KEY, owner_id INTEGER,"
                         " amount INTEGER, transaction_type TEXT);");
            set_user_version(few, latest);
            ok(ledger_open(few, &odb, &err) == LEDGER_ERR && strcmp(err.code, "not_a_ledger") == 0,
               "nor one whose transactions table has no statement_id");
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
            /* The opener reads the file while it waits: the COMMIT waits
             * for that read to end rather than fail and leave the table
             * uncommitted. */
            sqlite3_busy_timeout(holder, 10000);
            sqlite3_exec(holder, "BEGIN IMMEDIATE; CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);",
                         NULL, NULL, NULL);
            ok(pthread_create(&t, NULL, open_in_thread, &o) == 0, "an open waits on the lock");
            usleep(300000);
            is_int(sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL), SQLITE_OK,
                   "the other program commits its table");
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

    /* A database from before the baseline: no release migrates it, so it
     * is refused, byte for byte untouched, whatever it holds. */
    {
        char old[160];
        const int versions[] = { 1, baseline - 1 };
        size_t k;

        snprintf(old, sizeof old, "%s/before-baseline.db", dir);
        for (k = 0; k < sizeof versions / sizeof versions[0]; k++) {
            char sql[300], want[120], *before, *after;
            long before_len, after_len;

            remove_db(old);
            snprintf(sql, sizeof sql,
                     "CREATE TABLE users (id INTEGER PRIMARY KEY, subject TEXT UNIQUE, email TEXT,"
                     " name TEXT);"
                     "CREATE TABLE transactions (id INTEGER PRIMARY KEY, statement_id INTEGER,"
                     " owner_id INTEGER, amount INTEGER, transaction_type TEXT);"
                     "INSERT INTO users (subject) VALUES ('ana');"
                     "PRAGMA user_version = %d;", versions[k]);
            run_sql(old, sql);
            before = slurp(old, &before_len);
            ledger_error_clear(&err);
            db = NULL;
            ok(ledger_open(old, &db, &err) == LEDGER_ERR && db == NULL && err.status == 503
               && strcmp(err.code, "unavailable") == 0,
               "a database at version %d is refused, 503 unavailable", versions[k]);
            snprintf(want, sizeof want, "the database is at schema version %d, from before this"
                     " release's baseline (%d)", versions[k], baseline);
            ok(strncmp(err.message, want, strlen(want)) == 0, "saying so: %s", err.message);
            after = slurp(old, &after_len);
            ok(before && after && before_len == after_len && memcmp(before, after, before_len) == 0,
               "and the file is untouched (%ld bytes)", after_len);
            ok(in_rollback_mode(old), "not even switched to WAL");
            free(before);
            free(after);
        }
        /* A file with a table of its own at such a version: refused alike. */
        remove_db(old);
        run_sql(old, "CREATE TABLE notes (body TEXT);");
        set_user_version(old, baseline - 1);
        ok(ledger_open(old, &db, &err) == LEDGER_ERR && strcmp(err.code, "unavailable") == 0
           && strstr(err.message, "baseline") != NULL, "a file of notes at such a version too (%s)", err.message);
        is_int(count(old, "SELECT COUNT(*) FROM sqlite_master"), 1, "and left with its one table");
        remove_db(old);
    }

    /* A database at the baseline, made by it, opens as it is: nothing is
     * run on it again. */
    {
        char base[160], *schema, *again_schema;

        snprintf(base, sizeof base, "%s/baseline.db", dir);
        db = NULL;
        ok(ledger_open(base, &db, &err) == LEDGER_OK
           && ledger_schema_version(db) == ledger_schema_latest(),
           "a new database is made at the latest version, %d", ledger_schema_latest());
        ledger_close(db);
        schema = text(base, SCHEMA_SQL);
        is_int(count(base, "SELECT COUNT(*) FROM id_high_water WHERE last = 0"), 7,
               "with a mark of 0 for each of the seven tables that keep one");
        db = NULL;
        ok(ledger_open(base, &db, &err) == LEDGER_OK, "and opens again");
        ledger_close(db);
        again_schema = text(base, SCHEMA_SQL);
        ok(strlen(schema) > 1000 && strcmp(schema, again_schema) == 0, "with its schema unchanged");
        is_int(user_version(base), ledger_schema_latest(), "at the latest version");
        free(schema);
        free(again_schema);
        remove_db(base);
    }

    /* The marks of transactions, statements and payments: a new row takes
     * the id after the largest there is, and a deleted newest id is not
     * given out again. */
    {
        char marks[140];
        int64_t id = 0;

        snprintf(marks, sizeof marks, "%s/marks.db", dir);
        is_int(database_with_user(marks,
                           "INSERT INTO statements (id, owner_id, bank_name, account_type, statement_type,"
                           " period_start, period_end) VALUES (5, 1, 'B', 'Visa', 'credit_card',"
                           " '2026-01-01', '2026-01-31');"
                           "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                           " VALUES (40, 1, '2026-01-05', 'm', 'debit', 1000);"),
               SQLITE_OK, "rows written with ids of their own");
        db = NULL;
        ledger_open(marks, &db, &err);
        id = create_row(db, "{\"date\": \"2026-01-06\", \"amount\": 2, \"description\": \"n\"}");
        is_int(id, 41, "a new row takes the id after the largest");
        ledger_begin(db, 1, &err);
        ok(ledger_txn_delete(db, 1, id, &err) == LEDGER_OK, "and is deleted");
        ledger_commit(db, &err);
        ledger_close(db);
        is_int(count(marks, "SELECT last FROM id_high_water WHERE name = 'transactions'"), 41,
               "deleting it leaves the mark at its id");
        db = NULL;
        ledger_open(marks, &db, &err);
        id = create_row(db, "{\"date\": \"2026-01-07\", \"amount\": 3, \"description\": \"o\"}");
        ledger_close(db);
        is_int(id, 42, "the next row is 42: the deleted newest id is not given out again");
        remove_db(marks);
    }

    /* has_split follows a row's splits. */
    {
        char flags[140];

        snprintf(flags, sizeof flags, "%s/has-split.db", dir);
        is_int(database_with_user(flags,
                           "INSERT INTO users (id, subject) VALUES (2, 'ben');"
                           "INSERT INTO transactions (id, owner_id, date, description, transaction_type, amount)"
                           " VALUES (1, 1, '2026-03-01', 'split', 'debit', 1000),"
                           "        (2, 1, '2026-03-02', 'whole', 'debit', 500);"
                           "INSERT INTO splits (transaction_id, participant_id, share_percent)"
                           " VALUES (1, 1, 5000), (1, 2, 5000);"),
               SQLITE_OK, "one row split, one not");
        is_int(count(flags, "SELECT has_split FROM transactions WHERE id = 1"), 1, "the split row is flagged");
        is_int(count(flags, "SELECT has_split FROM transactions WHERE id = 2"), 0, "the other is not");
        run_sql(flags, "DELETE FROM splits WHERE transaction_id = 1 AND participant_id = 2;");
        is_int(count(flags, "SELECT has_split FROM transactions WHERE id = 1"), 1,
               "a row keeps its flag while a split is left");
        run_sql(flags, "UPDATE splits SET transaction_id = 2 WHERE transaction_id = 1;");
        is_int(count(flags, "SELECT 10 * (SELECT has_split FROM transactions WHERE id = 1)"
                            " + (SELECT has_split FROM transactions WHERE id = 2)"), 1,
               "a split moved to another row takes the flag with it");
        run_sql(flags, "DELETE FROM splits;");
        is_int(count(flags, "SELECT COUNT(*) FROM transactions WHERE has_split"), 0,
               "the last split gone, no row is flagged");
        remove_db(flags);
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
