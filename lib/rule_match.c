/*
 * Rule conditions: validated once when a rule is saved, compiled when it
 * runs, and tested against the caller's rows in C.
 *
 * A condition is {field, operator, value}.  Text comparisons ignore case
 * (ASCII letters; `matches` uses PCRE2 with caseless Unicode matching).
 * Which operators a field takes:
 *   text fields   equals not_equals contains not_contains starts_with
 *                 ends_with matches in is_empty
 *   amount        equals not_equals gt gte lt lte between in
 *   date          equals not_equals gt gte lt lte between in
 *   tag           as text, over the names of the row's tags (the caller's);
 *                 not_equals and not_contains hold when no tag matches,
 *                 is_empty when the row has none.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#define _GNU_SOURCE /* strcasestr */
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "rule.h"

static const char *const field_names[] = {
    "description", "merchant", "merchant_normalized", "category", "amount",
    "transaction_type", "payment_method", "bank_name", "statement_type", "date", "tag", NULL
};
static const char *const op_names[] = {
    "equals", "not_equals", "contains", "not_contains", "starts_with", "ends_with", "matches",
    "in", "gt", "gte", "lt", "lte", "between", "is_empty", NULL
};

static int lookup(const char *const *names, const char *s)
{
    int i;

    for (i = 0; s && names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static int is_text_op(enum rule_op op)
{
    return op <= OP_IN || op == OP_EMPTY;
}

static int cond_error(ledger_error *err, size_t i, const char *msg)
{
    char field[32];

    snprintf(field, sizeof field, "conditions[%zu]", i);
    return ledger_error_set(err, 400, "invalid_field", field, "%s", msg);
}

/* A value for amount (cents) or date (checked): one item. */
static int scalar(const cJSON *v, enum rule_field f, int64_t *cents, const char **date)
{
    if (f == FIELD_AMOUNT) {
        ledger_error e;

        return ledger_money_from_json(v, "value", cents, &e);
    }
    if (f == FIELD_DATE) {
        if (!cJSON_IsString(v) || !valid_date(v->valuestring))
            return -1;
        *date = v->valuestring;
        return 0;
    }
    if (!cJSON_IsString(v) || v->valuestring[0] == '\0' || strlen(v->valuestring) > 500)
        return -1;
    return 0;
}

int rule_conditions_check(const cJSON *conds, ledger_error *err)
{
    const cJSON *c;
    size_t i = 0;

    if (!cJSON_IsArray(conds) || cJSON_GetArraySize(conds) > 50)
        return ledger_error_set(err, 400, "invalid_field", "conditions",
                                "conditions must be an array of at most 50 {field, operator, value}");
    cJSON_ArrayForEach(c, conds) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
        const cJSON *fi = cJSON_GetObjectItemCaseSensitive(c, "field");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "operator");
        int f = lookup(field_names, cJSON_IsString(fi) ? fi->valuestring : NULL);
        int o = lookup(op_names, cJSON_IsString(op) ? op->valuestring : NULL);
        int64_t cents;
        const char *date;

        if (!cJSON_IsObject(c))
            return cond_error(err, i, "each condition must be an object {field, operator, value}");
        if (f < 0)
            return cond_error(err, i, "field must be one of description, merchant, "
                                      "merchant_normalized, category, amount, transaction_type, "
                                      "payment_method, bank_name, statement_type, date, tag");
        if (o < 0)
            return cond_error(err, i, "operator must be one of equals, not_equals, contains, "
                                      "not_contains, starts_with, ends_with, matches, in, gt, gte, "
                                      "lt, lte, between, is_empty");
        if ((f == FIELD_AMOUNT || f == FIELD_DATE) ? (o >= OP_CONTAINS && o <= OP_MATCHES) || o == OP_EMPTY
                                                   : !is_text_op((enum rule_op)o))
            return cond_error(err, i, "the operator does not apply to this field");
        if (o == OP_EMPTY)
            goto next;
        if (o == OP_IN || o == OP_BETWEEN) {
            const cJSON *item;
            int n = cJSON_GetArraySize(v);

            if (!cJSON_IsArray(v) || n < 1 || n > 200 || (o == OP_BETWEEN && n != 2))
                return cond_error(err, i, o == OP_BETWEEN ? "value must be [low, high]"
                                                          : "value must be an array of 1 to 200 values");
            cJSON_ArrayForEach(item, v)
                if (scalar(item, (enum rule_field)f, &cents, &date))
                    return cond_error(err, i, "a value of the wrong type for the field");
            goto next;
        }
        if (scalar(v, (enum rule_field)f, &cents, &date))
            return cond_error(err, i, f == FIELD_AMOUNT ? "value must be an amount"
                                      : f == FIELD_DATE ? "value must be a date YYYY-MM-DD"
                                                        : "value must be a non-empty string");
        if (o == OP_MATCHES) {
            int code;
            PCRE2_SIZE off;
            pcre2_code *re = pcre2_compile((PCRE2_SPTR)v->valuestring, PCRE2_ZERO_TERMINATED,
                                           PCRE2_CASELESS | PCRE2_UTF, &code, &off, NULL);

            if (re == NULL) {
                PCRE2_UCHAR why[120];
                char msg[200];

                pcre2_get_error_message(code, why, sizeof why);
                snprintf(msg, sizeof msg, "the pattern does not compile: %s at offset %zu",
                         (char *)why, (size_t)off);
                return cond_error(err, i, msg);
            }
            pcre2_code_free(re);
        }
next:
        i++;
    }
    return LEDGER_OK;
}

