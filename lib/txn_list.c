/*
 * GET /api/transactions: the filtered, sorted, paginated list.
 *
 * The query is assembled from fixed fragments, one per filter present, with
 * named placeholders; array filters bind one JSON array each and test
 * membership with json_each, so the set of SQL texts is bounded and each is
 * prepared once.  A list of one (the hidden transfers, one category) is a
 * plain comparison instead, which spares a probe of json_each's list for
 * every row, a large part of a count's cost.  The caller's rows are two
 * streams: the rows they own, read in order from the (owner_id, <sort
 * column>, id) index, and the rows shared with them through a split.  A
 * compound SELECT merges the two in sort order and stops at the page's
 * end, so a deep page by cursor costs what the first page costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"
#include "txn_list.h"

#define SQL_MAX 16384
/* Up to this many rows matching amount bounds, the page sorts them rather
 * than walking the sort order: either way a few thousand index entries. */
#define AMOUNT_INDEX_MAX 2000
/* A search reads the rows the search index gives (txn_search.c) when it
 * gives at most this many: each is a seek into the table, some three times
 * the cost of testing a row in a walk of every row the caller owns.  Past
 * that the count tests every row; a term in that many rows is common and
 * its matches turn up soon walking the sort order. */
#define SEARCH_INDEX_MAX 10000
/* The page reads the index's rows and sorts them up to this many; past it
 * a page walks the sort order (see AMOUNT_INDEX_MAX). */
#define SEARCH_PAGE_MAX 2000
/* Up to this many search terms are each a test in the SQL text. */
#define TERMS_INLINE 4
/* About what a row takes as JSON text: some 650 bytes with a split and
 * two tags. */
#define PAGE_ROW_BYTES 768

/* Whether a folded categories[] list selects the rows with no category. */
static int selects_none(const cJSON *list)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, list)
        if (item->valuestring[0] == '\0')
            return 1;
    return 0;
}

/* Whether a list filter has exactly one value (bound as <name>_1). */
static int is_one(const cJSON *list)
{
    return cJSON_GetArraySize(list) == 1;
}

/* Appends the filter conditions on t, each with its own placeholders; the
 * date and amount are read from keys ("t" or "s"), the table whose indexes
 * the arm walks, and the searched texts from shared_rows' copies in the
 * shared arm (the index shared_rows_search holds them). */
