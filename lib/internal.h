/* Private to libledger: the connection and the prepared-statement cache. */
#ifndef LEDGER_INTERNAL_H
#define LEDGER_INTERNAL_H

#include <sys/types.h>
#include <sqlite3.h>
#include "ledger.h"

struct stmt_cache;

struct ledger_db {
    sqlite3 *sql;
    struct stmt_cache *cache;
    char home_currency[4];
    long busy_waited_us;  /* slept so far waiting for the current lock (db.c) */
    struct regexp_ctx *regexp; /* ledger_regexp's limits and budget (db.c); SQLite owns it */
    int wal_frames;       /* pages in the write-ahead log at the last commit (deferred checkpoints) */
    int in_txn;           /* ledger_begin's transaction has not been ended (see db_stmt) */
    int bind_failed;      /* a text bind failed in it (db_bind_text) */
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
#define db_exec(db, err, what, ...) db_exec_args(db, err, what, DB_ARGV_SQL(__VA_ARGS__))
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


/* ---- reading fields of a JSON request body (fields.c) ----------------------
 * Each returns LEDGER_OK, or LEDGER_ERR with a 400 invalid_field naming the
 * field.  *present says whether the key was there at all (NULL: don't care);
 * a JSON null counts as present with the value NULL / unset. */

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

/* The body must be an object: else 400 invalid_json. */
int field_require_object(const cJSON *body, ledger_error *err);
/* A string of 1..maxlen bytes after trimming spaces (or null when nullable).
 * *out points into the document. */
int field_text(const cJSON *obj, const char *name, int required, int nullable,
               size_t maxlen, const char **out, int *present, ledger_error *err);
/* A color "#rgb" or "#rrggbb" (or null). */
int field_color(const cJSON *obj, const char *name, const char **out, int *present,
                ledger_error *err);

/* The longest tag name, in bytes. */
#define TAG_NAME_MAX 64
/* 404 when the tag does not exist, 403 when it is not the user's. */
int tag_check_owner(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err);

/* More field readers.  Dates are YYYY-MM-DD and real calendar dates. */
int field_date(const cJSON *obj, const char *name, int required, const char **out,
               int *present, ledger_error *err);
/* An optional date that null clears (a trip's start and end): *out NULL
 * and *present set. */
int field_date_or_null(const cJSON *obj, const char *name, const char **out, int *present,
                       ledger_error *err);
int valid_date(const char *s);
/* Money in cents; *present as above; a JSON null leaves *set 0. */
int field_money(const cJSON *obj, const char *name, int required, int nullable,
                int64_t *out, int *set, int *present, ledger_error *err);
/* A positive integer id (or null when nullable: *out 0). */
int field_id(const cJSON *obj, const char *name, int required, int nullable,
             int64_t *out, int *present, ledger_error *err);
/* A JSON number or integer-valued literal as a positive id. */
int json_id(const cJSON *item, int64_t *out);
/* Member k of object o, its name matched exactly.  cJSON_GetObjectItem
 * ignores case, and a body may carry both "tag_id" and "Tag_id" (the JSON
 * reader keeps every member): what is checked and what is used must be the
 * same member. */
static inline cJSON *json_get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}
/* One of a NULL-terminated list of values (or null when nullable). */
int field_enum(const cJSON *obj, const char *name, const char *const *allowed,
               int nullable, const char **out, int *present, ledger_error *err);
/* qsort's comparison of two int64_t, ascending (fields.c). */
int cmp_int64(const void *a, const void *b);
/* An array of 1..max positive ids, copied into *ids sorted and without
 * repeats (a repeated id is one row). */
int field_id_array(const cJSON *obj, const char *name, size_t max, cJSON **ids,
                   ledger_error *err);

/* Named parameters. */
const char *param_get(const struct ledger_params *p, const char *key);
int param_has(const struct ledger_params *p, const char *key);

