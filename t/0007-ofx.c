/* OFX/QFX statement files: both dialects, the quirks of real bank exports,
 * and malformed input, which must be a 400 naming the line and never a
 * crash.  Fixtures are in t/data/ofx (under $LEDGER_SRCDIR, default "."). */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdint.h>
#include <time.h>

#include "ofx.h"
#include "tap.h"
#include "textcheck.h"

#define S(lit) lit, sizeof(lit) - 1

static const char *srcdir(void)
{
    const char *d = getenv("LEDGER_SRCDIR");

    return d && *d ? d : ".";
}

static char *fixture(const char *name, size_t *len)
{
    char path[1024];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof path, "%s/t/data/ofx/%s", srcdir(), name);
    f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
        printf("Bail out! cannot read %s (set LEDGER_SRCDIR to the source tree)\n", path);
        exit(1);
    }
    rewind(f);
    buf = alloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        printf("Bail out! cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* buf with the first `from` replaced by `to`, in a fresh buffer. */
static char *replaced(const char *buf, size_t len, const char *from, const char *to,
                      size_t *out_len)
{
    size_t nf = strlen(from), nt = strlen(to), i;
    char *o;

    for (i = 0; i + nf <= len; i++)
        if (memcmp(buf + i, from, nf) == 0)
            break;
    if (i + nf > len) {
        printf("Bail out! '%s' is not in the fixture\n", from);
        exit(1);
    }
    o = alloc(len - nf + nt);
    memcpy(o, buf, i);
    memcpy(o + i, to, nt);
    memcpy(o + i + nt, buf + i + nf, len - i - nf);
    *out_len = len - nf + nt;
    return o;
}

static int parse(const char *buf, size_t len, struct ofx_doc *doc, ledger_error *err)
{
    char *copy = exact(buf, len);
    int rc;

    ledger_error_clear(err);
    rc = ofx_parse(copy, len, doc, err);
    free(copy);
    return rc;
}

static int parses(const char *buf, size_t len, struct ofx_doc *doc, const char *what)
{
    ledger_error err;

    if (!ok(parse(buf, len, doc, &err) == LEDGER_OK, "%s parses", what)) {
        printf("#   %s\n", err.message);
        memset(doc, 0, sizeof *doc);
        return 0;
    }
    return 1;
}

/* Refused with 400 invalid_field on "file", a message "line N: ...want...",
 * and the output left alone. */
static void refuses(const char *buf, size_t len, int line, const char *want, const char *what)
{
    struct ofx_doc doc, before;
    ledger_error err;
    char prefix[32];
    int rc;

    memset(&doc, 0x5A, sizeof doc);
    before = doc;
    rc = parse(buf, len, &doc, &err);
    snprintf(prefix, sizeof prefix, "line %d: ", line);
    ok(rc == LEDGER_ERR && err.status == 400 && strcmp(err.code, "invalid_field") == 0
       && strcmp(err.field, "file") == 0 && strncmp(err.message, prefix, strlen(prefix)) == 0
       && strstr(err.message, want) != NULL && memcmp(&doc, &before, sizeof doc) == 0,
       "%s: a 400 at line %d (%s)", what, line, err.message);
    if (rc == LEDGER_OK)
        ofx_doc_free(&doc);
}

static void refuses_fixture(const char *name, int line, const char *want)
{
    size_t len;
    char *buf = fixture(name, &len);

    refuses(buf, len, line, want, name);
    free(buf);
}

/* ---- one transaction in a minimal SGML file ----------------------------------- */

#define HEAD "OFXHEADER:100\n" \
    "<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD\n" \
    "<BANKACCTFROM><BANKID>1<ACCTID>42<ACCTTYPE>CHECKING</BANKACCTFROM>\n" \
    "<BANKTRANLIST>\n"
#define TAIL "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"

/* HEAD, "<STMTTRN>" on line 5, body from line 6, "</STMTTRN>", TAIL. */
static char *with_txn(const char *body, size_t *len)
{
    size_t n = strlen(HEAD "<STMTTRN>\n" "</STMTTRN>\n" TAIL) + strlen(body);
    char *buf = alloc(n + 1);

    snprintf(buf, n + 1, HEAD "<STMTTRN>\n%s</STMTTRN>\n" TAIL, body);
    *len = n;
    return buf;
}

static int one_txn(const char *body, struct ofx_txn *x, ledger_error *err)
{
    struct ofx_doc doc;
    size_t len;
    char *buf = with_txn(body, &len);
    int rc = parse(buf, len, &doc, err);

    free(buf);
    if (rc != LEDGER_OK)
        return rc;
    if (doc.naccounts != 1 || doc.accounts[0].ntxns != 1) {
        snprintf(err->message, sizeof err->message, "%zu accounts, not one transaction",
                 doc.naccounts);
        ofx_doc_free(&doc);
        return LEDGER_ERR;
    }
    *x = doc.accounts[0].txns[0];
    ofx_doc_free(&doc);
    return LEDGER_OK;
}

static void txn_refused(const char *body, int line, const char *want, const char *what)
{
    size_t len;
    char *buf = with_txn(body, &len);

    refuses(buf, len, line, want, what);
    free(buf);
}

static void amount_is(const char *text, long long want)
{
    char body[256];
    struct ofx_txn x;
    ledger_error err;

    snprintf(body, sizeof body, "<DTPOSTED>20250105\n<TRNAMT>%s\n", text);
    if (one_txn(body, &x, &err) == LEDGER_OK)
        is_int(x.amount, want, "TRNAMT '%s' is %lld cents", text, want);
    else
        ok(0, "TRNAMT '%s' parses (%s)", text, err.message);
}

static void amount_bad(const char *text, const char *why)
{
    char body[256], want[128];

    snprintf(body, sizeof body, "<DTPOSTED>20250105\n<TRNAMT>%s\n", text);
    snprintf(want, sizeof want, "<TRNAMT> '%s' %s", text, why);
    txn_refused(body, 7, want, "TRNAMT refused");
}

static void date_is(const char *text, const char *want)
{
    char body[256];
    struct ofx_txn x;
    ledger_error err;

    snprintf(body, sizeof body, "<DTPOSTED>%s\n<TRNAMT>1\n", text);
    if (one_txn(body, &x, &err) == LEDGER_OK)
        is_str(x.date, want, "DTPOSTED '%s' is %s", text, want);
    else
        ok(0, "DTPOSTED '%s' parses (%s)", text, err.message);
}

static void date_bad(const char *text)
{
    char body[256];

    snprintf(body, sizeof body, "<DTPOSTED>%s\n<TRNAMT>1\n", text);
    txn_refused(body, 6, "is not a date", text);
}

static void name_is(const char *body, const char *field, const char *want, const char *what)
{
    struct ofx_txn x;
    ledger_error err;

    if (one_txn(body, &x, &err) != LEDGER_OK) {
        ok(0, "%s parses (%s)", what, err.message);
        return;
    }
    is_str(strcmp(field, "memo") == 0 ? x.memo : x.name, want, "%s", what);
}

/* ---- helpers for checking any document ------------------------------------------ */

/* Everything a successful parse promises, whatever the input was. */
static int doc_sane(const struct ofx_doc *doc)
{
    size_t a, t;

    if (doc->naccounts == 0 || doc->accounts == NULL || !valid_utf8(doc->org)
        || doc->nwarnings > OFX_MAX_WARNINGS || (doc->nwarnings && doc->warnings == NULL))
        return 0;
    for (a = 0; a < doc->nwarnings; a++)
        if (!valid_utf8(doc->warnings[a]) || strncmp(doc->warnings[a], "line ", 5) != 0)
            return 0;
    for (a = 0; a < doc->naccounts; a++) {
        const struct ofx_account *acct = &doc->accounts[a];

        if (memchr(acct->acct_id, 0, sizeof acct->acct_id) == NULL
            || (acct->start[0] && !is_ymd(acct->start)) || (acct->end[0] && !is_ymd(acct->end))
            || (acct->ntxns && acct->txns == NULL))
            return 0;
        for (t = 0; t < acct->ntxns; t++) {
            const struct ofx_txn *x = &acct->txns[t];

            if (!is_ymd(x->date) || !valid_utf8(x->name) || !valid_utf8(x->memo)
                || !valid_utf8(x->fitid) || x->amount > LEDGER_MONEY_MAX_CENTS
                || x->amount < -LEDGER_MONEY_MAX_CENTS || x->line < 1)
                return 0;
        }
    }
    return 1;
}

static int message_ascii(const char *m)
{
    for (; *m; m++)
        if ((unsigned char)*m < 0x20 || (unsigned char)*m >= 0x7F)
            return 0;
    return 1;
}

/* ---- the fixtures ------------------------------------------------------------------ */

static void bank_1252(void)
{
    struct ofx_doc doc;
    const struct ofx_account *a;
    const struct ofx_txn *x;
    size_t len;
    char *buf = fixture("bank-1252.ofx", &len), *bad;

    if (parses(buf, len, &doc, "OFX 1.x SGML bank statement, CHARSET:1252, CRLF")) {
        is_str(doc.org, "Banque Soci\xc3\xa9t\xc3\xa9 G\xc3\xa9n\xc3\xa9rale",
               "ORG converted from Windows-1252");
        is_str(doc.fid, "30003", "FID");
        is_int(doc.naccounts, 1, "one account");
        a = &doc.accounts[0];
        is_str(a->bank_id, "30003", "BANKID");
        is_str(a->acct_id, "00050123456", "ACCTID keeps its leading zeros");
        is_str(a->acct_type, "CHECKING", "ACCTTYPE");
        is_int(a->credit_card, 0, "not a credit card");
        is_str(a->currency, "EUR", "CURDEF");
        is_str(a->start, "2025-01-01", "DTSTART");
        is_str(a->end, "2025-01-31", "DTEND with a time");
        is_int(a->line, 33, "the statement's line");
        ok(a->has_ledger_balance && a->ledger_balance == 121820, "LEDGERBAL 1218.20");
        is_str(a->ledger_balance_date, "2025-01-31", "LEDGERBAL DTASOF");
        ok(a->has_available_balance && a->available_balance == 120000, "AVAILBAL 1200.00");
        is_str(a->available_balance_date, "2025-02-01", "AVAILBAL DTASOF");
        is_int(a->ntxns, 4, "four transactions");
        x = &a->txns[0];
        is_str(x->date, "2025-01-03", "DTPOSTED wins over DTUSER, timezone ignored");
        is_int(x->amount, -1250, "'-12.5' is -1250 cents");
        is_str(x->trntype, "DEBIT", "TRNTYPE");
        is_str(x->fitid, "2025010301", "FITID");
        is_str(x->name, "Caf\xc3\xa9 de Flore", "0xE9 in NAME becomes UTF-8 e-acute");
        is_str(x->memo, "CARTE 4970 & CO", "&amp; in MEMO");
        is_int(x->line, 45, "the transaction's line");
        x = &a->txns[1];
        is_int(x->amount, 123456, "'+1234.56' is 123456 cents");
        is_str(x->memo, "Virement re\xc3\xa7u \xe2\x82\xac M&S",
               "0xE7 and 0x80 (euro sign) converted; a bare & kept");
        is_str(x->trntype, "CREDIT", "CREDIT");
        x = &a->txns[2];
        is_int(x->amount, -86, "'-.86' is -86 cents");
        is_str(x->name, "Boulangerie \xc3\x89tienne", "PAYEE/NAME with &#201;");
        is_str(x->memo, "", "an empty MEMO");
        is_str(x->checknum, "0001042", "CHECKNUM");
        is_str(x->trntype, "CHECK", "CHECK");
        x = &a->txns[3];
        is_str(x->trntype, "SRVCHG", "SRVCHG");
        is_int(x->amount, -300, "'-3.00'");
        is_str(x->date, "2025-01-31", "a date with no time");
        ofx_doc_free(&doc);
        ok(doc.accounts == NULL && doc.naccounts == 0, "ofx_doc_free empties the document");
        ofx_doc_free(&doc);   /* and a second free is harmless */
    }

    /* Line numbers count CRLF as one line break. */
    bad = replaced(buf, len, "<TRNAMT>+1234.56", "<TRNAMT>+1234.567", &len);
    refuses(bad, len, 58, "<TRNAMT> '+1234.567' has more than 2 decimal places",
            "three decimals in a CRLF file");
    free(bad);
    free(buf);
}

static void cc_2x(void)
{
    struct ofx_doc doc;
    const struct ofx_account *a;
    const struct ofx_txn *x;
    size_t len;
    char *buf = fixture("cc-2x.ofx", &len);

    if (parses(buf, len, &doc, "OFX 2.x XML credit-card statement")) {
        is_str(doc.org, "Example Card Services", "ORG");
        is_int(doc.naccounts, 1, "one account");
        a = &doc.accounts[0];
        is_int(a->credit_card, 1, "CCSTMTRS is a credit card");
        is_str(a->acct_type, "CREDITCARD", "acct_type CREDITCARD");
        is_str(a->bank_id, "", "no BANKID");
        is_str(a->acct_id, "4111********1111", "masked ACCTID");
        is_str(a->currency, "AUD", "CURDEF");
        is_str(a->start, "2025-02-01", "DTSTART with [+11:AEDT]");
        is_str(a->end, "2025-02-28", "DTEND 23:59:59 [+11:AEDT] keeps its day");
        ok(a->has_ledger_balance && a->ledger_balance == -120942, "LEDGERBAL -1209.42");
        ok(a->has_available_balance && a->available_balance == 379058, "AVAILBAL 3790.58");
        is_int(a->ntxns, 4, "four transactions");
        x = &a->txns[0];
        is_str(x->name, "Caf\xc3\xa9 Z\xc3\xbcrich <Sydney>", "UTF-8 NAME with &lt; &gt;");
        is_str(x->memo, "\"Lunch\" 'team' \xe2\x82\xac", "&quot; &apos; and a UTF-8 euro sign");
        is_int(x->amount, -4500, "-45.00");
        is_int(x->line, 34, "line of the first STMTTRN");
        x = &a->txns[1];
        is_str(x->orig_currency, "USD", "ORIGCURRENCY/CURSYM");
        is_str(x->currate, "1.6125", "ORIGCURRENCY/CURRATE");
        is_str(x->currency, "", "no CURRENCY");
        is_str(x->memo, "", "<MEMO></MEMO> is empty");
        x = &a->txns[2];
        is_int(x->amount, 50000, "'500' with no decimals");
        is_str(x->trntype, "PAYMENT", "PAYMENT");
        is_str(x->date, "2025-02-25", "date");
        x = &a->txns[3];
        is_str(x->trntype, "INT", "INT");
        is_int(x->amount, -317, "-3.17");
        is_str(x->fitid, "CC-0004", "FITID");
        ofx_doc_free(&doc);
    }
    free(buf);
}

static void qfx(void)
{
    struct ofx_doc doc;
    const struct ofx_account *a;
    size_t len;
    char *buf = fixture("bank.qfx", &len);

    if (parses(buf, len, &doc, "QFX with INTU.BID and INTU.USERID")) {
        is_str(doc.org, "B1", "ORG");
        is_str(doc.fid, "10898", "FID (INTU.BID ignored)");
        a = &doc.accounts[0];
        is_str(a->acct_type, "SAVINGS", "a lower-case ACCTTYPE is upper-cased");
        is_str(a->currency, "USD", "CURDEF");
        ok(a->has_ledger_balance && a->ledger_balance == 1025042, "LEDGERBAL 10250.42");
        is_int(a->has_available_balance, 0, "no AVAILBAL");
        is_int(a->ntxns, 2, "two transactions");
        is_str(a->txns[0].date, "2025-03-31", "DTUSER when there is no DTPOSTED");
        is_int(a->txns[0].amount, 42, "0.42");
        is_str(a->txns[0].memo, "Interest paid this period",
               "an empty unknown element before MEMO does not hide it");
        is_str(a->txns[1].trntype, "ZELLE_IN", "a TRNTYPE outside the specification is kept");
        is_int(a->txns[1].amount, 25000, "250.00");
        ofx_doc_free(&doc);
    }
    free(buf);
}

static void two_accounts(void)
{
    struct ofx_doc doc;
    const struct ofx_account *a;
    size_t len;
    char *buf = fixture("two-accounts.ofx", &len);

    if (parses(buf, len, &doc, "two statements, comma decimals, header on one line")) {
        is_int(doc.naccounts, 2, "two accounts");
        a = &doc.accounts[0];
        is_str(a->acct_id, "DE89370400440532013000", "first ACCTID");
        is_str(a->acct_type, "CHECKING", "first ACCTTYPE");
        is_int(a->ntxns, 2, "first: two transactions");
        is_int(a->txns[0].amount, -1250, "'-12,50' is -1250 cents");
        is_int(a->txns[1].amount, -50000, "'-500,00'");
        is_str(a->txns[0].name, "B\xc3\xa4" "ckerei M\xc3\xbcller",
               "UTF-8 under a CHARSET:1252 label stays UTF-8");
        ok(a->has_ledger_balance && a->ledger_balance == 248750, "first LEDGERBAL '2487,50'");
        is_int(a->has_available_balance, 0, "first: no AVAILBAL");
        a = &doc.accounts[1];
        is_str(a->acct_id, "DE02120300000000202051", "second ACCTID");
        is_str(a->acct_type, "SAVINGS", "second ACCTTYPE");
        is_int(a->ntxns, 1, "second: one transaction");
        is_int(a->txns[0].amount, 50000, "'500,00'");
        is_str(a->txns[0].fitid, "S1", "second FITID");
        ok(a->has_ledger_balance && a->ledger_balance == 1050000, "second LEDGERBAL '10500'");
        ok(a->has_available_balance && a->available_balance == 1050000, "second AVAILBAL");
        is_int(a->line, 23, "second statement's line");
        is_int(a->txns[0].line, 29, "a transaction on one line");
        ofx_doc_free(&doc);
    }
    free(buf);
}

static void malformed_fixtures(void)
{
    refuses_fixture("bad-decimals.ofx", 20, "<TRNAMT> '-12.345' has more than 2 decimal places");
    refuses_fixture("no-trnamt.ofx", 17, "<STMTTRN> has no <TRNAMT>");
    refuses_fixture("bad-date.ofx", 24, "<DTPOSTED> '20250230' is not a date");
    refuses_fixture("unterminated-tag.ofx", 20, "unterminated tag <TRNAMT");
    refuses_fixture("not-ofx.csv", 1, "not an OFX file");
    refuses_fixture("binary.ofx", 6, "binary data (byte 0x1A)");
    refuses_fixture("empty.ofx", 1, "empty file");
    refuses_fixture("truncated.ofx", 58, "the file ends inside <STMTTRN> (opened on line 55)");
}

/* ---- values ------------------------------------------------------------------------ */

static void amounts(void)
{
    amount_is("-12.5", -1250);
    amount_is("+1234.56", 123456);
    amount_is("12,50", 1250);
    amount_is("-0,05", -5);
    amount_is("-.86", -86);
    amount_is(",5", 50);
    amount_is("7.", 700);
    amount_is("0", 0);
    amount_is("-0.00", 0);
    amount_is("12.500", 1250);
    amount_is("1234,500", 123450);     /* four digits before: not a thousands group */
    amount_is("0,500", 50);
    amount_is("  -3.00  ", -300);
    amount_is("10000000000000", INT64_C(1000000000000000));
    amount_is("-9999999999999.99", -INT64_C(999999999999999));
    amount_is("0.10", 10);

    amount_bad("12.345", "has more than 2 decimal places");
    amount_bad("0.001", "has more than 2 decimal places");
    amount_bad("1,234.56", "is not an amount");
    amount_bad("1.234,56", "is not an amount");
    amount_bad("1,234", "is ambiguous");
    amount_bad("-12,500", "is ambiguous");
    amount_bad("1.2.3", "is not an amount");
    amount_bad("abc", "is not an amount");
    amount_bad("$5.00", "is not an amount");
    amount_bad("1e2", "is not an amount");
    amount_bad("- 5", "is not an amount");
    amount_bad("--1", "is not an amount");
    amount_bad("+-1", "is not an amount");
    amount_bad("12 345", "is not an amount");
    amount_bad(".", "is not an amount");
    amount_bad("-", "is not an amount");
    amount_bad("10000000000000.01", "is out of range");
    amount_bad("99999999999999999999999999", "is out of range");
    txn_refused("<DTPOSTED>20250105\n<TRNAMT>\n<FITID>1\n", 7, "<TRNAMT> '' is not an amount",
                "an empty TRNAMT");
    txn_refused("<DTPOSTED>20250105\n<TRNAMT>1234567890123456789012345678901234567890"
                "12345678901234567890123456789\n", 7, "<TRNAMT> is longer than 63 bytes",
                "an over-long TRNAMT");
}

static void dates(void)
{
    date_is("20250131", "2025-01-31");
    date_is("20250131120000", "2025-01-31");
    date_is("202501311200", "2025-01-31");
    date_is("20250131120000.000", "2025-01-31");
    date_is("20250131120000.000[-5:EST]", "2025-01-31");
    date_is("20250131233000.000[-5:EST]", "2025-01-31");   /* 04:30 UTC the next day */
    date_is("20250101003000[+10:AEST]", "2025-01-01");     /* 14:30 UTC the day before */
    date_is("20250131120000[0:GMT]", "2025-01-31");
    date_is("20250131120000[-3.30:NST]", "2025-01-31");
    date_is("20250131120000[-0700]", "2025-01-31");
    date_is("20250131120000[+5]", "2025-01-31");
    date_is("20240229", "2024-02-29");
    date_is("20000229", "2000-02-29");
    date_is("19000101", "1900-01-01");                     /* the first day the API takes */
    date_is("20251231235960", "2025-12-31");               /* a leap second */

    date_bad("20250229");
    date_bad("19000229");
    date_bad("18991231");                                  /* before 1900, as everywhere */
    date_bad("10000101");
    date_bad("20250230");
    date_bad("20250431");
    date_bad("20251301");
    date_bad("20250001");
    date_bad("20250100");
    date_bad("00000000");
    date_bad("2025013");
    date_bad("2025-01-31");
    date_bad("31/01/2025");
    date_bad("20250131250000");
    date_bad("20250131126000");
    date_bad("2025013112");
    date_bad("20250131120000.");
    date_bad("20250131120000[-5:EST");
    date_bad("20250131120000[EST]");
    date_bad("20250131x");
    txn_refused("<DTPOSTED>\n<TRNAMT>1\n", 6, "<DTPOSTED> '' is not a date", "an empty DTPOSTED");
    txn_refused("<DTPOSTED>20250105\n<DTUSER>20251305\n<TRNAMT>1\n", 7,
                "<DTUSER> '20251305' is not a date", "a bad DTUSER with a good DTPOSTED");
}

static void transactions(void)
{
    struct ofx_txn x;
    ledger_error err;
    char body[20000], big[10000];
    int i;

    ok(one_txn("<DTUSER>20250102\n<DTPOSTED>20250104\n<TRNAMT>1\n", &x, &err) == LEDGER_OK
       && strcmp(x.date, "2025-01-04") == 0, "DTPOSTED wins whatever the order");
    ok(one_txn("<TRNAMT>1\n<DTUSER>20250102\n", &x, &err) == LEDGER_OK
       && strcmp(x.date, "2025-01-02") == 0, "DTUSER alone");
    ok(one_txn("<DTPOSTED>20250102\n<TRNAMT>1\n", &x, &err) == LEDGER_OK
       && x.trntype[0] == '\0' && x.fitid[0] == '\0' && x.name[0] == '\0' && x.line == 5,
       "TRNTYPE, FITID and NAME may be absent");
    ok(one_txn("<trntype>debit\n<dtposted>20250102\n<trnamt>-1\n</trnamt>\n", &x, &err)
       == LEDGER_OK && strcmp(x.trntype, "DEBIT") == 0 && x.amount == -100,
       "lower-case tags and TRNTYPE");
    ok(one_txn("<TRNTYPE>DIRECTDEBIT\n<DTPOSTED>20250102\n<TRNAMT>-1\n", &x, &err) == LEDGER_OK
       && strcmp(x.trntype, "DIRECTDEBIT") == 0, "DIRECTDEBIT fits");
    txn_refused("<TRNTYPE>CASH WITHDRAWAL\n<DTPOSTED>20250102\n<TRNAMT>1\n", 6,
                "<TRNTYPE> 'CASH WITHDRAWAL' is not a word", "a TRNTYPE with a space");
    txn_refused("<TRNTYPE>VERYLONGTRANSACTIONTYPE\n<DTPOSTED>20250102\n<TRNAMT>1\n", 6,
                "<TRNTYPE> is longer than 15 bytes", "an over-long TRNTYPE");

    txn_refused("<TRNTYPE>DEBIT\n<TRNAMT>-1\n<FITID>9\n", 5,
                "<STMTTRN> has neither <DTPOSTED> nor <DTUSER>", "no date");
    txn_refused("<DTPOSTED>20250102\n<FITID>9\n", 5, "<STMTTRN> has no <TRNAMT>", "no TRNAMT");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<TRNAMT>2\n", 8,
                "a second <TRNAMT> in one <STMTTRN>", "two TRNAMTs");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<FITID>1\n<FITID>2\n", 9,
                "a second <FITID> in one <STMTTRN>", "two FITIDs");

    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<PAYEE><NAME>From Payee<CITY>X</PAYEE>\n",
            "name", "From Payee", "PAYEE/NAME when there is no NAME");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>Direct\n<PAYEE><NAME>From Payee</PAYEE>\n",
            "name", "Direct", "NAME wins over PAYEE/NAME");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<BANKACCTTO><BANKID>9<ACCTID>77<ACCTTYPE>SAVINGS"
            "</BANKACCTTO>\n<NAME>Transfer\n", "name", "Transfer",
            "BANKACCTTO in a transaction is not the statement's account");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>  Multi\n  line\r\n\tname  \n",
            "name", "Multi   line  name", "line breaks inside a value become spaces");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>&lt;&gt;&amp;&quot;&apos;&#233;&#xE9;&#X41;"
            "&#150;&nbsp;|\n", "name",
            "<>&\"'\xc3\xa9\xc3\xa9" "A\xe2\x80\x93\xc2\xa0|",
            "entities, decimal and hex references, &#150; as an en dash");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>AT&T &foo; &#; &#x; &amp &#12345678901;\n",
            "name", "AT&T &foo; &#; &#x; &amp &#12345678901;",
            "what is not an entity stays text");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>&#32;x&#10;\n", "name", "x",
            "white space from references is trimmed too");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>bad &#0; ref\n", 8,
                "<NAME> holds a character reference", "&#0;");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<MEMO>&#xD800;\n", 8,
                "<MEMO> holds a character reference", "a surrogate reference");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<MEMO>&#1;\n", 8,
                "<MEMO> holds a character reference", "a control character reference");

    /* Windows-1252 when the bytes are not UTF-8, whatever the header says. */
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>Caf\xe9 \x80 \x92 \x9f \xff\n", "name",
            "Caf\xc3\xa9 \xe2\x82\xac \xe2\x80\x99 \xc5\xb8 \xc3\xbf",
            "Windows-1252 bytes (0xE9, 0x80, 0x92, 0x9F, 0xFF) to UTF-8");
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>\xc3\xa9t\xc3\xa9 \xe2\x82\xac\n", "name",
            "\xc3\xa9t\xc3\xa9 \xe2\x82\xac", "valid UTF-8 is kept");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>Caf\xe9\n<MEMO>x\x81y\n", 9,
                "byte 0x81 is neither UTF-8 nor Windows-1252", "a byte Windows-1252 leaves out");

    /* NAME and MEMO are cut at a character boundary; other values are not cut. */
    strcpy(body, "<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>");
    for (i = 0; i < 300; i++)
        strcat(body, "\xc3\xa9");
    strcat(body, "\n<MEMO>");
    for (i = 0; i < 300; i++)
        strcat(body, "\xe2\x82\xac");
    strcat(body, "\n");
    if (one_txn(body, &x, &err) == LEDGER_OK) {
        is_int(strlen(x.name), 254, "a long UTF-8 NAME is cut to 127 whole characters");
        ok(valid_utf8(x.name), "and stays valid UTF-8");
        is_int(strlen(x.memo), 510, "a long MEMO is cut to 170 whole euro signs");
        ok(valid_utf8(x.memo), "and stays valid UTF-8");
    } else {
        ok(0, "long NAME and MEMO (%s)", err.message);
    }
    strcpy(body, "<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>");
    for (i = 0; i < 300; i++)
        strcat(body, "\xe9");
    strcat(body, "\n");
    if (one_txn(body, &x, &err) == LEDGER_OK)
        ok(strlen(x.name) == 254 && valid_utf8(x.name),
           "a long Windows-1252 NAME is cut after conversion");
    else
        ok(0, "long Windows-1252 NAME (%s)", err.message);

    memset(big, 'F', 255);
    big[255] = '\0';
    snprintf(body, sizeof body, "<DTPOSTED>20250102\n<TRNAMT>1\n<FITID>%s\n", big);
    ok(one_txn(body, &x, &err) == LEDGER_OK && strlen(x.fitid) == 255,
       "a FITID of 255 bytes fits");
    snprintf(body, sizeof body, "<DTPOSTED>20250102\n<TRNAMT>1\n<FITID>%sF\n", big);
    txn_refused(body, 8, "<FITID> is longer than 255 bytes", "a FITID of 256 bytes is refused");
    memset(big, 'N', 9000);
    big[9000] = '\0';
    snprintf(body, sizeof body, "<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>%s\n", big);
    txn_refused(body, 8, "<NAME> is longer than 8192 bytes", "a value over 8 KiB");
    snprintf(body, sizeof body, "<DTPOSTED>20250102\n<TRNAMT>1\n<CHECKNUM>%.40s\n", big);
    txn_refused(body, 8, "<CHECKNUM> is longer than 31 bytes", "an over-long CHECKNUM");

    /* Currencies of one transaction. */
    if (one_txn("<DTPOSTED>20250102\n<TRNAMT>-10\n<CURRENCY><CURRATE>0,65<CURSYM>usd"
                "</CURRENCY>\n", &x, &err) == LEDGER_OK) {
        is_str(x.currency, "USD", "CURRENCY/CURSYM, upper-cased");
        is_str(x.currate, "0.65", "CURRATE with a decimal comma");
        is_str(x.orig_currency, "", "no ORIGCURRENCY");
    } else {
        ok(0, "CURRENCY (%s)", err.message);
    }
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>-10\n<CURRENCY><CURRATE>1<CURSYM>DOLLARS"
                "</CURRENCY>\n", 8, "<CURSYM> 'DOLLARS' is not a three-letter currency code",
                "a bad CURSYM");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>-10\n<CURRENCY><CURRATE>-1<CURSYM>USD"
                "</CURRENCY>\n", 8, "<CURRATE> '-1' is not a positive rate", "a bad CURRATE");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>-10\n<CURRENCY><CURRATE>1</CURRENCY>\n", 8,
                "<CURRENCY> has no <CURSYM>", "CURRENCY without CURSYM");
    txn_refused("<DTPOSTED>20250102\n<TRNAMT>-10\n<CURRENCY><CURSYM>USD</CURRENCY>\n"
                "<ORIGCURRENCY><CURSYM>EUR</ORIGCURRENCY>\n", 9,
                "a second currency in one <STMTTRN>", "CURRENCY and ORIGCURRENCY");

    /* Unknown structure inside a transaction is ignored. */
    name_is("<DTPOSTED>20250102\n<TRNAMT>1\n<X.EXT><X.A>1</X.A><X.B><X.C>2</X.C></X.B></X.EXT>\n"
            "<NAME>After\n<X.FLAG>\n<MEMO>Kept\n", "memo", "Kept",
            "unknown elements and aggregates are ignored");
}

