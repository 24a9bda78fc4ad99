/*
 * Statements: create from JSON, list, read one, and the balance assertion
 * (Business rule E); the delete is statement_delete.c's.  Statements are
 * owner-scoped: another user's statement is 403, a missing one 404.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "txn.h"
#include "statement.h"
#include "spend.h"
#include "suggest.h"
#include "text.h"
#include "json_in.h"
#include "job.h"

#define TEXT_MAX 200   /* a bank's or an account's name */
#define ROWS_MAX 100000

const char *const statement_types[] = {
    "credit_card", "transaction", "savings", "loan", "offset", "investment", "other", NULL
};

/* Free text to a statement type (Business rule C): the first rule whose
 * words all appear in the text, in any case, wins, so "Home Loan Offset" is
 * an offset account and "Visa Credit Card" a credit card.  The words are
 * looked for in the whole text, not in its folded form, which stops at
 * LEDGER_CATEGORY_MAX bytes. */
static const struct { const char *words[3]; const char *type; } type_rules[] = {
    { { "offset" }, "offset" },
    { { "credit", "card" }, "credit_card" },
    /* A Visa or Mastercard debit card draws on a transaction account. */
    { { "debit" }, "transaction" },
    { { "visa" }, "credit_card" },
    { { "mastercard" }, "credit_card" },
    { { "amex" }, "credit_card" },
    { { "american", "express" }, "credit_card" },
    { { "diners" }, "credit_card" },
    { { "creditcard" }, "credit_card" },
    { { "mortgage" }, "loan" },
    { { "loan" }, "loan" },
    { { "line", "credit" }, "loan" },
    { { "creditline" }, "loan" },
    { { "saving" }, "savings" },
    { { "saver" }, "savings" },
    { { "deposit" }, "savings" },
    { { "moneymrkt" }, "savings" },
    { { "invest" }, "investment" },
    { { "brokerage" }, "investment" },
    { { "share" }, "investment" },
    { { "everyday" }, "transaction" },
    { { "transaction" }, "transaction" },
    { { "cheque" }, "transaction" },
    { { "checking" }, "transaction" },
    { { "current" }, "transaction" },
    { { NULL }, NULL }
};

const char *statement_type_from_text(const char *text)
{
    char folded[LEDGER_CATEGORY_MAX];
    size_t n;
    int i, k;

    if (text == NULL || ledger_category_fold(text, folded) == LEDGER_CATEGORY_EMPTY)
        return "other";
    n = strlen(text);
    for (i = 0; type_rules[i].type; i++) {
        int all = 1;

        for (k = 0; k < 3 && type_rules[i].words[k]; k++)
            all &= text_contains(text, n, type_rules[i].words[k], strlen(type_rules[i].words[k]));
        if (all)
            return type_rules[i].type;
    }
    /* Already a canonical token ("credit_card") folds to itself. */
    for (i = 0; statement_types[i]; i++)
        if (strcmp(folded, statement_types[i]) == 0)
            return statement_types[i];
    return "other";
}

static const struct { const char *from, *to; } frequencies[] = {
    { "weekly", "weekly" }, { "week", "weekly" }, { "per_week", "weekly" },
    { "fortnightly", "fortnightly" }, { "fortnight", "fortnightly" },
    { "biweekly", "fortnightly" }, { "bi_weekly", "fortnightly" },
    { "every_two_weeks", "fortnightly" }, { "every_2_weeks", "fortnightly" },
    { "monthly", "monthly" }, { "month", "monthly" }, { "per_month", "monthly" },
    { "quarterly", "quarterly" }, { "quarter", "quarterly" },
    { "yearly", "yearly" }, { "annually", "yearly" }, { "annual", "yearly" },
    { "year", "yearly" }, { "per_year", "yearly" }, { "per_annum", "yearly" },
    { NULL, NULL }
};

const char *repayment_frequency_fold(const char *text)
{
    char folded[LEDGER_CATEGORY_MAX];
    int i;

    if (ledger_category_fold(text, folded) == LEDGER_CATEGORY_EMPTY)
        return NULL;
    for (i = 0; frequencies[i].from; i++)
        if (strcmp(folded, frequencies[i].from) == 0)
            return frequencies[i].to;
    return NULL;
}

static const char SQL_STMT_INSERT[] =
    "INSERT INTO statements (id, owner_id, bank_name, account_name, account_type, statement_type,"
    " period_start, period_end, due_date, amount_due, opening_balance, closing_balance,"
    " interest_rate, scheduled_repayment, repayment_frequency, redraw_available,"
    " loan_term_months, account_id)"
    " VALUES (" NEXT_ROW_ID("statements") ", ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
