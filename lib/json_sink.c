/*
 * A JSON document written item by item to one of two places: a cJSON tree
 * (for library callers that read it) or JSON text (json_print.c's writer,
 * for ledger-fcgi, which only prints it).  A report describes its items
 * once, to a sink, and both give the same text once printed: the rows of
 * a transaction page (txn_row.c) and the monthly report (analytics.c),
 * where building, printing and freeing a tree of a thousand items or more
 * took longer than the SQL (t/0015 holds the two forms to the same bytes).
 */
#include "db.h"
#include "json_out.h"

/* The item goes into the container being filled; the first is the root. */
static void put_node(struct json_sink *s, const char *k, cJSON *item)
{
    if (s->depth == 0)
        s->at[s->depth++] = item;
    else if (k)
        cJSON_AddItemToObjectCS(s->at[s->depth - 1], k, item);
    else
        cJSON_AddItemToArray(s->at[s->depth - 1], item);
}

void sink_open(struct json_sink *s, const char *k, int array)
{
    cJSON *n;

    if (s->w) {
        jw_open(s->w, k, array ? '[' : '{');
        return;
    }
    n = array ? cJSON_CreateArray() : cJSON_CreateObject();
    put_node(s, k, n);
    if (s->at[s->depth - 1] != n && s->depth < JSON_SINK_DEPTH)
        s->at[s->depth++] = n;
}

void sink_close(struct json_sink *s, int array)
{
    if (s->w)
        jw_close(s->w, array ? ']' : '}');
    else if (s->depth > 1)
        s->depth--;
}

void sink_text(struct json_sink *s, const char *k, const char *v)
{
    if (s->w)
        jw_string(s->w, k, v);
    else
        put_node(s, k, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

void sink_raw(struct json_sink *s, const char *k, const char *v)
{
    if (s->w)
        jw_raw(s->w, k, v);
    else
        put_node(s, k, v ? cJSON_CreateRaw(v) : cJSON_CreateNull());
}

/* As a number item of the tree prints (an id, a count: whole numbers
 * below 2^53, so the double is exact), digit by digit rather than by
 * snprintf, which costs more on every id and count of a page. */
void sink_int(struct json_sink *s, const char *k, int64_t v)
{
    if (s->w)
        jw_number(s->w, k, (double)v);
    else
        put_node(s, k, cJSON_CreateNumber((double)v));
}

void sink_bool(struct json_sink *s, const char *k, int v)
{
    if (s->w)
        jw_raw(s->w, k, v ? "true" : "false");
    else
        put_node(s, k, cJSON_CreateBool(v));
}

void sink_money(struct json_sink *s, const char *k, int64_t cents)
{
    char buf[32];

    sink_raw(s, k, ledger_decimal2_format(cents, buf, sizeof buf));
}

void sink_money_sum(struct json_sink *s, const char *k, money_sum cents)
{
    char buf[48];

    sink_raw(s, k, money_sum_format(cents, buf, sizeof buf));
}

void sink_tree(struct json_sink *s, const char *k, cJSON *item)
{
    put_node(s, k, item);
}