static void append_filters(char *sql, size_t len, const struct list_query *q, const char *keys,
                           int shared)
{
#define ADD(s) strncat(sql, s, len - strlen(sql) - 1)
    char cond[256];

    ADD(" AND t.reconciled_with_id IS NULL");
    if (q->date_edge == EDGE_FROM) {
        snprintf(cond, sizeof cond, " AND %s.date >= :date_from AND %s.date < :from_month_end",
                 keys, keys);
        ADD(cond);
    } else if (q->date_edge == EDGE_TO) {
        snprintf(cond, sizeof cond, " AND %s.date >= :to_month_start AND %s.date <= :date_to",
                 keys, keys);
        ADD(cond);
    } else {
        if (q->date_from) {
            snprintf(cond, sizeof cond, " AND %s.date >= :date_from", keys);
            ADD(cond);
        }
        if (q->date_to) {
            snprintf(cond, sizeof cond, " AND %s.date <= :date_to", keys);
            ADD(cond);
        }
    }
    if (q->categories && !selects_none(q->categories))
        ADD(is_one(q->categories) ? " AND t.eff_category = :categories_1"
                                  : " AND t.eff_category IN (SELECT value FROM json_each(:categories))");
    else if (q->categories)
        ADD(is_one(q->categories) ? " AND t.eff_category IS NULL"
                                  : " AND (t.eff_category IN (SELECT value FROM json_each(:categories))"
                                    " OR t.eff_category IS NULL)");
    /* An uncategorised row is never hidden: NULL counts as ''. */
    if (q->exclude)
        ADD(is_one(q->exclude) ? " AND COALESCE(t.eff_category, '') <> :exclude_1"
                               : " AND COALESCE(t.eff_category, '') NOT IN (SELECT value FROM json_each(:exclude))");
    /* Banks and tags are each one list built once per query (SQLite's
     * LIST SUBQUERY), not a subquery per row, which would run a query for
     * every row.  The list of statements is every statement of those banks,
     * the caller's or not, because shared rows come from others'.  Manual
     * alone is a plain test the date and amount indexes cover.  "Manual"
     * names the manual rows only, never a statement whose bank is called
     * that (statements made since cannot be; older ones are not matched
     * by it, alone or beside other names). */
    if (q->banks_only_manual)
        ADD(" AND t.statement_id IS NULL");
    else if (q->banks)
        ADD(q->banks_manual ? " AND (t.statement_id IS NULL OR t.statement_id IN (SELECT id FROM statements"
                              " WHERE bank_name IN (SELECT value FROM json_each(:banks)"
                              "                      WHERE value <> '" LEDGER_BANK_MANUAL "')))"
                            : " AND t.statement_id IN (SELECT id FROM statements"
                              " WHERE bank_name IN (SELECT value FROM json_each(:banks)))");
    if (q->tags)
        ADD(" AND t.id IN (SELECT tt.transaction_id FROM transaction_tags tt JOIN tags g ON g.id = tt.tag_id"
            " WHERE g.owner_id = :me AND tt.tag_id IN (SELECT value FROM json_each(:tags)))");
    if (q->types)
        ADD(is_one(q->types) ? " AND t.transaction_type = :types_1"
                             : " AND t.transaction_type IN (SELECT value FROM json_each(:types))");
    /* Every term in the description, the merchant or the effective
     * merchant_normalized; up to TERMS_INLINE terms (a search, a few q
     * words) each a plain test, not a probe of json_each's list for every
     * row, which is much of a search's time. */
#define TERM_IN(term) \
    "ledger_contains(" term ", t.description, t.merchant," \
    " COALESCE(t.override_merchant_normalized, t.merchant_normalized))"
#define SHARED_TERM_IN(term) \
    "ledger_contains(" term ", s.description, s.bank_merchant, s.merchant_normalized)"
    if (q->terms && cJSON_GetArraySize(q->terms) <= TERMS_INLINE) {
        int k;

        for (k = 1; k <= cJSON_GetArraySize(q->terms); k++) {
            snprintf(cond, sizeof cond, shared ? " AND " SHARED_TERM_IN(":terms_%d")
                                               : " AND " TERM_IN(":terms_%d"), k);
            ADD(cond);
        }
    } else if (q->terms)
        ADD(shared ? " AND NOT EXISTS (SELECT 1 FROM json_each(:terms) j WHERE NOT "
                         SHARED_TERM_IN("j.value") ")"
                   : " AND NOT EXISTS (SELECT 1 FROM json_each(:terms) j WHERE NOT "
                         TERM_IN("j.value") ")");
#undef TERM_IN
#undef SHARED_TERM_IN
    /* "+" keeps SQLite off the amount index, so the page walks the sort
     * order and stops at its end (see ledger_txn_list). */
    if (q->has_min) {
        snprintf(cond, sizeof cond, " AND %s%s.amount >= :amount_min", q->amount_by_index ? "" : "+", keys);
        ADD(cond);
    }
    if (q->has_max) {
        snprintf(cond, sizeof cond, " AND %s%s.amount <= :amount_max", q->amount_by_index ? "" : "+", keys);
        ADD(cond);
    }
    if (q->has_split == 1)
        ADD(" AND EXISTS (SELECT 1 FROM splits sp WHERE sp.transaction_id = t.id)");
    if (q->has_split == 2)
        ADD(" AND NOT EXISTS (SELECT 1 FROM splits sp WHERE sp.transaction_id = t.id)");
    if (q->statement_id)
        ADD(" AND t.statement_id = :statement_id");
    if (q->trip_id)
        ADD(" AND t.override_trip_id = :trip_id");
#undef ADD
}