/* ---- structure ------------------------------------------------------------------------ */

#define BANK_STMT(acct, body) "<STMTTRNRS><STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>" acct \
    "<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST>" body "</BANKTRANLIST></STMTRS></STMTTRNRS>"
#define TXN(amt) "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250102<TRNAMT>" amt "</STMTTRN>"

/* ---- files as banks write them ------------------------------------------------------ */

#define SGML_HEAD "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX>\n"
#define SIGNON(code, msg) "<SIGNONMSGSRSV1><SONRS><STATUS><CODE>" code "<SEVERITY>ERROR" \
    "<MESSAGE>" msg "</STATUS><DTSERVER>20250301120000</SONRS></SIGNONMSGSRSV1>\n"

/* Whether the document's warnings hold one with want in it. */
static int warned(const struct ofx_doc *doc, const char *want)
{
    size_t i;

    for (i = 0; i < doc->nwarnings; i++)
        if (strstr(doc->warnings[i], want) != NULL)
            return 1;
    return 0;
}

static void as_banks_write(void)
{
    struct ofx_doc doc;
    const struct ofx_account *a;

    /* CDATA is text, entities inside it are not decoded */
    if (parses(S("<?xml version=\"1.0\"?>\n<OFX><BANKMSGSRSV1>"
                 "<STMTTRNRS><STMTRS><CURDEF>AUD<BANKACCTFROM><BANKID>1<ACCTID>2</BANKACCTFROM>"
                 "<BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250102</DTPOSTED>"
                 "<TRNAMT>-1.00</TRNAMT><FITID>1</FITID>"
                 "<NAME><![CDATA[ALDI <STORE> &amp; CO  ]]></NAME>"
                 "<MEMO>a <![CDATA[b]]> &amp; c</MEMO></STMTTRN>"
                 "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"),
               &doc, "CDATA in NAME and MEMO")) {
        is_str(doc.accounts[0].txns[0].name, "ALDI <STORE> &amp; CO", "CDATA read as written");
        is_str(doc.accounts[0].txns[0].memo, "a b & c", "CDATA beside text and an entity");
        ofx_doc_free(&doc);
    }
    if (parses(S("<?xml version=\"1.0\"?>\n<OFX><BANKMSGSRSV1>"
                 "<STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID><![CDATA[12]]><![CDATA[34]]></ACCTID>"
                 "</BANKACCTFROM><BANKTRANLIST><STMTTRN><DTPOSTED>20250102</DTPOSTED>"
                 "<TRNAMT><![CDATA[-2.50]]></TRNAMT>"
                 "<NAME>a&amp;<![CDATA[ x]] <y> ]]>&lt;</NAME><MEMO><![CDATA[]]></MEMO></STMTTRN>"
                 "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"),
               &doc, "CDATA sections side by side, in numbers, empty")) {
        is_str(doc.accounts[0].acct_id, "1234", "two sections are one value");
        is_int(doc.accounts[0].txns[0].amount, -250, "an amount in CDATA");
        is_str(doc.accounts[0].txns[0].name, "a& x]] <y> <", "']]' and '<' inside, entities around");
        is_str(doc.accounts[0].txns[0].memo, "", "an empty section is an empty value");
        ofx_doc_free(&doc);
    }

    /* entities decoded once */
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1>" BANK_STMT("1", "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250102"
                 "<TRNAMT>-1<NAME>TPAY &amp;lt;DEF&amp;gt; &#38;amp;</STMTTRN>") "</BANKMSGSRSV1></OFX>"),
               &doc, "an escaped entity")) {
        is_str(doc.accounts[0].txns[0].name, "TPAY &lt;DEF&gt; &amp;", "entities decoded once");
        ofx_doc_free(&doc);
    }

    /* empty elements are absent values */
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF></CURDEF>\n"
                 "<BANKACCTFROM><BANKID></BANKID><ACCTID>9</ACCTID><ACCTTYPE></ACCTTYPE></BANKACCTFROM>"
                 "<BANKTRANLIST><DTSTART></DTSTART><DTEND>\n<STMTTRN><TRNTYPE><DTPOSTED>20250102"
                 "<DTUSER><TRNAMT>5<FITID><NAME></NAME></STMTTRN></BANKTRANLIST>\n"
                 "<LEDGERBAL><BALAMT></BALAMT><DTASOF>20250131</LEDGERBAL>"
                 "<AVAILBAL><BALAMT/><DTASOF/></AVAILBAL>"
                 "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"), &doc, "empty elements")) {
        a = &doc.accounts[0];
        is_str(a->currency, "", "an empty CURDEF is no currency");
        ok(warned(&doc, "line 6: <CURDEF> is empty: the statement is taken to be in the home currency"),
           "an empty CURDEF is a warning");
        is_str(a->bank_id, "", "an empty BANKID");
        is_str(a->acct_type, "", "an empty ACCTTYPE");
        is_str(a->start, "", "an empty DTSTART");
        is_int(a->ntxns, 1, "the row imports");
        is_str(a->txns[0].date, "2025-01-02", "its DTPOSTED, the empty DTUSER absent");
        is_int(a->has_ledger_balance, 0, "an empty BALAMT is no closing balance");
        is_str(a->ledger_balance_date, "2025-01-31", "its date is kept for the period");
        is_int(a->has_available_balance, 0, "a self-closed BALAMT is no balance");
        ofx_doc_free(&doc);
    }
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>1</BANKACCTFROM>\n"
                 "<LEDGERBAL><DTASOF>20250101</LEDGERBAL>\n</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"),
               &doc, "LEDGERBAL without BALAMT")) {
        is_int(doc.accounts[0].has_ledger_balance, 0, "a LEDGERBAL without BALAMT is no balance");
        ofx_doc_free(&doc);
    }
    txn_refused("<DTPOSTED>20250105\n<TRNAMT></TRNAMT>\n<FITID>1\n", 7,
                "<TRNAMT> '' is not an amount", "an empty TRNAMT with its end tag");
    txn_refused("<DTPOSTED/>\n<TRNAMT>1\n", 6, "<DTPOSTED> '' is not a date", "a self-closed DTPOSTED");

    /* a balance date that is not a date */
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>1</BANKACCTFROM>\n"
                 "<LEDGERBAL><BALAMT>10.50<DTASOF>23/04/2025</LEDGERBAL>\n"
                 "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"), &doc, "DTASOF DD/MM/YYYY")) {
        is_int(doc.accounts[0].has_ledger_balance, 1, "the balance stands");
        is_int(doc.accounts[0].ledger_balance, 1050, "its amount");
        is_str(doc.accounts[0].ledger_balance_date, "", "without its date");
        ok(warned(&doc, "line 7: <DTASOF> '23/04/2025' is not a date"), "a warning names it");
        ofx_doc_free(&doc);
    }

    /* an aggregate left open */
    if (parses(S(SGML_HEAD "<CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS><CURDEF>BRL\n"
                 "<CCACCTFROM><ACCTID>4</CCACCTFROM><BANKTRANLIST>\n"
                 "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250102<TRNAMT>-3</STMTTRN>\n"
                 "<LEDGERBAL><BALAMT>-3<DTASOF>20250103</LEDGERBAL>\n"
                 "</CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>\n"),
               &doc, "BANKTRANLIST never closed")) {
        a = &doc.accounts[0];
        is_int(a->ntxns, 1, "its row");
        is_int(a->has_ledger_balance, 1, "the LEDGERBAL after it is read");
        is_int(a->ledger_balance, -300, "its amount");
        ok(warned(&doc, "line 9: <BANKTRANLIST> (line 7) is not closed: it ends before <LEDGERBAL>"),
           "a warning says so");
        ofx_doc_free(&doc);
    }
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>1</BANKACCTFROM>\n"
                 "<BANKTRANLIST>\n<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250102<TRNAMT>-3<FITID>7"
                 "</STMTTRN></BANKTRANLIST>\n"
                 "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250103<TRNAMT>-4<FITID>7</STMTTRN>\n"
                 "</BANKTRANLIST><LEDGERBAL><BALAMT>1</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"),
               &doc, "a STMTTRN after </BANKTRANLIST>")) {
        is_int(doc.accounts[0].ntxns, 2, "both rows");
        is_int(doc.accounts[0].txns[1].amount, -400, "the second one's amount");
        is_int(doc.accounts[0].has_ledger_balance, 1, "and the balance");
        ok(warned(&doc, "line 9: <STMTTRN> outside <BANKTRANLIST>"), "a warning says so");
        ofx_doc_free(&doc);
    }
    refuses(S(SGML_HEAD "<BANKMSGSRSV1>" BANK_STMT("1", "") "\n</BANKMSGSRSV1>\n"
              "</BANKTRANLIST>\n</OFX>\n"), 8, "</BANKTRANLIST> closes no open element",
            "an aggregate's end tag outside any statement");

    /* leaf end tags in nested order, known and unknown elements */
    if (parses(S(SGML_HEAD "<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0\n<SEVERITY>INFO\n"
                 "<MESSAGE>OK</MESSAGE>\n</SEVERITY>\n</CODE>\n</STATUS>\n<DTSERVER>20140112\n"
                 "<X.ORIGIN>FMP\n<X.START>2014\n</X.START>\n</X.ORIGIN>\n</DTSERVER>\n</SONRS>"
                 "</SIGNONMSGSRSV1>\n<BANKMSGSRSV1>" BANK_STMT("1", TXN("1")) "</BANKMSGSRSV1></OFX>\n"),
               &doc, "leaf end tags in nested order")) {
        is_int(doc.accounts[0].ntxns, 1, "the statement after them");
        is_str(doc.server_date, "2014-01-12", "DTSERVER");
        ofx_doc_free(&doc);
    }
    refuses(S("<?xml version=\"1.0\"?>\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</CODE>\n"
              "</SEVERITY></STATUS></SONRS></SIGNONMSGSRSV1></OFX>"), 3,
            "</SEVERITY> closes no open element", "a stray leaf end tag in XML");
    refuses(S(SGML_HEAD "<BANKMSGSRSV1>\n</X.NEVER>\n</BANKMSGSRSV1></OFX>"), 7,
            "</X.NEVER> closes no open element", "an unknown end tag never opened");

    /* PAYEE holding text */
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1>" BANK_STMT("1", "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250102"
                 "<TRNAMT>-1<PAYEE>Pagto conta</PAYEE><MEMO>m</STMTTRN>") "</BANKMSGSRSV1></OFX>"),
               &doc, "a PAYEE with text")) {
        is_str(doc.accounts[0].txns[0].name, "Pagto conta", "is the payee's name");
        ofx_doc_free(&doc);
    }

    /* the bank's refusals */
    refuses(S(SGML_HEAD SIGNON("15500", "Your password was incorrect") "</OFX>\n"), 6,
            "the bank refused the request: STATUS CODE 15500 (ERROR) \"Your password was incorrect\"",
            "a refused signon");
    refuses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><TRNUID>1\n<STATUS><CODE>2000<SEVERITY>ERROR"
              "<MESSAGE>General Server Error\xc3\xa9</STATUS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"), 7,
            "STATUS CODE 2000 (ERROR) \"General Server Error?\"", "a refused statement");
    refuses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STATUS><CODE>2000</STATUS></STMTTRNRS>"
              "</BANKMSGSRSV1></OFX>\n"), 6, "STATUS CODE 2000 (no SEVERITY)", "a code alone");
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STATUS><CODE>2000<SEVERITY>ERROR"
                 "<MESSAGE>no</STATUS></STMTTRNRS>\n" BANK_STMT("1", TXN("1")) "</BANKMSGSRSV1></OFX>\n"),
               &doc, "a refused statement beside a good one")) {
        ok(warned(&doc, "line 6: the bank's STATUS CODE 2000 (ERROR) \"no\""), "is a warning");
        ofx_doc_free(&doc);
    }

    /* investment statements */
    if (parses(S(SGML_HEAD "<INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><CURDEF>USD"
                 "<INVACCTFROM><BROKERID>b<ACCTID>1</INVACCTFROM></INVSTMTRS></INVSTMTTRNRS>"
                 "</INVSTMTMSGSRSV1>\n<BANKMSGSRSV1>" BANK_STMT("1", TXN("1")) "</BANKMSGSRSV1></OFX>\n"),
               &doc, "an investment statement beside a bank statement")) {
        is_int(doc.naccounts, 1, "the bank statement only");
        ok(warned(&doc, "line 6: an investment statement (<INVSTMTRS>) is not imported"),
           "a warning says the other is not");
        ofx_doc_free(&doc);
    }

    /* a value cut to fit is said */
    {
        char body[400], *buf;
        size_t len;
        ledger_error err;

        strcpy(body, "<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>");
        memset(body + strlen(body), 'N', 300);
        strcpy(body + strlen("<DTPOSTED>20250102\n<TRNAMT>1\n<NAME>") + 300, "\n");
        buf = with_txn(body, &len);
        if (ok(parse(buf, len, &doc, &err) == LEDGER_OK, "a 300-byte NAME parses")) {
            is_int(strlen(doc.accounts[0].txns[0].name), 255, "cut to 255 bytes");
            ok(warned(&doc, "<NAME> is longer than 255 bytes: the rest is dropped"), "a warning says so");
            ofx_doc_free(&doc);
        }
        free(buf);
    }

    /* a statement without an account id */
    if (parses(S(SGML_HEAD "<BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>AUD\n<BANKTRANLIST>"
                 "<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20181214<TRNAMT>337.50<FITID>1</STMTTRN>"
                 "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"),
               &doc, "a statement without BANKACCTFROM")) {
        is_str(doc.accounts[0].acct_id, "", "no account id");
        is_int(doc.accounts[0].ntxns, 1, "its row");
        ok(warned(&doc, "<STMTRS> has no <ACCTID>: its rows are kept under an account named by the bank"),
           "a warning says how it is kept");
        ofx_doc_free(&doc);
    }
}