/* ---- access (access.c) ---------------------------------------------------- */
struct txn_access {
    int64_t owner_id;
    int64_t statement_id;  /* 0 for a manual row */
    int is_owner;
    int itemised;          /* an itemised repayment (principal_amount set) */
};
/* canAccessTransactions for one row: 404 missing (or hidden), 403 stranger. */
int access_txn(ledger_db *db, int64_t me, int64_t txn_id, struct txn_access *out,
               ledger_error *err);
/* The same for every id of a JSON array: all accessible, or 404/403
 * naming field, the body's field that holds them. */
int access_txn_set(ledger_db *db, int64_t me, const cJSON *ids, const char *field,
                   ledger_error *err);
/* Whether the caller is a participant of the trip (derived: its owner, or
 * with a row, a split or a payment in it); 404 when there is no such trip. */
int access_trip(ledger_db *db, int64_t me, int64_t trip_id, int *participant,
                ledger_error *err);
/* A trip named in a body (trip_id) that the caller may put rows in: a
 * missing trip is 400 on trip_id, one they are not part of 403. */
int trip_check_member(ledger_db *db, int64_t me, int64_t trip_id, ledger_error *err);
/* Rows the caller puts in a trip (ids: a JSON array's text, each
 * accessible): a row's owner takes part in the trip from then on, and so
 * do the people on the split of a row of the trip owner's; unless the
 * caller is the trip's owner, who alone brings people in, each must take
 * part already (403 naming field). */
int trip_check_row_owners(ledger_db *db, int64_t me, int64_t trip_id, const char *ids,
                          const char *field, ledger_error *err);

/* ---- splits (split.c) ----------------------------------------------------- */
struct split_share {
    int64_t participant_id;
    int64_t share;  /* hundredths of a percent */
};
struct split_set {
    struct split_share *v;
    size_t n;
};
/* Validates an array of {participant_id, share_percent} for a row owned by
 * owner and completes it to 100% with an owner row (rule A); caller is who
 * asks (the owner, or a participant of the row), for the messages.  The
 * caller frees *out with split_set_free. */
int split_parse(ledger_db *db, const cJSON *arr, const char *field, int64_t owner,
                int64_t caller, struct split_set *out, ledger_error *err);
void split_set_free(struct split_set *s);
int split_write(ledger_db *db, int64_t txn_id, const struct split_set *s, ledger_error *err);
/* Apportions amount cents over the shares by largest remainder into cents[]
 * (n entries), so they sum exactly to amount when the shares total 100%. */
void split_apportion(int64_t amount, struct split_share *v, size_t n, int64_t owner,
                     int64_t *cents);

/* The bank name a manual row shows, and that the list's bank_names[]
 * filter takes for the manual rows; no statement may be given it. */
#define LEDGER_BANK_MANUAL "Manual"

/* ---- transaction rows (txn_row.c) ---------------------------------------------
 * The columns every transaction read selects, from "transactions t"; the
 * statement binds :me (the viewer).  txn_row_json turns a row into the API
 * shape; the caller frees it.  A row's tags are read from its links first
 * (CROSS JOIN keeps that order): left to itself SQLite reads the viewer's
 * tags in name order and probes each for a link, every tag the viewer has
 * for every row (half a page's time with ten tags), to save sorting two. */
#define TXN_COLUMNS \
    "t.id, t.statement_id, t.owner_id, t.date, t.description, t.merchant," \
    " t.merchant_normalized, t.category, t.transaction_type, t.amount, t.currency," \
    " t.amount_aud, t.exchange_rate_to_aud, t.payment_method, t.principal_amount," \
    " t.interest_amount," \
    " t.created_at, r.id," \
    " t.override_category, t.override_merchant_normalized, t.override_share," \
    " t.override_trip_id," \
    " (SELECT bank_name FROM statements WHERE id = t.statement_id)," \
    " (SELECT json_group_array(json_object('id', id, 'name', name, 'color', color)) FROM" \
    "   (SELECT g.id, g.name, g.color FROM transaction_tags tt CROSS JOIN tags g ON g.id = tt.tag_id" \
    "     WHERE tt.transaction_id = t.id AND g.owner_id = :me ORDER BY g.name COLLATE NOCASE, g.id))," \
    " (SELECT CASE WHEN COUNT(*) THEN json_group_array(json_array(pid, name, share, settled, email)) END" \
    "    FROM (SELECT s.participant_id AS pid, u.name, s.share_percent AS share, s.settled, u.email" \
    "            FROM splits s JOIN users u ON u.id = s.participant_id" \
    "           WHERE s.transaction_id = t.id ORDER BY s.participant_id))"
