/*
 * GET /api/transactions' parameters, read and checked into a struct
 * list_query for txn_list.c: the filters, the sort and the page, with the
 * cursor that carries a page's position (hex of "sort|order|id|key") and
 * the query bar's words (amount bounds and search terms).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "text.h"
#include "txn_list.h"

#define LIMIT_DEFAULT 50

static const struct sort_key sort_keys[] = {
    { "date", "t.date", "s.date", 0 },
    { "amount", "t.amount", "s.amount", 1 },
    { "created_at", "t.created_at", "s.created_at", 0 },
    { "merchant", "t.eff_merchant", "s.merchant", 0 },
    { NULL, NULL, NULL, 0 }
};

void txn_query_free(struct list_query *q)
{
    cJSON_Delete(q->categories);
    cJSON_Delete(q->exclude);
    cJSON_Delete(q->banks);
    cJSON_Delete(q->tags);
    cJSON_Delete(q->types);
    cJSON_Delete(q->terms);
    search_query_free(&q->search);
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

/* A search term, lowered (utf8_lower) for ledger_contains (db_func.c). */
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

/* An Imported time as every row has it: YYYY-MM-DDTHH:MM:SSZ
 * (transactions.created_at's default; a manual row reconciled shows its own, written so). */
static int created_ok(const char *key)
{
    char day[11];
    int i;

    if (strlen(key) != 20 || key[10] != 'T' || key[13] != ':' || key[16] != ':' || key[19] != 'Z')
        return 0;
    for (i = 11; i < 19; i++)
        if (i != 13 && i != 16 && !ascii_digit(key[i]))
            return 0;
    memcpy(day, key, 10);
    day[10] = '\0';
    return valid_date(day) && (key[11] - '0') * 10 + (key[12] - '0') < 24
           && (key[14] - '0') * 10 + (key[15] - '0') < 60 && (key[17] - '0') * 10 + (key[18] - '0') < 61;
}

/* Whether key can be a cursor's key for sort: a key of another type (an
 * amount that is no number) would give a silently empty or wrong page. */
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
        return error_field(err, "cursor", "cursor is not a cursor this list gave out");
    for (i = 0; i < n / 2; i++) {
        int hi = ledger_hex_digit(hex[2 * i]), lo = ledger_hex_digit(hex[2 * i + 1]);

        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            return error_field(err, "cursor", "cursor is not a cursor this list gave out");
        text[i] = (char)(hi * 16 + lo);
    }
    text[n / 2] = '\0';
    /* sort, order and id end at a '|'; the key is the rest. */
    for (p = text, k = 0; k < 3; k++) {
        field[k] = p;
        if ((p = strchr(p, '|')) == NULL)
            return error_field(err, "cursor", "cursor is not a cursor this list gave out");
        *p++ = '\0';
    }
    for (k = 0; sort_keys[k].name && strcmp(sort_keys[k].name, field[0]) != 0; k++)
        ;
    desc = strcmp(field[1], "desc") == 0;
    if (sort_keys[k].name == NULL || (!desc && strcmp(field[1], "asc") != 0)
        || parse_whole(field[2], 1, INT64_C(1) << 53, &id) || !cursor_key_ok(&sort_keys[k], p))
        return error_field(err, "cursor", "cursor is not a cursor this list gave out");
    if ((has_sort && q->sort != &sort_keys[k]) || (has_order && q->desc != desc))
        return error_field(err, "cursor", "cursor belongs to another sort order");
    q->sort = &sort_keys[k];
    q->desc = desc;
    q->cursor_id = id;
    snprintf(q->cursor_key, sizeof q->cursor_key, "%s", p);
    q->has_cursor = 1;
    return LEDGER_OK;
}

char *txn_cursor_encode(const struct list_query *q, int64_t id, const char *key)
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