/* One statement with its figures; the movement is signed by type: on
 * credit card and loan statements spending raises the balance (owed), on
 * transaction, savings and offset statements it lowers what is held.  A
 * row bought in another currency moves the balance by what it cost in the
 * home currency (amount_aud), as it does in spend. */
#define STMT_SELECT \
    "SELECT s.id, s.bank_name, s.account_name, s.statement_type, s.account_type," \
    "       s.period_start, s.period_end, s.due_date, s.amount_due, s.opening_balance," \
    "       s.closing_balance, s.interest_rate, s.scheduled_repayment, s.repayment_frequency," \
    "       s.redraw_available, s.loan_term_months, s.created_at, s.owner_id," \
    "       (SELECT COUNT(*) FROM transactions t WHERE t.statement_id = s.id)," \
    "       (SELECT COALESCE(ledger_sum(CASE WHEN t.transaction_type IN " MONEY_OUT_TYPES_SQL \
    "                                 THEN COALESCE(t.amount_aud, t.amount)" \
    "                                 ELSE -COALESCE(t.amount_aud, t.amount) END), 0)" \
    "          FROM transactions t WHERE t.statement_id = s.id)" \
    "  FROM statements s"
static const char SQL_STMT_LIST[] =
    STMT_SELECT " WHERE s.owner_id = ? ORDER BY s.period_end DESC, s.id DESC";
static const char SQL_STMT_ONE[] = STMT_SELECT " WHERE s.id = ?";

static cJSON *statement_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();
    const char *type = (const char *)sqlite3_column_text(st, 3);
    money_sum movement = money_sum_column(st, 19);
    int asserted = strcmp(type, "investment") != 0 && strcmp(type, "other") != 0
                   && sqlite3_column_type(st, 9) != SQLITE_NULL
                   && sqlite3_column_type(st, 10) != SQLITE_NULL;

    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    json_text_col(o, "bank_name", st, 1);
    json_text_col(o, "account_name", st, 2);
    json_text_col(o, "statement_type", st, 3);
    json_text_col(o, "account_type", st, 4);
    json_text_col(o, "period_start", st, 5);
    json_text_col(o, "period_end", st, 6);
    json_text_col(o, "due_date", st, 7);
    json_money_col(o, "amount_due", st, 8);
    cJSON_AddNumberToObject(o, "transaction_count", (double)sqlite3_column_int64(st, 18));
    json_money_col(o, "opening_balance", st, 9);
    json_money_col(o, "closing_balance", st, 10);
    if (asserted) {
        money_sum opening = sqlite3_column_int64(st, 9), closing = sqlite3_column_int64(st, 10);
        int owed = strcmp(type, "credit_card") == 0 || strcmp(type, "loan") == 0;
        /* opening + movement - closing, with the movement's sign by type,
         * in 128 bits: rows may sum past 2^63 cents. */
        money_sum diff = (owed ? opening + movement : opening - movement) - closing;

        cJSON_AddBoolToObject(o, "balance_ok", diff == 0);
        cJSON_AddItemToObject(o, "balance_difference", money_sum_to_json(diff));
    } else {
        cJSON_AddNullToObject(o, "balance_ok");
        cJSON_AddNullToObject(o, "balance_difference");
    }
    json_money_col(o, "interest_rate", st, 11);
    json_money_col(o, "scheduled_repayment", st, 12);
    json_text_col(o, "repayment_frequency", st, 13);
    json_money_col(o, "redraw_available", st, 14);
    if (sqlite3_column_type(st, 15) == SQLITE_NULL)
        cJSON_AddNullToObject(o, "loan_term_months");
    else
        cJSON_AddNumberToObject(o, "loan_term_months", (double)sqlite3_column_int64(st, 15));
    json_text_col(o, "created_at", st, 16);
    return o;
}

int statement_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_STMT_ONE, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = NULL;
    if (rc == SQLITE_ROW && sqlite3_column_int64(st, 17) == me)
        *out = statement_json(st);
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such statement");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "statement");
    if (*out == NULL)
        return ledger_error_set(err, 403, "forbidden", NULL, "the statement belongs to another user");
    return LEDGER_OK;
}

int ledger_statement_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    return statement_get(db, me, id, out, err);
}

int ledger_statement_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_STMT_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, statement_json, out, err);
}

/* A number parameter, or NULL when the value is absent (has is 0). */