void rule_conds_free(struct rule_cond *c, size_t n)
{
    size_t i;

    for (i = 0; c && i < n; i++) {
        pcre2_code_free(c[i].re);
        pcre2_match_data_free(c[i].md);
    }
    free(c);
}

int rule_conds_compile(const cJSON *conds, struct rule_cond **out, size_t *n, ledger_error *err)
{
    struct rule_cond *c;
    const cJSON *item;
    size_t i = 0;

    *n = (size_t)cJSON_GetArraySize(conds);
    c = calloc(*n ? *n : 1, sizeof *c);
    if (c == NULL)
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    cJSON_ArrayForEach(item, conds) {
        struct rule_cond *k = &c[i++];
        char slug[LEDGER_CATEGORY_MAX];
        const cJSON *v;

        k->field = (enum rule_field)lookup(field_names, cJSON_GetObjectItem(item, "field")->valuestring);
        k->op = (enum rule_op)lookup(op_names, cJSON_GetObjectItem(item, "operator")->valuestring);
        k->value = cJSON_GetObjectItemCaseSensitive(item, "value");
        v = k->value;
        if (k->field == FIELD_AMOUNT && cJSON_IsNumber(v))
            ledger_money_from_json(v, "value", &k->cents, err);
        if (k->field == FIELD_AMOUNT && k->op == OP_BETWEEN) {
            ledger_money_from_json(cJSON_GetArrayItem(v, 0), "value", &k->cents, err);
            ledger_money_from_json(cJSON_GetArrayItem(v, 1), "value", &k->cents2, err);
        }
        /* A category is compared in its folded form. */
        if (k->field == FIELD_CATEGORY && cJSON_IsString(v)
            && ledger_category_fold(v->valuestring, slug) != LEDGER_CATEGORY_EMPTY)
            snprintf(k->folded, sizeof k->folded, "%s", slug);
        if (k->op == OP_MATCHES) {
            int code;
            PCRE2_SIZE off;

            k->re = pcre2_compile((PCRE2_SPTR)v->valuestring, PCRE2_ZERO_TERMINATED,
                                  PCRE2_CASELESS | PCRE2_UTF, &code, &off, NULL);
            k->md = k->re ? pcre2_match_data_create_from_pattern(k->re, NULL) : NULL;
            if (k->md == NULL) {
                rule_conds_free(c, i);
                return ledger_error_set(err, 409, "conflict", "conditions",
                                        "a stored pattern no longer compiles");
            }
        }
    }
    *out = c;
    return LEDGER_OK;
}

/* One text value against one string condition value. */
static int text_op(enum rule_op op, const char *s, const char *want, const struct rule_cond *c)
{
    size_t ls = strlen(s), lw = strlen(want);

    switch (op) {
    case OP_EQ: return strcasecmp(s, want) == 0;
    case OP_CONTAINS: return strcasestr(s, want) != NULL;
    case OP_STARTS: return strncasecmp(s, want, lw) == 0;
    case OP_ENDS: return ls >= lw && strcasecmp(s + ls - lw, want) == 0;
    case OP_MATCHES:
        return pcre2_match(c->re, (PCRE2_SPTR)s, ls, 0, 0, c->md, NULL) >= 0;
    default: return 0;
    }
}

