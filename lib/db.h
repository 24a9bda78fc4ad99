/* The connection, its statements and errors, private to libledger: the
 * prepared-statement cache and the one-line statements over it, the
 * errors every module reports through, the id marks, and 128-bit sums. */
#ifndef LEDGER_DB_H
#define LEDGER_DB_H

#include <stdint.h>
#include <sys/types.h>
#include <sqlite3.h>
#include "ledger.h"

struct stmt_cache;

struct ledger_db {
    sqlite3 *sql;
    struct stmt_cache *cache;
    char home_currency[4];
    long busy_waited_us;  /* slept so far waiting for the current lock (db_lock.c) */
    struct regexp_ctx *regexp; /* ledger_regexp's limits and budget (db_regexp.c); SQLite owns it */
    struct merchant_cleaner *cleaner; /* compiled on first use (merchant_name.c); freed by ledger_close */
    int jit;              /* the cleaner is JIT-compiled (ledger_set_jit) */
    struct merchant_renames *renames; /* one owner's renames, read once per transaction (merchant_name.c) */
    int wal_frames;       /* pages in the write-ahead log at the last commit (deferred checkpoints) */
    int in_txn;           /* ledger_begin's transaction has not been ended (see db_stmt) */
    int txn_write;        /* it is a write transaction (ledger_commit moves the data version) */
    sqlite3_int64 changes_at_begin; /* sqlite3_total_changes64 when it began */
    int bind_failed;      /* a text bind failed in it (db_bind_text) */
    int job_fd;           /* <database>-jobs, its jobs' locks (job.c); -1 until opened */
    int64_t job_id;       /* the job this connection is running, 0 for none (job.c) */
    int has_file;         /* the file opened, as stat saw it (ledger_db_current) */
    dev_t file_dev;
    ino_t file_ino;
};

/* A migration compiled in from schema/NNNN_name.sql (see schema_sql.c). */
struct db_migration {
    int version;
    const char *name;
    const char *sql;
};
extern const struct db_migration db_migrations[];
extern const int db_migration_count;

/* FNV-1a, the one hash of the library's own tables (the statement cache,
 * tallies, grouped sums, OFX row keys): n bytes at p, going on from h
 * (HASH_START to begin); hash_text hashes a string to its NUL. */
#define HASH_START UINT64_C(0xcbf29ce484222325)
#define HASH_PRIME UINT64_C(0x100000001b3)
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    while (n--)
        h = (h ^ *b++) * HASH_PRIME;
    return h;
}

static inline uint64_t hash_text(const char *s)
{
    uint64_t h = HASH_START;

    while (*s)
        h = (h ^ (unsigned char)*s++) * HASH_PRIME;
    return h;
}

/* Returns the cached prepared statement for sql, preparing it (persistent)
 * on first use.  The statement is reset and its bindings cleared; the caller
 * hands it back with db_stmt_done when finished.  The cache owns it. */
sqlite3_stmt *db_stmt(ledger_db *db, const char *sql, ledger_error *err);
void db_stmt_done(sqlite3_stmt *st);
void db_stmt_cache_free(struct stmt_cache *cache);
/* Steps sql, a statement without parameters or rows (BEGIN, SAVEPOINT...),
 * from the cache; nonzero, with err set (db_error's what), when it fails. */
int db_step_once(ledger_db *db, const char *sql, const char *what, ledger_error *err);

/* Turns the connection's last error into a 500 (or 409 for a constraint). */
int db_error(ledger_db *db, ledger_error *err, const char *what);

/* One-line statements, in the manner of Fossil's db_multi_exec and
 * db_int: each takes a cached statement's SQL and its parameters ?1..?n,
 * runs it, hands it back to the cache, and reports a failure through err
 * with db_error's what.  The parameters are struct db_arg values made by
 * DB_INT, DB_TEXT and DB_NULL, so the compiler checks each one's type (a
 * printf-style list would pass an int where an int64_t is read). */
