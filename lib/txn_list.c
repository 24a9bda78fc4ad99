/*
 * GET /api/transactions: the filtered, sorted, paginated list.
 *
 * The query is assembled from fixed fragments, one per filter present, with
 * named placeholders; array filters bind one JSON array each and test
 * membership with json_each, so the set of SQL texts is bounded and each is
 * prepared once.  A list of one (the hidden transfers, one category) is a
 * plain comparison instead: probing json_each's list for every row was
 * half the cost of counting 15,000 rows.  The caller's rows are two
 * streams: the rows they own, read in order from the (owner_id, <sort
 * column>, id) index, and the rows shared with them through a split.  A
 * compound SELECT merges the two in sort order and stops at the page's
 * end, so a deep page by cursor costs what the first page costs.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "text.h"

#define LIMIT_DEFAULT 50
#define LIMIT_MAX 500
#define SQL_MAX 16384
/* Up to this many rows matching amount bounds, the page sorts them rather
 * than walking the sort order: either way a few thousand index entries. */
#define AMOUNT_INDEX_MAX 2000
/* A search reads the rows the search index gives (txn_search.c) when it
 * gives at most this many: each is a seek into the table, about 0.6 us,
 * against about 0.2 us a row for testing every row the caller owns.  Past
 * that the count tests every row; a term in that many rows is common and
 * its matches turn up soon walking the sort order. */
#define SEARCH_INDEX_MAX 10000
/* The page reads the index's rows and sorts them up to this many; past it
 * a page walks the sort order (see AMOUNT_INDEX_MAX). */
#define SEARCH_PAGE_MAX 2000
/* Up to this many search terms are each a test in the SQL text. */
#define TERMS_INLINE 4

struct sort_key {
    const char *name;
    const char *column;         /* on transactions t */
    const char *shared_column;  /* its copy on shared_rows s */
    int integer;                /* the key binds as an integer */
};

static const struct sort_key sort_keys[] = {
    { "date", "t.date", "s.date", 0 },
    { "amount", "t.amount", "s.amount", 1 },
    { "created_at", "t.created_at", "s.created_at", 0 },
    { "merchant", "t.eff_merchant", "s.merchant", 0 },
    { NULL, NULL, NULL, 0 }
};

/* Everything the request asked for, validated. */
struct list_query {
    const char *date_from, *date_to;
    cJSON *categories, *exclude, *banks, *tags, *types, *terms;
    /* bank_names[] names Manual (statement_id IS NULL); names nothing else. */
    int banks_manual, banks_only_manual;
    int64_t amount_min, amount_max;
    int has_min, has_max;
    /* The page reads amount bounds from the amount index rather than
     * walking the sort order (set from the total: see ledger_txn_list). */
    int amount_by_index;
    /* The search index's query for the terms (txn_search.c; search.n is 0
     * when no term has a trigram); whether the caller's own rows are read
     * from the index (set from its count: see count_rows). */
    struct search_query search;
    int terms_by_index;
    int has_split;  /* 0 all, 1 split only, 2 unsplit only */
    int64_t statement_id, trip_id;
    int trip_all_rows;
    const struct sort_key *sort;
    int desc;
    int64_t limit, offset;
    int has_cursor;
    int64_t cursor_id;
    char cursor_key[256];
    /* For a total over a date range: the first day after date_from's
     * month and the first day of date_to's month; date_edge says which
     * edge month an arm counts (see count_sql). */
    char from_month_end[32], to_month_start[32];
    enum { EDGE_NONE, EDGE_FROM, EDGE_TO } date_edge;
};

static void query_free(struct list_query *q)
{
    cJSON_Delete(q->categories);
    cJSON_Delete(q->exclude);
    cJSON_Delete(q->banks);
    cJSON_Delete(q->tags);
    cJSON_Delete(q->types);
    cJSON_Delete(q->terms);
    search_query_free(&q->search);
}

static int bad(ledger_error *err, const char *field, const char *msg)
{
    return ledger_error_set(err, 400, "invalid_field", field, "%s %s", field, msg);
}

/* The keys param_list reads. */
static const char *const list_keys[] = {
    "categories", "exclude_categories", "bank_names", "tag_ids", "transaction_types",
};

