/*
 * libledger: the domain and storage core of the ledger service.
 *
 * Everything here is independent of HTTP and FastCGI: a front end (the
 * FastCGI program, a test, a command-line tool) calls these functions and
 * turns a failure into whatever its protocol needs.  Failures are reported in
 * a caller-owned ledger_error, so reporting one never allocates.
 *
 * Money is int64_t cents; percentages are int64_t hundredths of a percent.
 * Functions return LEDGER_OK (0) or LEDGER_ERR (-1) and fill their
 * out-parameters only on success.  A cJSON document returned through an
 * out-parameter belongs to the caller, who frees it with cJSON_Delete.
 * Some of its strings are the library's own malloc'd buffers (a number's
 * literal text, a page's JSON text) rather than cJSON's copies: a program
 * using libledger keeps cJSON's default allocator (no cJSON_InitHooks
 * with another malloc and free).
 */
#ifndef LEDGER_H
#define LEDGER_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LEDGER_OK 0
#define LEDGER_ERR (-1)

/* An HTTP-like status, a stable machine code, the field at fault (empty when
 * no single field is) and a human message.  Fixed-size: never allocates. */
typedef struct ledger_error {
    int status;
    char code[32];
    char field[64];
    char message[256];
} ledger_error;

/* Fills err and returns LEDGER_ERR, so callers can `return ledger_error_set(...)`.
 * field may be NULL. */