struct db_arg {
    char type;              /* 'i' integer, 't' text, 'n' NULL */
    int64_t i;
    const char *s;          /* NULL binds NULL */
};
#define DB_INT(v) ((struct db_arg){'i', (int64_t)(v), NULL})
#define DB_TEXT(v) ((struct db_arg){'t', 0, (v)})
#define DB_NULL ((struct db_arg){'n', 0, NULL})
/* An optional integer: v when has, else NULL. */
#define DB_INT_OR_NULL(has, v) ((has) ? DB_INT(v) : DB_NULL)
#define DB_ARGV(...) \
    (const struct db_arg[]){__VA_ARGS__}, \
    (int)(sizeof((const struct db_arg[]){__VA_ARGS__}) / sizeof(struct db_arg))
/* Runs sql to its end (every row it gives is passed over). */
int db_exec_args(ledger_db *db, ledger_error *err, const char *what, const char *sql,
                 const struct db_arg *args, int n);
/* Runs sql to its end, handing each row it gives to row (unless NULL); a
 * nonzero from row stops the statement as out of memory, the one way a
 * row's handling fails. */
typedef int db_row_fn(void *ctx, sqlite3_stmt *st);
int db_each_args(ledger_db *db, ledger_error *err, const char *what, const char *sql,
                 const struct db_arg *args, int n, db_row_fn *row, void *ctx);
#define db_exec(db, err, what, ...) db_exec_args(db, err, what, DB_ARGV_SQL(__VA_ARGS__))
#define db_each(db, err, what, row, ctx, ...) \
    db_each_args(db, err, what, DB_ARGV_SQL(__VA_ARGS__), row, ctx)
/* *out is the first column of sql's first row as an integer, or dflt when
 * it gives no row. */
int db_int_args(ledger_db *db, ledger_error *err, const char *what, int64_t *out, int64_t dflt,
                const char *sql, const struct db_arg *args, int n);
#define db_int(db, err, what, out, dflt, ...) \
    db_int_args(db, err, what, out, dflt, DB_ARGV_SQL(__VA_ARGS__))
/* *exists is whether sql gives a row. */
int db_exists_args(ledger_db *db, ledger_error *err, const char *what, int *exists,
                   const char *sql, const struct db_arg *args, int n);
#define db_exists(db, err, what, exists, ...) \
    db_exists_args(db, err, what, exists, DB_ARGV_SQL(__VA_ARGS__))
/* The SQL, then its arguments (none, or DB_INT(...), DB_TEXT(...)...). */
#define DB_ARGV_SQL(sql, ...) sql, DB_ARGV(__VA_ARGS__)
/* Binds args to ?1..?n of st; nonzero (the connection marked, as
 * db_bind_text does) when a text bind fails. */
int db_bind_args(ledger_db *db, sqlite3_stmt *st, const struct db_arg *args, int n);

/* Binds text (a copy; NULL binds NULL).  A bind that fails (memory ran
 * out copying) would leave NULL in its place and the statement run on
 * it: it marks the connection instead, and db_stmt hands out nothing
 * more and ledger_commit fails until the transaction is ended. */
int db_bind_text(ledger_db *db, sqlite3_stmt *st, int idx, const char *text);
/* A malloc'd copy of column col's text; NULL when the value is NULL or
 * memory ran out, in SQLite (reading it as text) or here: the caller who
 * expects text takes NULL for out of memory. */
char *db_column_dup(sqlite3_stmt *st, int col);

/* The id for a new row of a table that never gives an id out twice (tags,
 * trips, rules and rule runs: id_high_water's mark), as SQL. */
#define NEXT_ID(table) "(SELECT last + 1 FROM id_high_water WHERE name = '" table "')"
/* The same for the tables whose mark is the largest id deleted
 * (id_high_water's AFTER DELETE triggers): the id after that and after the largest in use (its base, one
 * less, for a statement writing many rows).  Past the largest id SQLite
 * has, NULL: SQLite then picks an unused id at random, as it always has
 * there. */
#define ROW_ID_BASE(table)                                                                 \
    "(SELECT MAX(COALESCE((SELECT MAX(id) FROM " table "), 0), last) FROM id_high_water"  \
    " WHERE name = '" table "')"
#define NEXT_ROW_ID(table)                                                                 \
    "(SELECT CASE WHEN b < 9223372036854775807 THEN b + 1 END FROM (SELECT "               \
    ROW_ID_BASE(table) " AS b))"

/* The errors ledger_regexp (db_regexp.c) fails a statement with when a rule's
 * pattern needs more backtracking on one row than it allows, and when the
 * transaction's (or a statement's) matching has taken longer than it
 * allows in all. */
