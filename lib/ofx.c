/*
 * OFX and QFX statement files: the document.
 *
 * ofx_lex.c reads the markup and tells this file as each element opens,
 * holds text and closes; here the statements, their balances and their
 * transactions are filled in as that happens, from the values of the
 * elements this reader knows, so a file is read in one pass without
 * building a tree.
 *
 * Choices where files and the specification leave room:
 * - An amount has one optional sign, digits and at most one radix point,
 *   which may be '.' or ',' (OFX 3.2.9.1 allows both and forbids digit
 *   grouping).  So "1,234.56" is refused rather than guessed, and "1,234"
 *   (a comma then exactly three digits after one to three digits) is refused
 *   as ambiguous: read as the specification says it would be 1.234, read as
 *   a careless exporter meant it would be 1234.
 * - A date keeps the calendar day as written; the time and the [offset:TZ]
 *   are checked and dropped.  A statement's dates are the bank's booking
 *   days, and converting 20250131 23:00 EST to UTC would move a row into the
 *   next month.
 * - TRNTYPE is kept as the bank sent it (upper-case), known to the
 *   specification or not; the importer maps it and falls back on the sign.
 * - An empty element is an absent value: a balance without its amount is
 *   no balance, an empty CURDEF the home currency (a warning says so); only
 *   a row's empty TRNAMT or DTPOSTED refuses the file, as a wrong one does.
 *   A balance's DTASOF that is not a date is dropped with a warning: the
 *   balance stands without it.
 * - A STATUS with a CODE other than 0 is the bank's refusal: a file with no
 *   statement is refused with its code and message, and beside statements
 *   it is a warning.  An investment statement (INVSTMTRS) is not read: a
 *   file of only those is refused saying what to export instead.
 * - A statement without an ACCTID is kept (with a warning): the importer
 *   names its account by the bank, type and currency.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "ofx_parts.h"
#include "text.h"

/* ---- values ------------------------------------------------------------------ */

/* An OFX date: YYYYMMDD, then optionally HHMM or HHMMSS, then .XXX, then
 * [offset:TZ].  out gets the calendar day as written, YYYY-MM-DD. */
