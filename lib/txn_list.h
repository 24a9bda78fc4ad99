/* The transaction list's query (txn_query.c reads it from the request's
 * parameters; txn_list.c builds its SQL and runs it), private to
 * libledger. */
#ifndef LEDGER_TXN_LIST_H
#define LEDGER_TXN_LIST_H

#include "db.h"
#include "txn.h"

struct sort_key {
    const char *name;
    const char *column;         /* on transactions t */
    const char *shared_column;  /* its copy on shared_rows s */
    int integer;                /* the key binds as an integer */
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

/* Reads and checks GET /api/transactions' parameters into q: a 400 naming
 * the parameter at fault.  q is freed with txn_query_free either way. */
int txn_query_parse(const struct ledger_params *p, struct list_query *q, ledger_error *err);
void txn_query_free(struct list_query *q);
/* The cursor for the page after the row id with sort key key (the caller
 * frees it), or NULL when memory ran out. */
char *txn_cursor_encode(const struct list_query *q, int64_t id, const char *key);

#endif
