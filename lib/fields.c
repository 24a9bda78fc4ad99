/* Reading and checking the fields of JSON request bodies.  Unknown fields
 * are ignored; a field of the wrong type is a 400 that names it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "text.h"

int field_require_object(const cJSON *body, ledger_error *err)
{
    if (!cJSON_IsObject(body))
        return ledger_error_set(err, 400, "invalid_json", NULL,
                                "the body must be a JSON object");
    return LEDGER_OK;
}

int field_text(const cJSON *obj, const char *name, int required, int nullable,
               size_t maxlen, const char **out, int *present, ledger_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    const char *s;
    size_t n;

    if (present)
        *present = item != NULL;
    *out = NULL;
    if (item == NULL) {
        if (required)
            return error_field(err, name, "%s is required", name);
        return LEDGER_OK;
    }
    /* null is an answer only where the field can be null: elsewhere a
     * present null would reach the caller as a missing value it was told
     * is there (*present). */
    if (cJSON_IsNull(item)) {
        if (!nullable)
            return error_field(err, name, "%s cannot be null", name);
        return LEDGER_OK;
    }
    if (!cJSON_IsString(item))
        return error_field(err, name, "%s must be a string", name);
    s = item->valuestring;
    /* Leading and trailing spaces are never meaningful in a name; the
     * document owns the text, so trim it in place. */
    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    ((char *)s)[n] = '\0';
    if (n == 0)
        return error_field(err, name, "%s must not be empty", name);
    if (n > maxlen)
        return error_field(err, name, "%s must be at most %zu bytes", name, maxlen);
    *out = s;
    return LEDGER_OK;
}

int field_color(const cJSON *obj, const char *name, const char **out, int *present,
                ledger_error *err)
{
    size_t n, i;

    if (field_text(obj, name, 0, 1, 7, out, present, err))
        return error_field(err, name, "%s must be a color such as \"#1e90ff\"", name);
    if (*out == NULL)
        return LEDGER_OK;
    n = strlen(*out);
    if ((*out)[0] != '#' || (n != 4 && n != 7))
        goto bad;
    for (i = 1; i < n; i++)
        if (ledger_hex_digit((unsigned char)(*out)[i]) < 0)
            goto bad;
    return LEDGER_OK;
bad:
    return error_field(err, name, "%s must be a color such as \"#1e90ff\"", name);
}

int valid_date(const char *s)
{
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, m, d, i, leap;

    for (i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !ascii_digit(s[i]))
            return 0;
    if (s[10] != '\0')
        return 0;
    y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    m = (s[5] - '0') * 10 + (s[6] - '0');
    d = (s[8] - '0') * 10 + (s[9] - '0');
    if (y < 1900 || m < 1 || m > 12 || d < 1)
        return 0;
    leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= mdays[m - 1] + (m == 2 && leap);
}

static int read_date(const cJSON *obj, const char *name, int required, int nullable,
                     const char **out, int *present, ledger_error *err)
{
    if (field_text(obj, name, required, nullable, 10, out, present, err)
        || (*out && !valid_date(*out)))
        return error_field(err, name,
                           "%s must be a date YYYY-MM-DD%s", name, nullable ? " or null" : "");
    return LEDGER_OK;
}

int field_date(const cJSON *obj, const char *name, int required, const char **out,
               int *present, ledger_error *err)
{
    return read_date(obj, name, required, 0, out, present, err);
}

int field_date_or_null(const cJSON *obj, const char *name, const char **out, int *present,
                       ledger_error *err)
{
    return read_date(obj, name, 0, 1, out, present, err);
}

int field_money(const cJSON *obj, const char *name, int required, int nullable,
                int64_t *out, int *set, int *present, ledger_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);

    if (present)
        *present = item != NULL;
    *set = 0;
    if (item == NULL || (cJSON_IsNull(item) && nullable)) {
        if (required)
            return error_field(err, name, "%s is required", name);
        return LEDGER_OK;
    }
    if (ledger_money_from_json(item, name, out, err))
        return LEDGER_ERR;
    *set = 1;
    return LEDGER_OK;
}

