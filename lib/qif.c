/*
 * QIF reader (qif.h).  A record is a run of lines, each a letter and its
 * value, ended by "^"; a "!" line says what the records after it are.
 *
 * QIF writes dates as the exporter's locale has them ("12/19/18",
 * "23/10/2013", "1/ 5'04", "2013-10-23"), without saying which order: the
 * reader takes the one order every date of the file is a real day in, and
 * refuses a file whose dates fit both (all days at most 12) unless the
 * caller names one, rather than guess and shift rows by months.  A
 * two-digit year is 20YY before 70 and 19YY after; Quicken's apostrophe
 * ("5'04") is 20YY.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "text.h"
#include "bank_doc.h"
#include "qif.h"

enum section { SEC_NONE, SEC_TXN, SEC_ACCOUNT, SEC_LIST };
enum kind { KIND_BANK, KIND_CASH, KIND_CCARD };

/* A date as written, read once the file's day order is known. */
struct raw_date {
    int n1, n2, year, ymd, dots, line;
    size_t acct, txn;
};

struct record {
    int line, has_date, has_t, has_u, splits, split_line;
    int64_t t, u;
    struct raw_date date;
    char payee[256], memo[512], number[32];
};

struct reader {
    const char *p, *end;
    int line, cp1252;
    ledger_error *err;
    struct ofx_doc doc;
    size_t *caps;                 /* room of each account's txns */
    enum section section;
    enum kind kind;
    char account[64];             /* the !Account block's N, or "" */
    struct raw_date *dates;
    size_t ndates, dates_cap;
    struct record rec;
    int in_record;
};

static int fail(struct reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct reader *r, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return error_field(r->err, "file", "line %d: %s", line, msg);
}

/* Text from the file for a message: printable ASCII only, and short. */
static const char *shown(const char *s, const char *e, char buf[40])
{
    size_t n = 0;

    for (; s < e && n < 36; s++)
        buf[n++] = *s >= 0x20 && *s < 0x7F ? *s : '?';
    buf[n] = '\0';
    return buf;
}

static int starts_ci(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word), i;

    if ((size_t)(e - s) < n)
        return 0;
    for (i = 0; i < n; i++)
        if (ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)word[i]))
            return 0;
    return 1;
}

/* The next line [*s, *e), without its end; 0 at the end of the file. */
static int next_line(struct reader *r, const char **s, const char **e)
{
    const char *q = r->p;

    if (q >= r->end)
        return 0;
    *s = q;
    while (q < r->end && *q != '\n' && *q != '\r')
        q++;
    *e = q;
    if (q < r->end && *q == '\r')
        q++;
    if (q < r->end && *q == '\n')
        q++;
    r->p = q;
    r->line++;
    return 1;
}

int qif_sniff(const char *buf, size_t len)
{
    const char *s = buf, *e = buf + len;

    if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
        s += 3;
    while (s < e && ascii_space((unsigned char)*s))
        s++;
    return starts_ci(s, e, "!Type:") || starts_ci(s, e, "!Account") || starts_ci(s, e, "!Option:");
}

/* The account rows of this section go to: the one the file named last
 * (or none) of the section's kind, made on first use. */
static int account_for(struct reader *r, size_t *at)
{
    static const char *const types[] = { "BANK", "CASH", "CREDITCARD" };
    struct ofx_account *a;
    size_t i, *caps;

    for (i = 0; i < r->doc.naccounts; i++)
        if (strcmp(r->doc.accounts[i].acct_id, r->account) == 0
            && strcmp(r->doc.accounts[i].acct_type, types[r->kind]) == 0) {
            *at = i;
            return LEDGER_OK;
        }
    caps = realloc(r->caps, (r->doc.naccounts + 1) * sizeof *caps);
    if (caps == NULL)
        return ledger_error_oom(r->err);
    r->caps = caps;
    if ((a = bank_doc_account(&r->doc, r->err)) == NULL)
        return LEDGER_ERR;
    caps[r->doc.naccounts - 1] = 0;
    snprintf(a->acct_id, sizeof a->acct_id, "%s", r->account);
    snprintf(a->acct_type, sizeof a->acct_type, "%s", types[r->kind]);
    snprintf(a->bank_id, sizeof a->bank_id, "qif");
    a->credit_card = r->kind == KIND_CCARD;
    a->line = r->line;
    *at = r->doc.naccounts - 1;
    return LEDGER_OK;
}

