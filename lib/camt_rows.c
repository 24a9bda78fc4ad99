/* A CAMT.053 statement's entries, balances and assertion, settled as each
 * closes (camt_parts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "camt.h"
#include "camt_parts.h"

/* Appends s to memo (cap bytes) unless it holds it already. */
static int memo_add(char *memo, size_t cap, const char *s)
{
    size_t n = strlen(memo);

    if (s[0] == '\0' || strstr(memo, s) != NULL)
        return 0;
    if (n + (n > 0) + strlen(s) + 1 > cap)
        return 1;
    snprintf(memo + n, cap - n, "%s%s", n ? " " : "", s);
    return 0;
}

static const char *counterparty(const struct detail *d, int out)
{
    const char *name = out ? d->cdtr : d->dbtr;

    return name[0] ? name : out ? d->ultmt_cdtr : d->ultmt_dbtr;
}

/* One row of the entry: d is its detail, or NULL; amount is signed. */
static int add_row(struct reader *r, const struct detail *d, int64_t signed_amount, int nth)
{
    struct entry *e = &r->e;
    struct ofx_account *a = camt_account(r);
    const char *ref = e->svcr_ref[0] ? e->svcr_ref : e->ntry_ref;
    struct ofx_txn *t = bank_doc_txn(a, &r->txn_cap, r->err);
    int cut = 0;

    if (t == NULL) {
        r->failed = 1;
        XML_StopParser(r->xp, XML_FALSE);
        return LEDGER_ERR;
    }
    t->amount = signed_amount;
    t->line = d ? d->line : e->line;
    snprintf(t->date, sizeof t->date, "%s", e->booked[0] ? e->booked : e->value);
    if (ref[0] && nth > 0)
        snprintf(t->fitid, sizeof t->fitid, "%s/%d", ref, nth);
    else if (ref[0])
        snprintf(t->fitid, sizeof t->fitid, "%s", ref);
    if (strcmp(e->subfamily, "INTR") == 0)
        snprintf(t->trntype, sizeof t->trntype, "INT");
    else if (signed_amount < 0 && (strcmp(e->subfamily, "CHRG") == 0
                                   || strcmp(e->subfamily, "FEES") == 0
                                   || strcmp(e->subfamily, "COMM") == 0))
        snprintf(t->trntype, sizeof t->trntype, "FEE");
    else
        snprintf(t->trntype, sizeof t->trntype, "%s", signed_amount < 0 ? "DEBIT" : "CREDIT");
    if (d) {
        snprintf(t->name, sizeof t->name, "%s", counterparty(d, signed_amount < 0));
        cut |= memo_add(t->memo, sizeof t->memo, d->ustrd);
        cut |= memo_add(t->memo, sizeof t->memo, d->addtl);
    }
    cut |= memo_add(t->memo, sizeof t->memo, e->addtl);
    if (e->ccy[0] && strcmp(e->ccy, a->currency) != 0)
        snprintf(t->currency, sizeof t->currency, "%s", e->ccy);
    if (cut)
        return camt_warn(r, t->line, "the entry's remittance text and notes are longer than %zu "
                    "bytes: cut", sizeof t->memo - 1);
    return LEDGER_OK;
}

/* The closing Ntry: its rows, one per detail of a batch whose amounts
 * add up to the entry's. */
int camt_entry_end(struct reader *r)
{
    struct entry *e = &r->e;
    int64_t signed_amount = e->out ? -e->amount : e->amount, sum = 0;
    size_t i;
    int whole = e->ndetails >= 2;

    if (!e->has_amount || !e->has_out)
        return camt_fail(r, "the entry (line %d) has no %s", e->line, e->has_amount ? "<CdtDbtInd>"
                    : "<Amt>");
    if (e->status[0] && strcmp(e->status, "BOOK") != 0)
        return camt_warn(r, e->line, "the entry's status is %s, not booked (BOOK): not imported",
                    e->status);
    if (!e->booked[0] && !e->value[0])
        return camt_fail(r, "the entry (line %d) has no <BookgDt> or <ValDt>", e->line);
    if (!camt_account(r)->currency[0])
        snprintf(camt_account(r)->currency, sizeof camt_account(r)->currency, "%s", e->ccy);
    for (i = 0; whole && i < e->ndetails; i++) {
        const struct detail *d = &e->details[i];
        int out = d->has_out ? d->out : e->out;

        if (!d->has_amount)
            whole = 0;
        else
            sum += out ? -d->amount : d->amount;
    }
    r->booked_sum += signed_amount;
    if (whole && sum == signed_amount) {
        for (i = 0; i < e->ndetails; i++) {
            const struct detail *d = &e->details[i];
            int out = d->has_out ? d->out : e->out;

            if (add_row(r, d, out ? -d->amount : d->amount, (int)i + 1))
                return LEDGER_ERR;
        }
        return LEDGER_OK;
    }
    if (e->ndetails >= 2 && camt_warn(r, e->line, "the entry's %zu transaction details (TxDtls) are "
                                 "not each kept: their amounts are missing or do not add up to "
                                 "the entry's; imported as one row", e->ndetails))
        return LEDGER_ERR;
    return add_row(r, e->ndetails == 1 ? &e->details[0] : NULL, signed_amount, 0);
}