/* The manual row reconciled into a statement row (the row is "reconciled";
 * reconcile.c gives it the manual row's Imported date while matched). */
#define TXN_JOIN_RECONCILED \
    " LEFT JOIN transactions r ON r.reconciled_with_id = t.id"
cJSON *txn_row_json(sqlite3_stmt *st, int64_t me);

/* JSON text written item by item, as ledger_json_print prints a tree of
 * the same items (json_print.c): the rows of a page written without a
 * tree to build, print and free (more of a page's time than its SQL).
 * Zeroed to start; a key is NULL inside an array, else one of the API's
 * names (written without escaping); jw_raw writes JSON text
 * as it is (a number); NULL writes null.  jw_finish gives the text to
 * free, or NULL when memory ran out or the brackets do not match. */
#define JSON_WRITER_DEPTH 8
struct json_text {
    char *p;
    size_t len, cap;
    int failed;
};
struct json_writer {
    struct json_text t;
    int depth;
    unsigned char first[JSON_WRITER_DEPTH];  /* nothing written yet in it */
};
void jw_open(struct json_writer *w, const char *key, char bracket);
void jw_close(struct json_writer *w, char bracket);
void jw_string(struct json_writer *w, const char *key, const char *s);
void jw_raw(struct json_writer *w, const char *key, const char *text);
/* A number as a cJSON number of that value prints. */
void jw_number(struct json_writer *w, const char *key, double d);
char *jw_finish(struct json_writer *w);
/* An item written in pieces the caller makes JSON: jw_begin writes the
 * comma before it and its key, jw_piece bytes as they are, and
 * jw_piece_string a string quoted and escaped as jw_string would.  For
 * text written once and copied into many items (the monthly report's
 * cells: analytics.c). */
void jw_begin(struct json_writer *w, const char *key);
/* Room for n more bytes at once; -1 when memory ran out. */
int jw_reserve(struct json_writer *w, size_t n);
void jw_piece(struct json_writer *w, const char *text, size_t n);
void jw_piece_string(struct json_writer *w, const char *s);
/* The text as one cJSON_Raw item (NULL when memory ran out); w is spent
 * and zeroed either way. */
cJSON *jw_finish_raw(struct json_writer *w);
/* Row r of TXN_COLUMNS written as txn_row_json makes it. */
void txn_row_write(struct json_writer *w, sqlite3_stmt *st, int64_t me);

/* ---- categories and transactions ------------------------------------------ */
/* The errors ledger_regexp (db.c) fails a statement with when a rule's
 * pattern needs more backtracking on one row than it allows, and when the
 * transaction's (or a statement's) matching has taken longer than it
 * allows in all. */
#define REGEXP_TOO_COMPLEX "ledger_regexp: the pattern needs too much backtracking"
#define REGEXP_OVER_BUDGET "ledger_regexp: matching took longer than allowed"
/* Why a row cannot be given the category "uncategorised". */
#define CATEGORY_NONE_MESSAGE \
    "uncategorised is what the reports call a row with no category: send null for none"
/* Folds in into out (LEDGER_CATEGORY_MAX bytes) per rule C; "refund" becomes
 * the category owner most often gives merchant, else "other"; "uncategorised"
 * is a 400 (CATEGORY_NONE_MESSAGE). */
int category_resolve(ledger_db *db, int64_t owner, const char *merchant, const char *in,
                     char *out, ledger_error *err);
/* Gives row id, written with "refund" for its category and so without
 * one, the category "refund" means for owner and merchant, once the rest
 * of its batch is written (a statement's rows, a CSV file's), so that
 * they count. */
int category_resolve_refund_row(ledger_db *db, int64_t owner, int64_t id, const char *merchant,
                                ledger_error *err);
