/*
 * Rule conditions as SQL.  A rule's conditions become one WHERE clause over
 * the caller's rows (transactions t, statements s), so matching a rule is
 * one indexed query rather than a walk over the ledger in C.  Values are
 * always bound: each '?' takes the next value of the binds array, and ?1 is
 * the caller.  `matches` calls ledger_regexp(pattern, text), the PCRE2
 * function db_regexp.c registers.  Text comparisons ignore case (ledger_fold),
 * as rule_match.c documents; a category value is compared folded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "txn.h"
#include "rule.h"
#include "text.h"

static const char *const columns[] = {
    [FIELD_DESCRIPTION] = "t.description",
    [FIELD_MERCHANT] = "t.merchant",
    [FIELD_MERCHANT_NORM] = "COALESCE(t.override_merchant_normalized, t.merchant_normalized)",
    [FIELD_CATEGORY] = "t.eff_category",
    [FIELD_AMOUNT] = "t.amount",
    [FIELD_TYPE] = "t.transaction_type",
    [FIELD_METHOD] = "t.payment_method",
    [FIELD_BANK] = "(CASE WHEN t.statement_id IS NULL THEN '" LEDGER_BANK_MANUAL "' ELSE s.bank_name END)",
    [FIELD_STATEMENT_TYPE] = "s.statement_type",
    [FIELD_DATE] = "t.date",
    [FIELD_TAG] = "g.name",
};

static int put(struct sqlbuf *b, const char *s)
{
    size_t n = strlen(s);

    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap + n + 1) * 2;
        char *p = realloc(b->text, cap);

        if (p == NULL)
            return -1;
        b->text = p;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n + 1);
    b->len += n;
    return 0;
}

static void bind_text(cJSON *binds, const char *s)
{
    cJSON_AddItemToArray(binds, cJSON_CreateString(s));
}

/* A value as the condition compares it: category values folded. */
static void bind_value(cJSON *binds, enum rule_field f, const cJSON *v)
{
    char slug[LEDGER_CATEGORY_MAX];

    if (f == FIELD_AMOUNT) {
        int64_t cents = 0;
        ledger_error e;

        ledger_money_from_json(v, "value", &cents, &e);
        cJSON_AddItemToArray(binds, cJSON_CreateNumber((double)cents));
    } else if (f == FIELD_CATEGORY && ledger_category_fold(v->valuestring, slug) != LEDGER_CATEGORY_EMPTY) {
        bind_text(binds, slug);
    } else {
        bind_text(binds, v->valuestring);
    }
}

/* A list value (in) as a JSON array text, each item as bind_value makes it. */
static void bind_list(cJSON *binds, enum rule_field f, const cJSON *list)
{
    cJSON *tmp = cJSON_CreateArray(), *item;
    const cJSON *v;
    char *text;

    cJSON_ArrayForEach(v, list)
        bind_value(tmp, f, v);
    if (f != FIELD_AMOUNT) {
        /* compared lowered, as the column is (ledger_fold) */
        cJSON_ArrayForEach(item, tmp)
            utf8_lower(item->valuestring);
    }
    text = cJSON_PrintUnformatted(tmp);
    bind_text(binds, text ? text : "[]");
    free(text);
    cJSON_Delete(tmp);
}

/* One positive text test of expression x (not NULL: COALESCEd by the caller). */
static int text_sql(struct sqlbuf *b, cJSON *binds, enum rule_field f, enum rule_op op,
                    const char *x, const cJSON *v)
{
    char frag[512];

    switch (op) {
    case OP_EQ:
    case OP_NE:
        snprintf(frag, sizeof frag, "ledger_fold(%s) = ledger_fold(?)", x);
        break;
    case OP_CONTAINS:
    case OP_NOT_CONTAINS:
        snprintf(frag, sizeof frag, "instr(ledger_fold(%s), ledger_fold(?)) > 0", x);
        break;
    case OP_STARTS:
        snprintf(frag, sizeof frag, "substr(ledger_fold(%s), 1, length(?)) = ledger_fold(?)", x);
        bind_value(binds, f, v);
        break;
    case OP_ENDS:
        snprintf(frag, sizeof frag, "(length(%s) >= length(?) AND substr(ledger_fold(%s), -length(?)) = ledger_fold(?))",
                 x, x);
        bind_value(binds, f, v);
        bind_value(binds, f, v);
        break;
    case OP_MATCHES:
        snprintf(frag, sizeof frag, "ledger_regexp(?, %s)", x);
        bind_text(binds, v->valuestring);  /* the pattern as written */
        return put(b, frag);
    case OP_IN:
        snprintf(frag, sizeof frag, "ledger_fold(%s) IN (SELECT value FROM json_each(?))", x);
        bind_list(binds, f, v);
        return put(b, frag);
    case OP_EMPTY:
        snprintf(frag, sizeof frag, "%s = ''", x);
        return put(b, frag);
    default:
        return -1;
    }
    bind_value(binds, f, v);
    return put(b, frag);
}