int json_id(const cJSON *item, int64_t *out)
{
    const char *s;
    int64_t v = 0;

    if (!cJSON_IsNumber(item))
        return LEDGER_ERR;
    if (item->valuestring == NULL) {
        if (item->valuedouble < 1 || item->valuedouble > 9e15
            || item->valuedouble != (double)(int64_t)item->valuedouble)
            return LEDGER_ERR;
        *out = (int64_t)item->valuedouble;
        return LEDGER_OK;
    }
    /* Digits only: "1e3" or "7.0" is not an id. */
    for (s = item->valuestring; *s; s++) {
        if (!ascii_digit(*s) || v > INT64_C(100000000000000))
            return LEDGER_ERR;
        v = v * 10 + (*s - '0');
    }
    if (v <= 0)
        return LEDGER_ERR;
    *out = v;
    return LEDGER_OK;
}

int field_id(const cJSON *obj, const char *name, int required, int nullable,
             int64_t *out, int *present, ledger_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);

    if (present)
        *present = item != NULL;
    *out = 0;
    if (item == NULL || (cJSON_IsNull(item) && nullable)) {
        if (required && item == NULL)
            return error_field(err, name, "%s is required", name);
        return LEDGER_OK;
    }
    if (json_id(item, out))
        return error_field(err, name, "%s must be a positive integer id", name);
    return LEDGER_OK;
}

int field_enum(const cJSON *obj, const char *name, const char *const *allowed,
               int nullable, const char **out, int *present, ledger_error *err)
{
    char list[256];
    size_t used = 0;
    int i;

    if (field_text(obj, name, 0, nullable, 64, out, present, err))
        goto bad;
    if (*out == NULL) {
        if (present && *present && !nullable)
            goto bad;
        return LEDGER_OK;
    }
    for (i = 0; allowed[i]; i++)
        if (strcmp(*out, allowed[i]) == 0)
            return LEDGER_OK;
bad:
    list[0] = '\0';
    for (i = 0; allowed[i] && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);

        if (w > 0)
            used += (size_t)w;
    }
    return error_field(err, name, "%s must be one of %s", name, list);
}

/* qsort's comparison of two int64_t, ascending. */
int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

int field_id_array(const cJSON *obj, const char *name, size_t max, cJSON **ids,
                   ledger_error *err)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, name), *item;
    cJSON *out;
    int64_t *v;
    size_t n = 0, k = 0;

    if (!cJSON_IsArray(arr))
        return error_field(err, name, "%s must be an array of ids", name);
    n = (size_t)cJSON_GetArraySize(arr);
    if (n == 0 || n > max)
        return error_field(err, name, "%s must hold 1 to %zu ids", name, max);
    v = malloc(n * sizeof *v);
    if (v == NULL)
        return ledger_error_oom(err);
    cJSON_ArrayForEach(item, arr) {
        if (json_id(item, &v[k++])) {
            free(v);
            return error_field(err, name, "%s must be an array of positive integer ids", name);
        }
    }
    /* Sorted and without repeats, so each row is acted on and counted once. */
    qsort(v, n, sizeof *v, cmp_int64);
    out = cJSON_CreateArray();
    for (k = 0; out && k < n; k++)
        if ((k == 0 || v[k] != v[k - 1])
            && !cJSON_AddItemToArray(out, cJSON_CreateNumber((double)v[k]))) {
            cJSON_Delete(out);  /* never a selection with an id left out */
            out = NULL;
        }
    free(v);
    if (out == NULL)
        return ledger_error_oom(err);
    *ids = out;
    return LEDGER_OK;
}

const char *param_get(const struct ledger_params *p, const char *key)
{
    size_t i;

    for (i = 0; p && i < p->count; i++)
        if (strcmp(p->items[i].key, key) == 0)
            return p->items[i].value;
    return NULL;
}

int param_has(const struct ledger_params *p, const char *key)
{
    return param_get(p, key) != NULL;
}

/* amount x rate (a positive decimal text), rounded half up, in cents; -1
 * when the rate is not one or the result is too large. */