/* "1,234.56", "-1.234,56", "12,50", "$-5.00" to cents. */
static int amount(struct reader *r, char letter, const char *s, const char *e, int64_t *cents)
{
    char text[64], show[40];
    const char *dot = NULL, *comma = NULL, *q, *mark;
    size_t n = 0;
    int rc;

    for (q = s; q < e; q++) {
        if (*q == '.')
            dot = q;
        else if (*q == ',')
            comma = q;
    }
    /* The later of '.' and ',' is the decimal mark, the other groups
     * thousands; a lone ',' is the mark unless three digits follow it. */
    mark = dot && comma ? (dot > comma ? dot : comma) : comma ? (e - comma == 4 ? NULL : comma) : dot;
    for (q = s; q < e && n + 1 < sizeof text; q++) {
        if (q == mark)
            text[n++] = '.';
        else if (*q == '$' || *q == ' ' || *q == '.' || *q == ',' || *q == '\'')
            continue;
        else
            text[n++] = *q;
    }
    text[n] = '\0';
    rc = q < e ? AMOUNT_BAD : bank_amount(text, cents);
    if (rc == AMOUNT_PRECISE)
        return fail(r, r->line, "%c '%s' has more decimals than cents hold: amounts are kept in "
                    "cents, and a rounded amount would not be the file's", letter, shown(s, e, show));
    if (rc != AMOUNT_OK)
        return fail(r, r->line, "%c '%s' is not an amount", letter, shown(s, e, show));
    return LEDGER_OK;
}

/* D's text to its numbers; the day order is settled later (dates_settle). */
static int date_read(struct reader *r, const char *s, const char *e, struct raw_date *d)
{
    int n[3] = { 0, 0, 0 }, len[3] = { 0, 0, 0 }, k = 0, apostrophe = 0;
    char show[40];
    const char *q = s;

    memset(d, 0, sizeof *d);
    while (q < e && k < 3) {
        while (q < e && *q == ' ')
            q++;
        for (; q < e && ascii_digit((unsigned char)*q) && len[k] < 5; q++, len[k]++)
            n[k] = n[k] * 10 + (*q - '0');
        if (len[k] == 0)
            break;
        k++;
        while (q < e && *q == ' ')
            q++;
        if (k < 3 && q < e && (*q == '/' || *q == '-' || *q == '.' || *q == '\'')) {
            apostrophe |= *q == '\'';
            d->dots |= *q == '.';
            q++;
        }
    }
    if (k != 3 || q != e)
        return fail(r, r->line, "D '%s' is not a date", shown(s, e, show));
    d->line = r->line;
    if (len[0] == 4) {
        d->ymd = 1;
        d->year = n[0];
        d->n1 = n[1];
        d->n2 = n[2];
        return LEDGER_OK;
    }
    d->n1 = n[0];
    d->n2 = n[1];
    d->year = len[2] == 4 ? n[2] : len[2] <= 2 ? (apostrophe || n[2] < 70 ? 2000 : 1900) + n[2] : -1;
    if (d->year < 0)
        return fail(r, r->line, "D '%s' is not a date", shown(s, e, show));
    return LEDGER_OK;
}