int ledger_error_set(ledger_error *err, int status, const char *code,
                     const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The one out-of-memory error (500 internal), as SQLite has one
 * sqlite3OomFault: every allocation that fails reports through it. */
int ledger_error_oom(ledger_error *err);
void ledger_error_clear(ledger_error *err);

/* ---- database ---------------------------------------------------------- */

typedef struct ledger_db ledger_db;

/* Opens (creating if needed) the database at path (":memory:" for tests),
 * sets WAL, foreign keys and the busy timeout, and applies every pending
 * migration in one transaction.  A database written by a newer release is
 * refused.  The caller closes the handle with ledger_close. */
int ledger_open(const char *path, ledger_db **out, ledger_error *err);
void ledger_close(ledger_db *db);
/* Whether the merchant cleaner's patterns are JIT-compiled: off unless
 * set.  JIT matching takes a fraction of the interpreter's time (a CSV
 * preview's matching a quarter of it), but its code is out of valgrind's
 * sight (each of its branches reads as uninitialised), so a program run
 * under memcheck leaves it off. */
void ledger_set_jit(ledger_db *db, int on);

/* Whether this handle is still the database at its path, at a schema this
 * library knows: a 503 (code "unavailable") when the file was replaced or
 * removed since it was opened (a backup put back under a running service:
 * its writes went into the old file, lost at the next start) or migrated
 * by a newer release.  A server answers so and exits, to be started again
 * on the file now there, by the program that knows it. */
int ledger_db_current(ledger_db *db, ledger_error *err);

/* The schema version the database is at, and the newest this library knows. */
int ledger_schema_version(ledger_db *db);
int ledger_schema_latest(void);
/* The version of schema/'s baseline: a database at an earlier one is
 * refused, since no release migrates it (schema/README). */
int ledger_schema_baseline(void);

/* Home currency (three upper-case letters, default AUD): the currency of
 * amount_aud and the default currency of new rows. */
int ledger_set_home_currency(ledger_db *db, const char *code, ledger_error *err);
const char *ledger_home_currency(const ledger_db *db);

/* One request, one transaction: write transactions start with BEGIN
 * IMMEDIATE so a writer waits for the lock up front rather than failing to
 * upgrade half-way through. */
int ledger_begin(ledger_db *db, int write, ledger_error *err);
int ledger_commit(ledger_db *db, ledger_error *err);
void ledger_rollback(ledger_db *db);
/* LEDGER_ERR, a 500 said in err, when the transaction ledger_begin began
 * can no longer be the caller's: SQLite rolled it back by itself (memory,
 * the disk or I/O failing in a statement), or memory ran out binding a
 * statement's text, which then ran on NULL.  Then no statement runs until
 * it is ended, ledger_commit fails, and an error a call gave was decided
 * on what such a statement did: a caller reports this one instead. */
int ledger_txn_failed(ledger_db *db, ledger_error *err);

/* Version tags (entity tags to HTTP), each a quoted string of 16 hex
 * digits in LEDGER_TAG_SIZE bytes with its NUL.
 *
 * ledger_data_version reads, in the current transaction, the data
 * version (one value for the whole database, moved by every committed
 * write transaction that changed a row) and the schema version.  It is
 * one value for every user by design: a tag that failed to move with a
 * write visible to its user would have a client keep stale data as
 * current, and a write's audience (split participants, trip members,
 * payment parties, a claimed placeholder's sharers) is not recomputed
 * for it.  The cost: every write moves every user's tags.
 *
 * ledger_tag_of_state hashes a state: that version, the release, the home
 * currency, the caller, the request (method and target) and the date the
 * library's answers take as today; ledger_tag_now fills it from the
 * database (in the transaction the answer is read in) and today's UTC
 * date.  ledger_tag_of_bytes hashes a representation: a content tag. */
#define LEDGER_TAG_SIZE 19
struct ledger_tag_state {
    int64_t data_version;
    int schema;
    int64_t user_id;
    const char *home_currency;
    const char *method;
    const char *target;   /* the request's path and query, as sent */
    const char *date;     /* YYYY-MM-DD */
};
int ledger_data_version(ledger_db *db, int64_t *version, int *schema, ledger_error *err);
void ledger_tag_of_state(const struct ledger_tag_state *s, char tag[LEDGER_TAG_SIZE]);
int ledger_tag_now(ledger_db *db, int64_t user_id, const char *method, const char *target,
                   char tag[LEDGER_TAG_SIZE], ledger_error *err);
void ledger_tag_of_bytes(const void *p, size_t n, char tag[LEDGER_TAG_SIZE]);

/* A server that has answered before its work is done: after
 * ledger_defer_checkpoints, a commit no longer copies the write-ahead log
 * into the database when the log has grown (SQLite's checkpoint, which
 * the commit that crossed 1,000 pages paid for); ledger_idle does it,
 * called between requests, once the response has gone.  Without them a
 * commit checkpoints as SQLite does by default. */
void ledger_defer_checkpoints(ledger_db *db);
void ledger_idle(ledger_db *db);

/* ---- JSON -------------------------------------------------------------- */

/* Strict RFC 8259 parse of buf[0..len) (no NUL terminator needed) into a
 * cJSON tree.  Unlike cJSON_Parse it validates UTF-8, refuses NUL characters
 * in strings, limits nesting depth, and keeps each number's literal text in
 * the item's valuestring so money can be read exactly.  Errors are 400
 * invalid_json with the byte offset. */
int ledger_json_parse(const char *buf, size_t len, cJSON **out, ledger_error *err);

#define LEDGER_JSON_MAX_DEPTH 64
/* Values in one document: more is 413 (each is an item in memory). */
#define LEDGER_JSON_MAX_VALUES 2000000
/* Members of one object: more is 413.  No request reads an object of
 * more than some dozens (a row sent back whole has under 64): the rest
 * would be unknown members, ignored, that only cost memory. */
#define LEDGER_JSON_MAX_MEMBERS 256

/* The compact JSON text of item, byte for byte what cJSON_PrintUnformatted
 * gives, but without its strlen after every item and sscanf after every
 * number (json_print.c).  Its length in *len when len is not NULL; the
 * caller frees the text.  NULL when out of memory or when the tree holds
 * an item cJSON cannot print either (an invalid item, a raw one without
 * text). */
char *ledger_json_print(const cJSON *item, size_t *len);

/* Whether s[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
int ledger_utf8_valid(const char *s, size_t len);

/* Whether label[0..n) names a character set a CSV file is read in
 * ("windows-1250", "latin2"; ASCII case ignored). */
int ledger_charset_known(const char *label, size_t n);

/* The value 0..15 of hex digit c (either case), or -1 for any other
 * character: the one decoder of percent-escapes and cursors. */
int ledger_hex_digit(int c);

/* ---- money and percentages ---------------------------------------------- */

/* Largest accepted magnitude: 10^13 currency units. */
#define LEDGER_MONEY_MAX_CENTS INT64_C(1000000000000000)

/* Parses a decimal literal ("12.3", "-0.05", "1e2") with at most two
 * decimals and magnitude at most 10^13 into cents.  Returns LEDGER_ERR for
 * anything else, without touching *cents. */
int ledger_decimal2_parse(const char *text, int64_t *cents);

/* Reads a JSON number item (as made by ledger_json_parse) as cents.
 * field names the field for the error. */
int ledger_money_from_json(const cJSON *item, const char *field,
                           int64_t *cents, ledger_error *err);
/* Reads a percentage in hundredths, 0 <= p <= 100.00. */
int ledger_percent_from_json(const cJSON *item, const char *field,
                             int64_t *hundredths, ledger_error *err);

/* Formats cents as "-12.34" into buf (at least 24 bytes). */
char *ledger_decimal2_format(int64_t cents, char *buf, size_t len);
/* A JSON number holding exactly cents/100 with two decimals. */
cJSON *ledger_money_to_json(int64_t cents);

/* ---- categories ----------------------------------------------------------- */

/* Result of folding a category name (Business rule C). */
enum ledger_category_fold {
    LEDGER_CATEGORY_EMPTY = 0,   /* nothing left after folding */
    LEDGER_CATEGORY_OK = 1,      /* out holds the canonical slug */
    LEDGER_CATEGORY_REFUND = 2,  /* "refund": the merchant's usual category */
    LEDGER_CATEGORY_NONE = 3     /* "uncategorised" (or -ized): what the reports call a row
                                  * with no category; out holds "uncategorised" */
};
/* A category name is at most LEDGER_CATEGORY_TEXT_MAX bytes as written
 * (every path that takes one refuses a longer one), and folding never
 * makes a name longer, so a folded name always fits LEDGER_CATEGORY_MAX
 * bytes whole: two names must never fold into one by being cut. */
#define LEDGER_CATEGORY_TEXT_MAX 100
#define LEDGER_CATEGORY_MAX 128

/* Folds case and separator variants into one lower-case slug in out
 * (LEDGER_CATEGORY_MAX bytes); "payment" becomes "transfers". */
enum ledger_category_fold ledger_category_fold(const char *in, char *out);
/* The built-in canonical categories, NULL-terminated. */
const char *const *ledger_category_builtin(void);
/* GET /api/categories: {"items": [{category, builtin, usage_count}], "total"}. */
int ledger_categories_list(ledger_db *db, int64_t user_id, cJSON **out,
                           ledger_error *err);

/* ---- users ---------------------------------------------------------------- */

/* Maps the identity the proxy authenticated (its subject, plus the email and
 * name claims when present, else NULL) to a user id, creating the user on
 * first sight, or binding a placeholder user created for that email. */
int ledger_user_resolve(ledger_db *db, const char *subject, const char *email,
                        const char *name, int64_t *user_id, ledger_error *err);
/* Whether an identity is blank (spaces, controls, invisible characters
 * alone): no identity, which ledger_user_resolve answers 401. */
int ledger_identity_blank(const char *subject);
/* GET /api/me: {id, email, name, home_currency}. */
int ledger_user_get(ledger_db *db, int64_t user_id, cJSON **out, ledger_error *err);

/* ---- named parameters (a query string, already decoded) -------------------- */

struct ledger_param {
    char *key;    /* without a trailing "[]" */
    char *value;
};
struct ledger_params {
    const struct ledger_param *items;
    size_t count;
};
/* Whether key takes several values, each as a key of its own (with or
 * without "[]"): the list filters of ledger_txn_list.  Any other key names
 * one value, and a caller given it twice should refuse the query rather
 * than let the first one win. */
int ledger_param_is_list(const char *key);

/* ---- tags ------------------------------------------------------------------- */

/* The tag every CSV-imported row receives; no one else may take the name. */
#define LEDGER_TAG_CSV_IMPORT "csv-import"

/* GET /api/tags: the caller's tags, {items: [{id, name, color, usage_count}], total}. */
int ledger_tag_list(ledger_db *db, int64_t user_id, cJSON **out, ledger_error *err);
/* GET /api/tags/{id}: the item GET /api/tags gives for it; another
 * user's tag is 403. */
int ledger_tag_get(ledger_db *db, int64_t user_id, int64_t tag_id, cJSON **out,
                   ledger_error *err);
/* POST /api/tags {name, color?}; a name the caller has (any case) is 409. */
int ledger_tag_create(ledger_db *db, int64_t user_id, const cJSON *body, cJSON **out,
                      ledger_error *err);
/* PATCH /api/tags/{id} {name?, color?}; another user's tag is 403. */
int ledger_tag_update(ledger_db *db, int64_t user_id, int64_t tag_id, const cJSON *body,
                      cJSON **out, ledger_error *err);
/* DELETE /api/tags/{id}: the tag and its links. */
int ledger_tag_delete(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err);

/* ---- transactions --------------------------------------------------------------
 * Every call checks canAccessTransactions: the owner, or a participant with a
 * split on the row; anyone else gets 403, a missing (or reconciled, hence
 * hidden) row 404. */

/* GET /api/transactions with the filters, sort and pagination of API.md 3,
 * given as named parameters: {items, total, limit, offset, next_cursor}. */
int ledger_txn_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                    cJSON **out, ledger_error *err);
/* The same document with items as one cJSON_Raw item, the rows' JSON text
 * written straight from the query (no tree of them to build, print and
 * free): for a caller that prints the document, as ledger-fcgi does.  The
 * printed text is the same as ledger_txn_list's. */
