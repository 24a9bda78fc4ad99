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

/* A growing SQL text. */
struct sqlbuf {
    char *text;
    size_t len, cap;
};
int sqlbuf_put(struct sqlbuf *b, const char *s);

/* Checks conditions as saved: 400 naming conditions[i]. */
int rule_conditions_check(const cJSON *conds, ledger_error *err);
/* Appends checked conditions as one SQL condition on transactions t and
 * statements s, all (any = 0) or any (any = 1) of them; each '?' takes the
 * next item of binds, and ?1 is the caller. */
int rule_conditions_sql(const cJSON *conds, int any, struct sqlbuf *b, cJSON *binds,
                        ledger_error *err);
/* Binds binds to st from parameter number first on; returns the next. */
int rule_bind(ledger_db *db, sqlite3_stmt *st, int first, const cJSON *binds);

#endif