int statement_insert(ledger_db *db, int64_t me, const struct statement_fields *f, int64_t *id,
                     ledger_error *err)
{
    if (db_exec(db, err, "statement insert", SQL_STMT_INSERT, DB_INT(me), DB_TEXT(f->bank_name),
                DB_TEXT(f->account_name), DB_TEXT(f->account_type), DB_TEXT(f->statement_type),
                DB_TEXT(f->period_start), DB_TEXT(f->period_end), DB_TEXT(f->due_date),
                DB_INT_OR_NULL(f->has_amount_due, f->amount_due),
                DB_INT_OR_NULL(f->has_opening, f->opening),
                DB_INT_OR_NULL(f->has_closing, f->closing),
                DB_INT_OR_NULL(f->has_rate, f->interest_rate),
                DB_INT_OR_NULL(f->has_repayment, f->scheduled_repayment),
                DB_TEXT(f->repayment_frequency),
                DB_INT_OR_NULL(f->has_redraw, f->redraw_available),
                DB_INT_OR_NULL(f->has_term, f->loan_term_months), DB_TEXT(f->account_id)))
        return LEDGER_ERR;
    *id = sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}

int itemised_type_ok(const char *type)
{
    return type == NULL || (strcmp(type, "fee") != 0 && strcmp(type, "interest") != 0
                            && strcmp(type, "refund") != 0);
}

/* A row's principal_amount and interest_amount itemise a lender's
 * repayment (SPEC section 2), and an itemised row counts as spend at its
 * interest (rule D): so both or neither, only on a loan's statement, and
 * parts of the amount: else 9,000.00 of interest on a repayment of 500.00
 * would go into spend and the fees report, and a card purchase of 1,000.00
 * itemised 999 + 1 would count as 1.00. */
static int check_itemised(const struct statement_row *r, const char *statement_type,
                          const char *home, ledger_error *err)
{
    if (!r->has_principal && !r->has_interest)
        return LEDGER_OK;
    if (r->has_principal != r->has_interest)
        return error_field(err, r->has_principal ? "interest_amount" : "principal_amount",
                           "an itemised repayment gives principal_amount and interest_amount "
                           "together");
    if (strcmp(statement_type, "loan") != 0)
        return error_field(err, "principal_amount",
                           "only the rows of a loan statement are itemised into "
                           "principal_amount and interest_amount");
    if (r->principal < 0 || r->interest < 0 || r->principal > r->amount
        || r->interest > r->amount - r->principal)
        return error_field(err, "interest_amount",
                           "principal_amount and interest_amount are parts of amount: each 0 "
                           "or more, together no more than amount");
    /* The parts are in the row's own currency, and the reports count the
     * interest as home money: a JPY repayment worth 2,000.00 would count
     * its 50,000 yen of interest as 50,000.00. */
    if ((r->currency && strcmp(r->currency, home) != 0)
        || (r->has_amount_aud && r->amount_aud != r->amount))
        return error_field(err, "principal_amount",
                           "only a repayment in the home currency is itemised into "
                           "principal_amount and interest_amount");
    if (!itemised_type_ok(r->type))
        return error_field(err, "transaction_type", "%s", ITEMISED_TYPE_MESSAGE);
    return LEDGER_OK;
}

/* Reads row o into r.  A category of "refund" is left for the caller to
 * resolve (*refund set), once every row of the statement is written: so a
 * refund listed before the purchases at its merchant takes their category
 * as one listed after does. */
static int read_row(ledger_db *db, int64_t me, const cJSON *o, struct statement_row *r,
                    char *category, int *refund, ledger_error *err)
{
    const char *cat;
    int set;

    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(o))
        return error_field(err, "", "must be an object");
    if (field_date(o, "date", 1, &r->date, NULL, err)
        || field_text(o, "description", 1, 0, 1000, &r->description, NULL, err)
        || field_money(o, "amount", 1, 0, &r->amount, &set, NULL, err)
        || field_enum(o, "transaction_type", txn_types, 0, &r->type, NULL, err)
        || field_text(o, "category", 0, 1, LEDGER_CATEGORY_TEXT_MAX, &cat, NULL, err)
        || field_text(o, "merchant", 0, 1, MERCHANT_MAX, &r->merchant, NULL, err)
        || field_currency(o, r->currency_code, &r->currency, err)
        || field_money(o, "amount_aud", 0, 1, &r->amount_aud, &r->has_amount_aud, NULL, err)
        || field_rate(o, &r->rate, err)
        || field_money(o, "principal_amount", 0, 1, &r->principal, &r->has_principal, NULL, err)
        || field_money(o, "interest_amount", 0, 1, &r->interest, &r->has_interest, NULL, err)
        || field_text(o, "fitid", 0, 1, 255, &r->fitid, NULL, err))
        return LEDGER_ERR;
    if (r->type == NULL)
        return error_field(err, "transaction_type", "transaction_type is required");
    return statement_row_finish(db, me, r, cat, category, refund, err);
}