int ledger_txn_list_text(ledger_db *db, int64_t me, const struct ledger_params *params,
                         cJSON **out, ledger_error *err);
/* POST /api/transactions: a manual row owned by me; the new row. */
int ledger_txn_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                      ledger_error *err);
int ledger_txn_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
/* PATCH: overrides, type, payment method; date/amount/description of a
 * manual row (its owner only). */
int ledger_txn_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body,
                      cJSON **out, ledger_error *err);
/* DELETE: manual rows, by their owner; a statement row is 409. */
int ledger_txn_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err);
/* POST /api/transactions/bulk {action, ids, tag_id?, category?,
 * merchant_normalized?, trip_id?}: all ids accessible or nothing changes. */
int ledger_txn_bulk(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                    ledger_error *err);
/* POST /api/transactions/{id}/tags {tag_id} or {name}: the updated row. */
int ledger_txn_tag_add(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                       cJSON **out, ledger_error *err);
/* DELETE /api/transactions/{id}/tags/{tag_id}, or with body {tag_id}. */
int ledger_txn_tag_remove(ledger_db *db, int64_t me, int64_t txn_id, int64_t tag_id,
                          ledger_error *err);
int ledger_txn_tag_remove_body(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                               ledger_error *err);

/* ---- statements ------------------------------------------------------------------ */