/* The arms of the list: rows the caller owns, read from the (owner_id,
 * <key>, id) indexes; rows shared with them by a split, read from the
 * shared_rows indexes that copy the sort keys; or, for
 * trip_all_rows, every row of the trip.  Each arm yields (id, k) in sort
 * order, so the compound SELECT merges them and stops at the page's end. */
enum arm { ARM_OWN, ARM_SHARED, ARM_TRIP };

static void build_arm(char *sql, size_t len, const struct list_query *q, enum arm arm, int count)
{
    /* A statement, a trip or a tag holds few rows: then the shared arm
     * starts from those (CROSS JOIN fixes the order in SQLite) and sorts
     * them, rather than walking every shared row in order. */
    int from_shared = arm == ARM_SHARED && !q->statement_id && !q->trip_id && !q->tags;
    const char *key = from_shared ? q->sort->shared_column : q->sort->column;
    const char *id = from_shared ? "s.transaction_id" : "t.id";
    char part[256];

    if (count)
        snprintf(part, sizeof part, "SELECT COUNT(*)");
    else
        snprintf(part, sizeof part, "SELECT %s AS id, %s AS k", id, key);
    strncat(sql, part, len - strlen(sql) - 1);
    /* With a tag, a statement or a trip, start from its rows ("+" keeps
     * SQLite off the owner indexes, which would visit every row the
     * caller owns; they cover the list's columns, so without statistics
     * SQLite takes them for the cheaper way).  The count visits every
     * such row anyway, so sorting them for the page costs no more. */
    /* A search the index narrows starts from the rows it gives, each
     * sought by id; the exact test follows with the filters.  Its term is
     * then rare, and the shared arm tests every shared row in the index
     * that holds their texts and sorts the few that match, rather than
     * walking them in order, each a seek for its texts. */
    if (arm == ARM_OWN && q->terms_by_index) {
        strncat(sql, " FROM transactions t WHERE t.id IN (", len - strlen(sql) - 1);
        strncat(sql, search_ids_sql(), len - strlen(sql) - 1);
    }
    strncat(sql, arm == ARM_OWN && q->terms_by_index ? ") AND +t.owner_id = :me"
                 : arm == ARM_OWN && (q->tags || q->statement_id || q->trip_id)
                     ? " FROM transactions t WHERE +t.owner_id = :me"
                 : arm == ARM_OWN ? " FROM transactions t WHERE t.owner_id = :me"
                 : arm == ARM_TRIP ? " FROM transactions t WHERE t.override_trip_id = :trip_id"
                 : from_shared && q->terms_by_index
                     ? " FROM shared_rows s INDEXED BY shared_rows_search"
                       " JOIN transactions t ON t.id = s.transaction_id WHERE s.viewer_id = :me"
                 : from_shared ? " FROM shared_rows s JOIN transactions t ON t.id = s.transaction_id"
                                 " WHERE s.viewer_id = :me"
                 : " FROM transactions t CROSS JOIN shared_rows s ON s.transaction_id = t.id"
                   " WHERE s.viewer_id = :me",
            len - strlen(sql) - 1);
    append_filters(sql, len, q, from_shared ? "s" : "t", arm == ARM_SHARED);
    if (!count && q->has_cursor) {
        snprintf(part, sizeof part, " AND (%s, %s) %s (:ck, :cid)", key, id, q->desc ? "<" : ">");
        strncat(sql, part, len - strlen(sql) - 1);
    }
}

/* A row is shared with the caller only through a split, so unsplit rows
 * are all their own: the shared arm would walk every shared row for none. */
static int has_shared_arm(const struct list_query *q)
{
    return q->has_split != 2;
}

/* Binds the array as JSON text to `name` (for json_each), and its values
 * one by one to `name`_1, `name`_2... where the SQL names them (one value
 * compared directly, see is_one; search terms, see TERMS_INLINE). */