int statement_row_finish(ledger_db *db, int64_t me, struct statement_row *r, const char *cat,
                         char category[LEDGER_CATEGORY_MAX], int *refund, ledger_error *err)
{
    if (r->amount < 0 || (r->has_amount_aud && r->amount_aud < 0))
        return error_field(err, r->amount < 0 ? "amount" : "amount_aud",
                           "amounts are magnitudes (0 or more); the direction is transaction_type");
    /* A row in another currency is counted at its home amount (given, or
     * amount x rate), as a manual row is. */
    if (home_amount_of_new_row(db, r->currency, r->amount, r->rate, &r->amount_aud,
                               &r->has_amount_aud, err))
        return LEDGER_ERR;
    *refund = 0;
    if (cat) {
        switch (ledger_category_fold(cat, category)) {
        case LEDGER_CATEGORY_REFUND:
            *refund = 1;
            break;
        case LEDGER_CATEGORY_NONE:  /* a bank's "Uncategorised": none */
            break;
        default:
            if (category_resolve(db, me, r->merchant, cat, category, err))
                return LEDGER_ERR;
            r->category = category;
        }
    }
    return LEDGER_OK;
}

int statement_fields_read(const cJSON *body, struct statement_fields *f, ledger_error *err)
{
    const char *type, *freq;
    int set;

    memset(f, 0, sizeof *f);
    if (field_require_object(body, err)
        || field_text(body, "bank_name", 1, 0, TEXT_MAX, &f->bank_name, NULL, err)
        || field_text(body, "account_name", 0, 1, TEXT_MAX, &f->account_name, NULL, err)
        || field_text(body, "account_type", 1, 0, TEXT_MAX, &f->account_type, NULL, err)
        || field_text(body, "statement_type", 0, 1, 64, &type, NULL, err)
        || field_date(body, "period_start", 1, &f->period_start, NULL, err)
        || field_date(body, "period_end", 1, &f->period_end, NULL, err)
        || field_date(body, "due_date", 0, &f->due_date, NULL, err)
        || field_money(body, "amount_due", 0, 1, &f->amount_due, &f->has_amount_due, NULL, err)
        || field_money(body, "opening_balance", 0, 1, &f->opening, &f->has_opening, NULL, err)
        || field_money(body, "closing_balance", 0, 1, &f->closing, &f->has_closing, NULL, err)
        || field_money(body, "scheduled_repayment", 0, 1, &f->scheduled_repayment,
                       &f->has_repayment, NULL, err)
        || field_money(body, "redraw_available", 0, 1, &f->redraw_available, &f->has_redraw,
                       NULL, err)
        || field_text(body, "repayment_frequency", 0, 1, 64, &freq, NULL, err))
        return LEDGER_ERR;
    /* A repayment and an amount one may redraw are sums of money, never
     * below nothing (balances may be: an overdrawn account). */
    if ((f->has_repayment && f->scheduled_repayment < 0) || (f->has_redraw && f->redraw_available < 0))
        return error_field(err, f->has_repayment && f->scheduled_repayment < 0
                                ? "scheduled_repayment" : "redraw_available",
                           "an amount of 0 or more");
    /* The list's bank_names[] filter names the manual rows "Manual". */
    if (strcmp(f->bank_name, LEDGER_BANK_MANUAL) == 0)
        return error_field(err, "bank_name",
                           "Manual is the name of manual rows; give the bank's name");
    if (cJSON_GetObjectItemCaseSensitive(body, "interest_rate")
        && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(body, "interest_rate"))) {
        if (ledger_percent_from_json(cJSON_GetObjectItemCaseSensitive(body, "interest_rate"),
                                     "interest_rate", &f->interest_rate, err))
            return LEDGER_ERR;
        f->has_rate = 1;
    }
    {
        const cJSON *term = cJSON_GetObjectItemCaseSensitive(body, "loan_term_months");

        if (term && !cJSON_IsNull(term)) {
            int64_t months;

            if (json_id(term, &months) || months > 1200)
                return error_field(err, "loan_term_months",
                                   "loan_term_months must be a whole number from 1 to 1200");
            f->loan_term_months = months;
            f->has_term = 1;
        }
    }
    if (strcmp(f->period_start, f->period_end) > 0)
        return error_field(err, "period_end", "period_end is before period_start");
    /* Rule C: the type from the given token, else from the free text;
     * the raw text stays in account_type. */
    if (type) {
        char folded[LEDGER_CATEGORY_MAX];
        int i;

        ledger_category_fold(type, folded);
        for (i = 0; statement_types[i] && strcmp(statement_types[i], folded) != 0; i++)
            ;
        if (statement_types[i] == NULL)
            return error_field(err, "statement_type",
                               "statement_type must be one of credit_card, transaction, "
                               "savings, loan, offset, investment, other");
        f->statement_type = statement_types[i];
    } else {
        f->statement_type = statement_type_from_text(f->account_type);
    }
    if (freq && (f->repayment_frequency = repayment_frequency_fold(freq)) == NULL)
        return error_field(err, "repayment_frequency",
                           "repayment_frequency must be weekly, fortnightly, monthly, "
                           "quarterly or yearly");
    (void)set;
    return LEDGER_OK;
}

