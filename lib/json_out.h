/* Writing an answer, private to libledger: JSON text written item by item
 * (json_print.c), a report's sink (json_sink.c) and result rows as JSON
 * (rows.c). */
#ifndef LEDGER_JSON_OUT_H
#define LEDGER_JSON_OUT_H

#include "db.h"

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

/* Replaces *list ({items, total}) by its item whose field key is the
 * number id (text NULL) or the string text, so that a resource's GET one
 * answers exactly what its list does; *list NULL when none is.  Frees the
 * list either way. */
void list_pick(cJSON **list, const char *key, int64_t id, const char *text);

#endif /* LEDGER_JSON_OUT_H */