/* A category a report or a budget is asked for by name (in a path), folded
 * into out (LEDGER_CATEGORY_MAX bytes): "uncategorised" is the spend with
 * no category; "refund" is no category of its own (rule C gives each
 * refund its merchant's), an over-long or empty name none: 400s. */
int category_of_report(const char *in, char *out, ledger_error *err);
extern const char *const txn_types[];
/* The types that are money out of the account (a row's direction when its
 * amount is unsigned), as SQL's list: an OFX row's sign, a CSV row's
 * duplicate key and the reconcile and merchant sums read them. */
#define MONEY_OUT_TYPES_SQL "('debit', 'fee', 'interest')"
/* The types that are money in: what a balance or a trip's owed amounts
 * count negative, and a CSV duplicate's other direction. */
#define MONEY_IN_TYPES_SQL "('credit', 'refund', 'payment')"
/* The longest merchant (or merchant_normalized) a row may have, in bytes. */
#define MERCHANT_MAX 200
extern const char *const txn_payment_methods[];
/* Row id's effective merchant into out ("" for none); a row that is
 * not there is an error. */
int txn_eff_merchant(ledger_db *db, int64_t id, char *out, size_t len, ledger_error *err);
/* Reads one row (no access check: the caller has done it). */
int txn_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
/* Links the caller's tags (a JSON array of ids) to a row; another user's
 * tag is a 400 on tag_ids. */
int txn_link_tags(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *tag_ids,
                  ledger_error *err);

/* EXPLAIN QUERY PLAN lines of GET /api/transactions with these parameters. */
int txn_list_plan(ledger_db *db, int64_t me, const struct ledger_params *params,
                  cJSON **out, ledger_error *err);

/* ---- the search index (txn_search.c, transactions_search) --------------------- */
/* An owner's rows are the rowids [owner * SPAN, (owner + 1) * SPAN), for
 * ids 1 .. SPAN - 1 and owners 1 .. OWNER_MAX - 1 (the rest are left out:
 * see the schema's search index).  search_rowid_low is 0 for an owner left out. */
#define SEARCH_OWNER_SPAN (INT64_C(1) << 40)
#define SEARCH_OWNER_MAX (INT64_C(1) << 23)
int64_t search_rowid_low(int64_t owner);
/* Adds rows to transactions_search from its view, as its triggers do;
 * followed by the WHERE that picks the rows (commit, CSV commit). */
#define SEARCH_ENTRIES_ADD                                             \
    "INSERT INTO transactions_search (rowid, description, merchant)" \
    " SELECT entry, description, merchant FROM search_entries"
/* The index's query for the terms (a JSON array of lowered strings): for
 * each term with three ASCII characters in a row, up to SEARCH_TERMS_MAX
 * of them, the FTS5 query of all its ASCII trigrams; best is the term
 * whose rows the list reads (search_candidates picks it).  The rows of
 * any one term are a superset of the matches, tested exactly by
 * ledger_contains with every term. */
#define SEARCH_TERMS_MAX 4
struct search_query {
    char *match[SEARCH_TERMS_MAX];  /* FTS5 queries, one per term */
    int n, best;
};
void search_query_init(struct search_query *sq, const cJSON *terms);
void search_query_free(struct search_query *sq);
/* A SELECT of the ids of the caller's rows the index gives for the best
 * term, the rows waiting to be indexed among them; search_bind binds its
 * parameters. */
const char *search_ids_sql(void);
void search_bind(sqlite3_stmt *st, int64_t me, const struct search_query *sq);
/* Indexes the rows written since the last flush (search_pending) when at
 * least min_rows (1 or more) are waiting; nothing in a transaction that
 * wrote nothing.  Every commit calls it with SEARCH_FLUSH_ROWS: FTS5
 * writes a segment, and later merges it, at every statement that adds to
 * an index, a large part of a one-row create's commit; rows waiting
 * in search_pending are candidates of every search (search_candidates),
 * so they are found all the same, tested exactly like the rest. */