static void bind_list(ledger_db *db, sqlite3_stmt *st, const char *name, const cJSON *arr)
{
    int idx = sqlite3_bind_parameter_index(st, name), one_idx, k = 0;
    const cJSON *v;
    char one[32];
    char *text;

    cJSON_ArrayForEach(v, arr) {
        snprintf(one, sizeof one, "%s_%d", name, ++k);
        if ((one_idx = sqlite3_bind_parameter_index(st, one)) == 0)
            break;
        if (cJSON_IsString(v))
            db_bind_text(db, st, one_idx, v->valuestring);
        else if (cJSON_IsNumber(v))
            sqlite3_bind_int64(st, one_idx, (sqlite3_int64)v->valuedouble);
    }
    if (idx == 0 || arr == NULL)
        return;
    /* No memory for the text is a failed bind too (not an empty list). */
    if ((text = cJSON_PrintUnformatted(arr)) == NULL)
        db->bind_failed = 1;
    db_bind_text(db, st, idx, text);
    free(text);
}

static void bind_int(sqlite3_stmt *st, const char *name, int64_t v)
{
    int idx = sqlite3_bind_parameter_index(st, name);

    if (idx)
        sqlite3_bind_int64(st, idx, v);
}

static void bind_str(ledger_db *db, sqlite3_stmt *st, const char *name, const char *v)
{
    int idx = sqlite3_bind_parameter_index(st, name);

    if (idx && v)
        db_bind_text(db, st, idx, v);
}

static void bind_query(ledger_db *db, sqlite3_stmt *st, int64_t me, const struct list_query *q)
{
    bind_int(st, ":me", me);
    bind_str(db, st, ":date_from", q->date_from);
    bind_str(db, st, ":date_to", q->date_to);
    bind_str(db, st, ":from_month_end", q->from_month_end);
    bind_str(db, st, ":to_month_start", q->to_month_start);
    bind_list(db, st, ":categories", q->categories);
    bind_list(db, st, ":exclude", q->exclude);
    bind_list(db, st, ":banks", q->banks);
    bind_list(db, st, ":tags", q->tags);
    bind_list(db, st, ":types", q->types);
    bind_list(db, st, ":terms", q->terms);
    search_bind(st, me, &q->search);
    bind_int(st, ":amount_min", q->amount_min);
    bind_int(st, ":amount_max", q->amount_max);
    bind_int(st, ":statement_id", q->statement_id);
    bind_int(st, ":trip_id", q->trip_id);
    bind_int(st, ":limit", q->limit + 1);  /* one more says whether a next page exists */
    bind_int(st, ":offset", q->has_cursor ? 0 : q->offset);
    bind_int(st, ":cid", q->cursor_id);
    if (q->sort->integer)
        bind_int(st, ":ck", strtoll(q->cursor_key, NULL, 10));
    else
        bind_str(db, st, ":ck", q->cursor_key);
}

/* Whether the only filters are on the category, the type, the date, the
 * split state and Manual alone, which visible_count
 * answers by month, and a date range spans more than one month. */
static int counted_by_summary(const struct list_query *q, int trip_scope)
{
    if (trip_scope || (q->banks && !q->banks_only_manual) || q->tags || q->terms || q->has_min
        || q->has_max || q->statement_id || q->trip_id)
        return 0;
    return !q->date_from || !q->date_to || strncmp(q->date_from, q->date_to, 7) < 0;
}

/* The arms the list reads: the trip's, or the caller's own and those
 * shared with them, their counts added up (count) or their rows merged. */
static void arms_sql(char *sql, size_t len, const struct list_query *q, int trip_scope, int count)
{
    if (trip_scope) {
        build_arm(sql, len, q, ARM_TRIP, count);
        return;
    }
    build_arm(sql, len, q, ARM_OWN, count);
    if (has_shared_arm(q)) {
        strncat(sql, count ? ") + (" : " UNION ALL ", len - strlen(sql) - 1);
        build_arm(sql, len, q, ARM_SHARED, count);
    }
}