/* POST /api/statements: a statement and its rows as JSON (API.md 4).
 * Called in a transaction (ledger_begin), it writes in that one.  Called
 * in none, it begins its own, and one of more than 500 rows
 * runs as a job (as ledger_csv_commit does); so does a file's import
 * below. */
int ledger_statement_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                            ledger_error *err);
/* The same from the body's text (len bytes), its rows read one at a time
 * (as ledger_csv_commit_text reads a CSV commit's). */
int ledger_statement_create_text(ledger_db *db, int64_t me, const char *text, size_t len,
                                 cJSON **out, ledger_error *err);
/* GET /api/statements: {items: [statement with transaction_count,
 * balance_ok, balance_difference], total}. */
int ledger_statement_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
int ledger_statement_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
/* POST /api/statements/import: an OFX/QFX, QIF or CAMT.053 file, one
 * statement per account;
 * rows seen before (same account and FITID) are skipped.  {statements,
 * imported, skipped_duplicates}; *created says whether anything was. */
int ledger_statement_import(ledger_db *db, int64_t me, const char *buf, size_t len,
                            cJSON **out, int *created, ledger_error *err);
/* The same with the caller's choices: params' format (ofx, qif or camt;
 * else media_type's application/qif, else what the content shows) and
 * date_order (dmy or mdy, for a QIF file whose dates fit both); params and
 * media_type may be NULL. */
