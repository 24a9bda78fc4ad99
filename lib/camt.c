/*
 * CAMT.053 reader (camt.h), on expat's SAX callbacks: the path of open
 * elements names what each text is, and a Bal, an Ntry and a Stmt are
 * settled as they close (camt_rows.c).
 *
 * XML is untrusted input: a DOCTYPE (and so any entity declaration, the
 * way to billion-laughs bombs and to external entities) is refused before
 * anything is read, elements nest at most CAMT_MAX_DEPTH deep, and an
 * element's text is at most CAMT_MAX_TEXT bytes.
 */
/* memmem (glibc) */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <expat.h>

#include "db.h"
#include "text.h"
#include "camt.h"
#include "camt_parts.h"

static int failv(struct reader *r, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static int failv(struct reader *r, int line, const char *fmt, va_list ap)
{
    char msg[400];

    vsnprintf(msg, sizeof msg, fmt, ap);
    error_field(r->err, "file", "line %d: %s", line, msg);
    r->failed = 1;
    XML_StopParser(r->xp, XML_FALSE);
    return LEDGER_ERR;
}

int camt_fail(struct reader *r, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = failv(r, (int)XML_GetCurrentLineNumber(r->xp), fmt, ap);
    va_end(ap);
    return rc;
}

int camt_warn(struct reader *r, int line, const char *fmt, ...)
{
    char msg[OFX_WARNING_SIZE];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (bank_doc_warn(&r->doc, r->err, line, "%s", msg) == LEDGER_OK)
        return LEDGER_OK;
    r->failed = 1;
    XML_StopParser(r->xp, XML_FALSE);
    return LEDGER_ERR;
}

void camt_oom(struct reader *r)
{
    ledger_error_oom(r->err);
    r->failed = 1;
    XML_StopParser(r->xp, XML_FALSE);
}

static const char *shown(const char *s, char buf[40])
{
    size_t n = 0;

    for (; *s && n < 36; s++)
        buf[n++] = *s >= 0x20 && *s < 0x7F ? *s : '?';
    buf[n] = '\0';
    return buf;
}

int camt_sniff(const char *buf, size_t len)
{
    size_t n = len < 4096 ? len : 4096;

    return memmem(buf, n, "BkToCstmrStmt", 13) != NULL
           || memmem(buf, n, "urn:iso:std:iso:20022:tech:xsd:camt.", 36) != NULL;
}

/* The path below the element opened at offset at ("Acct/Id/IBAN"), or
 * NULL when that element is not open. */
static const char *below(const struct reader *r, int at)
{
    return at < 0 ? NULL : r->path + at;
}

static int is(const char *rel, const char *want)
{
    return rel != NULL && strcmp(rel, want) == 0;
}

/* The element's text as an amount in cents: amounts in CAMT are magnitudes
 * with the direction in CdtDbtInd. */
static int amount(struct reader *r, int64_t *cents)
{
    char show[40];
    int rc;

    if (bank_currency_three_decimals(r->amt_ccy))
        return camt_fail(r, "the amount is in %s, a currency with three decimal places: amounts are "
                    "kept in cents, which cannot hold it", r->amt_ccy);
    rc = r->text[0] == '-' || r->text[0] == '+' ? AMOUNT_BAD : bank_amount(r->text, cents);
    if (rc == AMOUNT_PRECISE)
        return camt_fail(r, "<Amt> '%s' has more decimals than %s has: amounts are kept in cents, and "
                    "a rounded amount would not be the bank's", shown(r->text, show),
                    r->amt_ccy[0] ? r->amt_ccy : "the currency");
    if (rc != AMOUNT_OK)
        return camt_fail(r, "<Amt> '%s' is not an amount", shown(r->text, show));
    return LEDGER_OK;
}

static int date(struct reader *r, char out[11])
{
    char show[40];
    const char *t = r->text;
    int ok = strlen(t) >= 10 && t[4] == '-' && t[7] == '-' && (t[10] == '\0' || t[10] == 'T'
             || t[10] == '+' || t[10] == '-' || t[10] == 'Z');

    if (ok)
        ok = bank_date_ok(atoi(t), atoi(t + 5), atoi(t + 8), out);
    if (!ok)
        return camt_fail(r, "'%s' is not a date", shown(t, show));
    return LEDGER_OK;
}

static int direction(struct reader *r, int *out)
{
    char show[40];

    if (strcmp(r->text, "CRDT") == 0)
        *out = 0;
    else if (strcmp(r->text, "DBIT") == 0)
        *out = 1;
    else
        return camt_fail(r, "<CdtDbtInd> '%s' is neither CRDT nor DBIT", shown(r->text, show));
    return LEDGER_OK;
}

/* Copies the text into a field, with a warning when it is cut. */
static int text_to(struct reader *r, const char *what, char *out, size_t cap)
{
    if (bank_text(r->text, r->text + r->ntext, 0, out, cap))
        return camt_warn(r, (int)XML_GetCurrentLineNumber(r->xp), "<%s> is longer than %zu bytes: cut",
                    what, cap - 1);
    return LEDGER_OK;
}

/* Adds the text to a field holding several (RmtInf/Ustrd lines). */
static int text_add(struct reader *r, const char *what, char *out, size_t cap)
{
    size_t n = strlen(out);

    if (n == 0)
        return text_to(r, what, out, cap);
    if (n + 2 >= cap)
        return camt_warn(r, (int)XML_GetCurrentLineNumber(r->xp), "<%s> is longer than %zu bytes: cut",
                    what, cap - 1);
    out[n] = ' ';
    return text_to(r, what, out + n + 1, cap - n - 1);
}

struct ofx_account *camt_account(struct reader *r)
{
    return &r->doc.accounts[r->doc.naccounts - 1];
}

/* ---- expat's callbacks --------------------------------------------------- */

/* The local name of an expat name ("uri|local" or "local"). */
static const char *local(const XML_Char *name)
{
    const char *bar = strrchr(name, '|');

    return bar ? bar + 1 : name;
}

static int root(struct reader *r, const XML_Char *name)
{
    const char *bar = strrchr(name, '|');
    char show[40];
    int version;

    if (strcmp(local(name), "Document") != 0)
        return camt_fail(r, "the root element is <%s>, not a CAMT.053 <Document>",
                    shown(local(name), show));
    if (bar == NULL)
        return LEDGER_OK;   /* no namespace: BkToCstmrStmt below tells */
    if (strncmp(name, NS_CAMT053, strlen(NS_CAMT053)) != 0) {
        const char *xsd = strstr(name, "xsd:"), *msg = xsd && xsd < bar ? xsd + 4 : name;
        char text[40];

        snprintf(text, sizeof text, "%.*s", (int)(bar - msg) > 36 ? 36 : (int)(bar - msg), msg);
        return camt_fail(r, "the document is %s%s, not a camt.053 bank statement: export the account's "
                    "statement (camt.053)", shown(text, show),
                    strncmp(msg, "camt.052", 8) == 0 ? " (an intraday account report)"
                    : strncmp(msg, "camt.054", 8) == 0 ? " (a debit/credit notification)" : "");
    }
    version = atoi(name + strlen(NS_CAMT053));
    if (version < 2 || version > 8)
        return camt_fail(r, "camt.053.001.%02d is a version this ledger does not read (it reads "
                    ".001.02 to .001.08)", version);
    return LEDGER_OK;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    struct reader *r = ud;
    const char *n = local(name);
    size_t len = strlen(r->path), nl = strlen(n);
    const char *rel;
    int i;

    if (r->failed)
        return;
    if (r->depth == 0 && root(r, name))
        return;
    if (r->depth == 1 && strcmp(n, "BkToCstmrStmt") != 0) {
        char show[40];

        camt_fail(r, "<%s> is not a bank statement (BkToCstmrStmt)", shown(n, show));
        return;
    }
    if (r->depth == CAMT_MAX_DEPTH || len + nl + 2 > sizeof r->path) {
        camt_fail(r, "elements nest deeper than %d", CAMT_MAX_DEPTH);
        return;
    }
    r->len_at[r->depth++] = len;
    snprintf(r->path + len, sizeof r->path - len, "%s%s", len ? "/" : "", n);
    r->ntext = 0;
    if (strcmp(n, "Amt") == 0) {
        r->amt_ccy[0] = '\0';
        for (i = 0; attrs[i]; i += 2)
            if (strcmp(local(attrs[i]), "Ccy") == 0)
                snprintf(r->amt_ccy, sizeof r->amt_ccy, "%s", attrs[i + 1]);
    }
    if (r->depth == 3 && strcmp(n, "Stmt") == 0) {
        struct ofx_account *a = bank_doc_account(&r->doc, r->err);

        if (a == NULL) {
            camt_oom(r);
            return;
        }
        a->line = (int)XML_GetCurrentLineNumber(r->xp);
        snprintf(a->acct_type, sizeof a->acct_type, "CURRENT");
        snprintf(a->bank_id, sizeof a->bank_id, "camt");
        r->txn_cap = 0;
        r->booked_sum = 0;
        r->opening_prcd = 0;
        r->stmt_at = (int)(len + 1 + nl + 1);
        r->stmt_d = r->depth;
        r->ntry_at = r->txd_at = r->bal_at = -1;
        return;
    }
    rel = below(r, r->stmt_at);
    if (is(rel, "Ntry")) {
        free(r->e.details);
        memset(&r->e, 0, sizeof r->e);
        r->e.line = (int)XML_GetCurrentLineNumber(r->xp);
        r->ntry_at = (int)(len + 1 + nl + 1);
        r->ntry_d = r->depth;
    } else if (is(rel, "Bal")) {
        memset(&r->b, 0, sizeof r->b);
        r->b.line = (int)XML_GetCurrentLineNumber(r->xp);
        r->bal_at = (int)(len + 1 + nl + 1);
        r->bal_d = r->depth;
    } else if (is(below(r, r->ntry_at), "NtryDtls/TxDtls")) {
        struct entry *e = &r->e;

        if (e->ndetails == CAMT_MAX_DETAILS) {
            camt_fail(r, "the entry (line %d) has more than %d transaction details", e->line,
                 CAMT_MAX_DETAILS);
            return;
        }
        if (e->ndetails == e->cap) {
            size_t cap = e->cap ? e->cap * 2 : 4;
            struct detail *d = realloc(e->details, cap * sizeof *d);

            if (d == NULL) {
                camt_oom(r);
                return;
            }
            e->details = d;
            e->cap = cap;
        }
        memset(&e->details[e->ndetails], 0, sizeof e->details[0]);
        e->details[e->ndetails++].line = (int)XML_GetCurrentLineNumber(r->xp);
        r->txd_at = (int)(len + 1 + nl + 1);
        r->txd_d = r->depth;
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int n)
{
    struct reader *r = ud;

    if (r->failed || r->depth == 0)
        return;
    if (r->ntext + (size_t)n > CAMT_MAX_TEXT) {
        camt_fail(r, "an element's text is longer than %d bytes", CAMT_MAX_TEXT);
        return;
    }
    memcpy(r->text + r->ntext, s, (size_t)n);
    r->ntext += (size_t)n;
}

/* A detail's (TxDtls) element. */
static int detail_leaf(struct reader *r, const char *rel)
{
    struct detail *d = &r->e.details[r->e.ndetails - 1];

    if (is(rel, "Amt") || (is(rel, "AmtDtls/TxAmt/Amt") && !d->has_amount)) {
        d->has_amount = 1;
        return amount(r, &d->amount);
    }
    if (is(rel, "CdtDbtInd")) {
        d->has_out = 1;
        return direction(r, &d->out);
    }
    if (is(rel, "RltdPties/Dbtr/Nm") || is(rel, "RltdPties/Dbtr/Pty/Nm"))
        return text_to(r, "Dbtr", d->dbtr, sizeof d->dbtr);
    if (is(rel, "RltdPties/Cdtr/Nm") || is(rel, "RltdPties/Cdtr/Pty/Nm"))
        return text_to(r, "Cdtr", d->cdtr, sizeof d->cdtr);
    if (is(rel, "RltdPties/UltmtDbtr/Nm") || is(rel, "RltdPties/UltmtDbtr/Pty/Nm"))
        return text_to(r, "UltmtDbtr", d->ultmt_dbtr, sizeof d->ultmt_dbtr);
    if (is(rel, "RltdPties/UltmtCdtr/Nm") || is(rel, "RltdPties/UltmtCdtr/Pty/Nm"))
        return text_to(r, "UltmtCdtr", d->ultmt_cdtr, sizeof d->ultmt_cdtr);
    if (is(rel, "RmtInf/Ustrd"))
        return text_add(r, "Ustrd", d->ustrd, sizeof d->ustrd);
    if (is(rel, "AddtlTxInf"))
        return text_to(r, "AddtlTxInf", d->addtl, sizeof d->addtl);
    return LEDGER_OK;
}

/* An entry's (Ntry) own element. */
static int entry_leaf(struct reader *r, const char *rel)
{
    struct entry *e = &r->e;

    if (is(rel, "Amt")) {
        e->has_amount = 1;
        snprintf(e->ccy, sizeof e->ccy, "%s", r->amt_ccy);
        return amount(r, &e->amount);
    }
    if (is(rel, "CdtDbtInd")) {
        e->has_out = 1;
        return direction(r, &e->out);
    }
    if (is(rel, "Sts") || is(rel, "Sts/Cd"))
        return text_to(r, "Sts", e->status, sizeof e->status);
    if (is(rel, "BookgDt/Dt") || is(rel, "BookgDt/DtTm"))
        return date(r, e->booked);
    if (is(rel, "ValDt/Dt") || is(rel, "ValDt/DtTm"))
        return date(r, e->value);
    if (is(rel, "NtryRef") || is(rel, "AcctSvcrRef")) {
        char *out = is(rel, "NtryRef") ? e->ntry_ref : e->svcr_ref;

        if (text_to(r, rel, out, sizeof e->ntry_ref))
            return LEDGER_ERR;
        /* the placeholders of banks that have no reference */
        if (strcmp(out, "NONREF") == 0 || strcmp(out, "NOTPROVIDED") == 0)
            out[0] = '\0';
        return LEDGER_OK;
    }
    if (is(rel, "BkTxCd/Domn/Fmly/SubFmlyCd"))
        return text_to(r, "SubFmlyCd", e->subfamily, sizeof e->subfamily);
    if (is(rel, "AddtlNtryInf"))
        return text_to(r, "AddtlNtryInf", e->addtl, sizeof e->addtl);
    return LEDGER_OK;
}

static int statement_leaf(struct reader *r, const char *rel)
{
    struct ofx_account *a = camt_account(r);
    char d[11];

    if (is(rel, "Acct/Id/IBAN") || (is(rel, "Acct/Id/Othr/Id") && !a->acct_id[0]))
        return text_to(r, "Id", a->acct_id, sizeof a->acct_id);
    if (is(rel, "Acct/Ccy"))
        return text_to(r, "Ccy", a->currency, sizeof a->currency);
    if (is(rel, "Acct/Tp/Cd")) {
        if (strcmp(r->text, "SVGS") == 0)
            snprintf(a->acct_type, sizeof a->acct_type, "SAVINGS");
        else if (strcmp(r->text, "LOAN") == 0 || strcmp(r->text, "MGLD") == 0)
            snprintf(a->acct_type, sizeof a->acct_type, "LOAN");
        else if (strcmp(r->text, "CARD") == 0)
            a->credit_card = 1;
        return LEDGER_OK;
    }
    if (is(rel, "Acct/Svcr/FinInstnId/Nm") && !r->doc.org[0])
        return text_to(r, "Nm", r->doc.org, sizeof r->doc.org);
    if ((is(rel, "Acct/Svcr/FinInstnId/BIC") || is(rel, "Acct/Svcr/FinInstnId/BICFI"))
        && !r->bic[0])
        return text_to(r, "BIC", r->bic, sizeof r->bic);
    if (is(rel, "FrToDt/FrDtTm") || is(rel, "FrToDt/ToDtTm")) {
        if (date(r, d))
            return LEDGER_ERR;
        snprintf(is(rel, "FrToDt/FrDtTm") ? a->start : a->end, 11, "%s", d);
        return LEDGER_OK;
    }
    return LEDGER_OK;
}

static int balance_leaf(struct reader *r, const char *rel)
{
    struct balance *b = &r->b;

    if (is(rel, "Tp/CdOrPrtry/Cd"))
        return text_to(r, "Cd", b->code, sizeof b->code);
    if (is(rel, "Amt")) {
        b->has_amount = 1;
        snprintf(b->ccy, sizeof b->ccy, "%s", r->amt_ccy);
        return amount(r, &b->amount);
    }
    if (is(rel, "CdtDbtInd"))
        return direction(r, &b->out);
    if (is(rel, "Dt/Dt") || is(rel, "Dt/DtTm"))
        return date(r, b->date);
    return LEDGER_OK;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    struct reader *r = ud;
    size_t at = r->len_at[r->depth - 1];
    int d = r->depth;

    (void)name;
    if (r->failed)
        return;
    r->text[r->ntext] = '\0';
    /* An element inside the innermost open aggregate is one of its fields. */
    if (r->txd_at >= 0 && d > r->txd_d)
        detail_leaf(r, r->path + r->txd_at);
    else if (r->ntry_at >= 0 && d > r->ntry_d)
        entry_leaf(r, r->path + r->ntry_at);
    else if (r->bal_at >= 0 && d > r->bal_d)
        balance_leaf(r, r->path + r->bal_at);
    else if (r->stmt_at >= 0 && d > r->stmt_d)
        statement_leaf(r, r->path + r->stmt_at);
    if (r->failed)
        return;
    if (r->txd_at >= 0 && d == r->txd_d) {
        r->txd_at = -1;
    } else if (r->ntry_at >= 0 && d == r->ntry_d) {
        r->ntry_at = -1;
        camt_entry_end(r);
    } else if (r->bal_at >= 0 && d == r->bal_d) {
        r->bal_at = -1;
        camt_balance_end(r);
    } else if (r->stmt_at >= 0 && d == r->stmt_d) {
        r->stmt_at = -1;
        camt_statement_end(r);
    }
    r->path[at] = '\0';
    r->depth--;
    r->ntext = 0;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int internal)
{
    (void)name; (void)sysid; (void)pubid; (void)internal;
    camt_fail(ud, "the file declares a DOCTYPE: refused (a statement needs none, and its entities "
         "could expand without bound or read other files)");
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int param, const XML_Char *value,
                              int len, const XML_Char *base, const XML_Char *sysid,
                              const XML_Char *pubid, const XML_Char *notation)
{
    (void)name; (void)param; (void)value; (void)len; (void)base; (void)sysid; (void)pubid;
    (void)notation;
    camt_fail(ud, "the file declares an entity: refused");
}

/* The Windows and ISO-8859 code pages charset.c knows (Windows-1252,
 * Windows-1250 ...), which some banks declare and expat does not know. */
static int XMLCALL on_encoding(void *ud, const XML_Char *name, XML_Encoding *info)
{
    int i, cs = charset_find(name, strlen(name));

    (void)ud;
    if (cs <= CHARSET_UTF8)
        return XML_STATUS_ERROR;
    for (i = 0; i < 256; i++) {
        unsigned cp = charset_char(cs, (unsigned char)i);

        info->map[i] = cp ? (int)cp : 0xFFFD;
    }
    info->data = NULL;
    info->convert = NULL;
    info->release = NULL;
    return XML_STATUS_OK;
}

int camt_parse(const char *buf, size_t len, struct ofx_doc *out, ledger_error *err)
{
    static const XML_Memory_Handling_Suite memory = { malloc, realloc, free };
    struct reader *r = calloc(1, sizeof *r);
    int rc = LEDGER_ERR;

    if (r == NULL)
        return ledger_error_oom(err);
    r->err = err;
    r->stmt_at = r->ntry_at = r->txd_at = r->bal_at = -1;
    /* expat allocates through the library's malloc, so that a failed
     * allocation is the library's to report (t/0017 sweeps them). */
    if ((r->xp = XML_ParserCreate_MM(NULL, &memory, "|")) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    XML_SetUserData(r->xp, r);
    XML_SetElementHandler(r->xp, on_start, on_end);
    XML_SetCharacterDataHandler(r->xp, on_text);
    XML_SetStartDoctypeDeclHandler(r->xp, on_doctype);
    XML_SetEntityDeclHandler(r->xp, on_entity);
    XML_SetUnknownEncodingHandler(r->xp, on_encoding, NULL);
    XML_SetParamEntityParsing(r->xp, XML_PARAM_ENTITY_PARSING_NEVER);
    if (len > (size_t)INT32_MAX) {
        error_field(err, "file", "the file is too large");
        goto out;
    }
    if (XML_Parse(r->xp, buf, (int)len, XML_TRUE) != XML_STATUS_OK) {
        if (!r->failed) {
            if (XML_GetErrorCode(r->xp) == XML_ERROR_NO_MEMORY)
                ledger_error_oom(err);
            else
                error_field(err, "file", "line %lu: not well-formed XML: %s",
                            (unsigned long)XML_GetCurrentLineNumber(r->xp),
                            XML_ErrorString(XML_GetErrorCode(r->xp)));
        }
        goto out;
    }
    if (r->failed)
        goto out;
    if (r->doc.naccounts == 0) {
        error_field(err, "file", "line 1: the statement message holds no statement (<Stmt>)");
        goto out;
    }
    if (!r->doc.org[0])
        snprintf(r->doc.org, sizeof r->doc.org, "%s", r->bic[0] ? r->bic : "CAMT.053");
    *out = r->doc;
    memset(&r->doc, 0, sizeof r->doc);
    rc = LEDGER_OK;
out:
    if (r->xp)
        XML_ParserFree(r->xp);
    free(r->e.details);
    ofx_doc_free(&r->doc);
    free(r);
    return rc;
}