int money_times_rate(int64_t amount, const char *rate, int64_t *out)
{
    __int128 num = 0, den = 1, v;
    const char *p;
    int point = 0;

    for (p = rate; *p; p++) {
        if (*p == '.') {
            point = 1;
            continue;
        }
        if (*p < '0' || *p > '9' || num > ((__int128)1 << 80))
            return -1;
        num = num * 10 + (*p - '0');
        if (point)
            den *= 10;
    }
    if (num == 0)
        return -1;
    v = ((__int128)amount * num * 2 + den) / (den * 2);
    if (v > LEDGER_MONEY_MAX_CENTS)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* An exchange rate: a positive decimal, kept as its text. */
int field_rate(const cJSON *obj, const char **out, ledger_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "exchange_rate_to_aud");
    const char *s;
    int digits = 0, nonzero = 0, point = 0;

    *out = NULL;
    if (item == NULL || cJSON_IsNull(item))
        return LEDGER_OK;
    if (!cJSON_IsNumber(item) || item->valuestring == NULL || strlen(item->valuestring) > 24)
        goto bad;
    for (s = item->valuestring; *s; s++) {
        if (*s == '.' && !point && digits) {
            point = 1;
            continue;
        }
        if (!ascii_digit(*s))
            goto bad;
        digits++;
        nonzero |= *s != '0';
    }
    if (!nonzero || s[-1] == '.')
        goto bad;
    *out = item->valuestring;
    return LEDGER_OK;
bad:
    return error_field(err, "exchange_rate_to_aud",
                       "exchange_rate_to_aud must be a positive decimal number");
}

/* A currency code: three ASCII letters, stored in upper case ("usd" is
 * USD, as the contract's pattern [A-Za-z]{3} allows). */
int field_currency(const cJSON *obj, char buf[4], const char **out, ledger_error *err)
{
    const char *s;
    int i;

    if (field_text(obj, "currency", 0, 1, 3, &s, NULL, err))
        goto bad;
    *out = NULL;
    if (s == NULL)
        return LEDGER_OK;
    for (i = 0; i < 3; i++) {
        if (!ascii_alpha(s[i]))
            goto bad;
        buf[i] = (char)ascii_upper(s[i]);
    }
    if (s[3] != '\0')
        goto bad;
    buf[3] = '\0';
    *out = buf;
    return LEDGER_OK;
bad:
    return error_field(err, "currency", "currency must be three letters (ISO 4217)");
}

int home_amount_of_new_row(ledger_db *db, const char *currency, int64_t amount, const char *rate,
                           int64_t *aud, int *has_aud, ledger_error *err)
{
    const char *home = ledger_home_currency(db);

    if (currency == NULL || strcmp(currency, home) == 0) {
        if (*has_aud && *aud != amount)
            return error_field(err, "amount_aud",
                               "a row in the home currency (%s) is its own home amount:"
                               " leave amount_aud out or make it the amount", home);
        return LEDGER_OK;
    }
    if (*has_aud || rate == NULL)
        return LEDGER_OK;
    if (money_times_rate(amount, rate, aud))
        return error_field(err, "exchange_rate_to_aud",
                           "amount at exchange_rate_to_aud is more than the ledger can hold");
    *has_aud = 1;
    return LEDGER_OK;
}

int parse_whole(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t v = 0;

    if (s == NULL || *s == '\0')
        return -1;
    /* Past hi before the next digit is added: v * 10 + d never passes
     * INT64_MAX, where twenty digits would wrap round to a value in
     * range. */
    for (; *s; s++) {
        if (!ascii_digit(*s) || v > (hi - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int page_limit(const struct ledger_params *p, int64_t dflt, int64_t *limit, ledger_error *err)
{
    const char *v = param_get(p, "limit");

    *limit = dflt;
    if (v && parse_whole(v, 1, PAGE_LIMIT_MAX, limit))
        return error_field(err, "limit", "limit must be a whole number from 1 to %d",
                           PAGE_LIMIT_MAX);
    return LEDGER_OK;
}

int page_parse(const struct ledger_params *p, int64_t dflt, struct page *out, ledger_error *err)
{
    const char *v = param_get(p, "offset");

    out->offset = 0;
    if (page_limit(p, dflt, &out->limit, err))
        return LEDGER_ERR;
    if (v && parse_whole(v, 0, PAGE_OFFSET_MAX, &out->offset))
        return error_field(err, "offset", "offset must be a whole number, 0 or more");
    return LEDGER_OK;
}

void page_footer(cJSON *doc, const struct page *p, int64_t n, int64_t total)
{
    cJSON_AddNumberToObject(doc, "total", (double)total);
    cJSON_AddNumberToObject(doc, "limit", (double)p->limit);
    cJSON_AddNumberToObject(doc, "offset", (double)p->offset);
    if (p->offset + n < total) {
        char next[32];

        snprintf(next, sizeof next, "%lld", (long long)(p->offset + n));
        cJSON_AddStringToObject(doc, "next_cursor", next);
    } else {
        cJSON_AddNullToObject(doc, "next_cursor");
    }
}