int ledger_statement_import_file(ledger_db *db, int64_t me, const char *buf, size_t len,
                                 const struct ledger_params *params, const char *media_type,
                                 cJSON **out, int *created, ledger_error *err);
/* A caller's condition on a write (an HTTP If-Match), for a write that may
 * run as a job and so begins its own transactions: called in the write's
 * own snapshot, once its other checks have passed and before anything is
 * written; LEDGER_ERR with err set (412) refuses the write. */
typedef int ledger_cond_fn(void *ctx, ledger_error *err);
/* DELETE: the statement and its rows, owner only; cond (NULL for none)
 * with ctx as above.  More rows than a chunk are deleted as a job. */
int ledger_statement_delete(ledger_db *db, int64_t me, int64_t id, ledger_cond_fn *cond,
                            void *ctx, ledger_error *err);

/* ---- sharing ------------------------------------------------------------------- */

/* GET /api/participants: {items: [{id, email, name}], total}. */
int ledger_participant_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
/* POST /api/participants {email, name?}: the user with that email, or a new
 * placeholder bound at their first sign-in, answered alike: {id, email as
 * typed, name as given (the caller's label)}. */
int ledger_participant_add(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                           ledger_error *err);
/* GET /api/participants/{id}/balance: {participant_id, net, owed_to_me,
 * owed_by_me, payments_to_me, payments_from_me}; net > 0: they owe me. */
int ledger_balance_get(ledger_db *db, int64_t me, int64_t other, cJSON **out,
                       ledger_error *err);
/* GET /api/balances: the same for every participant, largest net first. */
int ledger_balance_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);

/* Splits of one transaction: read, set (body: an array of {participant_id,
 * share_percent}, completed to 100% for the OWNER), clear, and settle ({settled}:
 * the owner's call touches every participant row, a participant's only
 * their own).  Each answers {items: [split rows], total}. */
int ledger_split_get(ledger_db *db, int64_t me, int64_t txn_id, cJSON **out, ledger_error *err);
int ledger_split_set(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                     cJSON **out, ledger_error *err);
int ledger_split_clear(ledger_db *db, int64_t me, int64_t txn_id, ledger_error *err);
int ledger_split_settle(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                        cJSON **out, ledger_error *err);

/* Payments: POST {from_participant_id, to_participant_id, date, notes?,
 * amount, trip_id?} or with scopes [{trip_id|null, amount}]; the caller is
 * one side.  GET with participant_id, trip_id, scope=household filters.
 * DELETE removes every row of the payment, for its two parties only. */
int ledger_payment_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                          ledger_error *err);
int ledger_payment_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                        cJSON **out, ledger_error *err);
int ledger_payment_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err);
/* GET /api/payments/{id}: the item GET /api/payments gives for that row,
 * to its two parties (others 403). */
int ledger_payment_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);

/* ---- trips ------------------------------------------------------------------------ */
/* Participants are derived: the owner, owners of its rows, split
 * participants on them, parties to payments scoped to it.  Everything is
 * open to participants (others 403); DELETE to the owner only. */
int ledger_trip_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
int ledger_trip_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                       ledger_error *err);
int ledger_trip_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
int ledger_trip_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body, cJSON **out,
                       ledger_error *err);