int ledger_param_is_list(const char *key)
{
    size_t i;

    for (i = 0; i < sizeof list_keys / sizeof list_keys[0]; i++)
        if (strcmp(key, list_keys[i]) == 0)
            return 1;
    return 0;
}

/* Every value of key, one of list_keys, as a JSON array of strings (NULL
 * when none). */
static cJSON *param_list(const struct ledger_params *p, const char *key)
{
    cJSON *arr = NULL;
    size_t i;

    for (i = 0; i < p->count; i++) {
        if (strcmp(p->items[i].key, key) != 0 || p->items[i].value[0] == '\0')
            continue;
        if (arr == NULL)
            arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, cJSON_CreateString(p->items[i].value));
    }
    return arr;
}

/* The categories of a filter, folded (rule C).  "uncategorised", the
 * reports' name for no category, becomes '' (as the list's summary keeps
 * none) when none is its own value to select (categories[]), and is
 * dropped from exclude_categories, which never hides a row with none
 * (behaviour rule 1). */
static cJSON *fold_list(cJSON *in, int none_selects)
{
    cJSON *out = cJSON_CreateArray(), *item;
    char slug[LEDGER_CATEGORY_MAX];

    cJSON_ArrayForEach(item, in)
        switch (ledger_category_fold(item->valuestring, slug)) {
        case LEDGER_CATEGORY_EMPTY:
            break;
        case LEDGER_CATEGORY_NONE:
            if (none_selects)
                cJSON_AddItemToArray(out, cJSON_CreateString(""));
            break;
        default:
            cJSON_AddItemToArray(out, cJSON_CreateString(slug));
        }
    cJSON_Delete(in);
    return out;
}

/* Whether a folded categories[] list selects the rows with no category. */
static int selects_none(const cJSON *list)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, list)
        if (item->valuestring[0] == '\0')
            return 1;
    return 0;
}

/* A search term, lowered (utf8_lower) for ledger_contains (db.c). */
static void add_term(struct list_query *q, const char *s, size_t n)
{
    char *term = malloc(n + 1);

    if (term == NULL)
        return;
    memcpy(term, s, n);
    term[n] = '\0';
    utf8_lower(term);
    if (q->terms == NULL)
        q->terms = cJSON_CreateArray();
    cJSON_AddItemToArray(q->terms, cJSON_CreateString(term));
    free(term);
}

static void tighten(struct list_query *q, int is_min, int64_t v)
{
    if (is_min) {
        if (!q->has_min || v > q->amount_min)
            q->amount_min = v;
        q->has_min = 1;
    } else {
        if (!q->has_max || v < q->amount_max)
            q->amount_max = v;
        q->has_max = 1;
    }
}

/* The query bar: >N, >=N, <N, <=N and N-M bound the amount; every other
 * word must appear in the description or a merchant. */