static int parse_date(const char *s, char out[11])
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *day;
    int n = 0, y, mo, d, k;

    while (ascii_digit((unsigned char)s[n]))
        n++;
    if (n != 8 && n != 12 && n != 14)
        return LEDGER_ERR;
    y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    mo = (s[4] - '0') * 10 + (s[5] - '0');
    d = (s[6] - '0') * 10 + (s[7] - '0');
    /* From 1900, as every other date the API takes (fields.c valid_date):
     * an earlier one would be stored where no date filter reaches. */
    if (y < 1900 || mo < 1 || mo > 12 || d < 1)
        return LEDGER_ERR;
    if (d > mdays[mo - 1] + (mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return LEDGER_ERR;
    if (n >= 12 && ((s[8] - '0') * 10 + (s[9] - '0') > 23 || (s[10] - '0') * 10 + (s[11] - '0') > 59))
        return LEDGER_ERR;
    if (n == 14 && (s[12] - '0') * 10 + (s[13] - '0') > 60)
        return LEDGER_ERR;   /* 60: a leap second */
    day = s;
    s += n;
    if (*s == '.') {
        if (n != 14)
            return LEDGER_ERR;
        for (s++, k = 0; ascii_digit((unsigned char)*s); s++)
            k++;
        if (k < 1 || k > 6)
            return LEDGER_ERR;
    }
    while (*s == ' ')
        s++;
    if (*s == '[') {
        /* [-5:EST], [+10:AEST], [0:GMT], [-3.30:NST], [-0700] */
        s++;
        if (*s == '+' || *s == '-')
            s++;
        for (k = 0; ascii_digit((unsigned char)*s); s++)
            k++;
        if (k < 1 || k > 4)
            return LEDGER_ERR;
        if (*s == '.') {
            for (s++, k = 0; ascii_digit((unsigned char)*s); s++)
                k++;
            if (k < 1 || k > 2)
                return LEDGER_ERR;
        }
        if (*s == ':')
            for (s++, k = 0; ascii_alpha((unsigned char)*s) || ascii_digit((unsigned char)*s)
                             || *s == '_' || *s == '+' || *s == '-'; s++)
                if (++k > 16)
                    return LEDGER_ERR;
        if (*s++ != ']')
            return LEDGER_ERR;
    }
    if (*s != '\0')
        return LEDGER_ERR;
    memcpy(out, day, 4);
    out[4] = '-';
    memcpy(out + 5, day + 4, 2);
    out[7] = '-';
    memcpy(out + 8, day + 6, 2);
    out[10] = '\0';
    return LEDGER_OK;
}

enum { AMT_OK, AMT_NAN, AMT_DECIMALS, AMT_RANGE, AMT_AMBIGUOUS };

/* An OFX amount (see the top for the choices) to cents, exactly. */
static int parse_amount(const char *s, int64_t *cents)
{
    char norm[80];
    const char *ip, *fp = s;
    size_t nint, nfrac = 0, o = 0, i;
    char sep = 0;
    int neg = 0;

    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    for (ip = s; ascii_digit((unsigned char)*s); s++)
        ;
    nint = (size_t)(s - ip);
    if (*s == '.' || *s == ',') {
        sep = *s++;
        for (fp = s; ascii_digit((unsigned char)*s); s++)
            ;
        nfrac = (size_t)(s - fp);
    }
    if (*s != '\0' || nint + nfrac == 0)
        return AMT_NAN;
    if (sep == ',' && nfrac == 3 && nint >= 1 && nint <= 3 && ip[0] != '0')
        return AMT_AMBIGUOUS;
    for (i = 2; i < nfrac; i++)
        if (fp[i] != '0')
            return AMT_DECIMALS;
    if (nint + nfrac + 3 > sizeof norm)
        return AMT_RANGE;
    if (neg)
        norm[o++] = '-';
    if (nint == 0)
        norm[o++] = '0';
    memcpy(norm + o, ip, nint);
    o += nint;
    if (nfrac) {
        norm[o++] = '.';
        memcpy(norm + o, fp, nfrac);
        o += nfrac;
    }
    norm[o] = '\0';
    return ledger_decimal2_parse(norm, cents) == LEDGER_OK ? AMT_OK : AMT_RANGE;
}

/* ---- element values into the document -------------------------------------- */

static int value_fit(struct parser *ps, const struct tag *t, const unsigned char *s,
                     const unsigned char *e, char *out, size_t cap, int truncate)
{
    switch (ofx_decode_text(ps, s, e, out, cap, truncate)) {
    case DEC_OK:
        return LEDGER_OK;
    case DEC_CUT:
        return ofx_warn(ps, t->line, "<%s> is longer than %zu bytes: the rest is dropped",
                        t->name, cap - 1);
    case DEC_LONG:
        return ofx_fail(ps, t->line, "<%s> is longer than %zu bytes", t->name, cap - 1);
    default:
        return ofx_fail(ps, t->line, "<%s> holds a character reference to a character "
                    "text may not contain", t->name);
    }
}

/* The element may appear once in its aggregate. */
static int once(struct parser *ps, const struct tag *t, uint64_t *seen, int id)
{
    if (*seen & BIT(id))
        return ofx_fail(ps, t->line, "a second <%s> in one <%s>", t->name,
                    ps->stack[ps->depth - 1].name);
    *seen |= BIT(id);
    return LEDGER_OK;
}

static int date_value(struct parser *ps, const struct tag *t, const unsigned char *s,
                      const unsigned char *e, char out[11])
{
    char text[64], shown_buf[48];

    if (value_fit(ps, t, s, e, text, sizeof text, 0))
        return LEDGER_ERR;
    if (parse_date(text, out))
        return ofx_fail(ps, t->line, "<%s> '%s' is not a date (YYYYMMDD from 1900, a real day, "
                    "optionally with a time)", t->name,
                    ofx_shown(text, strlen(text), shown_buf));
    return LEDGER_OK;
}

static int amount_value(struct parser *ps, const struct tag *t, const unsigned char *s,
                        const unsigned char *e, int64_t *cents)
{
    char text[64], sb[48];
    const char *why;

    if (value_fit(ps, t, s, e, text, sizeof text, 0))
        return LEDGER_ERR;
    switch (parse_amount(text, cents)) {
    case AMT_OK:
        return LEDGER_OK;
    case AMT_DECIMALS:
        why = "has more than 2 decimal places";
        break;
    case AMT_RANGE:
        why = "is out of range";
        break;
    case AMT_AMBIGUOUS:
        why = "is ambiguous (a decimal comma or a thousands separator?)";
        break;
    default:
        why = "is not an amount";
        break;
    }
    return ofx_fail(ps, t->line, "<%s> '%s' %s", t->name, ofx_shown(text, strlen(text), sb), why);
}

/* A word of letters, digits and '_', upper-cased: TRNTYPE, ACCTTYPE. */
static int word_value(struct parser *ps, const struct tag *t, const unsigned char *s,
                      const unsigned char *e, char *out, size_t cap)
{
    char sb[48];
    size_t i;

    if (value_fit(ps, t, s, e, out, cap, 0))
        return LEDGER_ERR;
    for (i = 0; out[i]; i++) {
        unsigned char c = ascii_upper((unsigned char)out[i]);

        if (!ascii_alpha(c) && !ascii_digit(c) && c != '_')
            return ofx_fail(ps, t->line, "<%s> '%s' is not a word", t->name,
                        ofx_shown(out, strlen(out), sb));
        out[i] = (char)c;
    }
    return LEDGER_OK;
}

static int currency_value(struct parser *ps, const struct tag *t, const unsigned char *s,
                          const unsigned char *e, char out[4])
{
    char text[16], sb[48];
    int i;

    if (value_fit(ps, t, s, e, text, sizeof text, 0))
        return LEDGER_ERR;
    for (i = 0; i < 3 && ascii_alpha((unsigned char)text[i]); i++)
        out[i] = (char)ascii_upper((unsigned char)text[i]);
    if (i != 3 || text[3] != '\0')
        return ofx_fail(ps, t->line, "<%s> '%s' is not a three-letter currency code",
                    t->name, ofx_shown(text, strlen(text), sb));
    out[3] = '\0';
    return LEDGER_OK;
}

/* CURRATE: a positive decimal, kept as text with a '.' radix point. */
static int rate_value(struct parser *ps, const struct tag *t, const unsigned char *s,
                      const unsigned char *e, char out[24])
{
    char text[24], sb[48];
    size_t i, o = 0;
    int sep = 0, digits = 0, nonzero = 0;

    if (value_fit(ps, t, s, e, text, sizeof text - 1, 0))
        return LEDGER_ERR;
    if (text[0] == '.' || text[0] == ',')
        out[o++] = '0';
    for (i = 0; text[i]; i++) {
        if (ascii_digit((unsigned char)text[i])) {
            digits++;
            nonzero |= text[i] != '0';
            out[o++] = text[i];
        } else if ((text[i] == '.' || text[i] == ',') && !sep) {
            sep = 1;
            out[o++] = '.';
        } else {
            break;
        }
    }
    out[o] = '\0';
    if (text[i] != '\0' || !digits || !nonzero)
        return ofx_fail(ps, t->line, "<%s> '%s' is not a positive rate", t->name,
                    ofx_shown(text, strlen(text), sb));
    return LEDGER_OK;
}

static struct ofx_account *account(struct parser *ps)
{
    return &ps->doc.accounts[ps->doc.naccounts - 1];
}

/* The open transaction is filled in place, in the slot after the account's
 * last one, and counted when it closes complete. */
static struct ofx_txn *open_txn(struct parser *ps)
{
    struct ofx_account *a = account(ps);

    return &a->txns[a->ntxns];
}

#define TXN_FIELDS (BIT(E_TRNTYPE) | BIT(E_DTPOSTED) | BIT(E_DTUSER) | BIT(E_TRNAMT) \
                    | BIT(E_FITID) | BIT(E_NAME) | BIT(E_MEMO) | BIT(E_CHECKNUM))