#define SEARCH_FLUSH_ROWS 64
int search_flush(ledger_db *db, int64_t min_rows, ledger_error *err);
/* How many of the caller's rows the index gives for the term that gives
 * the fewest (pending rows included), which it makes sq->best; counting
 * up to cap + 1 only; cap + 1 when it does not hold every row or no term
 * has a trigram. */
int search_candidates(ledger_db *db, int64_t me, struct search_query *sq, int64_t cap,
                      int64_t *n, ledger_error *err);

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
/* The caller's tag of that name (any case), created when missing; the name
 * reserved for CSV imports is refused. */
int tag_find_or_create(ledger_db *db, int64_t user_id, const char *name, int64_t *id,
                       ledger_error *err);

/* ---- participants (participant.c) ---------------------------------------- */
/* Whether other is me or someone I share with (a contact either way, a split
 * counterpart either way, a payment counterpart). */
int participant_known(ledger_db *db, int64_t me, int64_t other, int *known, ledger_error *err);
/* The same as a check on a body field: 400 naming field when not; the
 * message speaks to me (yours) or to someone acting on my row. */
int participant_check(ledger_db *db, int64_t me, int64_t other, const char *field, int yours,
                      ledger_error *err);

/* An exchange rate: a positive decimal, kept as its text. */
int field_rate(const cJSON *obj, const char **out, ledger_error *err);
/* amount x rate (such a text), rounded half up, in cents; -1 when the
 * rate is not one or the result is too large. */
int money_times_rate(int64_t amount, const char *rate, int64_t *out);
/* A currency: three upper-case letters (or absent/null). */
int field_currency(const cJSON *obj, char buf[4], const char **out, ledger_error *err);
/* The home-currency amount of a new row in currency (NULL: the home one):
 * in the home currency it is the amount (an amount_aud that differs is a
 * 400); in another, the amount_aud given, else amount x rate when there is
 * a rate (as PATCH and OFX import derive it), else none. */
int home_amount_of_new_row(ledger_db *db, const char *currency, int64_t amount, const char *rate,
                           int64_t *aud, int *has_aud, ledger_error *err);

/* ---- statements (statement.c) ------------------------------------------------- */
extern const char *const statement_types[];
/* Free text ("Visa Credit Card", "Home Loan") to a statement type. */
const char *statement_type_from_text(const char *text);
/* Free text to weekly, fortnightly, monthly, quarterly or yearly; NULL if none. */
const char *repayment_frequency_fold(const char *text);

/* A statement's own fields; the strings point into the caller's data. */
struct statement_fields {
    const char *bank_name, *account_name, *account_type, *statement_type;
    const char *period_start, *period_end, *due_date, *repayment_frequency, *account_id;
    int64_t amount_due, opening, closing, interest_rate, scheduled_repayment,
        redraw_available, loan_term_months;
    int has_amount_due, has_opening, has_closing, has_rate, has_repayment, has_redraw,
        has_term;
};
/* One row to insert (of a statement, or manual from a CSV import when
 * statement_id is 0), already validated and folded. */
struct statement_row {
    const char *date, *description, *merchant, *category, *type, *currency, *rate, *fitid;
    const char *payment_method;
    int64_t amount, amount_aud, principal, interest, import_id;
    int has_amount_aud, has_principal, has_interest;
    int has_fitid_out, fitid_out;  /* the file's direction (OFX: 1 money out): transactions.fitid_out */
    char currency_code[4];    /* currency points here when read from JSON */
};
int statement_fields_read(const cJSON *body, struct statement_fields *f, ledger_error *err);
int statement_insert(ledger_db *db, int64_t me, const struct statement_fields *f, int64_t *id,
                     ledger_error *err);
int statement_row_insert(ledger_db *db, int64_t me, int64_t statement_id,
                         const struct statement_row *r, ledger_error *err);
/* One statement of the caller's: 404 missing, 403 another user's. */
int statement_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);