static void parse_q(struct list_query *q, const char *s)
{
    while (*s) {
        const char *w;
        size_t n;
        char word[64];
        int64_t a, b;

        while (isspace((unsigned char)*s))
            s++;
        w = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        n = (size_t)(s - w);
        if (n == 0)
            break;
        if (n < sizeof word) {
            const char *dash;

            memcpy(word, w, n);
            word[n] = '\0';
            if (word[0] == '>' && word[1] == '=' && ledger_decimal2_parse(word + 2, &a) == 0) {
                tighten(q, 1, a);
                continue;
            }
            if (word[0] == '<' && word[1] == '=' && ledger_decimal2_parse(word + 2, &a) == 0) {
                tighten(q, 0, a);
                continue;
            }
            if (word[0] == '>' && ledger_decimal2_parse(word + 1, &a) == 0) {
                tighten(q, 1, a + 1);
                continue;
            }
            if (word[0] == '<' && ledger_decimal2_parse(word + 1, &a) == 0) {
                tighten(q, 0, a - 1);
                continue;
            }
            dash = strchr(word + 1, '-');
            if (dash && word[0] != '-') {
                char lo[64];

                memcpy(lo, word, (size_t)(dash - word));
                lo[dash - word] = '\0';
                if (ledger_decimal2_parse(lo, &a) == 0 && ledger_decimal2_parse(dash + 1, &b) == 0) {
                    tighten(q, 1, a < b ? a : b);
                    tighten(q, 0, a < b ? b : a);
                    continue;
                }
            }
        }
        add_term(q, w, n);
    }
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An Imported time as every row has it: YYYY-MM-DDTHH:MM:SSZ (schema
 * 0002's default; a manual row reconciled shows its own, written so). */
static int created_ok(const char *key)
{
    char day[11];
    int i;

    if (strlen(key) != 20 || key[10] != 'T' || key[13] != ':' || key[16] != ':' || key[19] != 'Z')
        return 0;
    for (i = 11; i < 19; i++)
        if (i != 13 && i != 16 && (key[i] < '0' || key[i] > '9'))
            return 0;
    memcpy(day, key, 10);
    day[10] = '\0';
    return valid_date(day) && (key[11] - '0') * 10 + (key[12] - '0') < 24
           && (key[14] - '0') * 10 + (key[15] - '0') < 60 && (key[17] - '0') * 10 + (key[18] - '0') < 61;
}

/* Whether key can be a cursor's key for sort: a key of another type (an
 * amount that is no number) gave a silently empty or wrong page. */
static int cursor_key_ok(const struct sort_key *sort, const char *key)
{
    int64_t v;

    if (sort->integer)
        return parse_whole(key, 0, INT64_MAX, &v) == 0;
    if (strcmp(sort->name, "date") == 0)
        return valid_date(key);
    if (strcmp(sort->name, "created_at") == 0)
        return created_ok(key);
    return 1;
}

/* Cursors are opaque to clients: hex of "sort|order|id|key".  A cursor
 * fixes its sort and order: sort and order given beside it must be its
 * own (else 400), and left out they are taken from it, so following
 * next_cursor alone pages on as the first page was sorted. */
static int decode_cursor(struct list_query *q, const char *hex, int has_sort, int has_order,
                         ledger_error *err)
{
    char text[600], *p, *field[3];
    size_t n = strlen(hex), i;
    int64_t id;
    int k, desc;

    if (n == 0 || n % 2 || n / 2 >= sizeof text)
        return bad(err, "cursor", "is not a cursor this list gave out");
    for (i = 0; i < n / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return bad(err, "cursor", "is not a cursor this list gave out");
        text[i] = (char)(hi * 16 + lo);
    }
    text[n / 2] = '\0';
    /* sort, order and id end at a '|'; the key is the rest. */
    for (p = text, k = 0; k < 3; k++) {
        field[k] = p;
        if ((p = strchr(p, '|')) == NULL)
            return bad(err, "cursor", "is not a cursor this list gave out");
        *p++ = '\0';
    }
    for (k = 0; sort_keys[k].name && strcmp(sort_keys[k].name, field[0]) != 0; k++)
        ;
    desc = strcmp(field[1], "desc") == 0;
    if (sort_keys[k].name == NULL || (!desc && strcmp(field[1], "asc") != 0)
        || parse_whole(field[2], 1, INT64_C(1) << 53, &id) || !cursor_key_ok(&sort_keys[k], p))
        return bad(err, "cursor", "is not a cursor this list gave out");
    if ((has_sort && q->sort != &sort_keys[k]) || (has_order && q->desc != desc))
        return bad(err, "cursor", "belongs to another sort order");
    q->sort = &sort_keys[k];
    q->desc = desc;
    q->cursor_id = id;
    snprintf(q->cursor_key, sizeof q->cursor_key, "%s", p);
    q->has_cursor = 1;
    return LEDGER_OK;
}

static char *encode_cursor(const struct list_query *q, int64_t id, const char *key)
{
    char text[600];
    char *hex;
    size_t n, i;

    n = (size_t)snprintf(text, sizeof text, "%s|%s|%lld|%s", q->sort->name,
                         q->desc ? "desc" : "asc", (long long)id, key);
    if (n >= sizeof text)
        n = sizeof text - 1;
    hex = malloc(2 * n + 1);
    if (hex == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)text[i]);
    hex[2 * n] = '\0';
    return hex;
}

static int parse_query(const struct ledger_params *p, struct list_query *q, ledger_error *err)
{
    const char *v;
    cJSON *item;
    size_t i;

    memset(q, 0, sizeof *q);
    q->sort = &sort_keys[0];
    q->desc = 1;
    q->limit = LIMIT_DEFAULT;

    if ((q->date_from = param_get(p, "date_from")) && !valid_date(q->date_from))
        return bad(err, "date_from", "must be a date YYYY-MM-DD");
    if ((q->date_to = param_get(p, "date_to")) && !valid_date(q->date_to))
        return bad(err, "date_to", "must be a date YYYY-MM-DD");
    /* Day 32 of date_from's month: after each of its days and before the
     * next month's, as text (the first of the next month was "10000-01-01"
     * for December 9999, which sorts before 9999's dates). */
    if (q->date_from)
        snprintf(q->from_month_end, sizeof q->from_month_end, "%.7s-32", q->date_from);
    if (q->date_to)
        snprintf(q->to_month_start, sizeof q->to_month_start, "%.7s-01", q->date_to);
    if ((v = param_get(p, "amount_min"))) {
        if (ledger_decimal2_parse(v, &q->amount_min))
            return bad(err, "amount_min",
                       "must be an amount of at most 10000000000000 with at most 2 decimal places");
        q->has_min = 1;
    }
    if ((v = param_get(p, "amount_max"))) {
        if (ledger_decimal2_parse(v, &q->amount_max))
            return bad(err, "amount_max",
                       "must be an amount of at most 10000000000000 with at most 2 decimal places");
        q->has_max = 1;
    }
    if ((v = param_get(p, "has_split"))) {
        if (strcmp(v, "all") == 0)
            q->has_split = 0;
        else if (strcmp(v, "split") == 0)
            q->has_split = 1;
        else if (strcmp(v, "unsplit") == 0)
            q->has_split = 2;
        else
            return bad(err, "has_split", "must be all, split or unsplit");
    }
    if ((v = param_get(p, "statement_id")) && parse_whole(v, 1, INT64_C(1) << 53, &q->statement_id))
        return bad(err, "statement_id", "must be a positive integer id");
    if ((v = param_get(p, "trip_id")) && parse_whole(v, 1, INT64_C(1) << 53, &q->trip_id))
        return bad(err, "trip_id", "must be a positive integer id");
    if ((v = param_get(p, "trip_all_rows"))) {
        if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
            q->trip_all_rows = 1;
        else if (strcmp(v, "0") != 0 && strcmp(v, "false") != 0)
            return bad(err, "trip_all_rows", "must be 1 or 0 (true or false)");
    }
    if (q->trip_all_rows && !q->trip_id)
        return bad(err, "trip_all_rows", "needs a trip_id");
    if ((v = param_get(p, "limit")) && parse_whole(v, 1, LIMIT_MAX, &q->limit))
        return bad(err, "limit", "must be a whole number from 1 to 500");
    if ((v = param_get(p, "offset")) && parse_whole(v, 0, INT64_C(1) << 40, &q->offset))
        return bad(err, "offset", "must be a whole number, 0 or more");
    if ((v = param_get(p, "sort"))) {
        for (i = 0; sort_keys[i].name && strcmp(sort_keys[i].name, v) != 0; i++)
            ;
        if (sort_keys[i].name == NULL)
            return bad(err, "sort", "must be date, amount, created_at or merchant");
        q->sort = &sort_keys[i];
    }
    if ((v = param_get(p, "order"))) {
        if (strcmp(v, "asc") == 0)
            q->desc = 0;
        else if (strcmp(v, "desc") != 0)
            return bad(err, "order", "must be asc or desc");
    }
    if ((v = param_get(p, "cursor")) && *v
        && decode_cursor(q, v, param_get(p, "sort") != NULL, param_get(p, "order") != NULL, err))
        return LEDGER_ERR;

    q->types = param_list(p, "transaction_types");
    cJSON_ArrayForEach(item, q->types) {
        for (i = 0; txn_types[i] && strcmp(txn_types[i], item->valuestring) != 0; i++)
            ;
        if (txn_types[i] == NULL)
            return bad(err, "transaction_types",
                       "must be debit, credit, fee, interest, payment or refund");
    }
    if ((q->tags = param_list(p, "tag_ids"))) {
        cJSON *ids = cJSON_CreateArray();

        cJSON_ArrayForEach(item, q->tags) {
            int64_t id;

            if (parse_whole(item->valuestring, 1, INT64_C(1) << 53, &id)) {
                cJSON_Delete(ids);
                return bad(err, "tag_ids", "must be positive integer ids");
            }
            cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)id));
        }
        cJSON_Delete(q->tags);
        q->tags = ids;
    }
    if ((q->banks = param_list(p, "bank_names"))) {
        q->banks_only_manual = 1;
        cJSON_ArrayForEach(item, q->banks) {
            if (strcmp(item->valuestring, LEDGER_BANK_MANUAL) == 0)
                q->banks_manual = 1;
            else
                q->banks_only_manual = 0;
        }
        q->banks_only_manual &= q->banks_manual;
    }
    /* A value that folds to nothing (" ", "--") names no category: it is
     * ignored like an empty one, not a filter nothing passes. */
    if ((q->categories = param_list(p, "categories"))
        && cJSON_GetArraySize(q->categories = fold_list(q->categories, 1)) == 0) {
        cJSON_Delete(q->categories);
        q->categories = NULL;
    }
    /* Transfers are hidden by default, except in one statement's view; an
     * explicit exclude_categories (even empty) replaces the default. */
    if (param_has(p, "exclude_categories"))
        q->exclude = param_list(p, "exclude_categories");
    else if (!q->statement_id) {
        q->exclude = cJSON_CreateArray();
        cJSON_AddItemToArray(q->exclude, cJSON_CreateString("transfers"));
    }
    if (q->exclude) {
        cJSON *kept = cJSON_CreateArray(), *c;

        q->exclude = fold_list(q->exclude, 0);
        /* A category the caller asked for is never hidden. */
        cJSON_ArrayForEach(item, q->exclude) {
            int asked = 0;

            cJSON_ArrayForEach(c, q->categories)
                asked |= strcmp(c->valuestring, item->valuestring) == 0;
            if (!asked)
                cJSON_AddItemToArray(kept, cJSON_CreateString(item->valuestring));
        }
        cJSON_Delete(q->exclude);
        q->exclude = cJSON_GetArraySize(kept) ? kept : (cJSON_Delete(kept), NULL);
    }
    if ((v = param_get(p, "search")) && *v)
        add_term(q, v, strlen(v));
    if ((v = param_get(p, "q")))
        parse_q(q, v);
    if (q->terms)
        search_query_init(&q->search, q->terms);
    return LEDGER_OK;
}