static int blank(const unsigned char *s, const unsigned char *e)
{
    while (s < e && ascii_space(*s))
        s++;
    return s == e;
}

/* Element text [s, e) of t, in the aggregate on top of the stack.  Known
 * elements out of their place are ignored like unknown ones. */
int ofx_leaf(struct parser *ps, const struct tag *t, int id, const unsigned char *s,
             const unsigned char *e)
{
    int par = ps->depth - 1;
    int pid = par >= 0 ? ps->stack[par].id : E_OTHER;
    struct ofx_txn *x = ps->txn_at >= 0 ? open_txn(ps) : NULL;
    struct ofx_account *a = ps->acct_at >= 0 ? account(ps) : NULL;

    if (id == E_OTHER || par < 0)
        return LEDGER_OK;
    /* An empty element (<CURDEF></CURDEF>, <BALAMT/>) is an absent value;
     * only a row's amount and date must be there (add_txn). */
    if (blank(s, e) && !(par == ps->txn_at && (id == E_TRNAMT || id == E_DTPOSTED))) {
        if (a && par == ps->acct_at && id == E_CURDEF)
            return ofx_warn(ps, t->line, "<CURDEF> is empty: the statement is taken to be in "
                            "the home currency");
        return LEDGER_OK;
    }
    if (pid == E_STATUS && (id == E_CODE || id == E_SEVERITY || id == E_MESSAGE))
        return value_fit(ps, t, s, e, id == E_CODE ? ps->st_code : id == E_SEVERITY
                         ? ps->st_severity : ps->st_message,
                         id == E_CODE ? sizeof ps->st_code : id == E_SEVERITY
                         ? sizeof ps->st_severity : sizeof ps->st_message, 1);
    if (id == E_DTSERVER && pid == E_SONRS) {
        char text[64];

        /* only a fallback for a statement's period: a bad one is no loss */
        if (ofx_decode_text(ps, s, e, text, sizeof text, 0) != DEC_OK
            || parse_date(text, ps->doc.server_date))
            ps->doc.server_date[0] = '\0';
        return LEDGER_OK;
    }
    if (id == E_PAYEE && par == ps->txn_at)
        return value_fit(ps, t, s, e, ps->payee_name, sizeof ps->payee_name, 1);
    if (par == ps->txn_at) {
        if (!(BIT(id) & TXN_FIELDS))
            return LEDGER_OK;
        if (once(ps, t, &ps->txn_seen, id))
            return LEDGER_ERR;
        switch (id) {
        case E_TRNTYPE:
            return word_value(ps, t, s, e, x->trntype, sizeof x->trntype);
        case E_DTPOSTED:
            return date_value(ps, t, s, e, x->date);
        case E_DTUSER:
            return date_value(ps, t, s, e, ps->dtuser);
        case E_TRNAMT:
            return amount_value(ps, t, s, e, &x->amount);
        case E_FITID:
            return value_fit(ps, t, s, e, x->fitid, sizeof x->fitid, 0);
        case E_NAME:
            return value_fit(ps, t, s, e, x->name, sizeof x->name, 1);
        case E_MEMO:
            return value_fit(ps, t, s, e, x->memo, sizeof x->memo, 1);
        default:
            return value_fit(ps, t, s, e, x->checknum, sizeof x->checknum, 0);
        }
    }
    if (id == E_NAME && pid == E_PAYEE && ps->txn_at >= 0 && par - 1 == ps->txn_at)
        return value_fit(ps, t, s, e, ps->payee_name, sizeof ps->payee_name, 1);
    if (par == ps->cur_at && (id == E_CURSYM || id == E_CURRATE)) {
        if (once(ps, t, &ps->cur_seen, id))
            return LEDGER_ERR;
        return id == E_CURSYM ? currency_value(ps, t, s, e, ps->cur_sym)
                              : rate_value(ps, t, s, e, ps->cur_rate);
    }
    if (par == ps->bal_at && (id == E_BALAMT || id == E_DTASOF)) {
        if (once(ps, t, &ps->bal_seen, id))
            return LEDGER_ERR;
        if (id == E_BALAMT)
            return amount_value(ps, t, s, e, &ps->bal_amount);
        {
            char text[64], sb[48];

            /* the balance stands without its date (DD/MM/YYYY, a minute 82) */
            if (ofx_decode_text(ps, s, e, text, sizeof text, 1) != DEC_OK
                || parse_date(text, ps->bal_date)) {
                ps->bal_date[0] = '\0';
                return ofx_warn(ps, t->line, "<DTASOF> '%s' is not a date: the balance is kept "
                                "without its date", ofx_shown(text, strlen(text), sb));
            }
            return LEDGER_OK;
        }
    }
    if (a && par == ps->acct_at && id == E_CURDEF) {
        if (once(ps, t, &ps->acct_seen, id))
            return LEDGER_ERR;
        return currency_value(ps, t, s, e, a->currency);
    }
    /* Either kind of ACCTFROM in either kind of statement: exporters mix
     * them up, and the statement's kind decides. */
    if (a && par == ps->acct_at + 1 && (pid == E_BANKACCTFROM || pid == E_CCACCTFROM)
        && (id == E_ACCTID || id == E_BANKID || (id == E_ACCTTYPE && !a->credit_card))) {
        if (once(ps, t, &ps->acct_seen, id))
            return LEDGER_ERR;
        if (id == E_ACCTID)
            return value_fit(ps, t, s, e, a->acct_id, sizeof a->acct_id, 0);
        if (id == E_BANKID)
            return value_fit(ps, t, s, e, a->bank_id, sizeof a->bank_id, 0);
        return word_value(ps, t, s, e, a->acct_type, sizeof a->acct_type);
    }
    if (a && par == ps->acct_at + 1 && pid == E_BANKTRANLIST
        && (id == E_DTSTART || id == E_DTEND)) {
        if (once(ps, t, &ps->acct_seen, id))
            return LEDGER_ERR;
        return date_value(ps, t, s, e, id == E_DTSTART ? a->start : a->end);
    }
    if (pid == E_FI && par >= 1 && ps->stack[par - 1].id == E_SONRS) {
        if (id == E_ORG)
            return value_fit(ps, t, s, e, ps->doc.org, sizeof ps->doc.org, 1);
        if (id == E_FID)
            return value_fit(ps, t, s, e, ps->doc.fid, sizeof ps->doc.fid, 0);
    }
    return LEDGER_OK;
}

