/* Reading a request, private to libledger: a JSON body's fields, the
 * named query parameters and a list's paging (fields.c). */
#ifndef LEDGER_FIELDS_H
#define LEDGER_FIELDS_H

#include "db.h"

/* ---- reading fields of a JSON request body (fields.c) ----------------------
 * Each returns LEDGER_OK, or LEDGER_ERR with a 400 invalid_field naming the
 * field.  *present says whether the key was there at all (NULL: don't care);
 * a JSON null counts as present with the value NULL / unset. */

/* The body must be an object: else 400 invalid_json. */
int field_require_object(const cJSON *body, ledger_error *err);
/* A string of 1..maxlen bytes after trimming spaces (or null when nullable).
 * *out points into the document. */
int field_text(const cJSON *obj, const char *name, int required, int nullable,
               size_t maxlen, const char **out, int *present, ledger_error *err);
/* A color "#rgb" or "#rrggbb" (or null). */
int field_color(const cJSON *obj, const char *name, const char **out, int *present,
                ledger_error *err);

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
/* An offset-paged list's {total, limit, offset, next_cursor} on doc, n its
 * page's items: next_cursor the next page's offset as text, null at the
 * end. */
void page_footer(cJSON *doc, const struct page *p, int64_t n, int64_t total);

#endif /* LEDGER_FIELDS_H */