/* Whether a list filter has exactly one value (bound as <name>_1). */
static int is_one(const cJSON *list)
{
    return cJSON_GetArraySize(list) == 1;
}

/* Appends the filter conditions on t, each with its own placeholders; the
 * date and amount are read from keys ("t" or "s"), the table whose indexes
 * the arm walks, and the searched texts from shared_rows' copies in the
 * shared arm (the index shared_rows_search holds them, schema 0017). */
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
     * LIST SUBQUERY), not a subquery per row: that cost 100 ms on 50,000
     * rows.  The list of statements is every statement of those banks,
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
     * row (40% of a one-term search's time, 60% of a two-word one's). */
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
 * shared_rows indexes (schema 0006) that copy the sort keys; or, for
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
 * split state and Manual alone, which visible_count (schemas 0005, 0009)
 * answers by month, and a date range spans more than one month. */
static int counted_by_summary(const struct list_query *q, int trip_scope)
{
    if (trip_scope || (q->banks && !q->banks_only_manual) || q->tags || q->terms || q->has_min
        || q->has_max || q->statement_id || q->trip_id)
        return 0;
    return !q->date_from || !q->date_to || strncmp(q->date_from, q->date_to, 7) < 0;
}

/* Each arm with COUNT(*), added up. */
static void count_arms_sql(char *sql, size_t len, const struct list_query *q, int trip_scope)
{
    strncat(sql, "(SELECT (", len - strlen(sql) - 1);
    if (trip_scope) {
        build_arm(sql, len, q, ARM_TRIP, 1);
    } else {
        build_arm(sql, len, q, ARM_OWN, 1);
        if (has_shared_arm(q)) {
            strncat(sql, ") + (", len - strlen(sql) - 1);
            build_arm(sql, len, q, ARM_SHARED, 1);
        }
    }
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

        /* Without a date bound, every month: visible_total (schema 0019)
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
    if (trip_scope) {
        build_arm(sql, len, q, ARM_TRIP, 0);
    } else {
        build_arm(sql, len, q, ARM_OWN, 0);
        if (has_shared_arm(q)) {
            strncat(sql, " UNION ALL ", len - strlen(sql) - 1);
            build_arm(sql, len, q, ARM_SHARED, 0);
        }
    }
    strncat(sql, order, len - strlen(sql) - 1);
    strncat(sql, ") page JOIN transactions t ON t.id = page.id" TXN_JOIN_RECONCILED,
            len - strlen(sql) - 1);
    snprintf(order, sizeof order, " ORDER BY page.k %s, t.id %s",
             q->desc ? "DESC" : "ASC", q->desc ? "DESC" : "ASC");
    strncat(sql, order, len - strlen(sql) - 1);
}

/* The page's rows, as a cJSON array or (text) as one cJSON_Raw item of
 * their JSON text written without a tree (txn_row_write). */
static int txn_list(ledger_db *db, int64_t me, const struct ledger_params *params, int text,
                    cJSON **out, ledger_error *err)
{
    struct list_query q;
    char sql[SQL_MAX];
    sqlite3_stmt *st = NULL;
    struct json_writer w;
    cJSON *doc = NULL, *items = NULL;
    int64_t total = 0, n = 0, last_id = 0;
    char last_key[256] = "";
    int rc, trip_scope = 0, participant = 1;

    memset(&w, 0, sizeof w);
    if (parse_query(params, &q, err))
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
    if (text)
        jw_open(&w, NULL, '[');
    else
        items = cJSON_CreateArray();
    if (participant) {
        if (count_rows(db, me, &q, trip_scope, &total, err))
            goto fail;
        txn_list_sql(sql, sizeof sql, &q, trip_scope);
        if ((st = db_stmt(db, sql, err)) == NULL)
            goto fail;
        bind_query(db, st, me, &q);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            cJSON *row;

            if (++n > q.limit)
                break;  /* the extra row: there is a next page */
            if (text) {
                txn_row_write(&w, st, me);
            } else if ((row = txn_row_json(st, me)) != NULL) {
                cJSON_AddItemToArray(items, row);
            } else {
                ledger_error_set(err, 500, "internal", NULL, "out of memory");
                goto fail;
            }
            last_id = sqlite3_column_int64(st, 0);
            snprintf(last_key, sizeof last_key, "%s",
                     sqlite3_column_text(st, sqlite3_column_count(st) - 1)
                         ? (const char *)sqlite3_column_text(st, sqlite3_column_count(st) - 1) : "");
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            db_error(db, err, "transactions");
            goto fail;
        }
        db_stmt_done(st);
        st = NULL;
    }
    if (text) {
        jw_close(&w, ']');
        if ((items = jw_finish_raw(&w)) == NULL) {
            ledger_error_set(err, 500, "internal", NULL, "out of memory");
            goto fail;
        }
    }
    doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "items", items);
    items = NULL;
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddNumberToObject(doc, "limit", (double)q.limit);
    cJSON_AddNumberToObject(doc, "offset", (double)(q.has_cursor ? 0 : q.offset));
    if (n > q.limit) {
        char *cur = encode_cursor(&q, last_id, last_key);

        cJSON_AddStringToObject(doc, "next_cursor", cur ? cur : "");
        free(cur);
    } else {
        cJSON_AddNullToObject(doc, "next_cursor");
    }
    query_free(&q);
    *out = doc;
    return LEDGER_OK;
fail:
    db_stmt_done(st);
    query_free(&q);
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

    if (parse_query(params, &q, err))
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
    query_free(&q);
    return rc;
}