/* The aggregate at stack index i has just opened. */
int ofx_opened(struct parser *ps, int i)
{
    const struct frame *f = &ps->stack[i];

    switch (f->id) {
    case E_STMTRS:
    case E_CCSTMTRS: {
        struct ofx_account *a;

        if (ps->acct_at >= 0)
            return ofx_fail(ps, f->line, "<%s> inside another statement", f->name);
        if (ps->doc.naccounts == ps->acct_cap) {
            size_t cap = ps->acct_cap ? ps->acct_cap * 2 : 4;
            void *grown = realloc(ps->doc.accounts, cap * sizeof *a);

            if (grown == NULL)
                return ledger_error_oom(ps->err);
            ps->doc.accounts = grown;
            ps->acct_cap = cap;
        }
        a = &ps->doc.accounts[ps->doc.naccounts++];
        memset(a, 0, sizeof *a);
        a->credit_card = f->id == E_CCSTMTRS;
        if (a->credit_card)
            memcpy(a->acct_type, "CREDITCARD", sizeof "CREDITCARD");
        a->line = f->line;
        ps->acct_at = i;
        ps->acct_seen = 0;
        ps->txn_cap = 0;
        break;
    }
    case E_STMTTRN:
        if (ps->acct_at >= 0 && i == ps->acct_at + 2
            && ps->stack[i - 1].id == E_BANKTRANLIST) {
            struct ofx_account *a = account(ps);
            struct ofx_txn *x;

            if (a->ntxns == ps->txn_cap) {
                size_t cap = ps->txn_cap ? ps->txn_cap * 2 : 16;
                void *grown;

                if (cap > SIZE_MAX / sizeof *x)
                    return ledger_error_oom(ps->err);
                grown = realloc(a->txns, cap * sizeof *x);
                if (grown == NULL)
                    return ledger_error_oom(ps->err);
                a->txns = grown;
                ps->txn_cap = cap;
            }
            x = open_txn(ps);
            memset(x, 0, sizeof *x);
            x->line = f->line;
            ps->dtuser[0] = ps->payee_name[0] = '\0';
            ps->txn_at = i;
            ps->txn_seen = 0;
        }
        break;
    case E_LEDGERBAL:
    case E_AVAILBAL:
        if (ps->acct_at >= 0 && i == ps->acct_at + 1) {
            if (ps->acct_seen & BIT(f->id))
                return ofx_fail(ps, f->line, "a second <%s> in one statement", f->name);
            ps->acct_seen |= BIT(f->id);
            ps->bal_at = i;
            ps->bal_seen = 0;
            ps->bal_amount = 0;
            ps->bal_date[0] = '\0';
        }
        break;
    case E_STATUS:
        ps->st_code[0] = ps->st_severity[0] = ps->st_message[0] = '\0';
        break;
    case E_INVSTMTRS:
        if (ps->inv_line == 0)
            ps->inv_line = f->line;
        return ofx_warn(ps, f->line, "an investment statement (<INVSTMTRS>) is not imported: "
                        "only bank and credit-card statements are");
    case E_CURRENCY:
    case E_ORIGCURRENCY:
        if (ps->txn_at >= 0 && i == ps->txn_at + 1) {
            /* one bit for both: a transaction has CURRENCY or ORIGCURRENCY */
            if (ps->txn_seen & BIT(E_CURRENCY))
                return ofx_fail(ps, f->line, "a second currency in one <STMTTRN>");
            ps->txn_seen |= BIT(E_CURRENCY);
            ps->cur_at = i;
            ps->cur_seen = 0;
            ps->cur_sym[0] = ps->cur_rate[0] = '\0';
        }
        break;
    }
    return LEDGER_OK;
}

