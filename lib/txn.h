/* Transaction rows, private to libledger: the columns every read selects
 * and their JSON (txn_row.c), categories (category.c), tags, the search
 * index (txn_search.c) and a row's user-made state (snapshot.c). */
#ifndef LEDGER_TXN_H
#define LEDGER_TXN_H

#include "db.h"
#include "json_out.h"
#include "share.h"

/* The longest tag name, in bytes. */
#define TAG_NAME_MAX 64
/* The most tags one user has (the CSV import's own tag aside): what a
 * row's tags cost to read, filter and put back grows with them. */
#define TAGS_PER_USER_MAX 1000
/* The most rows one trip holds.  A trip's rows are shared with its
 * participants, so they change together, in one transaction: a trip from
 * a tag, and a trip's delete, which takes every row out of it (trip.c). */
#define TRIP_ROWS_MAX 10000
/* 404 when the tag does not exist, 403 when it is not the user's. */
int tag_check_owner(ledger_db *db, int64_t user_id, int64_t tag_id, ledger_error *err);

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
/* Whether the viewer (:me) sees split participant u by u's own name and
 * address: u is the viewer, the row's owner (who shared it with them), or
 * has turned to the viewer (share.h).  Otherwise the viewer's own label
 * and the address as the viewer typed it, as in GET /api/participants,
 * so that a row split with an address tells no account from a
 * placeholder. */
#define TXN_SPLIT_SEEN \
    "(u.id = :me OR u.id = t.owner_id OR " PERSON_TURNED_SQL("u.id", ":me") ")"
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
    "    FROM (SELECT s.participant_id AS pid," \
    "                 CASE WHEN " TXN_SPLIT_SEEN " THEN COALESCE(u.name, c.label) ELSE c.label END" \
    "                   AS name," \
    "                 s.share_percent AS share, s.settled," \
    "                 CASE WHEN " TXN_SPLIT_SEEN " THEN u.email ELSE COALESCE(c.email, u.email) END AS email" \
    "            FROM splits s JOIN users u ON u.id = s.participant_id" \
    "            LEFT JOIN user_contacts c ON c.user_id = :me AND c.contact_id = s.participant_id" \
    "           WHERE s.transaction_id = t.id ORDER BY s.participant_id)), t.notes"
/* Column indexes of TXN_COLUMNS, for the code that reads a row of them
 * (txn_row.c, the export). */
enum txn_column {
    TXN_ID, TXN_STATEMENT, TXN_OWNER, TXN_DATE, TXN_DESCRIPTION, TXN_MERCHANT,
    TXN_MERCHANT_NORM, TXN_CATEGORY, TXN_TYPE, TXN_AMOUNT, TXN_CURRENCY, TXN_AMOUNT_AUD,
    TXN_RATE, TXN_PAYMENT, TXN_PRINCIPAL, TXN_INTEREST, TXN_CREATED, TXN_RECONCILED_FROM,
    TXN_O_CATEGORY, TXN_O_MERCHANT, TXN_O_SHARE, TXN_O_TRIP, TXN_BANK, TXN_TAGS, TXN_SPLITS,
    TXN_NOTES, TXN_NCOLUMNS
};

/* The manual row reconciled into a statement row (the row is "reconciled";
 * reconcile.c gives it the manual row's Imported date while matched). */
#define TXN_JOIN_RECONCILED \
    " LEFT JOIN transactions r ON r.reconciled_with_id = t.id"
cJSON *txn_row_json(sqlite3_stmt *st, int64_t me);

/* Row r of TXN_COLUMNS written as txn_row_json makes it. */
void txn_row_write(struct json_writer *w, sqlite3_stmt *st, int64_t me);

/* The longest notes a row keeps, in bytes. */
#define TXN_NOTES_MAX 1000

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
/* The merchant a new row of owner's without one of its own gets from raw
 * bank text (merchant_name.c): the cleaned name, or the user's own name
 * for it once they renamed it; out (MERCHANT_CLEAN_MAX bytes) is "" when
 * the text names no merchant. */
int merchant_derive(ledger_db *db, int64_t owner, const char *raw, char *out, ledger_error *err);
/* The rule_name a merchant run is recorded under. */
#define MERCHANT_RUN_NAME "Merchant cleaner"
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

/* The caller's tag of that name (any case), created when missing; the name
 * reserved for CSV imports is refused. */
int tag_find_or_create(ledger_db *db, int64_t user_id, const char *name, int64_t *id,
                       ledger_error *err);

/* ---- a row's user-made state (snapshot.c) ------------------------------------------
 * Overrides, payment method, tags and splits as JSON (the caller frees
 * *out), and put back exactly; tags, trips and participants deleted since
 * are left out. */
int row_snapshot(ledger_db *db, int64_t id, char **out, ledger_error *err);
int row_restore(ledger_db *db, int64_t id, const char *snapshot, ledger_error *err);
/* row_restore for every row of a rule run at once, or (chunk) for those
 * of them in temp.rule_ids. */
int run_restore(ledger_db *db, int64_t run_id, int chunk, ledger_error *err);
/* Undoes every match into the rows of statement statement_id (reconcile.c),
 * before the statement is deleted; 409 when a rule run since changed a
 * matched row.  The check alone, writing nothing: reconcile_check_statement. */
int reconcile_release_statement(ledger_db *db, int64_t statement_id, ledger_error *err);
int reconcile_check_statement(ledger_db *db, int64_t statement_id, ledger_error *err);
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

#endif /* LEDGER_TXN_H */