#define REGEXP_TOO_COMPLEX "ledger_regexp: the pattern needs too much backtracking"
#define REGEXP_OVER_BUDGET "ledger_regexp: matching took longer than allowed"

/* Runs sql, one statement or several, unprepared: the pragmas and
 * migrations of opening a connection (db.c).  A 500 in err when it fails. */
int db_exec_script(ledger_db *db, const char *sql, ledger_error *err);
/* The schema's checks and migrations ledger_open runs (db_schema.c):
 * db_refuse fails, said in err, for a file that is no ledger this release
 * can serve; db_migrate brings the file to the latest version. */
int db_refuse(ledger_db *db, ledger_error *err);
int db_migrate(ledger_db *db, ledger_error *err);

/* The busy handler ledger_open installs, and its switch of the file to
 * WAL, which waits for the lock within the same timeout (db_lock.c). */
int db_busy_wait(void *arg, int count);
int db_set_wal(ledger_db *db, ledger_error *err);

/* Registers the library's SQL functions on the connection (db_func.c),
 * ledger_regexp among them (db_regexp.c, which registers it alone). */
int db_functions_register(ledger_db *db, ledger_error *err);
int db_regexp_register(ledger_db *db, ledger_error *err);
/* Starts the matching budget of the transaction ledger_begin begins. */
void db_regexp_begin(ledger_db *db);

/* The client's error in a value: 400 invalid_field naming field (NULL
 * for none), the message formatted as printf does.  Every bad value is
 * reported through it. */
int error_field(ledger_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Names field in a failed lookup of an id named in a body, keeping the
 * message, as every route answers one: a missing one is a bad value (404
 * becomes 400 invalid_field), another user's stays 403 forbidden (API.md:
 * it exists and the caller may not touch it); a 500 is left as it is. */
int error_in_body(ledger_error *err, const char *field);
/* Names the item of an array a field error is in: field "amount" of item
 * 3 of "rows" becomes "rows[3].amount" (the item itself: "rows[3]"). */
int error_in_item(ledger_error *err, const char *array, size_t i);

/* ---- sums of many amounts ------------------------------------------------------ */
/* A sum of amounts, each within int64 cents, that may pass it: a month's
 * categories, a merchant's rows, a budget's spend.  Thousands of rows of
 * the largest amount the API takes pass 2^63 cents, and a total must
 * never wrap. */
typedef __int128 money_sum;
/* The sum as a JSON number of two decimals (money.c), or its text in buf
 * (48 bytes are enough). */
cJSON *money_sum_to_json(money_sum cents);
char *money_sum_format(money_sum cents, char *buf, size_t len);
/* The same, giving the length of the text. */
size_t money_sum_text(money_sum cents, char *buf, size_t len);

/* SQL's SUM() stops with "integer overflow" past 2^63; ledger_sum(x) (db_func.c)
 * adds whole cents in 128 bits and gives the sum as 16 bytes, a BLOB whose
 * byte order is the sums' order (so ORDER BY and MAX work on it), or NULL
 * for no rows, as SUM() does.  money_sum_column reads it back, and also
 * takes a plain integer (COALESCE(ledger_sum(...), 0) gives 0). */
#define MONEY_SUM_BYTES 16
void money_sum_pack(money_sum cents, unsigned char out[MONEY_SUM_BYTES]);
money_sum money_sum_column(sqlite3_stmt *st, int col);

/* ---- grouped sums in memory (group_sum.c) ---------------------------------------
 * Runs select, its parameters ?1, ?2... bound to params (those it has of
 * the nparams), whose rows are a group's key (every column but the last:
 * integers, text or NULL) and an integer, sums the integers per group, and
 * runs write once per group with the key bound to ?1..?k and the sum to
 * ?k+1.  GROUP BY without SQLite's sort of every row, which dominates when
 * many rows fall into a few groups (a CSV commit's summaries). */
int group_sum(ledger_db *db, const char *select, const int64_t *params, int nparams,
              const char *write, ledger_error *err);

/* Forgets the renames merchant_name.c read (at each transaction's start,
 * and after a write that changes them). */
void merchant_renames_forget(ledger_db *db);

#endif /* LEDGER_DB_H */