static int add_txn(struct parser *ps)
{
    struct ofx_account *a = account(ps);
    struct ofx_txn *x = open_txn(ps);

    if (!(ps->txn_seen & BIT(E_TRNAMT)))
        return ofx_fail(ps, x->line, "<STMTTRN> has no <TRNAMT>");
    if (!(ps->txn_seen & BIT(E_DTPOSTED))) {
        if (!(ps->txn_seen & BIT(E_DTUSER)))
            return ofx_fail(ps, x->line, "<STMTTRN> has neither <DTPOSTED> nor <DTUSER>");
        memcpy(x->date, ps->dtuser, sizeof x->date);
    }
    if (x->name[0] == '\0')
        memcpy(x->name, ps->payee_name, sizeof x->name);
    a->ntxns++;
    return LEDGER_OK;
}

/* The aggregate at stack index i is closing, by its end tag or its parent's. */
int ofx_closed(struct parser *ps, int i)
{
    const struct frame *f = &ps->stack[i];

    if (i == ps->txn_at) {
        ps->txn_at = -1;
        return add_txn(ps);
    }
    if (i == ps->cur_at) {
        ps->cur_at = -1;
        if (!(ps->cur_seen & BIT(E_CURSYM)))
            return ofx_fail(ps, f->line, "<%s> has no <CURSYM>", f->name);
        memcpy(f->id == E_CURRENCY ? open_txn(ps)->currency : open_txn(ps)->orig_currency,
               ps->cur_sym, sizeof ps->cur_sym);
        memcpy(open_txn(ps)->currate, ps->cur_rate, sizeof ps->cur_rate);
        return LEDGER_OK;
    }
    if (i == ps->bal_at) {
        struct ofx_account *a = account(ps);

        ps->bal_at = -1;
        /* A balance without its amount is no balance; its date still
         * dates a statement that has no rows (import_account). */
        if (!(ps->bal_seen & BIT(E_BALAMT))) {
            memcpy(f->id == E_LEDGERBAL ? a->ledger_balance_date : a->available_balance_date,
                   ps->bal_date, sizeof ps->bal_date);
            return LEDGER_OK;
        }
        if (f->id == E_LEDGERBAL) {
            a->has_ledger_balance = 1;
            a->ledger_balance = ps->bal_amount;
            memcpy(a->ledger_balance_date, ps->bal_date, sizeof ps->bal_date);
        } else {
            a->has_available_balance = 1;
            a->available_balance = ps->bal_amount;
            memcpy(a->available_balance_date, ps->bal_date, sizeof ps->bal_date);
        }
        return LEDGER_OK;
    }
    if (f->id == E_STATUS && ps->st_code[0] && strspn(ps->st_code, "0") != strlen(ps->st_code)) {
        const unsigned char *m;
        size_t k;

        if (ps->bad_line == 0) {
            ps->bad_line = f->line;
            memcpy(ps->bad_code, ps->st_code, sizeof ps->bad_code);
            memcpy(ps->bad_severity, ps->st_severity, sizeof ps->bad_severity);
            /* shown in an error message: printable ASCII, a character
             * outside it one '?' */
            for (k = 0, m = (const unsigned char *)ps->st_message; *m && k + 1 < sizeof ps->bad_message; m++)
                if ((*m & 0xC0) != 0x80)
                    ps->bad_message[k++] = *m >= 0x20 && *m < 0x7F ? (char)*m : '?';
            ps->bad_message[k] = '\0';
        }
        return ofx_warn(ps, f->line, "the bank's STATUS CODE %s (%s) \"%s\"", ps->st_code,
                        ps->st_severity, ps->st_message);
    }
    if (i == ps->acct_at) {
        struct ofx_account *a = account(ps);

        ps->acct_at = -1;
        if (a->acct_id[0] == '\0'
            && ofx_warn(ps, f->line, "<%s> has no <ACCTID>: its rows are kept under an account "
                        "named by the bank, the account type and the currency", f->name))
            return LEDGER_ERR;
        if (a->ntxns == 0) {
            free(a->txns);   /* slots for transactions that were never complete */
            a->txns = NULL;
        } else if (a->ntxns < ps->txn_cap) {
            void *fitted = realloc(a->txns, a->ntxns * sizeof *a->txns);

            if (fitted)
                a->txns = fitted;
        }
        return LEDGER_OK;
    }
    return LEDGER_OK;
}