int ledger_trip_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err);
int ledger_trip_participants(ledger_db *db, int64_t me, int64_t id, cJSON **out,
                             ledger_error *err);
/* POST (assign) / DELETE (unassign) /api/trips/{id}/transactions {transaction_ids}. */
int ledger_trip_rows(ledger_db *db, int64_t me, int64_t id, const cJSON *body, int assign,
                     cJSON **out, ledger_error *err);
/* POST /api/trips/from-tag {tag_id, name?, keep_tag=false}. */
int ledger_trip_from_tag(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                         ledger_error *err);
/* {total, by_category, by_day, by_merchant, by_tag, by_participant}. */
int ledger_trip_analytics(ledger_db *db, int64_t me, int64_t trip, cJSON **out,
                          ledger_error *err);
/* {owed_to_me: [{participant_id, amount}], owed_by_me: [...]}, never netted. */
int ledger_trip_owed(ledger_db *db, int64_t me, int64_t trip, cJSON **out, ledger_error *err);

/* ---- budgets and analytics (spend per Business rule D) ------------------------------
 * Parameters: basis=gross (default: the caller's rows at full spend) or
 * mine (the caller's part of their own and shared rows); from/to months. */
int ledger_budget_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                       cJSON **out, ledger_error *err);
/* GET /api/budgets/{category}: the item GET /api/budgets (same month and
 * basis parameters) gives for it; 404 when the caller has no budget for it. */
int ledger_budget_get(ledger_db *db, int64_t me, const char *category,
                      const struct ledger_params *params, cJSON **out, ledger_error *err);
int ledger_budget_put(ledger_db *db, int64_t me, const char *category, const cJSON *body,
                      cJSON **out, ledger_error *err);
int ledger_budget_delete(ledger_db *db, int64_t me, const char *category, ledger_error *err);
int ledger_analytics_monthly(ledger_db *db, int64_t me, const struct ledger_params *params,
                             cJSON **out, ledger_error *err);
/* The same with items as one cJSON_Raw item of their JSON text, written
 * without a tree (as ledger_txn_list_text): for a caller that prints it. */
int ledger_analytics_monthly_text(ledger_db *db, int64_t me, const struct ledger_params *params,
                                  cJSON **out, ledger_error *err);
int ledger_analytics_drilldown(ledger_db *db, int64_t me, const char *month,
                               const char *category, const struct ledger_params *params,
                               cJSON **out, ledger_error *err);
int ledger_analytics_merchants(ledger_db *db, int64_t me, const struct ledger_params *params,
                               cJSON **out, ledger_error *err);
int ledger_analytics_merchant(ledger_db *db, int64_t me, const char *merchant,
                              const struct ledger_params *params, cJSON **out,
                              ledger_error *err);
int ledger_analytics_fees(ledger_db *db, int64_t me, const struct ledger_params *params,
                          cJSON **out, ledger_error *err);
/* Recurring charges; as_of=YYYY-MM-DD (default today) decides "active". */
int ledger_analytics_subscriptions(ledger_db *db, int64_t me, const struct ledger_params *params,
                                   cJSON **out, ledger_error *err);

/* ---- rules --------------------------------------------------------------------------
 * {name, enabled=true, manual_only=false, match="all"|"any", conditions,
 * actions}; runs are recorded and can be reverted (API.md 6). */
int ledger_rule_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
int ledger_rule_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out, ledger_error *err);
int ledger_rule_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
int ledger_rule_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body, cJSON **out,
                       ledger_error *err);
int ledger_rule_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err);
/* Every enabled, non-manual_only rule, against rows no still-applied run
 * of that rule changed: {runs, matches, transactions}.  Called in no
 * transaction it runs as a job, as a rule apply and a revert do. */