/* Each arm with COUNT(*), added up. */
static void count_arms_sql(char *sql, size_t len, const struct list_query *q, int trip_scope)
{
    strncat(sql, "(SELECT (", len - strlen(sql) - 1);
    arms_sql(sql, len, q, trip_scope, 1);
    strncat(sql, "))", len - strlen(sql) - 1);
}

/* The SQL of the total.  With only category, type and date filters it is the
 * months wholly inside the range, read from the summary, plus a count of
 * the rows in the range's first and last month (each at most a month of
 * rows, read from the date indexes); with no date bound, the summary's
 * total over the months.  Otherwise the arms count their rows. */
static void count_sql(char *sql, size_t len, const struct list_query *q, int trip_scope)
{
    snprintf(sql, len, "SELECT ");
    if (counted_by_summary(q, trip_scope)) {
        struct list_query edge = *q;

        /* Without a date bound, every month: visible_total
         * holds the same cells summed over the months. */
        snprintf(sql + strlen(sql), len - strlen(sql),
                 "(SELECT COALESCE(SUM(n), 0) FROM %s WHERE viewer_id = :me%s%s%s%s%s%s%s)",
                 q->date_from || q->date_to ? "visible_count" : "visible_total",
                 q->date_from ? " AND month > substr(:date_from, 1, 7)" : "",
                 q->date_to ? " AND month < substr(:date_to, 1, 7)" : "",
                 !q->categories ? "" : is_one(q->categories) ? " AND category = :categories_1"
                     : " AND category IN (SELECT value FROM json_each(:categories))",
                 !q->exclude ? "" : is_one(q->exclude) ? " AND category <> :exclude_1"
                     : " AND category NOT IN (SELECT value FROM json_each(:exclude))",
                 !q->types ? "" : is_one(q->types) ? " AND type = :types_1"
                     : " AND type IN (SELECT value FROM json_each(:types))",
                 q->banks_only_manual ? " AND manual = 1" : "",
                 q->has_split == 1 ? " AND split = 1" : q->has_split == 2 ? " AND split = 0" : "");
        if (q->date_from) {
            edge.date_edge = EDGE_FROM;
            strncat(sql, " + ", len - strlen(sql) - 1);
            count_arms_sql(sql, len, &edge, trip_scope);
        }
        if (q->date_to) {
            edge.date_edge = EDGE_TO;
            strncat(sql, " + ", len - strlen(sql) - 1);
            count_arms_sql(sql, len, &edge, trip_scope);
        }
        return;
    }
    count_arms_sql(sql, len, q, trip_scope);
}

/* Counts the rows, and then decides how the page reads amount bounds and
 * search terms: the counts say which way is cheaper.  Few matches are read
 * from the amount index or the search index and sorted; many turn up soon
 * enough walking the sort order.  The search index's own count decides
 * whether the total reads it (see SEARCH_INDEX_MAX). */
static int count_rows(ledger_db *db, int64_t me, struct list_query *q, int trip_scope,
                      int64_t *total, ledger_error *err)
{
    char sql[SQL_MAX];
    sqlite3_stmt *st;
    int64_t candidates = 0;
    int rc;

    q->amount_by_index = 1;  /* the count reads every match anyway */
    q->terms_by_index = 0;
    if (q->search.n && !trip_scope) {
        if (search_candidates(db, me, &q->search, SEARCH_INDEX_MAX, &candidates, err))
            return LEDGER_ERR;
        q->terms_by_index = candidates <= SEARCH_INDEX_MAX;
    }
    count_sql(sql, sizeof sql, q, trip_scope);
    if ((st = db_stmt(db, sql, err)) == NULL)
        return LEDGER_ERR;
    bind_query(db, st, me, q);
    rc = sqlite3_step(st);
    *total = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    db_stmt_done(st);
    q->amount_by_index = q->sort->integer || *total <= AMOUNT_INDEX_MAX;
    q->terms_by_index = q->terms_by_index && candidates <= SEARCH_PAGE_MAX;
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "transaction count");
}

