/* Reading a large JSON body a piece at a time (json.c): the rows of a CSV
 * commit are checked, then written, one chunk at a time, and a tree of all
 * of them would take several times the body. */
#ifndef LEDGER_JSON_IN_H
#define LEDGER_JSON_IN_H

#include <stddef.h>
#include "ledger.h"

/* Where each element of an array is in the text: bytes [at, at + len). */
struct json_slices {
    size_t *at, *len;
    size_t n, cap;
};

/* ledger_json_parse, but the array that is the value of the top-level
 * object's member `member` is left out of the tree (an empty array stands
 * in its place): each of its elements is read as strictly as the rest and
 * dropped, and where it lies is in *slices (the caller frees it with
 * json_slices_free), for ledger_json_parse to read again from the same
 * text.  Any other shape of body is read whole. */
int json_parse_lazy(const char *buf, size_t len, const char *member, cJSON **out,
                    struct json_slices *slices, ledger_error *err);
void json_slices_free(struct json_slices *s);

/* The items of an array, from a tree, or read one at a time from their
 * slices of a text (json_parse_lazy): a large body is never a tree whole.
 * Set array, or text and slices; the rest starts zeroed. */
struct json_items {
    const cJSON *array, *item;  /* the tree's array, and its item number at */
    size_t at;
    const char *text;
    const struct json_slices *slices;
    cJSON *parsed;              /* the item last read from the text */
};
/* Item i (one there is): from the text, it lives until the next is read
 * or json_items_end; NULL (with err) when it cannot be read. */
const cJSON *json_item(struct json_items *it, size_t i, ledger_error *err);
void json_items_end(struct json_items *it);

/* A body whose array member `member` is read an item at a time (a CSV
 * commit's rows, a statement's): body, the tree without it
 * (json_parse_lazy), and items, its n items, read from text, which
 * outlives it.  json_lazy_end frees it all, also after a failed parse. */
struct json_lazy {
    cJSON *body;
    struct json_slices slices;
    struct json_items items;
    size_t n;
};
int json_lazy_parse(const char *text, size_t len, const char *member, struct json_lazy *l,
                    ledger_error *err);
void json_lazy_end(struct json_lazy *l);

#endif