int txn_query_parse(const struct ledger_params *p, struct list_query *q, ledger_error *err)
{
    struct page page;
    const char *v;
    cJSON *item;
    size_t i;

    memset(q, 0, sizeof *q);
    q->sort = &sort_keys[0];
    q->desc = 1;

    if ((q->date_from = param_get(p, "date_from")) && !valid_date(q->date_from))
        return error_field(err, "date_from", "date_from must be a date YYYY-MM-DD");
    if ((q->date_to = param_get(p, "date_to")) && !valid_date(q->date_to))
        return error_field(err, "date_to", "date_to must be a date YYYY-MM-DD");
    /* Day 32 of date_from's month: after each of its days and before the
     * next month's, as text (the first of the next month is "10000-01-01"
     * for December 9999, which sorts before 9999's dates). */
    if (q->date_from)
        snprintf(q->from_month_end, sizeof q->from_month_end, "%.7s-32", q->date_from);
    if (q->date_to)
        snprintf(q->to_month_start, sizeof q->to_month_start, "%.7s-01", q->date_to);
    if ((v = param_get(p, "amount_min"))) {
        if (ledger_decimal2_parse(v, &q->amount_min))
            return error_field(err, "amount_min", "amount_min must be an amount of at most"
                               " 10000000000000 with at most 2 decimal places");
        q->has_min = 1;
    }
    if ((v = param_get(p, "amount_max"))) {
        if (ledger_decimal2_parse(v, &q->amount_max))
            return error_field(err, "amount_max", "amount_max must be an amount of at most"
                               " 10000000000000 with at most 2 decimal places");
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
            return error_field(err, "has_split", "has_split must be all, split or unsplit");
    }
    if ((v = param_get(p, "statement_id")) && parse_whole(v, 1, INT64_C(1) << 53, &q->statement_id))
        return error_field(err, "statement_id", "statement_id must be a positive integer id");
    if ((v = param_get(p, "trip_id")) && parse_whole(v, 1, INT64_C(1) << 53, &q->trip_id))
        return error_field(err, "trip_id", "trip_id must be a positive integer id");
    if ((v = param_get(p, "trip_all_rows"))) {
        if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
            q->trip_all_rows = 1;
        else if (strcmp(v, "0") != 0 && strcmp(v, "false") != 0)
            return error_field(err, "trip_all_rows",
                               "trip_all_rows must be 1 or 0 (true or false)");
    }
    if (q->trip_all_rows && !q->trip_id)
        return error_field(err, "trip_all_rows", "trip_all_rows needs a trip_id");
    if (page_parse(p, LIMIT_DEFAULT, &page, err))
        return LEDGER_ERR;
    q->limit = page.limit;
    q->offset = page.offset;
    if ((v = param_get(p, "sort"))) {
        for (i = 0; sort_keys[i].name && strcmp(sort_keys[i].name, v) != 0; i++)
            ;
        if (sort_keys[i].name == NULL)
            return error_field(err, "sort", "sort must be date, amount, created_at or merchant");
        q->sort = &sort_keys[i];
    }
    if ((v = param_get(p, "order"))) {
        if (strcmp(v, "asc") == 0)
            q->desc = 0;
        else if (strcmp(v, "desc") != 0)
            return error_field(err, "order", "order must be asc or desc");
    }
    if ((v = param_get(p, "cursor")) && *v
        && decode_cursor(q, v, param_get(p, "sort") != NULL, param_get(p, "order") != NULL, err))
        return LEDGER_ERR;

    q->types = param_list(p, "transaction_types");
    cJSON_ArrayForEach(item, q->types) {
        for (i = 0; txn_types[i] && strcmp(txn_types[i], item->valuestring) != 0; i++)
            ;
        if (txn_types[i] == NULL)
            return error_field(err, "transaction_types", "transaction_types must be debit, credit,"
                               " fee, interest, payment or refund");
    }
    if ((q->tags = param_list(p, "tag_ids"))) {
        cJSON *ids = cJSON_CreateArray();

        cJSON_ArrayForEach(item, q->tags) {
            int64_t id;

            if (parse_whole(item->valuestring, 1, INT64_C(1) << 53, &id)) {
                cJSON_Delete(ids);
                return error_field(err, "tag_ids", "tag_ids must be positive integer ids");
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