/* Whether the element child has a place in parent, for the elements this
 * reader acts on. */
int ofx_belongs(int child, int parent)
{
    switch (child) {
    case E_TRNTYPE: case E_DTPOSTED: case E_DTUSER: case E_TRNAMT: case E_FITID:
    case E_MEMO: case E_CHECKNUM: case E_PAYEE: case E_CURRENCY: case E_ORIGCURRENCY:
        return parent == E_STMTTRN;
    case E_NAME:
        return parent == E_STMTTRN || parent == E_PAYEE;
    case E_CURDEF: case E_BANKACCTFROM: case E_CCACCTFROM: case E_BANKTRANLIST:
    case E_LEDGERBAL: case E_AVAILBAL:
        return parent == E_STMTRS || parent == E_CCSTMTRS;
    case E_DTSTART: case E_DTEND: case E_STMTTRN:
        return parent == E_BANKTRANLIST;
    case E_BANKID: case E_ACCTID: case E_ACCTTYPE:
        return parent == E_BANKACCTFROM || parent == E_CCACCTFROM;
    case E_BALAMT: case E_DTASOF:
        return parent == E_LEDGERBAL || parent == E_AVAILBAL;
    case E_CURSYM: case E_CURRATE:
        return parent == E_CURRENCY || parent == E_ORIGCURRENCY;
    case E_ORG: case E_FID:
        return parent == E_FI;
    case E_FI: case E_DTSERVER:
        return parent == E_SONRS;
    case E_CODE: case E_SEVERITY: case E_MESSAGE:
        return parent == E_STATUS;
    }
    return 0;
}

int ofx_parse(const char *buf, size_t len, struct ofx_doc *out, ledger_error *err)
{
    struct parser ps;
    int rc = LEDGER_ERR;

    memset(&ps, 0, sizeof ps);
    if (buf == NULL)
        buf = "", len = 0;
    ps.err = err;
    ps.acct_at = ps.txn_at = ps.bal_at = ps.cur_at = -1;
    if (ofx_lex(&ps, buf, len))
        goto done;
    if (ps.doc.naccounts < ps.acct_cap) {
        void *fitted = realloc(ps.doc.accounts, ps.doc.naccounts * sizeof *ps.doc.accounts);

        if (fitted)
            ps.doc.accounts = fitted;
    }
    *out = ps.doc;
    memset(&ps.doc, 0, sizeof ps.doc);
    rc = LEDGER_OK;
done:
    ofx_doc_free(&ps.doc);
    return rc;
}

void ofx_doc_free(struct ofx_doc *doc)
{
    size_t i;

    if (doc == NULL)
        return;
    for (i = 0; i < doc->naccounts; i++)
        free(doc->accounts[i].txns);
    free(doc->accounts);
    free(doc->warnings);
    memset(doc, 0, sizeof *doc);
}
