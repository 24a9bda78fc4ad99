/* Statements and the rows imports create, private to libledger
 * (statement.c). */
#ifndef LEDGER_STATEMENT_H
#define LEDGER_STATEMENT_H

#include "db.h"

/* ---- statements (statement.c) ------------------------------------------------- */
extern const char *const statement_types[];
/* Free text ("Visa Credit Card", "Home Loan") to a statement type. */
const char *statement_type_from_text(const char *text);
/* Free text to weekly, fortnightly, monthly, quarterly or yearly; NULL if none. */
const char *repayment_frequency_fold(const char *text);

/* A statement's own fields; the strings point into the caller's data. */
struct statement_fields {
    const char *bank_name, *account_name, *account_type, *statement_type;
    const char *period_start, *period_end, *due_date, *repayment_frequency, *account_id;
    int64_t amount_due, opening, closing, interest_rate, scheduled_repayment,
        redraw_available, loan_term_months;
    int has_amount_due, has_opening, has_closing, has_rate, has_repayment, has_redraw,
        has_term;
};
/* One row of a statement (statement_row_stage) or of a CSV commit,
 * already validated and folded. */
struct statement_row {
    const char *date, *description, *merchant, *category, *type, *currency, *rate, *fitid;
    const char *payment_method;
    const char *notes;        /* a CSV row's notes (OFX keeps its memo in the description) */
    /* The raw text a row without a merchant of its own is named from (an
     * OFX NAME, else MEMO); NULL: the description, when merchant is empty. */
    const char *merchant_from;
    int64_t amount, amount_aud, principal, interest;
    int has_amount_aud, has_principal, has_interest;
    int has_fitid_out, fitid_out;  /* the file's direction (OFX: 1 money out): transactions.fitid_out */
    char currency_code[4];    /* currency points here when read from JSON */
};
int statement_fields_read(const cJSON *body, struct statement_fields *f, ledger_error *err);
int statement_insert(ledger_db *db, int64_t me, const struct statement_fields *f, int64_t *id,
                     ledger_error *err);

/* ---- a statement's rows on their way in (statement_rows.c) ----------------------- */
/* Rows written by one INSERT ... SELECT from a stage take ids base + seq,
 * seq 1 to n, with base read first (ROW_ID_BASE: as a subquery in the
 * INSERT it would make SQLite copy the whole SELECT aside before
 * writing): *base, or -1 when fewer than n ids are left past the largest.
 * After the INSERT, rows_ids_taken checks the n rows took them (500). */
int rows_id_base(ledger_db *db, int64_t n, int64_t *base, ledger_error *err);
int rows_ids_taken(ledger_db *db, int64_t base, int64_t n, ledger_error *err);
struct job;
/* A refund row written without its category, to resolve once all the
 * rows are there (category_resolve_refund_row). */
struct refund_row {
    int64_t id;
    char *merchant;  /* a copy, or NULL */
};
struct refund_rows {
    struct refund_row *v;
    size_t n;
};
void refund_rows_free(struct refund_rows *r);
/* Before the rows of a statement or a file: the largest row id there is
 * in *before (their ids come after it: suggest_auto's after_id), and the
 * stage emptied, so that nothing a failed call left is written with them. */
int statement_rows_begin(ledger_db *db, int64_t *before, ledger_error *err);
/* Stages r (refund: its category is left to resolve), its merchant
 * derived; nothing of the ledger's is written. */
int statement_row_stage(ledger_db *db, int64_t me, const struct statement_row *r, int refund,
                        ledger_error *err);
/* Writes the staged rows to statement *id, first inserting the statement
 * (f) when *id is 0, and adds their count to *written and the refunds
 * among them to refunds (NULL: there are none).  A job (NULL for none)
 * writes in a write transaction of its own, begun from the read one it
 * staged in, and commits it, pauses and begins a read transaction again
 * for what comes next. */
int statement_chunk_write(ledger_db *db, int64_t me, const struct statement_fields *f,
                          int64_t *id, struct job *job, struct refund_rows *refunds,
                          int64_t *written, ledger_error *err);
/* One statement of the caller's: 404 missing, 403 another user's. */
int statement_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
/* One transaction of statement id's delete (statement_delete.c), in the
 * caller's write transaction: a chunk of the rows its owner alone sees,
 * *more set when a whole chunk went; or, with end, the rest: its matches
 * given back, the statement and its shared rows deleted. */
int statement_delete_step(ledger_db *db, int64_t id, int end, int *more, ledger_error *err);

/* ---- a new statement or import row's checks (statement.c) ------------------------
 * What every row a statement or a CSV import creates is held to once its
 * fields are read (its category's text in cat): amounts are magnitudes, a
 * row in another currency is counted at its home amount (given, or amount
 * x rate), and its category is folded and resolved into category
 * (r->category), or *refund set for "refund", which the caller resolves
 * once all its rows are written so that they count. */
int statement_row_finish(ledger_db *db, int64_t me, struct statement_row *r, const char *cat,
                         char category[LEDGER_CATEGORY_MAX], int *refund, ledger_error *err);

#endif /* LEDGER_STATEMENT_H */