static void structure(void)
{
    struct ofx_doc doc;
    ledger_error err;
    char *deep, *p;
    int i;

    /* a bank and a credit-card statement in one file */
    if (parses(S("OFXHEADER:100\n<OFX>\n<BANKMSGSRSV1>" BANK_STMT("111", TXN("-1") TXN("-2"))
                 "</BANKMSGSRSV1>\n<CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS><CURDEF>usd"
                 "<CCACCTFROM><ACCTID>4000</CCACCTFROM><BANKTRANLIST>" TXN("-3")
                 "</BANKTRANLIST><LEDGERBAL><BALAMT>-3<DTASOF>20250103</LEDGERBAL>"
                 "</CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1>\n</OFX>\n"),
               &doc, "a bank and a credit-card statement in one file")) {
        ok(doc.naccounts == 2 && !doc.accounts[0].credit_card && doc.accounts[1].credit_card,
           "one bank account, one credit card");
        ok(doc.accounts[0].ntxns == 2 && doc.accounts[1].ntxns == 1
           && doc.accounts[1].txns[0].amount == -300, "each with its own transactions");
        is_str(doc.accounts[1].currency, "USD", "CURDEF upper-cased");
        ok(doc.accounts[1].has_ledger_balance && doc.accounts[1].ledger_balance == -300,
           "the card's balance");
        is_str(doc.accounts[1].start, "", "no DTSTART: empty");
        ofx_doc_free(&doc);
    }

    if (parses(S("<OFX><BANKMSGSRSV1>" BANK_STMT("1", "") "</BANKMSGSRSV1></OFX>"), &doc,
               "no header, no transactions, no line break")) {
        ok(doc.naccounts == 1 && doc.accounts[0].ntxns == 0 && doc.accounts[0].txns == NULL,
           "an account with no transactions");
        ofx_doc_free(&doc);
    }
    if (parses(S("\xef\xbb\xbf<?xml version=\"1.0\"?>\r\n<?OFX OFXHEADER=\"200\"?>\r\n"
                 "<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>9</ACCTID>"
                 "</BANKACCTFROM><BANKTRANLIST><STMTTRN><DTPOSTED>20250102</DTPOSTED>"
                 "<TRNAMT>5</TRNAMT><NAME/><MEMO>m</MEMO><!-- a <comment> --></STMTTRN>"
                 "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n"),
               &doc, "a UTF-8 BOM, XML with an empty element and a comment")) {
        ok(doc.accounts[0].ntxns == 1 && doc.accounts[0].txns[0].amount == 500
           && strcmp(doc.accounts[0].txns[0].memo, "m") == 0, "its transaction");
        ofx_doc_free(&doc);
    }
    if (parses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1",
                 "<STMTTRN><DTPOSTED>20250102<TRNAMT>1\n"
                 "<STMTTRN><DTPOSTED>20250103<TRNAMT>2\n") "</BANKMSGSRSV1></OFX>"),
               &doc, "transactions whose end tags are missing")) {
        ok(doc.accounts[0].ntxns == 2 && doc.accounts[0].txns[0].amount == 100
           && doc.accounts[0].txns[1].amount == 200, "still two transactions");
        ofx_doc_free(&doc);
    }
    if (parses(S("OFXHEADER:100\r<OFX>\r<BANKMSGSRSV1>\r" BANK_STMT("1", "\r" TXN("1") "\r")
                 "</BANKMSGSRSV1>\r</OFX>\r"), &doc, "old Mac line endings (CR only)")) {
        is_int(doc.accounts[0].txns[0].line, 5, "a lone CR ends a line");
        ofx_doc_free(&doc);
    }
    refuses(S("OFXHEADER:100\r<OFX>\r<BANKMSGSRSV1>\r" BANK_STMT("1", "\r" TXN("1.001") "\r")
              "</BANKMSGSRSV1>\r</OFX>\r"), 5, "has more than 2 decimal places",
            "line numbers with CR line endings");
    if (parses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", TXN("1"))
                 "</BANKMSGSRSV1></OFX>\n<OFX><BANKMSGSRSV1>" BANK_STMT("2", TXN("2"))
                 "</BANKMSGSRSV1></OFX>\n"), &doc, "two OFX documents one after the other")) {
        is_int(doc.naccounts, 2, "both accounts");
        ofx_doc_free(&doc);
    }
    if (parses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>"
                 "<BANKACCTFROM><BANKID>1<X.NOTE><ACCTID>77<ACCTTYPE>CHECKING</BANKACCTFROM>"
                 "<BANKTRANLIST></BANKTRANLIST><BALLIST><BAL><NAME>Points<DESC>d<BALTYPE>DOLLAR"
                 "<VALUE>12<DTASOF>20250101</BAL></BALLIST>"
                 "</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"),
               &doc, "an empty unknown element in BANKACCTFROM; BALLIST")) {
        is_str(doc.accounts[0].acct_id, "77", "ACCTID after it is read");
        is_int(doc.accounts[0].has_ledger_balance, 0, "BALLIST is not LEDGERBAL");
        ofx_doc_free(&doc);
    }

    /* the header */
    refuses(S("OFXHEADER:100\nDATA:OFXSGML\nthis is not a header\n<OFX></OFX>"), 3,
            "malformed OFX header line 'this is not a header'", "a header line without ':'");
    refuses(S("OFXHEADER:100\nDATA:OFXSGML\n\n"), 2, "no <OFX> element after the header",
            "a header and nothing else");
    refuses(S(" \r\n\t\n"), 1, "empty file", "white space only");
    refuses(S("\xff\xfe<\0O\0F\0X\0>\0"), 1, "UTF-16", "UTF-16");
    refuses(S("{\"not\": \"ofx\"}"), 1, "not an OFX file", "JSON");
    refuses(S("<!DOCTYPE html>\n<html><body>hi</body></html>\n"), 2,
            "not an OFX file: <HTML> where <OFX> should be", "HTML");
    refuses(S("<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\"?>\n"), 2,
            "not an OFX file: no <OFX> element", "an XML header and nothing else");
    refuses(S("OFXHEADER:100\n<OFX>\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</STATUS>"
              "</SONRS></SIGNONMSGSRSV1>\n</OFX>\n"), 4,
            "no bank or credit-card statement", "a sign-on and no statement");
    refuses(S("OFXHEADER:100\n<OFX>\n<INVSTMTMSGSRSV1><INVSTMTTRNRS><INVSTMTRS><CURDEF>USD"
              "<INVACCTFROM><BROKERID>b<ACCTID>1</INVACCTFROM></INVSTMTRS></INVSTMTTRNRS>"
              "</INVSTMTMSGSRSV1>\n</OFX>\n"), 3,
            "an investment statement (<INVSTMTRS>) and no bank or credit-card statement: only "
            "those are imported; export the cash account's transactions", "an investment statement only");

    /* structure that cannot be read */
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>\n<STMTRS>\n"), 3,
            "<STMTRS> inside another statement", "nested statements");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", "") "\n</BANKMSGSRSV1>\n"
              "</STMTTRN>\n</OFX>\n"), 4, "</STMTTRN> closes no open element",
            "an end tag with nothing to close");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>"
              "<BANKACCTFROM><ACCTID>1</BANKACCTFROM>\n<LEDGERBAL><BALAMT>1</LEDGERBAL>\n"
              "<LEDGERBAL><BALAMT>2</LEDGERBAL>\n"), 4,
            "a second <LEDGERBAL> in one statement", "two LEDGERBALs");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>\n<STMTTRNRS>junk\n</OFX>"), 3,
            "text 'junk' in <STMTTRNRS>, which holds elements", "text in an aggregate");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", TXN("1"))
              "</BANKMSGSRSV1></OFX>\n\ntrailing words\n"), 4,
            "text 'trailing words' outside <OFX>", "text after </OFX>");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", TXN("1"))
              "</BANKMSGSRSV1></OFX>\n<STMTRS>\n"), 3, "<STMTRS> after the end of <OFX>",
            "an element after </OFX>");
    refuses(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>\n<NAME>x</NAME>stray\n</OFX>"), 3,
            "text 'stray' outside any element's value", "text after an element's end tag");
    refuses(S("OFXHEADER:100\n<OFX>\n<!-- never closed\n</OFX>\n"), 3, "unterminated comment",
            "an unterminated comment");
    refuses(S("<?xml version=\"1.0\"?>\n<OFX>\n<BANKMSGSRSV1><![CDATA[a]]></BANKMSGSRSV1></OFX>"), 3,
            "text '<![CDATA[a]]>' in <BANKMSGSRSV1>, which holds elements", "CDATA in an aggregate");
    refuses(S("<?xml version=\"1.0\"?>\n<OFX>\n<X><![CDATA[a]]</X></OFX>"), 3,
            "unterminated CDATA section", "an unterminated CDATA section");
    refuses(S("OFXHEADER:100\n<OFX>\n< OFX>\n"), 3, "'<' followed by ' OFX>' does not start a tag",
            "'<' then a space");
    refuses(S("OFXHEADER:100\n<OFX>\n<TRN$AMT>1\n"), 3, "malformed tag <TRN", "a '$' in a tag");
    refuses(S("OFXHEADER:100\n<OFX>\n</OFX x>\n"), 3, "malformed end tag </OFX", "junk in an end tag");
    refuses(S("OFXHEADER:100\n<OFX>\n<BANKMSGSRSV1\n"), 3, "unterminated tag <BANKMSGSRSV1",
            "a tag cut by the end of the file");
    refuses(S("OFXHEADER:100\n<OFX>\n<"), 3, "unterminated tag at the end of the file",
            "a lone '<' at the end");
    refuses(S("OFXHEADER:100\n<OFX>\n<ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMN>\n"),
            3, "a tag name longer than 64 characters", "an over-long tag name");

    deep = alloc(40 * 8 + 64);
    p = deep + sprintf(deep, "OFXHEADER:100\n<OFX>\n");
    for (i = 0; i < 40; i++)
        p += sprintf(p, "<X%d>\n", i);
    refuses(deep, (size_t)(p - deep), 34, "elements nested more than 32 deep", "nesting too deep");
    free(deep);

    /* a file that ends inside an element */
    refuses(S("OFXHEADER:100\n<OFX>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n\n"), 4,
            "the file ends inside <STMTTRNRS> (opened on line 4)",
            "a file that stops early: the last line with something on it");
    ok(parse(S("OFXHEADER:100\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", TXN("1"))
               "</BANKMSGSRSV1></OFX>"), &doc, &err) == LEDGER_OK,
       "no line break at the end is fine");
    ofx_doc_free(&doc);
    if (parses(S("OFXHEADER:100\r\n<OFX><BANKMSGSRSV1>" BANK_STMT("1", TXN("1"))
                 "</BANKMSGSRSV1></OFX>\r\n\x1a"), &doc, "a DOS end-of-file mark at the end"))
        ofx_doc_free(&doc);
    refuses(S("OFXHEADER:100\r\n<OFX>\x1a<BANKMSGSRSV1>\r\n</OFX>\r\n"), 2,
            "binary data (byte 0x1A)", "but not in the middle");
}