/* ---- spend (Business rule D) ------------------------------------------------------
 * SPEND_COUNTS_SQL(t): whether row t counts as spend at all; SPEND_SQL(t):
 * its spend in home-currency cents (negative for a refund);
 * SPEND_CATEGORY_SQL(t): the category it counts under.  Debit, fee and
 * interest count; refunds count negative; transfers, investment and income
 * are left out; an itemised loan repayment counts at its interest, in any
 * category: a repayment is a payment, which rule C makes transfers, so
 * its interest counts under loan_interest when its category is one spend
 * leaves out (spend_contribution, the summary's view, does the same). */
/* An itemised repayment is neither a fee, nor interest, nor a refund: each
 * of those counts its whole amount its own way in the reports, the
 * itemised row its interest, and one row counted both ways would make two
 * reports disagree.  Statement rows and PATCH transaction_type hold to it. */
#define ITEMISED_TYPE_MESSAGE \
    "an itemised repayment (principal_amount and interest_amount) cannot be a fee, interest or refund"
int itemised_type_ok(const char *type);
#define SPEND_ITEMISED_SQL(t) "(" t ".principal_amount IS NOT NULL AND " t ".interest_amount IS NOT NULL)"
#define SPEND_LEFT_OUT_SQL(t) "COALESCE(" t ".eff_category, '') IN ('transfers', 'investment', 'income')"
#define SPEND_COUNTS_SQL(t) \
    "(" SPEND_ITEMISED_SQL(t) " OR (" t ".transaction_type IN ('debit', 'fee', 'interest', 'refund')" \
    " AND NOT " SPEND_LEFT_OUT_SQL(t) "))"
#define SPEND_CATEGORY_SQL(t) \
    "(CASE WHEN " SPEND_ITEMISED_SQL(t) " AND " SPEND_LEFT_OUT_SQL(t) " THEN 'loan_interest'" \
    " ELSE COALESCE(" t ".eff_category, 'uncategorised') END)"
#define SPEND_SQL(t) \
    "(CASE WHEN " SPEND_ITEMISED_SQL(t) " THEN " t ".interest_amount" \
    " WHEN " t ".transaction_type = 'refund' THEN -COALESCE(" t ".amount_aud, " t ".amount)" \
    " ELSE COALESCE(" t ".amount_aud, " t ".amount) END)"

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

/* Where a report's items go (json_sink.c): a cJSON tree when w is NULL
 * (at[0] the root once written), else w's text.  Keys are constants, not
 * copied into a tree; NULL inside an array.  sink_text and sink_raw take
 * NULL for null; sink_tree hands a tree of the caller's over to a tree
 * sink (a text sink takes the same JSON as text, by sink_raw). */
#define JSON_SINK_DEPTH 6
struct json_sink {
    struct json_writer *w;
    cJSON *at[JSON_SINK_DEPTH];
    int depth;
};
void sink_open(struct json_sink *s, const char *k, int array);
void sink_close(struct json_sink *s, int array);
void sink_text(struct json_sink *s, const char *k, const char *v);
void sink_raw(struct json_sink *s, const char *k, const char *v);
void sink_int(struct json_sink *s, const char *k, int64_t v);
void sink_bool(struct json_sink *s, const char *k, int v);
void sink_money(struct json_sink *s, const char *k, int64_t cents);
void sink_money_sum(struct json_sink *s, const char *k, money_sum cents);
void sink_tree(struct json_sink *s, const char *k, cJSON *item);
/* SQL's SUM() stops with "integer overflow" past 2^63; ledger_sum(x) (db.c)
 * adds whole cents in 128 bits and gives the sum as 16 bytes, a BLOB whose
 * byte order is the sums' order (so ORDER BY and MAX work on it), or NULL
 * for no rows, as SUM() does.  money_sum_column reads it back, and also
 * takes a plain integer (COALESCE(ledger_sum(...), 0) gives 0). */
#define MONEY_SUM_BYTES 16
void money_sum_pack(money_sum cents, unsigned char out[MONEY_SUM_BYTES]);
money_sum money_sum_column(sqlite3_stmt *st, int col);

/* ---- result rows to JSON (rows.c) ----------------------------------------------- */
/* Adds item to o under k, a string constant: the key is not copied (a page
 * of transactions has a thousand and more of them), so it must outlive o. */