/* The SQL of one page. */
static void txn_list_sql(char *sql, size_t len, const struct list_query *q, int trip_scope)
{
    char order[160];

    snprintf(order, sizeof order, " ORDER BY 2 %s, 1 %s LIMIT :limit OFFSET :offset",
             q->desc ? "DESC" : "ASC", q->desc ? "DESC" : "ASC");
    snprintf(sql, len, "SELECT " TXN_COLUMNS ", page.k FROM (");
    arms_sql(sql, len, q, trip_scope, 0);
    strncat(sql, order, len - strlen(sql) - 1);
    strncat(sql, ") page JOIN transactions t ON t.id = page.id" TXN_JOIN_RECONCILED,
            len - strlen(sql) - 1);
    snprintf(order, sizeof order, " ORDER BY page.k %s, t.id %s",
             q->desc ? "DESC" : "ASC", q->desc ? "DESC" : "ASC");
    strncat(sql, order, len - strlen(sql) - 1);
}

/* Where a page ends: how many rows it read (with the extra one that says
 * a next page exists), and the last row's id and sort key. */
struct page_end {
    int64_t n, last_id;
    char key[256];
};

/* Reads the page's rows into w (as text, when w is not NULL) or items. */
static int read_page(ledger_db *db, int64_t me, const struct list_query *q, int trip_scope,
                     struct json_writer *w, cJSON *items, struct page_end *end, ledger_error *err)
{
    char sql[SQL_MAX];
    sqlite3_stmt *st;
    int rc;

    txn_list_sql(sql, sizeof sql, q, trip_scope);
    if ((st = db_stmt(db, sql, err)) == NULL)
        return LEDGER_ERR;
    bind_query(db, st, me, q);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *key;
        cJSON *row;

        if (++end->n > q->limit)
            break;  /* the extra row: there is a next page */
        if (w) {
            txn_row_write(w, st, me);
        } else if ((row = txn_row_json(st, me)) != NULL) {
            cJSON_AddItemToArray(items, row);
        } else {
            db_stmt_done(st);
            return ledger_error_oom(err);
        }
        end->last_id = sqlite3_column_int64(st, 0);
        key = (const char *)sqlite3_column_text(st, sqlite3_column_count(st) - 1);
        snprintf(end->key, sizeof end->key, "%s", key ? key : "");
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        db_error(db, err, "transactions");
    db_stmt_done(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? LEDGER_OK : LEDGER_ERR;
}

/* The page's rows, as a cJSON array or (text) as one cJSON_Raw item of
 * their JSON text written without a tree (txn_row_write). */
static int txn_list(ledger_db *db, int64_t me, const struct ledger_params *params, int text,
                    cJSON **out, ledger_error *err)
{
    struct list_query q;
    struct json_writer w;
    struct page_end end = { 0, 0, "" };
    cJSON *doc = NULL, *items = NULL;
    int64_t total = 0;
    int trip_scope = 0, participant = 1;

    memset(&w, 0, sizeof w);
    if (txn_query_parse(params, &q, err))
        goto fail;
    if (q.trip_all_rows) {
        /* Every row of the trip, for its participants only; anyone else
         * gets an empty list, as if the trip had no rows. */
        if (access_trip(db, me, q.trip_id, &participant, err)) {
            if (err->status != 404)
                goto fail;
            /* No such trip looks like one the caller is not in: empty,
             * so trip ids cannot be probed. */
            ledger_error_clear(err);
            participant = 0;
        }
        trip_scope = 1;
    }
    /* The page's text has room taken once for its rows: grown by
     * doubling from a few kB it is copied at each step (4, 8, then 16 kB
     * of a 32 kB page). */
    if (text && jw_reserve(&w, (size_t)q.limit * PAGE_ROW_BYTES)) {
        ledger_error_oom(err);
        goto fail;
    }
    if (text)
        jw_open(&w, NULL, '[');
    else
        items = cJSON_CreateArray();
    if (participant
        && (count_rows(db, me, &q, trip_scope, &total, err)
            || read_page(db, me, &q, trip_scope, text ? &w : NULL, items, &end, err)))
        goto fail;
    if (text) {
        jw_close(&w, ']');
        if ((items = jw_finish_raw(&w)) == NULL) {
            ledger_error_oom(err);
            goto fail;
        }
    }
    doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "items", items);
    items = NULL;
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddNumberToObject(doc, "limit", (double)q.limit);
    cJSON_AddNumberToObject(doc, "offset", (double)(q.has_cursor ? 0 : q.offset));
    if (end.n > q.limit) {
        char *cur = txn_cursor_encode(&q, end.last_id, end.key);

        cJSON_AddStringToObject(doc, "next_cursor", cur ? cur : "");
        free(cur);
    } else {
        cJSON_AddNullToObject(doc, "next_cursor");
    }
    txn_query_free(&q);
    *out = doc;
    return LEDGER_OK;
fail:
    txn_query_free(&q);
    free(w.t.p);
    cJSON_Delete(items);
    cJSON_Delete(doc);
    return LEDGER_ERR;
}