/* ---- robustness ------------------------------------------------------------------------ */

/* Every prefix of a valid file: an error naming a line, never a crash, and
 * a success only once the file is whole. */
static void truncations(const char *name)
{
    size_t len, n, whole, bad = 0, wrong = 0;
    char *buf = fixture(name, &len), *copy;
    struct ofx_doc doc;
    ledger_error err;
    const char *close = NULL;

    for (n = 0; n + 6 <= len; n++)
        if (memcmp(buf + n, "</OFX>", 6) == 0)
            close = buf + n;
    whole = close ? (size_t)(close - buf) + 6 : len;
    for (n = 0; n < len; n++) {
        int rc;

        copy = exact(buf, n);
        ledger_error_clear(&err);
        rc = ofx_parse(copy, n, &doc, &err);
        free(copy);
        if (rc == LEDGER_OK) {
            if (n < whole || !doc_sane(&doc))
                wrong++;
            ofx_doc_free(&doc);
        } else if (n >= whole || err.status != 400 || strncmp(err.message, "line ", 5) != 0
                   || !message_ascii(err.message)) {
            if (bad++ == 0)
                printf("# prefix %zu: %s\n", n, err.message);
        }
    }
    ok(bad == 0 && wrong == 0, "%s: each of %zu prefixes is refused with a line number "
       "until the file is whole (%zu bad, %zu wrong)", name, len, bad, wrong);
    free(buf);
}

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random byte mutations of the fixtures: any answer is fine except a crash,
 * a malformed error or a document that breaks its promises. */
