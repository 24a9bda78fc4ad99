/* Spend (Business rule D), private to libledger: what counts and how
 * much, the caller's part of it over a range (spend.c), month and date
 * arithmetic, and named sums (tally.c). */
#ifndef LEDGER_SPEND_H
#define LEDGER_SPEND_H

#include "db.h"

/* ---- spend (Business rule D) ------------------------------------------------------
 * SPEND_COUNTS_SQL(t): whether row t counts as spend at all; SPEND_SQL(t):
 * its spend in home-currency cents (negative for a refund);
 * SPEND_CATEGORY_SQL(t): the category it counts under.  Debit, fee and
 * interest count; refunds count negative; transfers, investment and income
 * are left out; an itemised loan repayment counts at its interest, in any
 * category: a repayment is a payment, which rule C makes transfers, so
 * its interest counts under loan_interest when its category is one spend
 * leaves out (spend_contribution, the summary's view, does the same). */
/* An itemised repayment is neither a fee, nor interest, nor a refund: each
 * of those counts its whole amount its own way in the reports, the
 * itemised row its interest, and one row counted both ways would make two
 * reports disagree.  Statement rows and PATCH transaction_type hold to it. */
#define ITEMISED_TYPE_MESSAGE \
    "an itemised repayment (principal_amount and interest_amount) cannot be a fee, interest or refund"
int itemised_type_ok(const char *type);
#define SPEND_ITEMISED_SQL(t) "(" t ".principal_amount IS NOT NULL AND " t ".interest_amount IS NOT NULL)"
#define SPEND_LEFT_OUT_SQL(t) "COALESCE(" t ".eff_category, '') IN ('transfers', 'investment', 'income')"
#define SPEND_COUNTS_SQL(t) \
    "(" SPEND_ITEMISED_SQL(t) " OR (" t ".transaction_type IN ('debit', 'fee', 'interest', 'refund')" \
    " AND NOT " SPEND_LEFT_OUT_SQL(t) "))"
#define SPEND_CATEGORY_SQL(t) \
    "(CASE WHEN " SPEND_ITEMISED_SQL(t) " AND " SPEND_LEFT_OUT_SQL(t) " THEN 'loan_interest'" \
    " ELSE COALESCE(" t ".eff_category, 'uncategorised') END)"
#define SPEND_SQL(t) \
    "(CASE WHEN " SPEND_ITEMISED_SQL(t) " THEN " t ".interest_amount" \
    " WHEN " t ".transaction_type = 'refund' THEN -COALESCE(" t ".amount_aud, " t ".amount)" \
    " ELSE COALESCE(" t ".amount_aud, " t ".amount) END)"

/* ---- spend over a range (spend.c) ------------------------------------------------ */
/* One row of spend in the caller's view (basis=mine). */
struct spend_row {
    int64_t id, owner, spend, override_share;
    int64_t mine;        /* the caller's part of spend, in cents */
    int has_override;
    char month[8], category[LEDGER_CATEGORY_MAX], date[11];
    char *merchant;      /* owned by the walk; valid during the callback */
    char *splits;        /* SPLITS_TEXT_SQL's text, NULL when unsplit; the walk's */
};
/* basis=gross (0, the default) or mine (1); anything else 400. */
int spend_basis(const struct ledger_params *p, int *mine, ledger_error *err);
/* Calls fn for every row that counts as spend in [from, to) that the caller
 * owns or shares in, with its mine part; fn returns non-zero when it ran
 * out of memory, which stops the walk with that error.  With `different`, only for the rows whose mine
 * part may differ from their spend (split, shared or with an override
 * share): on every other row the caller owns, mine is the whole spend. */
int spend_mine_each(ledger_db *db, int64_t me, const char *from, const char *to, int different,
                    int (*fn)(void *ctx, const struct spend_row *r), void *ctx,
                    ledger_error *err);
/* The caller's part (*mine) of one row's spend on basis=mine: the owner's
 * override share, else the caller's split row, else all of an unsplit row
 * the caller owns.  splits is SPLITS_TEXT_SQL's text (NULL for none); sb
 * receives the shares with their cents apportioned over the spend's
 * magnitude (sb->n 0 for none), so a caller also has every other party's
 * part.  -1 when memory ran out.  spend_mine_each and the journal export
 * both count by it, so the two agree to the cent. */
struct split_buf;
int spend_mine_part(int64_t me, int64_t owner, int64_t spend, int has_override,
                    int64_t override_share, const char *splits, struct split_buf *sb,
                    int64_t *mine);
/* Month arithmetic on "YYYY-MM": its first day and the next month's (11
 * bytes each); -1 when month is not a month. */
int month_bounds(const char *month, char *first, char *next);
void month_now(char *out);  /* 8 bytes */
void date_today(char *out); /* 11 bytes, UTC */
void month_add(const char *month, int n, char *out);
/* Days since 1970-01-01 of a valid date, and back (out: 11 bytes); a date
 * months later, the day clamped to the month's length. */
int64_t days_of_date(const char *ymd);
void date_of_days(int64_t days, char *out);
void date_add_months(const char *ymd, int months, char *out);

/* ---- named sums of cents (tally.c) ----------------------------------------------- */
struct tally_item {
    char *name;
    money_sum cents;       /* the sum */
    int64_t count;         /* how many amounts went into it */
};
struct tally {
    struct tally_item *v;
    size_t n, cap;
    size_t *slots;         /* a hash index of v by name: i + 1, 0 empty */
    size_t nslots;         /* a power of two, 0 when there is none */
};
/* The item called name, made at 0 when new (NULL when out of memory). */
struct tally_item *tally_get(struct tally *t, const char *name);
/* Adds cents (one amount) to name; -1 when out of memory. */
int tally_add(struct tally *t, const char *name, int64_t cents);
const struct tally_item *tally_find(const struct tally *t, const char *name);
/* Largest sum first, then by name. */
void tally_sort(struct tally *t);
void tally_free(struct tally *t);

#endif /* LEDGER_SPEND_H */