int ledger_rule_apply_all(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
int ledger_rule_apply(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err);
/* The quick action: {transaction_ids}, conditions ignored. */
int ledger_rule_run_selection(ledger_db *db, int64_t me, int64_t rule_id, const cJSON *body,
                              cJSON **out, ledger_error *err);
int ledger_rule_preview(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err);
int ledger_rule_runs(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);
int ledger_rule_revert(ledger_db *db, int64_t me, int64_t run_id, cJSON **out, ledger_error *err);

/* ---- CSV import --------------------------------------------------------------------
 * Preview: a JSON body {csv, mapping} (csv NULL), or the file itself (csv,
 * len) with the mapping as named parameters.  Writes nothing. */
int ledger_csv_preview(ledger_db *db, int64_t me, const char *csv, size_t len,
                       const cJSON *body, const struct ledger_params *params, cJSON **out,
                       ledger_error *err);
/* Commit {rows, allow_duplicates=false}: all or nothing -> {import_id,
 * imported, skipped_duplicates, transaction_ids}.  Called in a transaction
 * (ledger_begin), it writes in that one.  Called in none, it runs as a job
 * (lib/job.c): in transactions of its own, JOB_CHUNK_ROWS rows each, so it
 * never holds the write lock for long, with the caller's other requests
 * refused until it ends (ledger_job_check). */
int ledger_csv_commit(ledger_db *db, int64_t me, const cJSON *body, cJSON **out, ledger_error *err);
/* The same from the body's text (len bytes), read as strictly as
 * ledger_json_parse reads, but its rows one at a time: the request's
 * memory is a few times its text, where a tree of 100,000 rows would be
 * some twenty.  Its answer's transaction_ids is one raw item, the array's
 * text, to be printed. */
int ledger_csv_commit_text(ledger_db *db, int64_t me, const char *text, size_t len, cJSON **out,
                           ledger_error *err);

/* ---- jobs --------------------------------------------------------------------------
 * In a request's transaction: 409 job_running while a job of me's is being
 * written; *dead the id of one whose process died (0 for none), which the
 * caller undoes with ledger_job_recover, in no transaction, before it
 * begins again.  */
int ledger_job_check(ledger_db *db, int64_t me, int64_t *dead, ledger_error *err);
int ledger_job_recover(ledger_db *db, int64_t job, ledger_error *err);
/* Begins a transaction of me's (a write one when write), in which no job
 * of me's is being written: a dead one is recovered first, and the
 * transaction begun again; 409 job_running while one runs. */
int ledger_begin_as(ledger_db *db, int64_t me, int write, ledger_error *err);
/* Fills err with the 409 job_running and returns LEDGER_ERR. */
int ledger_job_busy(ledger_error *err);

/* ---- reconciliation ----------------------------------------------------------------- */
/* GET /api/reconcile: {pending: [{transaction, candidates}], unmatched, total}. */
int ledger_reconcile_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                          cJSON **out, ledger_error *err);
/* POST /api/reconcile {matches: [{manual_id, statement_transaction_id}]}: all or nothing. */
int ledger_reconcile_apply(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                           ledger_error *err);
/* DELETE /api/reconcile/{manual_id}: the statement row back as it was. */
int ledger_reconcile_undo(ledger_db *db, int64_t me, int64_t manual_id, ledger_error *err);

/* GET /api/merchants: {items: [{merchant, transaction_count, total,
 * last_date, category}], total, limit, offset, next_cursor}. */
/* POST /api/merchants/clean: gives every row of the caller's without a
 * merchant but the bank's raw text one (cleaned, or the caller's own name
 * for it), recorded as a run that DELETE /api/rules/apply/{run_id}
 * reverts.  *out is the run (rule_name "Merchant cleaner"), or run_id null
 * when no row needed one. */
int ledger_merchant_run(ledger_db *db, int64_t me, cJSON **out, ledger_error *err);

/* Category suggestions (README "Category suggestions"): the caller's rows
 * without a category, a page of them each with its suggestion or null;
 * applying a chosen set ({"items": [{"transaction_id", "category"?}]},
 * all or nothing) as a run that DELETE /api/rules/apply/{run_id} reverts;
 * the caller's threshold for automatic runs (body NULL reads it). */