static void mutations(int rounds)
{
    static const char *names[] = {"bank-1252.ofx", "cc-2x.ofx", "bank.qfx", "two-accounts.ofx"};
    static const char interesting[] = "<>/&;#\r\n \t0123456789.,-+[]:!?ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    char *bufs[4];
    size_t lens[4], i;
    int r, accepted = 0, refused = 0, broken = 0;

    for (i = 0; i < 4; i++)
        bufs[i] = fixture(names[i], &lens[i]);
    for (r = 0; r < rounds; r++) {
        size_t k = rnd() % 4, len = lens[k], nmut = 1 + rnd() % 6, m;
        char *b = alloc(len + 64);   /* room to grow */
        struct ofx_doc doc;
        ledger_error err;
        char *copy;
        int rc;

        memcpy(b, bufs[k], len);
        for (m = 0; m < nmut && len > 0; m++) {
            size_t at = rnd() % len, span = 1 + rnd() % 16;

            switch (rnd() % 6) {
            case 0:   /* any byte, NUL and high bytes included */
                b[at] = (char)(rnd() & 0xFF);
                break;
            case 1:
                b[at] = interesting[rnd() % (sizeof interesting - 1)];
                break;
            case 2:   /* delete a span */
                if (span > len - at)
                    span = len - at;
                memmove(b + at, b + at + span, len - at - span);
                len -= span;
                break;
            case 3:   /* insert a byte */
                if (len < lens[k] + 64) {
                    memmove(b + at + 1, b + at, len - at);
                    b[at] = interesting[rnd() % (sizeof interesting - 1)];
                    len++;
                }
                break;
            case 4:   /* a high byte: Windows-1252 or broken UTF-8 */
                b[at] = (char)(0x80 | (rnd() & 0x7F));
                break;
            default:  /* cut the file */
                len = at;
                break;
            }
        }
        copy = exact(b, len);
        free(b);
        ledger_error_clear(&err);
        rc = ofx_parse(copy, len, &doc, &err);
        free(copy);
        if (rc == LEDGER_OK) {
            accepted++;
            if (!doc_sane(&doc))
                broken++;
            ofx_doc_free(&doc);
        } else {
            refused++;
            if (err.status != 400 || strncmp(err.message, "line ", 5) != 0
                || strcmp(err.field, "file") != 0 || !message_ascii(err.message)) {
                if (broken++ == 0)
                    printf("# round %d: %d %s\n", r, err.status, err.message);
            }
        }
    }
    ok(broken == 0, "%d random mutations: %d accepted, %d refused, %d broken",
       rounds, accepted, refused, broken);
    for (i = 0; i < 4; i++)
        free(bufs[i]);
}