/* An earlier statement of the caller's that the new one ?2 repeats: every
 * field the same, and the same rows (date, amount, currency, home amount,
 * description, each as many times; not the type, the user's to correct).
 * A statement posted twice (a client repeating its upload after a 502 or
 * 504, which may have been carried out) would double its rows and spend;
 * the OFX and CSV imports know their rows seen by themselves. */
static const char SQL_SAME_STATEMENT_ROWS[] =
    "WITH n AS (SELECT * FROM statements WHERE id = ?2),"
    " rows_of(date, amount, currency, home, description, k) AS ("
    "   SELECT date, amount, currency, COALESCE(amount_aud, amount), description, COUNT(*)"
    "     FROM transactions WHERE statement_id = ?2 GROUP BY 1, 2, 3, 4, 5)"
    " SELECT c.id FROM statements c, n"
    "  WHERE c.owner_id = ?1 AND c.id <> n.id AND c.bank_name = n.bank_name"
    "    AND c.account_name IS n.account_name AND c.account_id IS n.account_id"
    "    AND c.account_type IS n.account_type AND c.statement_type IS n.statement_type"
    "    AND c.period_start IS n.period_start AND c.period_end IS n.period_end"
    "    AND c.due_date IS n.due_date AND c.amount_due IS n.amount_due"
    "    AND c.opening_balance IS n.opening_balance AND c.closing_balance IS n.closing_balance"
    "    AND c.interest_rate IS n.interest_rate AND c.scheduled_repayment IS n.scheduled_repayment"
    "    AND c.repayment_frequency IS n.repayment_frequency"
    "    AND c.redraw_available IS n.redraw_available AND c.loan_term_months IS n.loan_term_months"
    "    AND (SELECT COUNT(*) FROM transactions WHERE statement_id = c.id)"
    "        = (SELECT COUNT(*) FROM transactions WHERE statement_id = n.id)"
    "    AND NOT EXISTS (SELECT 1 FROM rows_of r"
    "         WHERE r.k <> (SELECT COUNT(*) FROM transactions t WHERE t.statement_id = c.id"
    "                         AND t.date = r.date AND t.amount = r.amount"
    "                         AND t.currency IS r.currency"
    "                         AND COALESCE(t.amount_aud, t.amount) = r.home"
    "                         AND t.description IS r.description))"
    "  ORDER BY c.id LIMIT 1";

static int check_not_repeated(ledger_db *db, int64_t me, int64_t id, ledger_error *err)
{
    int64_t earlier;

    if (db_int(db, err, "statement", &earlier, 0, SQL_SAME_STATEMENT_ROWS, DB_INT(me), DB_INT(id)))
        return LEDGER_ERR;
    if (earlier)
        return ledger_error_set(err, 409, "conflict", NULL,
                                "statement %lld has the same fields and rows:"
                                " this one is imported already (delete it to import it again)",
                                (long long)earlier);
    return LEDGER_OK;
}

/* Reads and checks rows [from, to) of items, and stages them
 * (statement_rows.c) when stage is set. */