/* ---- balances and statements -------------------------------------------- */

int camt_balance_end(struct reader *r)
{
    struct balance *b = &r->b;
    struct ofx_account *a = camt_account(r);
    int64_t v = b->out ? -b->amount : b->amount;
    int prcd_dropped;

    if (!b->has_amount)
        return camt_warn(r, b->line, "the balance %s has no <Amt>: not kept", b->code);
    /* An account without <Ccy> is in its amounts' currency. */
    if (!a->currency[0])
        snprintf(a->currency, sizeof a->currency, "%s", b->ccy);
    if (b->ccy[0] && a->currency[0] && strcmp(b->ccy, a->currency) != 0)
        return camt_warn(r, b->line, "the balance %s is in %s, not the account's %s: not kept",
                    b->code, b->ccy, a->currency);
    /* PRCD, the previous closing, opens a statement that has no OPBD. */
    prcd_dropped = (strcmp(b->code, "OPBD") == 0 && r->opening_prcd)
                       || (strcmp(b->code, "PRCD") == 0 && a->has_opening_balance);

    if (prcd_dropped && camt_warn(r, b->line, "the balance PRCD is not kept: the statement's OPBD is "
                             "its opening balance"))
        return LEDGER_ERR;
    if (strcmp(b->code, "OPBD") == 0 || (strcmp(b->code, "PRCD") == 0 && !a->has_opening_balance)) {
        r->opening_prcd = strcmp(b->code, "PRCD") == 0;
        a->has_opening_balance = 1;
        a->opening_balance = v;
        /* the statement's first day, when it gives no period */
        if (strcmp(b->code, "OPBD") == 0 && !a->start[0])
            snprintf(a->start, sizeof a->start, "%s", b->date);
    } else if (strcmp(b->code, "CLBD") == 0) {
        a->has_ledger_balance = 1;
        a->ledger_balance = v;
        snprintf(a->ledger_balance_date, sizeof a->ledger_balance_date, "%s", b->date);
    } else if (strcmp(b->code, "CLAV") == 0) {
        a->has_available_balance = 1;
        a->available_balance = v;
        snprintf(a->available_balance_date, sizeof a->available_balance_date, "%s", b->date);
    } else if (strcmp(b->code, "PRCD") != 0) {
        return camt_warn(r, b->line, "the balance %s is not kept: the ledger keeps the opening (OPBD) "
                    "and closing (CLBD) booked balances", b->code[0] ? b->code : "(no code)");
    }
    return LEDGER_OK;
}

int camt_statement_end(struct reader *r)
{
    struct ofx_account *a = camt_account(r);
    char open[32], made[32], close[32];

    if (a->acct_id[0] == '\0')
        return camt_fail(r, "the statement (line %d) names no account (<Acct><Id>)", a->line);
    if (bank_plain_keys(a, "camt", r->err)) {
        r->failed = 1;
        XML_StopParser(r->xp, XML_FALSE);
        return LEDGER_ERR;
    }
    /* The balance assertion: the bank's own figures must agree. */
    if (a->has_opening_balance && a->has_ledger_balance
        && a->opening_balance + r->booked_sum != a->ledger_balance)
        return camt_warn(r, a->line, "the statement's balances do not add up: OPBD %s and its booked "
                    "entries make %s, CLBD says %s",
                    ledger_decimal2_format(a->opening_balance, open, sizeof open),
                    ledger_decimal2_format(a->opening_balance + r->booked_sum, made, sizeof made),
                    ledger_decimal2_format(a->ledger_balance, close, sizeof close));
    return LEDGER_OK;
}