static const char *want_of(const struct rule_cond *c, const cJSON *v)
{
    return c->field == FIELD_CATEGORY && v == c->value && c->folded[0] ? c->folded : v->valuestring;
}

/* A text condition against one value (s may be NULL: treated as ""). */
static int text_cond(const struct rule_cond *c, const char *s)
{
    const cJSON *item;

    if (s == NULL)
        s = "";
    switch (c->op) {
    case OP_EMPTY: return s[0] == '\0';
    case OP_NE: return !text_op(OP_EQ, s, want_of(c, c->value), c);
    case OP_NOT_CONTAINS: return !text_op(OP_CONTAINS, s, want_of(c, c->value), c);
    case OP_IN:
        cJSON_ArrayForEach(item, c->value) {
            char slug[LEDGER_CATEGORY_MAX];
            const char *w = item->valuestring;

            if (c->field == FIELD_CATEGORY && ledger_category_fold(w, slug) != LEDGER_CATEGORY_EMPTY)
                w = slug;
            if (strcasecmp(s, w) == 0)
                return 1;
        }
        return 0;
    default: return text_op(c->op, s, want_of(c, c->value), c);
    }
}

static int tag_cond(const struct rule_cond *c, const char *tags)
{
    char buf[4096], *save = NULL, *t;
    struct rule_cond pos = *c;
    int any = 0;

    if (c->op == OP_EMPTY)
        return tags == NULL || tags[0] == '\0';
    /* Negations hold when no tag satisfies the positive form. */
    if (c->op == OP_NE)
        pos.op = OP_EQ;
    if (c->op == OP_NOT_CONTAINS)
        pos.op = OP_CONTAINS;
    snprintf(buf, sizeof buf, "%s", tags ? tags : "");
    for (t = strtok_r(buf, "\x1f", &save); t && !any; t = strtok_r(NULL, "\x1f", &save))
        any = text_cond(&pos, t);
    return (c->op == OP_NE || c->op == OP_NOT_CONTAINS) ? !any : any;
}

static int num_cond(const struct rule_cond *c, int64_t v)
{
    const cJSON *item;

    switch (c->op) {
    case OP_EQ: return v == c->cents;
    case OP_NE: return v != c->cents;
    case OP_GT: return v > c->cents;
    case OP_GTE: return v >= c->cents;
    case OP_LT: return v < c->cents;
    case OP_LTE: return v <= c->cents;
    case OP_BETWEEN: return v >= c->cents && v <= c->cents2;
    case OP_IN:
        cJSON_ArrayForEach(item, c->value) {
            int64_t x;
            ledger_error e;

            if (ledger_money_from_json(item, "value", &x, &e) == 0 && x == v)
                return 1;
        }
        return 0;
    default: return 0;
    }
}

static int date_cond(const struct rule_cond *c, const char *d)
{
    const cJSON *v = c->value, *item;

    switch (c->op) {
    case OP_EQ: return strcmp(d, v->valuestring) == 0;
    case OP_NE: return strcmp(d, v->valuestring) != 0;
    case OP_GT: return strcmp(d, v->valuestring) > 0;
    case OP_GTE: return strcmp(d, v->valuestring) >= 0;
    case OP_LT: return strcmp(d, v->valuestring) < 0;
    case OP_LTE: return strcmp(d, v->valuestring) <= 0;
    case OP_BETWEEN:
        return strcmp(d, cJSON_GetArrayItem(v, 0)->valuestring) >= 0
               && strcmp(d, cJSON_GetArrayItem(v, 1)->valuestring) <= 0;
    case OP_IN:
        cJSON_ArrayForEach(item, v)
            if (strcmp(d, item->valuestring) == 0)
                return 1;
        return 0;
    default: return 0;
    }
}

int rule_row_matches(const struct rule_cond *c, size_t n, int any, const struct rule_row *r)
{
    size_t i;

    if (n == 0)
        return 1;  /* no conditions: every row */
    for (i = 0; i < n; i++) {
        int ok;

        switch (c[i].field) {
        case FIELD_AMOUNT: ok = num_cond(&c[i], r->amount); break;
        case FIELD_DATE: ok = date_cond(&c[i], r->date); break;
        case FIELD_TAG: ok = tag_cond(&c[i], r->tags); break;
        default: ok = text_cond(&c[i], r->text[c[i].field]); break;
        }
        if (any && ok)
            return 1;
        if (!any && !ok)
            return 0;
    }
    return !any;
}