static int stage_rows(ledger_db *db, int64_t me, struct json_items *items, size_t from, size_t to,
                      const char *statement_type, int stage, ledger_error *err)
{
    size_t i;

    for (i = from; i < to; i++) {
        const cJSON *o = json_item(items, i, err);
        struct statement_row r;
        char category[LEDGER_CATEGORY_MAX];
        int refund;

        if (o == NULL)
            return LEDGER_ERR;
        if (read_row(db, me, o, &r, category, &refund, err)
            || check_itemised(&r, statement_type, ledger_home_currency(db), err))
            return error_in_item(err, "transactions", i);
        if (stage && statement_row_stage(db, me, &r, refund, err))
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

/* The statement of body with the n rows of items (a tree's, or read from
 * the request's text a row at a time).  Called in a transaction, it writes
 * in that one.  Called in none, it begins its own (ledger_begin_as), and a
 * statement of more rows than a chunk runs as a job (job.c): its rows are
 * checked first, in a read transaction, then each chunk staged in one and
 * written in a write transaction of its own (statement_chunk_write); the
 * statement is read back in a read transaction, as nothing after changes
 * what it says, and the job's last transaction resolves its refunds,
 * checks it is not a repeat and takes the suggestions. */
static int create(ledger_db *db, int64_t me, const cJSON *body, struct json_items *items,
                  size_t n, cJSON **out, ledger_error *err)
{
    struct statement_fields f;
    struct refund_rows refunds = { NULL, 0 };
    struct job job_run, *job = NULL;
    int64_t id = 0, before, written = 0;
    size_t i, from, to;
    int rc = LEDGER_ERR, own = 0;
    cJSON *run = NULL;

    *out = NULL;
    if (statement_fields_read(body, &f, err))
        return LEDGER_ERR;
    /* The rows are part of the statement (API.md): a statement without
     * any says so with [], so one whose rows were left out by mistake is
     * not stored empty. */
    if (cJSON_GetObjectItemCaseSensitive(body, "transactions") == NULL)
        return error_field(err, "transactions",
                           "transactions is required: the statement's rows, [] for none");
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(body, "transactions")) || n > ROWS_MAX)
        return error_field(err, "transactions",
                           "transactions must be an array of at most %d rows", ROWS_MAX);
    if (job_begin(db, me, "statement", n, &job_run, &job, &own, err)
        || (job && stage_rows(db, me, items, 0, n, f.statement_type, 0, err))
        || statement_rows_begin(db, &before, err))
        goto out;
    from = 0;
    do {
        to = n - from > JOB_CHUNK_ROWS ? from + JOB_CHUNK_ROWS : n;
        if (stage_rows(db, me, items, from, to, f.statement_type, 1, err)
            || statement_chunk_write(db, me, &f, &id, job, &refunds, &written, err))
            goto out;
        from = to;
    } while (from < n);
    if (statement_get(db, me, id, out, err) || job_yield(db, job, 1, err))
        goto out;
    /* Now that every row of the statement is there to count. */
    for (i = 0; i < refunds.n; i++)
        if (category_resolve_refund_row(db, me, refunds.v[i].id, refunds.v[i].merchant, err))
            goto out;
    /* Its rows without a category take the suggestions that pass the
     * owner's threshold as one run, as an imported file's rows do. */
    if (check_not_repeated(db, me, id, err) || (n && suggest_auto(db, me, before, &run, err)))
        goto out;
    rc = suggestion_run_add(*out, run, err);
    run = NULL;
    if (rc == LEDGER_OK && (job_done(db, job, err) || (own && ledger_commit(db, err))))
        rc = LEDGER_ERR;
out:
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    if (own && db->in_txn)
        ledger_rollback(db);
    if (job)
        job_end(db, job);
    cJSON_Delete(run);
    refund_rows_free(&refunds);
    return rc;
}

int ledger_statement_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out,
                            ledger_error *err)
{
    const cJSON *rows;
    struct json_items items;

    if (field_require_object(body, err))
        return LEDGER_ERR;
    rows = cJSON_GetObjectItemCaseSensitive(body, "transactions");
    memset(&items, 0, sizeof items);
    items.array = rows;
    return create(db, me, body, &items, cJSON_IsArray(rows) ? (size_t)cJSON_GetArraySize(rows) : 0,
                  out, err);
}

int ledger_statement_create_text(ledger_db *db, int64_t me, const char *text, size_t len,
                                 cJSON **out, ledger_error *err)
{
    struct json_lazy body;
    int rc;

    if (json_lazy_parse(text, len, "transactions", &body, err))
        return LEDGER_ERR;
    rc = field_require_object(body.body, err)
         ? LEDGER_ERR : create(db, me, body.body, &body.items, body.n, out, err);
    json_lazy_end(&body);
    return rc;
}