int ledger_txn_list(ledger_db *db, int64_t me, const struct ledger_params *params,
                    cJSON **out, ledger_error *err)
{
    return txn_list(db, me, params, 0, out, err);
}

int ledger_txn_list_text(ledger_db *db, int64_t me, const struct ledger_params *params,
                         cJSON **out, ledger_error *err)
{
    return txn_list(db, me, params, 1, out, err);
}

/* EXPLAIN QUERY PLAN of the page and count queries the given parameters
 * make, one string per plan line, indented two spaces a level as the tree
 * goes: for the test that fails on a full scan and for the benchmark's
 * report.  Plan node ids are small; a deeper id than PLAN_NODES_MAX would
 * only lose its indent. */
#define PLAN_NODES_MAX 1024
int txn_list_plan(ledger_db *db, int64_t me, const struct ledger_params *params,
                  cJSON **out, ledger_error *err)
{
    struct list_query q;
    char sql[SQL_MAX + 32], body[SQL_MAX];
    cJSON *lines = NULL;
    int pass, rc = LEDGER_ERR;
    int depth[PLAN_NODES_MAX] = { 0 };

    if (txn_query_parse(params, &q, err))
        goto out;
    lines = cJSON_CreateArray();
    /* The count, then the page both ways it may read amount bounds; with a
     * term the search index serves, both again reading it. */
    for (pass = 0; pass < 6; pass++) {
        sqlite3_stmt *st;

        q.amount_by_index = pass % 3 != 1;
        q.terms_by_index = pass >= 3;
        if (pass >= 3 && (q.search.n == 0 || q.trip_all_rows))
            break;
        if (pass % 3 == 0)
            count_sql(body, sizeof body, &q, q.trip_all_rows);
        else if (pass % 3 == 1 || q.has_min || q.has_max)
            txn_list_sql(body, sizeof body, &q, q.trip_all_rows);
        else
            continue;
        snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", body);
        if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
            db_error(db, err, "explain");
            goto out;
        }
        bind_query(db, st, me, &q);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1);
            int d = parent > 0 && parent < PLAN_NODES_MAX ? depth[parent] + 1 : 0;
            char line[300];

            if (id > 0 && id < PLAN_NODES_MAX)
                depth[id] = d;
            snprintf(line, sizeof line, "%*s%s", 2 * d, "", (const char *)sqlite3_column_text(st, 3));
            cJSON_AddItemToArray(lines, cJSON_CreateString(line));
        }
        sqlite3_finalize(st);
    }
    *out = lines;
    lines = NULL;
    rc = LEDGER_OK;
out:
    cJSON_Delete(lines);
    txn_query_free(&q);
    return rc;
}