/* A statement of n transactions parses whole and exactly.  How long it takes
 * is printed, not judged: speed is the benchmark's business (ledger-libbench
 * imports 10,000 OFX rows), and a timed test fails on a busy machine. */
static void big_file(int n)
{
    size_t cap = (size_t)n * 200 + 1024, len = 0;
    char *buf = alloc(cap);
    struct ofx_doc doc;
    ledger_error err;
    struct timespec t0, t1;
    double secs;
    int64_t sum = 0, want = 0;
    size_t i;
    int rc;

    len += (size_t)sprintf(buf, "OFXHEADER:100\r\nDATA:OFXSGML\r\nCHARSET:1252\r\n\r\n<OFX>\r\n"
                           "<BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>AUD\r\n<BANKACCTFROM>"
                           "<BANKID>062000<ACCTID>12345678<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n"
                           "<BANKTRANLIST><DTSTART>20240101<DTEND>20251231\r\n");
    for (i = 0; i < (size_t)n; i++) {
        long cents = (long)(i % 100000) - 50000;

        want += cents;
        len += (size_t)sprintf(buf + len, "<STMTTRN>\r\n<TRNTYPE>%s\r\n<DTPOSTED>2025%02zu%02zu"
                               "120000[-5:EST]\r\n<TRNAMT>%s%ld.%02ld\r\n<FITID>F%zu\r\n"
                               "<NAME>Caf\xe9 number %zu\r\n<MEMO>memo &amp; more\r\n</STMTTRN>\r\n",
                               cents < 0 ? "DEBIT" : "CREDIT", 1 + i % 12, 1 + i % 28,
                               cents < 0 ? "-" : "", labs(cents) / 100, labs(cents) % 100, i, i);
    }
    len += (size_t)sprintf(buf + len, "</BANKTRANLIST><LEDGERBAL><BALAMT>0<DTASOF>20251231"
                           "</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\r\n");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = ofx_parse(buf, len, &doc, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (ok(rc == LEDGER_OK && doc.accounts[0].ntxns == (size_t)n,
           "%d transactions (%.1f MB) parse", n, (double)len / 1e6)) {
        for (i = 0; i < doc.accounts[0].ntxns; i++)
            sum += doc.accounts[0].txns[i].amount;
        is_int(sum, want, "their amounts add up exactly");
        is_str(doc.accounts[0].txns[n - 1].name, n == 100000 ? "Caf\xc3\xa9 number 99999"
               : "Caf\xc3\xa9 number 9999", "the last NAME");
        ofx_doc_free(&doc);
    } else {
        printf("#   %s\n", err.message);
    }
    printf("# %d transactions in %.3f s\n", n, secs);
    free(buf);
}

int main(void)
{
    /* make check-valgrind sets LEDGER_VALGRIND; valgrind run by hand shows
     * in the preload it gives the program */
    const char *preload = getenv("LD_PRELOAD");
    int valgrind = getenv("LEDGER_VALGRIND") != NULL
                   || (preload != NULL && strstr(preload, "vgpreload") != NULL);

    bank_1252();
    cc_2x();
    qfx();
    two_accounts();
    malformed_fixtures();
    amounts();
    dates();
    transactions();
    structure();
    as_banks_write();
    truncations("bank-1252.ofx");
    truncations("cc-2x.ofx");
    truncations("bank.qfx");
    truncations("two-accounts.ofx");
    mutations(valgrind ? 2000 : 5000);
    big_file(valgrind ? 10000 : 100000);
    return done_testing();
}
