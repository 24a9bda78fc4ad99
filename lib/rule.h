/* The rules engine's parts, private to libledger (rule.c, rule_match.c). */
#ifndef LEDGER_RULE_H
#define LEDGER_RULE_H

#include "internal.h"

/* In the order of rule_match.c's name tables. */
enum rule_field {
    FIELD_DESCRIPTION, FIELD_MERCHANT, FIELD_MERCHANT_NORM, FIELD_CATEGORY, FIELD_AMOUNT,
    FIELD_TYPE, FIELD_METHOD, FIELD_BANK, FIELD_STATEMENT_TYPE, FIELD_DATE, FIELD_TAG,
    FIELD_COUNT
};
enum rule_op {
    OP_EQ, OP_NE, OP_CONTAINS, OP_NOT_CONTAINS, OP_STARTS, OP_ENDS, OP_MATCHES, OP_IN,
    OP_GT, OP_GTE, OP_LT, OP_LTE, OP_BETWEEN, OP_EMPTY
};

struct pcre2_real_code_8;
struct pcre2_real_match_data_8;

/* A compiled condition; value points into the rule's conditions document. */
struct rule_cond {
    enum rule_field field;
    enum rule_op op;
    const cJSON *value;
    int64_t cents, cents2;
    char folded[LEDGER_CATEGORY_MAX];
    struct pcre2_real_code_8 *re;
    struct pcre2_real_match_data_8 *md;
};

/* One of the caller's rows, as conditions see it. */
struct rule_row {
    int64_t id, amount;
    char date[11];
    const char *text[FIELD_COUNT];  /* the text fields, by rule_field */
    const char *tags;               /* the caller's tag names, joined by 0x1f */
};

/* Checks conditions as saved: 400 naming conditions[i]. */
int rule_conditions_check(const cJSON *conds, ledger_error *err);
/* Compiles checked conditions; the caller frees with rule_conds_free. */
int rule_conds_compile(const cJSON *conds, struct rule_cond **out, size_t *n, ledger_error *err);
void rule_conds_free(struct rule_cond *c, size_t n);
/* Whether the row satisfies all (any = 0) or any (any = 1) conditions. */
int rule_row_matches(const struct rule_cond *c, size_t n, int any, const struct rule_row *r);

#endif
