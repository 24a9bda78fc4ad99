/*
 * Rule conditions, validated when a rule is saved (rule_sql.c turns them
 * into SQL when it runs).
 *
 * A condition is {field, operator, value}.  Text comparisons ignore case
 * (the letters of Latin, Greek, Cyrillic and more, as utf8_lower lowers them;
 * `matches` uses PCRE2 with caseless Unicode matching).
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
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "fields.h"
#include "rule.h"

const char *const rule_field_names[] = {
    "description", "merchant", "merchant_normalized", "category", "amount",
    "transaction_type", "payment_method", "bank_name", "statement_type", "date", "tag", NULL
};
const char *const rule_op_names[] = {
    "equals", "not_equals", "contains", "not_contains", "starts_with", "ends_with", "matches",
    "in", "gt", "gte", "lt", "lte", "between", "is_empty", NULL
};

int rule_name_index(const char *const *names, const char *s)
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
    return error_field(err, field, "%s", msg);
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
        return error_field(err, "conditions",
                           "conditions must be an array of at most 50 {field, operator, value}");
    cJSON_ArrayForEach(c, conds) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
        const cJSON *fi = cJSON_GetObjectItemCaseSensitive(c, "field");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "operator");
        int f = rule_name_index(rule_field_names, cJSON_IsString(fi) ? fi->valuestring : NULL);
        int o = rule_name_index(rule_op_names, cJSON_IsString(op) ? op->valuestring : NULL);
        int64_t cents = 0;
        const char *date = "";

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
            int n = cJSON_GetArraySize(v), k = 0;
            int64_t low = 0;
            const char *low_date = "";

            if (!cJSON_IsArray(v) || n < 1 || n > 200 || (o == OP_BETWEEN && n != 2))
                return cond_error(err, i, o == OP_BETWEEN ? "value must be [low, high]"
                                                          : "value must be an array of 1 to 200 values");
            cJSON_ArrayForEach(item, v) {
                if (scalar(item, (enum rule_field)f, &cents, &date))
                    return cond_error(err, i, "a value of the wrong type for the field");
                /* [100, 1] would match nothing, silently: a typo to say. */
                if (o == OP_BETWEEN && k++ == 1
                    && (f == FIELD_AMOUNT ? low > cents : strcmp(low_date, date) > 0))
                    return cond_error(err, i, "between takes [low, high]: low is above high");
                low = cents;
                low_date = date;
            }
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