/* amount and date: plain comparisons. */
static int ordered_sql(struct sqlbuf *b, cJSON *binds, enum rule_field f, enum rule_op op,
                       const cJSON *v)
{
    static const char *const cmp[] = { [OP_EQ] = "=", [OP_NE] = "<>", [OP_GT] = ">",
                                       [OP_GTE] = ">=", [OP_LT] = "<", [OP_LTE] = "<=" };
    char frag[256];
    const char *x = columns[f];

    if (op == OP_BETWEEN) {
        snprintf(frag, sizeof frag, "%s BETWEEN ? AND ?", x);
        bind_value(binds, f, cJSON_GetArrayItem(v, 0));
        bind_value(binds, f, cJSON_GetArrayItem(v, 1));
    } else if (op == OP_IN) {
        cJSON *tmp = cJSON_CreateArray();
        const cJSON *item;
        char *text;

        cJSON_ArrayForEach(item, v)
            bind_value(tmp, f, item);
        text = cJSON_PrintUnformatted(tmp);
        bind_text(binds, text ? text : "[]");
        free(text);
        cJSON_Delete(tmp);
        snprintf(frag, sizeof frag, "%s IN (SELECT value FROM json_each(?))", x);
    } else {
        snprintf(frag, sizeof frag, "%s %s ?", x, cmp[op]);
        bind_value(binds, f, v);
    }
    return put(b, frag);
}

static int cond_sql(struct sqlbuf *b, cJSON *binds, const cJSON *c)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
    int f = rule_name_index(rule_field_names, json_get(c, "field")->valuestring);
    int o = rule_name_index(rule_op_names, json_get(c, "operator")->valuestring);
    int negate;
    char x[256];

    if (f < 0 || o < 0)
        return -1;
    if (f == FIELD_AMOUNT || f == FIELD_DATE)
        return ordered_sql(b, binds, (enum rule_field)f, (enum rule_op)o, v);
    negate = o == OP_NE || o == OP_NOT_CONTAINS;
    if (f == FIELD_TAG) {
        /* Over the names of the caller's tags on the row: the negations
         * and is_empty hold when no tag satisfies the positive test. */
        if (put(b, negate || o == OP_EMPTY ? "NOT EXISTS (" : "EXISTS (")
            || put(b, "SELECT 1 FROM transaction_tags tt JOIN tags g ON g.id = tt.tag_id"
                      " WHERE tt.transaction_id = t.id AND g.owner_id = ?1"))
            return -1;
        if (o != OP_EMPTY && (put(b, " AND ")
                              || text_sql(b, binds, FIELD_TAG, (enum rule_op)o, "g.name", v)))
            return -1;
        return put(b, ")");
    }
    /* A row with no category is "uncategorised" to a test of the name, as
     * in the reports (else equals uncategorised would never match);
     * is_empty still sees it empty. */
    snprintf(x, sizeof x, "COALESCE(%s, '%s')", columns[f],
             f == FIELD_CATEGORY && o != OP_EMPTY ? "uncategorised" : "");
    if (negate && put(b, "NOT "))
        return -1;
    return put(b, "(") || text_sql(b, binds, (enum rule_field)f, (enum rule_op)o, x, v) || put(b, ")");
}

int rule_conditions_sql(const cJSON *conds, int any, struct sqlbuf *b, cJSON *binds,
                        ledger_error *err)
{
    const cJSON *c;
    int first = 1;

    if (cJSON_GetArraySize(conds) == 0)
        return put(b, "1") ? ledger_error_oom(err) : LEDGER_OK;
    if (put(b, "("))
        goto oom;
    cJSON_ArrayForEach(c, conds) {
        if ((!first && put(b, any ? " OR " : " AND ")) || put(b, "(") || cond_sql(b, binds, c)
            || put(b, ")"))
            goto oom;
        first = 0;
    }
    if (put(b, ")"))
        goto oom;
    return LEDGER_OK;
oom:
    return ledger_error_set(err, 500, "internal", NULL, "cannot build the rule's query");
}

int rule_bind(ledger_db *db, sqlite3_stmt *st, int first, const cJSON *binds)
{
    const cJSON *v;
    int i = first;

    cJSON_ArrayForEach(v, binds) {
        if (cJSON_IsNumber(v))
            sqlite3_bind_int64(st, i, (int64_t)v->valuedouble);
        else
            db_bind_text(db, st, i, v->valuestring);
        i++;
    }
    return i;
}

int sqlbuf_put(struct sqlbuf *b, const char *s)
{
    return put(b, s);
}