void json_add(cJSON *o, const char *k, cJSON *item);
/* Column col as a string, cents, or an id; SQL NULL as JSON null; k as
 * json_add's, a constant. */
void json_text_col(cJSON *o, const char *k, sqlite3_stmt *st, int col);
void json_money_col(cJSON *o, const char *k, sqlite3_stmt *st, int col);
void json_id_col(cJSON *o, const char *k, sqlite3_stmt *st, int col);
/* Steps a bound statement to the end, one row() object per result row, into
 * {items, total}; hands the statement back to the cache. */
int db_list(ledger_db *db, sqlite3_stmt *st, cJSON *(*row)(sqlite3_stmt *), cJSON **out,
            ledger_error *err);

/* A decimal whole number lo..hi (a query parameter); -1 for anything else. */
int parse_whole(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* A list's paging, as every list reads it: limit a whole number from 1
 * to PAGE_LIMIT_MAX (dflt when absent), offset one of 0 or more (0 when
 * absent); a bad one is a 400 naming it, in one wording for every list.
 * page_limit reads only the limit, for a list that has no offset.  Each
 * list's cursor is its own (what a position in it is differs). */
#define PAGE_LIMIT_MAX 500
#define PAGE_OFFSET_MAX (INT64_C(1) << 40)
struct page {
    int64_t limit, offset;
};
int page_parse(const struct ledger_params *p, int64_t dflt, struct page *out, ledger_error *err);
int page_limit(const struct ledger_params *p, int64_t dflt, int64_t *limit, ledger_error *err);
/* A row's split shares by participant id, and room for their cents
 * (split_apportion); kept from row to row, zeroed to start. */
struct split_buf {
    struct split_share *v;
    int64_t *cents;
    size_t n, cap;
};
/* Room for n shares; -1 when memory ran out. */
int split_buf_room(struct split_buf *b, size_t n);
void split_buf_free(struct split_buf *b);
/* A row's splits as one text, "participant,share;...", for a statement
 * that reads many rows' splits with the rows (rather than a query for
 * each); NULL for none.  Their order is SQLite's to keep or not, and
 * nothing depends on it: split_apportion breaks ties by participant id,
 * not by place.  split_buf_parse reads it into b (-1 when memory ran out
 * or it is no such text). */
#define SPLITS_TEXT_SQL(id)                                                             \
    "(SELECT group_concat(participant_id || ',' || share_percent, ';')"                 \
    "   FROM (SELECT participant_id, share_percent FROM splits"                          \
    "          WHERE transaction_id = " id " ORDER BY participant_id))"
int split_buf_parse(struct split_buf *b, const char *text);

/* ---- spend over a range (spend.c) ------------------------------------------------ */
/* One row of spend in the caller's view (basis=mine). */
struct spend_row {
    int64_t id, owner, spend, override_share;
    int64_t mine;        /* the caller's part of spend, in cents */
    int has_override;
    char month[8], category[LEDGER_CATEGORY_MAX], date[11];
    char *merchant;      /* owned by the walk; valid during the callback */
    char *splits;        /* SPLITS_TEXT_SQL's text, NULL when unsplit; the walk's */
};
/* basis=gross (0, the default) or mine (1); anything else 400. */
int spend_basis(const struct ledger_params *p, int *mine, ledger_error *err);
/* Calls fn for every row that counts as spend in [from, to) that the caller
 * owns or shares in, with its mine part; fn returns non-zero when it ran
 * out of memory, which stops the walk with that error.  With `different`, only for the rows whose mine
 * part may differ from their spend (split, shared or with an override
 * share): on every other row the caller owns, mine is the whole spend. */
int spend_mine_each(ledger_db *db, int64_t me, const char *from, const char *to, int different,
                    int (*fn)(void *ctx, const struct spend_row *r), void *ctx,
                    ledger_error *err);
/* Month arithmetic on "YYYY-MM": its first day and the next month's (11
 * bytes each); -1 when month is not a month. */
int month_bounds(const char *month, char *first, char *next);
void month_now(char *out);  /* 8 bytes */
void date_today(char *out); /* 11 bytes, UTC */
void month_add(const char *month, int n, char *out);
/* Days since 1970-01-01 of a valid date, and back (out: 11 bytes); a date
 * months later, the day clamped to the month's length. */
int64_t days_of_date(const char *ymd);
void date_of_days(int64_t days, char *out);
void date_add_months(const char *ymd, int months, char *out);

/* ---- grouped sums in memory (group_sum.c) ---------------------------------------
 * Runs select, its parameters ?1, ?2... bound to params (those it has of
 * the nparams), whose rows are a group's key (every column but the last:
 * integers, text or NULL) and an integer, sums the integers per group, and
 * runs write once per group with the key bound to ?1..?k and the sum to
 * ?k+1.  GROUP BY without SQLite's sort of every row, which dominates when
 * many rows fall into a few groups (a CSV commit's summaries). */
int group_sum(ledger_db *db, const char *select, const int64_t *params, int nparams,
              const char *write, ledger_error *err);

/* ---- named sums of cents (tally.c) ----------------------------------------------- */
struct tally_item {
    char *name;
    money_sum cents;       /* the sum */
    int64_t count;         /* how many amounts went into it */
};
struct tally {
    struct tally_item *v;
    size_t n, cap;
    size_t *slots;         /* a hash index of v by name: i + 1, 0 empty */
    size_t nslots;         /* a power of two, 0 when there is none */
};
/* The item called name, made at 0 when new (NULL when out of memory). */
struct tally_item *tally_get(struct tally *t, const char *name);
/* Adds cents (one amount) to name; -1 when out of memory. */
int tally_add(struct tally *t, const char *name, int64_t cents);
const struct tally_item *tally_find(const struct tally *t, const char *name);
/* Largest sum first, then by name. */
void tally_sort(struct tally *t);
void tally_free(struct tally *t);

/* ---- a row's user-made state (snapshot.c) ------------------------------------------
 * Overrides, payment method, tags and splits as JSON (the caller frees
 * *out), and put back exactly; tags, trips and participants deleted since
 * are left out. */
int row_snapshot(ledger_db *db, int64_t id, char **out, ledger_error *err);
int row_restore(ledger_db *db, int64_t id, const char *snapshot, ledger_error *err);
/* row_restore for every row of a rule run at once. */
int run_restore(ledger_db *db, int64_t run_id, ledger_error *err);
/* Undoes every match into the rows of statement statement_id (reconcile.c),
 * before the statement is deleted. */
int reconcile_release_statement(ledger_db *db, int64_t statement_id, ledger_error *err);
/* The snapshot of row t (an alias of transactions) as one SQL expression,
 * so a whole set of rows can be saved or compared in one statement. */
#define SNAPSHOT_JSON(t) \
    "json_object('override_category', " t ".override_category," \
    " 'override_merchant_normalized', " t ".override_merchant_normalized," \
    " 'override_share', " t ".override_share, 'override_trip_id', " t ".override_trip_id," \
    " 'payment_method', " t ".payment_method," \
    " 'tags', (SELECT json_group_array(tag_id) FROM" \
    "          (SELECT tag_id FROM transaction_tags WHERE transaction_id = " t ".id ORDER BY tag_id))," \
    " 'splits', (SELECT json_group_array(json_array(participant_id, share_percent, settled)) FROM" \
    "            (SELECT * FROM splits WHERE transaction_id = " t ".id ORDER BY participant_id)))"

/* ---- a new statement or import row's checks (statement.c) ------------------------
 * What every row a statement or a CSV import creates is held to once its
 * fields are read (its category's text in cat): amounts are magnitudes, a
 * row in another currency is counted at its home amount (given, or amount
 * x rate), and its category is folded and resolved into category
 * (r->category), or *refund set for "refund", which the caller resolves
 * once all its rows are written so that they count. */
int statement_row_finish(ledger_db *db, int64_t me, struct statement_row *r, const char *cat,
                         char category[LEDGER_CATEGORY_MAX], int *refund, ledger_error *err);

#endif /* LEDGER_INTERNAL_H */