int ledger_suggestion_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                           cJSON **out, ledger_error *err);
int ledger_suggestion_apply(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                            ledger_error *err);
int ledger_suggestion_settings(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                               ledger_error *err);
int ledger_merchant_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                         cJSON **out, ledger_error *err);

/* ---- operator functions (ledger-admin) -----------------------------------------------
 * No viewer and no access checks: these serve whoever holds the database
 * file. */

/* The schema version of the database file at path, read without migrating
 * or writing; 0 when there is no file yet (ledger_open would create it). */
int ledger_schema_version_file(const char *path, int *version, ledger_error *err);

/* Progress of a long operation: done of total units (pages, rows). */
typedef void ledger_progress_fn(void *ctx, int64_t done, int64_t total);

/* An online copy of the database at src, safe while the service writes to
 * it: SQLite's backup API in small steps with pauses, into a temporary file
 * beside dest that passes integrity_check before it is renamed to dest.
 * progress (may be NULL) is called after each step. */
int ledger_backup(const char *src, const char *dest, ledger_progress_fn *progress, void *ctx,
                  ledger_error *err);

/* integrity_check, foreign_key_check and every trigger-kept table against a
 * recount: {ok, total, checks: {name: problems}, problems: [{check,
 * detail}]} (the first few of each check are described).  Run it inside a
 * read transaction so all checks see one snapshot. */
int ledger_check(ledger_db *db, cJSON **out, ledger_error *err);

/* The user who is who: their identity (subject), their email (any case),
 * or "id:N".  404 when nobody, 409 ambiguous when it names two. */
int ledger_user_find(ledger_db *db, const char *who, int64_t *id, ledger_error *err);
/* Every user with counts of what they hold: {items: [{id, subject, email,
 * name, created_at, placeholder, transactions, statements, shared_with,
 * payments, tags, rules, trips, budgets}], total}. */
int ledger_user_admin_list(ledger_db *db, cJSON **out, ledger_error *err);
/* Moves everything user from owns or takes part in to into, then removes
 * from (lib/user_merge.c says how each kind of row is merged).  Where only a
 * person can decide (two budgets for one category, payments between the
 * two, ...) it is 409 merge_conflict naming them, and nothing is written.
 * Call it inside a write transaction; roll back on error.  On success *out
 * holds counts of what moved. */
int ledger_user_merge(ledger_db *db, int64_t from, int64_t into, cJSON **out,
                      ledger_error *err);

/* ---- export ---------------------------------------------------------------------------- */

/* Where an export's bytes go, in pieces of some 64 kB as they are made:
 * returns 0, or non-zero to stop the export (the reader went away). */
typedef int ledger_write_fn(void *ctx, const char *buf, size_t len);
enum ledger_export_format {
    LEDGER_EXPORT_CSV = 1,     /* one line per row */
    LEDGER_EXPORT_JSON = 2,    /* the rows and everything else, to rebuild from */
    LEDGER_EXPORT_JOURNAL = 3  /* an hledger/Ledger journal */
};
/* The format called name (csv, json or journal); else a 400 on format. */
int ledger_export_format(const char *name, enum ledger_export_format *out, ledger_error *err);
/* Its media type (with charset) and its file name's extension. */
const char *ledger_export_media_type(enum ledger_export_format f);
const char *ledger_export_extension(enum ledger_export_format f);
/* GET /api/export: everything me can see, in me's terms, written to write
 * as it is read, so memory stays flat however long the ledger.  Run it
 * inside one read transaction (ledger_begin) so every part comes from one
 * snapshot.  progress (may be NULL) hears rows done of rows in all.  On
 * error some bytes may have been written already: a caller that has
 * passed them on cannot take them back, and must let its reader see the
 * output end unfinished (ledger-fcgi breaks the connection). */
int ledger_export(ledger_db *db, int64_t me, enum ledger_export_format f,
                  ledger_write_fn *write, void *wctx, ledger_progress_fn *progress,
                  void *pctx, ledger_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LEDGER_H */