static int warn(struct reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int warn(struct reader *r, int line, const char *fmt, ...)
{
    char msg[OFX_WARNING_SIZE];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bank_doc_warn(&r->doc, r->err, line, "%s", msg);
}

/* A text field into out, with a warning when it is cut. */
static int text_field(struct reader *r, char letter, const char *s, const char *e, char *out,
                      size_t cap)
{
    if (bank_text(s, e, r->cp1252, out, cap))
        return warn(r, r->line, "%c is longer than %zu bytes: cut", letter, cap - 1);
    return LEDGER_OK;
}

/* The record ending at "^" (or at the end of the file) becomes a row. */
static int record_end(struct reader *r)
{
    struct record *c = &r->rec;
    struct ofx_txn *t;
    struct ofx_account *a;
    size_t at = 0;

    r->in_record = 0;
    if (!c->has_date && !c->has_t && !c->has_u && !c->payee[0] && !c->memo[0])
        return LEDGER_OK;    /* an empty record: nothing to keep */
    if (!c->has_date)
        return fail(r, c->line, "the record has no D (date)");
    if (!c->has_t && !c->has_u)
        return fail(r, c->line, "the record has no T (amount)");
    if (c->has_t && c->has_u && c->t != c->u
        && warn(r, c->line, "U (%lld cents) differs from T: T is kept", (long long)c->u))
        return LEDGER_ERR;
    if (c->splits && warn(r, c->split_line, "the row's %d split lines (S/E/$) are not kept as "
                          "splits: the row is imported whole at its T", c->splits))
        return LEDGER_ERR;
    if (account_for(r, &at))
        return LEDGER_ERR;
    a = &r->doc.accounts[at];
    if ((t = bank_doc_txn(a, &r->caps[at], r->err)) == NULL)
        return LEDGER_ERR;
    t->amount = c->has_t ? c->t : c->u;
    /* what describes a row that has neither payee nor memo */
    snprintf(t->trntype, sizeof t->trntype, "%s", t->amount < 0 ? "DEBIT" : "CREDIT");
    t->line = c->line;
    memcpy(t->name, c->payee, sizeof t->name);
    memcpy(t->memo, c->memo, sizeof t->memo);
    memcpy(t->checknum, c->number, sizeof t->checknum);
    if (r->ndates == r->dates_cap) {
        size_t n = r->dates_cap ? r->dates_cap * 2 : 64;
        struct raw_date *d = realloc(r->dates, n * sizeof *d);

        if (d == NULL)
            return ledger_error_oom(r->err);
        r->dates = d;
        r->dates_cap = n;
    }
    c->date.acct = at;
    c->date.txn = a->ntxns - 1;
    r->dates[r->ndates++] = c->date;
    return LEDGER_OK;
}

/* One line of a transaction section. */
static int txn_line(struct reader *r, const char *s, const char *e)
{
    struct record *c = &r->rec;
    char show[40];

    if (*s == '^')
        return record_end(r);
    if (!r->in_record) {
        memset(c, 0, sizeof *c);
        c->line = r->line;
        r->in_record = 1;
    }
    switch (*s) {
    case 'D':
        if (date_read(r, s + 1, e, &c->date))
            return LEDGER_ERR;
        c->has_date = 1;
        return LEDGER_OK;
    case 'T':
        c->has_t = 1;
        return amount(r, 'T', s + 1, e, &c->t);
    case 'U':
        c->has_u = 1;
        return amount(r, 'U', s + 1, e, &c->u);
    case 'P':
        return text_field(r, 'P', s + 1, e, c->payee, sizeof c->payee);
    case 'M':
        return text_field(r, 'M', s + 1, e, c->memo, sizeof c->memo);
    case 'N':
        return text_field(r, 'N', s + 1, e, c->number, sizeof c->number);
    case 'C':
        return LEDGER_OK;   /* the cleared mark: every imported row is the bank's */
    case 'S': case 'E': case '$': case '%':
        if (*s == 'S' && c->splits++ == 0)
            c->split_line = r->line;
        return LEDGER_OK;
    case 'L':
        return s + 1 < e ? warn(r, r->line, "L '%s' (the exporter's category) is not kept: the "
                                "ledger's rules categorise rows", shown(s + 1, e, show)) : LEDGER_OK;
    case 'A':
        return s + 1 < e ? warn(r, r->line, "A (an address line) is not kept") : LEDGER_OK;
    default:
        return warn(r, r->line, "'%s' is not a field of a bank record: not kept",
                    shown(s, e, show));
    }
}

/* A "!" line: what the records after it are. */
static int header(struct reader *r, const char *s, const char *e)
{
    char show[40];
    const char *q = e;

    while (q > s && ascii_space((unsigned char)q[-1]))
        q--;
    if (r->in_record && record_end(r))
        return LEDGER_ERR;
    if (starts_ci(s, q, "!Type:Bank") && q - s == 10)
        r->kind = KIND_BANK;
    else if (starts_ci(s, q, "!Type:Cash") && q - s == 10)
        r->kind = KIND_CASH;
    else if (starts_ci(s, q, "!Type:CCard") && q - s == 11)
        r->kind = KIND_CCARD;
    else if (starts_ci(s, q, "!Account") && q - s == 8) {
        r->section = SEC_ACCOUNT;
        return LEDGER_OK;
    } else if (starts_ci(s, q, "!Option:") || starts_ci(s, q, "!Clear:")) {
        return LEDGER_OK;   /* AutoSwitch and the like: how lists are read */
    } else if (starts_ci(s, q, "!Type:Invst") || starts_ci(s, q, "!Type:Port")) {
        return fail(r, r->line, "%s is an investment account, which this ledger does not keep: "
                    "export the bank, card and cash accounts alone", shown(s, q, show));
    } else if (starts_ci(s, q, "!Type:Oth") || starts_ci(s, q, "!Type:Invoice")) {
        return fail(r, r->line, "%s is an account of a type this ledger does not import (it "
                    "takes !Type:Bank, !Type:CCard and !Type:Cash): export those alone",
                    shown(s, q, show));
    } else if (starts_ci(s, q, "!Type:Cat") || starts_ci(s, q, "!Type:Class")
               || starts_ci(s, q, "!Type:Memorized") || starts_ci(s, q, "!Type:Security")
               || starts_ci(s, q, "!Type:Prices") || starts_ci(s, q, "!Type:Budget")) {
        r->section = SEC_LIST;
        return warn(r, r->line, "%s is a list, not transactions: skipped", shown(s, q, show));
    } else {
        return fail(r, r->line, "'%s' is not a QIF section this ledger reads (!Type:Bank, "
                    "!Type:CCard, !Type:Cash, !Account)", shown(s, q, show));
    }
    r->section = SEC_TXN;
    return LEDGER_OK;
}

/* One line of an !Account block: N names the account the sections after
 * it belong to. */
static int account_line(struct reader *r, const char *s, const char *e)
{
    if (*s == 'N' && bank_text(s + 1, e, r->cp1252, r->account, sizeof r->account))
        return warn(r, r->line, "the account's name is longer than %zu bytes: cut",
                    sizeof r->account - 1);
    return LEDGER_OK;
}

/* Settles the day order and writes every row's date. */
static int dates_settle(struct reader *r, enum qif_order order)
{
    int mdy = 1, dmy = 1, dots = 0, mdy_bad = 0, dmy_bad = 0;
    size_t i;
    char out[11];

    for (i = 0; i < r->ndates; i++) {
        const struct raw_date *d = &r->dates[i];

        if (d->ymd)
            continue;
        dots |= d->dots;
        if (mdy && !bank_date_ok(d->year, d->n1, d->n2, out)) {
            mdy = 0;
            mdy_bad = d->line;
        }
        if (dmy && !bank_date_ok(d->year, d->n2, d->n1, out)) {
            dmy = 0;
            dmy_bad = d->line;
        }
    }
    if (order == QIF_ORDER_MDY && !mdy)
        return fail(r, mdy_bad, "D is not a date written month first (date_order=mdy)");
    if (order == QIF_ORDER_DMY && !dmy)
        return fail(r, dmy_bad, "D is not a date written day first (date_order=dmy)");
    if (order == QIF_ORDER_AUTO) {
        if (!mdy && !dmy)
            return fail(r, mdy_bad > dmy_bad ? mdy_bad : dmy_bad, "D is not a date in the day "
                        "order the file's other dates have (line %d is not month first, line %d "
                        "not day first)", mdy_bad, dmy_bad);
        /* Dotted dates are day first wherever they are written. */
        if (mdy && dmy && r->ndates > 0 && !dots) {
            for (i = 0; i < r->ndates && r->dates[i].ymd; i++)
                ;
            if (i < r->ndates)
                return fail(r, r->dates[i].line, "every date of the file reads both day first "
                            "and month first: say which with ?date_order=dmy or "
                            "?date_order=mdy");
        }
        order = mdy && !dots ? QIF_ORDER_MDY : QIF_ORDER_DMY;
    }
    for (i = 0; i < r->ndates; i++) {
        const struct raw_date *d = &r->dates[i];
        char *date = r->doc.accounts[d->acct].txns[d->txn].date;
        int ok = d->ymd ? bank_date_ok(d->year, d->n1, d->n2, date)
                 : order == QIF_ORDER_MDY ? bank_date_ok(d->year, d->n1, d->n2, date)
                 : bank_date_ok(d->year, d->n2, d->n1, date);

        if (!ok)
            return fail(r, d->line, "D is not a date");
    }
    return LEDGER_OK;
}

int qif_parse(const char *buf, size_t len, enum qif_order order, struct ofx_doc *out,
              ledger_error *err)
{
    struct reader r;
    const char *s, *e;
    const unsigned char *b = (const unsigned char *)buf, *bend = b + len;
    size_t i, n;

    memset(&r, 0, sizeof r);
    r.p = buf;
    r.end = buf + len;
    r.err = err;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        r.p += 3;
    /* A file that is not UTF-8 throughout is Windows-1252 (Quicken and
     * MS Money write the system's code page). */
    for (; b < bend; b += n)
        if ((n = utf8_len(b, bend)) == 0) {
            r.cp1252 = 1;
            break;
        }
    for (b = (const unsigned char *)buf; b < bend; b++)
        if (*b == 0 || (*b < 0x20 && !ascii_space(*b) && *b != 0x1A)) {
            error_field(err, "file", "the file holds control characters: it is not a QIF file");
            goto fail;
        }
    while (next_line(&r, &s, &e)) {
        if (s == e || (e - s == 1 && *s == 0x1A))
            continue;
        if (*s == '!') {
            if (header(&r, s, e))
                goto fail;
        } else if (r.section == SEC_TXN) {
            if (txn_line(&r, s, e))
                goto fail;
        } else if (r.section == SEC_ACCOUNT) {
            if (account_line(&r, s, e))
                goto fail;
        } else if (r.section == SEC_NONE) {
            char show[40];

            fail(&r, r.line, "'%s' comes before any !Type: line: not a QIF file",
                 shown(s, e, show));
            goto fail;
        }
    }
    if (r.in_record && record_end(&r))
        goto fail;
    if (r.doc.naccounts == 0) {
        fail(&r, r.line, "the file holds no !Type:Bank, !Type:CCard or !Type:Cash records");
        goto fail;
    }
    if (dates_settle(&r, order))
        goto fail;
    for (i = 0; i < r.doc.naccounts; i++)
        if (bank_plain_keys(&r.doc.accounts[i], "qif", err))
            goto fail;
    snprintf(r.doc.org, sizeof r.doc.org, "QIF");
    snprintf(r.doc.fid, sizeof r.doc.fid, "qif");
    free(r.caps);
    free(r.dates);
    *out = r.doc;
    return LEDGER_OK;
fail:
    free(r.caps);
    free(r.dates);
    ofx_doc_free(&r.doc);
    return LEDGER_ERR;
}
