/*
 * OFX and QFX statement files.
 *
 * One reader takes both dialects.  OFX 2.x is XML.  OFX 1.x is SGML whose DTD
 * lets an element holding text leave out its end tag ("<TRNAMT>-12.50" and
 * then the next tag), while aggregates are always closed.  Without the DTD,
 * an element is taken to hold text when text follows its start tag and to be
 * an aggregate when another tag does.  The one ambiguity, an element with
 * empty text, is settled by a table of the elements this reader knows (a
 * known text element never opens a level) and, for an unknown one, by
 * whether its own end tag comes next.  An unknown element that opened a level
 * and is never closed is closed with its parent, as SGML would close it; in
 * an SGML file, one followed by an element of its parent's (an <ACCTID> after
 * an empty <X.FOO> in BANKACCTFROM) is taken to have been empty instead.
 *
 * The reader streams: it keeps a stack of open elements and fills the
 * document as elements open and close, so a file of 100,000 transactions is
 * read in one pass without building a tree.  Only the values it keeps are
 * decoded (entities, and Windows-1252 to UTF-8).
 *
 * Choices where files and the specification leave room:
 * - The character set is decided by the bytes, not the header: a file that is
 *   valid UTF-8 is read as UTF-8, anything else as Windows-1252 (whose
 *   printable characters include all of ISO-8859-1's).  Banks label UTF-8 files "CHARSET:1252" often enough that
 *   trusting the label would garble names, while Windows-1252 text with
 *   accents is practically never valid UTF-8.
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
 * - A bare '&' that starts no known entity is kept as text: SGML files from
 *   banks write "M&S" unescaped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofx.h"
#include "text.h"

enum kind { K_UNKNOWN, K_AGG, K_LEAF };

/* The elements this reader acts on; every other known element is E_OTHER. */
enum elem {
    E_OTHER = 0,
    E_OFX, E_SONRS, E_FI, E_STMTRS, E_CCSTMTRS, E_BANKACCTFROM, E_CCACCTFROM,
    E_BANKTRANLIST, E_STMTTRN, E_PAYEE, E_CURRENCY, E_ORIGCURRENCY, E_LEDGERBAL,
    E_AVAILBAL,
    E_ORG, E_FID, E_CURDEF, E_BANKID, E_ACCTID, E_ACCTTYPE, E_DTSTART, E_DTEND,
    E_TRNTYPE, E_DTPOSTED, E_DTUSER, E_TRNAMT, E_FITID, E_NAME, E_MEMO,
    E_CHECKNUM, E_CURSYM, E_CURRATE, E_BALAMT, E_DTASOF
};

#define BIT(e) ((uint64_t)1 << (e))

struct known {
    const char *name;
    unsigned char id, kind;
};

/* The bank and credit-card parts of OFX 1.6/2.1.1 (fewer than 255).  Listing the text elements matters most: an empty one must
 * not be mistaken for an aggregate and swallow its siblings. */
static const struct known known[] = {
    {"ACCESSKEY", E_OTHER, K_LEAF},
    {"ACCTID", E_ACCTID, K_LEAF},
    {"ACCTKEY", E_OTHER, K_LEAF},
    {"ACCTTYPE", E_ACCTTYPE, K_LEAF},
    {"ADDR1", E_OTHER, K_LEAF},
    {"ADDR2", E_OTHER, K_LEAF},
    {"ADDR3", E_OTHER, K_LEAF},
    {"AVAILBAL", E_AVAILBAL, K_AGG},
    {"BAL", E_OTHER, K_AGG},
    {"BALAMT", E_BALAMT, K_LEAF},
    {"BALLIST", E_OTHER, K_AGG},
    {"BALTYPE", E_OTHER, K_LEAF},
    {"BANKACCTFROM", E_BANKACCTFROM, K_AGG},
    {"BANKACCTTO", E_OTHER, K_AGG},
    {"BANKID", E_BANKID, K_LEAF},
    {"BANKMSGSRSV1", E_OTHER, K_AGG},
    {"BANKTRANLIST", E_BANKTRANLIST, K_AGG},
    {"BRANCHID", E_OTHER, K_LEAF},
    {"CASHADVBALAMT", E_OTHER, K_LEAF},
    {"CCACCTFROM", E_CCACCTFROM, K_AGG},
    {"CCACCTTO", E_OTHER, K_AGG},
    {"CCSTMTRS", E_CCSTMTRS, K_AGG},
    {"CCSTMTTRNRS", E_OTHER, K_AGG},
    {"CHECKNUM", E_CHECKNUM, K_LEAF},
    {"CHECKSUP", E_OTHER, K_LEAF},
    {"CITY", E_OTHER, K_LEAF},
    {"CLTCOOKIE", E_OTHER, K_LEAF},
    {"CODE", E_OTHER, K_LEAF},
    {"CORRECTACTION", E_OTHER, K_LEAF},
    {"CORRECTFITID", E_OTHER, K_LEAF},
    {"COUNTRY", E_OTHER, K_LEAF},
    {"CREDITCARDMSGSRSV1", E_OTHER, K_AGG},
    {"CURDEF", E_CURDEF, K_LEAF},
    {"CURRATE", E_CURRATE, K_LEAF},
    {"CURRENCY", E_CURRENCY, K_AGG},
    {"CURSYM", E_CURSYM, K_LEAF},
    {"DESC", E_OTHER, K_LEAF},
    {"DTACCTUP", E_OTHER, K_LEAF},
    {"DTASOF", E_DTASOF, K_LEAF},
    {"DTAVAIL", E_OTHER, K_LEAF},
    {"DTEND", E_DTEND, K_LEAF},
    {"DTIMAGEAVAIL", E_OTHER, K_LEAF},
    {"DTPOSTED", E_DTPOSTED, K_LEAF},
    {"DTPROFUP", E_OTHER, K_LEAF},
    {"DTSERVER", E_OTHER, K_LEAF},
    {"DTSTART", E_DTSTART, K_LEAF},
    {"DTUSER", E_DTUSER, K_LEAF},
    {"EXTDNAME", E_OTHER, K_LEAF},
    {"FI", E_FI, K_AGG},
    {"FID", E_FID, K_LEAF},
    {"FITID", E_FITID, K_LEAF},
    {"IMAGEDATA", E_OTHER, K_AGG},
    {"IMAGEDELAY", E_OTHER, K_LEAF},
    {"IMAGEREF", E_OTHER, K_LEAF},
    {"IMAGEREFTYPE", E_OTHER, K_LEAF},
    {"IMAGETTL", E_OTHER, K_LEAF},
    {"IMAGETYPE", E_OTHER, K_LEAF},
    {"INTRATECASH", E_OTHER, K_LEAF},
    {"INTRATEPURCH", E_OTHER, K_LEAF},
    {"INTRATEXFER", E_OTHER, K_LEAF},
    {"INTU.BID", E_OTHER, K_LEAF},
    {"INTU.USERID", E_OTHER, K_LEAF},
    {"INV401KSOURCE", E_OTHER, K_LEAF},
    {"LANGUAGE", E_OTHER, K_LEAF},
    {"LEDGERBAL", E_LEDGERBAL, K_AGG},
    {"MEMO", E_MEMO, K_LEAF},
    {"MESSAGE", E_OTHER, K_LEAF},
    {"MKTGINFO", E_OTHER, K_LEAF},
    {"NAME", E_NAME, K_LEAF},
    {"OFX", E_OFX, K_AGG},
    {"ORG", E_ORG, K_LEAF},
    {"ORIGCURRENCY", E_ORIGCURRENCY, K_AGG},
    {"PAYEE", E_PAYEE, K_AGG},
    {"PAYEEID", E_OTHER, K_LEAF},
    {"PHONE", E_OTHER, K_LEAF},
    {"POSTALCODE", E_OTHER, K_LEAF},
    {"REFNUM", E_OTHER, K_LEAF},
    {"REWARDBAL", E_OTHER, K_LEAF},
    {"REWARDEARNED", E_OTHER, K_LEAF},
    {"REWARDINFO", E_OTHER, K_AGG},
    {"SESSCOOKIE", E_OTHER, K_LEAF},
    {"SEVERITY", E_OTHER, K_LEAF},
    {"SIC", E_OTHER, K_LEAF},
    {"SIGNONMSGSRSV1", E_OTHER, K_AGG},
    {"SONRS", E_SONRS, K_AGG},
    {"SRVRTID", E_OTHER, K_LEAF},
    {"STATE", E_OTHER, K_LEAF},
    {"STATUS", E_OTHER, K_AGG},
    {"STMTRS", E_STMTRS, K_AGG},
    {"STMTTRN", E_STMTTRN, K_AGG},
    {"STMTTRNRS", E_OTHER, K_AGG},
    {"TRNAMT", E_TRNAMT, K_LEAF},
    {"TRNTYPE", E_TRNTYPE, K_LEAF},
    {"TRNUID", E_OTHER, K_LEAF},
    {"TSKEYEXPIRE", E_OTHER, K_LEAF},
    {"USERKEY", E_OTHER, K_LEAF},
    {"VALUE", E_OTHER, K_LEAF},
};

struct frame {
    char name[OFX_MAX_TAG + 1];
    unsigned char id, kind;
    int line;
};

struct tag {
    char name[OFX_MAX_TAG + 1];
    int end_tag, self_closing, line;
    const unsigned char *after;     /* just past the '>' */
};

struct parser {
    const unsigned char *start, *p, *end;
    ledger_error *err;
    int cp1252;                     /* values are Windows-1252, not UTF-8 */
    int xml;                        /* OFX 2.x: every element has its end tag */
    const unsigned char *counted;   /* lines are counted up to here ... */
    int line;                       /* ... where this line is */
    struct frame stack[OFX_MAX_DEPTH];
    int depth;
    int roots;                      /* <OFX> elements seen */
    unsigned char index[256];       /* known[] by hash of name: 1 + its position, 0 free */
    struct ofx_doc doc;
    size_t acct_cap, txn_cap;       /* of doc.accounts, of the open account's txns */
    /* Stack indexes of the open statement, transaction, balance and currency
     * aggregates this reader fills, or -1, with the fields each has had. */
    int acct_at, txn_at, bal_at, cur_at;
    uint64_t acct_seen, txn_seen, bal_seen, cur_seen;
    char dtuser[11], payee_name[256];
    int64_t bal_amount;
    char bal_date[11];
    char cur_sym[4], cur_rate[24];
};


static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static unsigned char upper(unsigned char c)
{
    return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Line of the byte at `at`: counted on from the last call, since the reader
 * mostly moves forward.  A lone CR ends a line too (old Mac exports). */
static int line_at(struct parser *ps, const unsigned char *at)
{
    const unsigned char *q;

    if (at < ps->counted) {
        ps->counted = ps->start;
        ps->line = 1;
    }
    for (q = ps->counted; q < at; q++)
        if (*q == '\n' || (*q == '\r' && (q + 1 >= ps->end || q[1] != '\n')))
            ps->line++;
    ps->counted = at;
    return ps->line;
}

/* The line of the last byte that is not white space, for what is found
 * wrong at the end of the file. */
static int last_line(struct parser *ps)
{
    const unsigned char *q = ps->end;

    while (q > ps->p && is_ws(q[-1]))
        q--;
    return line_at(ps, q > ps->p ? q - 1 : ps->p);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *ps, int line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ledger_error_set(ps->err, 400, "invalid_field", "file", "line %d: %s", line, msg);
}

static int oom(struct parser *ps)
{
    return ledger_error_set(ps->err, 500, "internal", NULL, "out of memory");
}

/* Text from the file for an error message: printable ASCII only, so the
 * message stays valid UTF-8 whatever the file's bytes, and short. */
static const char *shown(const void *text, size_t n, char buf[48])
{
    const unsigned char *s = text;
    size_t i, o = 0;

    while (n > 0 && is_ws(s[n - 1]))
        n--;
    for (i = 0; i < n && o < 40; i++)
        buf[o++] = is_ws(s[i]) ? ' ' : s[i] >= 0x20 && s[i] < 0x7F ? (char)s[i] : '?';
    if (i < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* ---- bytes and characters ------------------------------------------------ */


/* One pass over the whole file before reading it: control characters mean
 * it is not text at all (a spreadsheet, an image, UTF-16), and whether the
 * bytes are valid UTF-8 decides the character set (see the top). */
static int check_bytes(struct parser *ps)
{
    const unsigned char *q = ps->p;

    ps->cp1252 = 0;
    while (q < ps->end) {
        unsigned char c = *q;
        size_t n;

        if (c < 0x80) {
            if ((c < 0x20 && !is_ws(c)) || c == 0x7F)
                return fail(ps, line_at(ps, q),
                            "binary data (byte 0x%02X): not an OFX text file", c);
            q++;
            continue;
        }
        n = ps->cp1252 ? 0 : utf8_len(q, ps->end);
        if (n == 0) {
            ps->cp1252 = 1;
            n = 1;
        }
        q += n;
    }
    if (ps->cp1252)
        for (q = ps->p; q < ps->end; q++)
            if (cp1252_char(*q) == 0)
                return fail(ps, line_at(ps, q), "byte 0x%02X is neither UTF-8 nor "
                            "Windows-1252 text", *q);
    return LEDGER_OK;
}

/* A character reference (&#233; &#xE9;) or predefined entity at s, on the
 * '&': its length with *cp set; 0 when s starts neither (the '&' is then
 * text); -1 for a reference to a character no text may hold. */
static int entity(const unsigned char *s, const unsigned char *e, unsigned *cp)
{
    static const struct { const char *name; unsigned cp; } names[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
        {"nbsp", 0xA0},
    };
    const unsigned char *q = s + 1;
    size_t i;

    if (q < e && *q == '#') {
        unsigned v = 0;
        int hex = 0, digits = 0;

        q++;
        if (q < e && (*q == 'x' || *q == 'X')) {
            hex = 1;
            q++;
        }
        for (; q < e && digits < 8; q++, digits++) {
            unsigned char c = *q;
            unsigned d;

            if (is_digit(c))
                d = c - '0';
            else if (hex && upper(c) >= 'A' && upper(c) <= 'F')
                d = upper(c) - 'A' + 10;
            else
                break;
            v = v * (hex ? 16 : 10) + d;
        }
        if (digits == 0 || q >= e || *q != ';')
            return 0;
        /* &#150; from a Windows program means cp1252's en dash, as in HTML. */
        if (v >= 0x80 && v < 0xA0 && cp1252_char((unsigned char)v))
            v = cp1252_char((unsigned char)v);
        if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)
            || (v < 0x20 && !is_ws((unsigned char)v)) || (v >= 0x7F && v < 0xA0))
            return -1;
        *cp = v;
        return (int)(q + 1 - s);
    }
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);

        if ((size_t)(e - q) > n && memcmp(q, names[i].name, n) == 0 && q[n] == ';') {
            *cp = names[i].cp;
            return (int)n + 2;
        }
    }
    return 0;
}

enum { DEC_OK, DEC_LONG, DEC_BADREF };

/* Decodes element text [s, e) into out (cap bytes with the NUL): entities
 * and the file's character set to UTF-8, surrounding white space trimmed,
 * line breaks and tabs inside made spaces (SGML values may run over lines).
 * Text that does not fit is cut at a character boundary when truncate is
 * set, and is DEC_LONG otherwise. */
static int decode_text(const struct parser *ps, const unsigned char *s,
                       const unsigned char *e, char *out, size_t cap, int truncate)
{
    unsigned char *o = (unsigned char *)out;
    size_t n = 0, lead;

    while (s < e && is_ws(*s))
        s++;
    while (e > s && is_ws(e[-1]))
        e--;
    while (s < e) {
        unsigned char ch[4];
        size_t k;
        unsigned cp;
        int r;

        if (*s == '&' && (r = entity(s, e, &cp)) != 0) {
            if (r < 0)
                return DEC_BADREF;
            s += r;
            k = put_utf8(ch, cp == '\t' || cp == '\n' || cp == '\r' ? ' ' : cp);
        } else if (*s < 0x80) {
            if (*s == '\r' && s + 1 < e && s[1] == '\n')
                s++;
            ch[0] = is_ws(*s) ? ' ' : *s;
            k = 1;
            s++;
        } else if (!ps->cp1252 && (k = utf8_len(s, e)) != 0) {
            memcpy(ch, s, k);
            s += k;
        } else {
            /* check_bytes refused the bytes cp1252 leaves undefined */
            cp = cp1252_char(*s);
            k = put_utf8(ch, cp ? cp : 0xFFFD);
            s++;
        }
        if (n + k + 1 > cap) {
            if (!truncate)
                return DEC_LONG;
            break;
        }
        memcpy(o + n, ch, k);
        n += k;
    }
    /* an entity may have made white space at either end */
    while (n > 0 && o[n - 1] == ' ')
        n--;
    o[n] = '\0';
    for (lead = 0; o[lead] == ' '; lead++)
        ;
    if (lead)
        memmove(o, o + lead, n - lead + 1);
    return DEC_OK;
}

/* ---- values ------------------------------------------------------------------ */

/* An OFX date: YYYYMMDD, then optionally HHMM or HHMMSS, then .XXX, then
 * [offset:TZ].  out gets the calendar day as written, YYYY-MM-DD. */
static int parse_date(const char *s, char out[11])
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *day;
    int n = 0, y, mo, d, k;

    while (is_digit((unsigned char)s[n]))
        n++;
    if (n != 8 && n != 12 && n != 14)
        return LEDGER_ERR;
    y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    mo = (s[4] - '0') * 10 + (s[5] - '0');
    d = (s[6] - '0') * 10 + (s[7] - '0');
    /* From 1900, as every other date the API takes (fields.c valid_date):
     * a mistyped 1899 was stored where no date filter reaches (an audit). */
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
        for (s++, k = 0; is_digit((unsigned char)*s); s++)
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
        for (k = 0; is_digit((unsigned char)*s); s++)
            k++;
        if (k < 1 || k > 4)
            return LEDGER_ERR;
        if (*s == '.') {
            for (s++, k = 0; is_digit((unsigned char)*s); s++)
                k++;
            if (k < 1 || k > 2)
                return LEDGER_ERR;
        }
        if (*s == ':')
            for (s++, k = 0; is_alpha((unsigned char)*s) || is_digit((unsigned char)*s)
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
    for (ip = s; is_digit((unsigned char)*s); s++)
        ;
    nint = (size_t)(s - ip);
    if (*s == '.' || *s == ',') {
        sep = *s++;
        for (fp = s; is_digit((unsigned char)*s); s++)
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
    switch (decode_text(ps, s, e, out, cap, truncate)) {
    case DEC_OK:
        return LEDGER_OK;
    case DEC_LONG:
        return fail(ps, t->line, "<%s> is longer than %zu bytes", t->name, cap - 1);
    default:
        return fail(ps, t->line, "<%s> holds a character reference to a character "
                    "text may not contain", t->name);
    }
}

/* The element may appear once in its aggregate. */
static int once(struct parser *ps, const struct tag *t, uint64_t *seen, int id)
{
    if (*seen & BIT(id))
        return fail(ps, t->line, "a second <%s> in one <%s>", t->name,
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
        return fail(ps, t->line, "<%s> '%s' is not a date (YYYYMMDD from 1900, a real day, "
                    "optionally with a time)", t->name,
                    shown(text, strlen(text), shown_buf));
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
    return fail(ps, t->line, "<%s> '%s' %s", t->name, shown(text, strlen(text), sb), why);
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
        unsigned char c = upper((unsigned char)out[i]);

        if (!is_alpha(c) && !is_digit(c) && c != '_')
            return fail(ps, t->line, "<%s> '%s' is not a word", t->name,
                        shown(out, strlen(out), sb));
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
    for (i = 0; i < 3 && is_alpha((unsigned char)text[i]); i++)
        out[i] = (char)upper((unsigned char)text[i]);
    if (i != 3 || text[3] != '\0')
        return fail(ps, t->line, "<%s> '%s' is not a three-letter currency code",
                    t->name, shown(text, strlen(text), sb));
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
        if (is_digit((unsigned char)text[i])) {
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
        return fail(ps, t->line, "<%s> '%s' is not a positive rate", t->name,
                    shown(text, strlen(text), sb));
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

/* Element text [s, e) of t, in the aggregate on top of the stack.  Known
 * elements out of their place are ignored like unknown ones. */
static int leaf(struct parser *ps, const struct tag *t, int id, const unsigned char *s,
                const unsigned char *e)
{
    int par = ps->depth - 1;
    int pid = par >= 0 ? ps->stack[par].id : E_OTHER;
    struct ofx_txn *x = ps->txn_at >= 0 ? open_txn(ps) : NULL;
    struct ofx_account *a = ps->acct_at >= 0 ? account(ps) : NULL;

    if (id == E_OTHER || par < 0)
        return LEDGER_OK;
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
        return id == E_BALAMT ? amount_value(ps, t, s, e, &ps->bal_amount)
                              : date_value(ps, t, s, e, ps->bal_date);
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
static int opened(struct parser *ps, int i)
{
    const struct frame *f = &ps->stack[i];

    switch (f->id) {
    case E_STMTRS:
    case E_CCSTMTRS: {
        struct ofx_account *a;

        if (ps->acct_at >= 0)
            return fail(ps, f->line, "<%s> inside another statement", f->name);
        if (ps->doc.naccounts == ps->acct_cap) {
            size_t cap = ps->acct_cap ? ps->acct_cap * 2 : 4;
            void *grown = realloc(ps->doc.accounts, cap * sizeof *a);

            if (grown == NULL)
                return oom(ps);
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
                    return oom(ps);
                grown = realloc(a->txns, cap * sizeof *x);
                if (grown == NULL)
                    return oom(ps);
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
                return fail(ps, f->line, "a second <%s> in one statement", f->name);
            ps->acct_seen |= BIT(f->id);
            ps->bal_at = i;
            ps->bal_seen = 0;
            ps->bal_amount = 0;
            ps->bal_date[0] = '\0';
        }
        break;
    case E_CURRENCY:
    case E_ORIGCURRENCY:
        if (ps->txn_at >= 0 && i == ps->txn_at + 1) {
            /* one bit for both: a transaction has CURRENCY or ORIGCURRENCY */
            if (ps->txn_seen & BIT(E_CURRENCY))
                return fail(ps, f->line, "a second currency in one <STMTTRN>");
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
        return fail(ps, x->line, "<STMTTRN> has no <TRNAMT>");
    if (!(ps->txn_seen & BIT(E_DTPOSTED))) {
        if (!(ps->txn_seen & BIT(E_DTUSER)))
            return fail(ps, x->line, "<STMTTRN> has neither <DTPOSTED> nor <DTUSER>");
        memcpy(x->date, ps->dtuser, sizeof x->date);
    }
    if (x->name[0] == '\0')
        memcpy(x->name, ps->payee_name, sizeof x->name);
    a->ntxns++;
    return LEDGER_OK;
}

/* The aggregate at stack index i is closing, by its end tag or its parent's. */
static int closed(struct parser *ps, int i)
{
    const struct frame *f = &ps->stack[i];

    if (i == ps->txn_at) {
        ps->txn_at = -1;
        return add_txn(ps);
    }
    if (i == ps->cur_at) {
        ps->cur_at = -1;
        if (!(ps->cur_seen & BIT(E_CURSYM)))
            return fail(ps, f->line, "<%s> has no <CURSYM>", f->name);
        memcpy(f->id == E_CURRENCY ? open_txn(ps)->currency : open_txn(ps)->orig_currency,
               ps->cur_sym, sizeof ps->cur_sym);
        memcpy(open_txn(ps)->currate, ps->cur_rate, sizeof ps->cur_rate);
        return LEDGER_OK;
    }
    if (i == ps->bal_at) {
        struct ofx_account *a = account(ps);

        ps->bal_at = -1;
        if (!(ps->bal_seen & BIT(E_BALAMT)))
            return fail(ps, f->line, "<%s> has no <BALAMT>", f->name);
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
    if (i == ps->acct_at) {
        struct ofx_account *a = account(ps);

        ps->acct_at = -1;
        if (a->acct_id[0] == '\0')
            return fail(ps, f->line, "<%s> has no <ACCTID>", f->name);
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

/* Closes every open element above stack index i, and i itself. */
static int pop_to(struct parser *ps, int i)
{
    while (ps->depth > i) {
        if (closed(ps, ps->depth - 1))
            return LEDGER_ERR;
        ps->depth--;
    }
    return LEDGER_OK;
}

/* ---- markup --------------------------------------------------------------------- */

static int is_name_char(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '-' || c == ':';
}

static unsigned name_hash(const char *name)
{
    unsigned h = 2166136261u;   /* FNV-1a */

    while (*name)
        h = (h ^ (unsigned char)*name++) * 16777619u;
    return h;
}

/* Every tag is looked up, so by a hash index (built per parse: no global
 * state) rather than a search of the table. */
static void index_known(struct parser *ps)
{
    size_t i, h;

    for (i = 0; i < sizeof known / sizeof known[0]; i++) {
        for (h = name_hash(known[i].name) & 255; ps->index[h]; h = (h + 1) & 255)
            ;
        ps->index[h] = (unsigned char)(i + 1);
    }
}

static const struct known *lookup(const struct parser *ps, const char *name)
{
    size_t h;

    for (h = name_hash(name) & 255; ps->index[h]; h = (h + 1) & 255)
        if (strcmp(known[ps->index[h] - 1].name, name) == 0)
            return &known[ps->index[h] - 1];
    return NULL;
}

/* First occurrence of the NUL-terminated s in [p, end), or NULL. */
static const unsigned char *find(const unsigned char *p, const unsigned char *end,
                                 const char *s)
{
    size_t n = strlen(s);

    for (; (size_t)(end - p) >= n; p++)
        if (*p == (unsigned char)s[0] && memcmp(p, s, n) == 0)
            return p;
    return NULL;
}

static int starts(const unsigned char *p, const unsigned char *end, const char *s)
{
    size_t n = strlen(s);

    return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* Skips a comment, a processing instruction (<?xml ...?>, <?OFX ...?>) or a
 * declaration at p; *after is just past it. */
static int skip_markup(struct parser *ps, const unsigned char *p, const unsigned char **after)
{
    const unsigned char *q;

    if (starts(p, ps->end, "<!--")) {
        q = find(p + 4, ps->end, "-->");
        if (q == NULL)
            return fail(ps, line_at(ps, p), "unterminated comment");
        *after = q + 3;
    } else if (starts(p, ps->end, "<?")) {
        q = find(p + 2, ps->end, "?>");
        if (q == NULL)
            return fail(ps, line_at(ps, p), "unterminated <?...?>");
        /* <?xml ...?> or <?OFX OFXHEADER="200" ...?> before the body */
        if (ps->roots == 0 && q - p >= 5
            && (memcmp(p + 2, "xml", 3) == 0 || memcmp(p + 2, "OFX", 3) == 0))
            ps->xml = 1;
        *after = q + 2;
    } else if (starts(p, ps->end, "<![CDATA[")) {
        return fail(ps, line_at(ps, p), "CDATA sections are not supported");
    } else {
        q = find(p + 2, ps->end, ">");
        if (q == NULL)
            return fail(ps, line_at(ps, p), "unterminated <!...>");
        *after = q + 1;
    }
    return LEDGER_OK;
}

/* Reads the start or end tag at p, on its '<'. */
static int read_tag(struct parser *ps, const unsigned char *p, struct tag *t)
{
    const unsigned char *q = p + 1, *end = ps->end, *name_end;
    size_t n = 0;
    char sb[48];

    t->line = line_at(ps, p);
    t->end_tag = t->self_closing = 0;
    if (q < end && *q == '/') {
        t->end_tag = 1;
        q++;
    }
    if (q >= end)
        return fail(ps, t->line, "unterminated tag at the end of the file");
    if (!is_alpha(*q))
        return fail(ps, t->line, "'<' followed by '%s' does not start a tag",
                    shown(q, (size_t)(end - q) < 8 ? (size_t)(end - q) : 8, sb));
    while (q < end && is_name_char(*q)) {
        if (n == OFX_MAX_TAG)
            return fail(ps, t->line, "a tag name longer than %d characters", OFX_MAX_TAG);
        t->name[n++] = (char)upper(*q++);
    }
    t->name[n] = '\0';
    name_end = q;
    if (q < end && *q != '>' && *q != '/' && !is_ws(*q))
        return fail(ps, t->line, "malformed tag <%s%s", t->end_tag ? "/" : "", t->name);
    /* OFX has no attributes; XML's would be skipped here */
    while (q < end && *q != '>' && *q != '<')
        q++;
    if (q >= end || *q == '<')
        return fail(ps, t->line, "unterminated tag <%s%s", t->end_tag ? "/" : "", t->name);
    if (t->end_tag) {
        const unsigned char *w;

        for (w = name_end; w < q; w++)
            if (!is_ws(*w))
                return fail(ps, t->line, "malformed end tag </%s", t->name);
    } else if (q > name_end && q[-1] == '/') {
        t->self_closing = 1;
    }
    t->after = q + 1;
    return LEDGER_OK;
}

/* Whether the end tag of name starts at q; *after is then just past it. */
static int end_tag_here(const struct parser *ps, const unsigned char *q, const char *name,
                        const unsigned char **after)
{
    size_t n = strlen(name), i;

    if (ps->end - q < 2 || q[0] != '<' || q[1] != '/' || (size_t)(ps->end - q - 2) < n)
        return 0;
    for (i = 0; i < n; i++)
        if (upper(q[2 + i]) != (unsigned char)name[i])
            return 0;
    for (q += 2 + n; q < ps->end && is_ws(*q); q++)
        ;
    if (q >= ps->end || *q != '>')
        return 0;
    *after = q + 1;
    return 1;
}

static int push(struct parser *ps, const struct tag *t, int id, int kind)
{
    struct frame *f;

    if (ps->depth == OFX_MAX_DEPTH)
        return fail(ps, t->line, "elements nested more than %d deep", OFX_MAX_DEPTH);
    f = &ps->stack[ps->depth];
    memcpy(f->name, t->name, sizeof f->name);
    f->id = (unsigned char)id;
    f->kind = (unsigned char)kind;
    f->line = t->line;
    ps->depth++;
    return opened(ps, ps->depth - 1);
}

/* Whether the element child has a place in parent, for the elements this
 * reader acts on. */
static int belongs(int child, int parent)
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
    case E_FI:
        return parent == E_SONRS;
    }
    return 0;
}

/* A start tag has been read; *pp is just past it and moves past its text. */
static int open_tag(struct parser *ps, const struct tag *t, const unsigned char **pp)
{
    const struct known *kn = lookup(ps, t->name);
    int id = kn ? kn->id : E_OTHER, kind = kn ? kn->kind : K_UNKNOWN;
    const unsigned char *s = *pp, *q, *text = NULL, *text_end = NULL, *after;

    if (ps->depth == 0) {
        if (id != E_OFX) {
            if (ps->roots)
                return fail(ps, t->line, "<%s> after the end of <OFX>", t->name);
            return fail(ps, t->line, "not an OFX file: <%s> where <OFX> should be", t->name);
        }
        ps->roots++;
    }
    /* In SGML, an unknown element that seemed to open a level but is
     * followed by an element of the aggregate around it was an empty one. */
    if (!ps->xml && id != E_OTHER && ps->depth > 0
        && ps->stack[ps->depth - 1].kind == K_UNKNOWN) {
        int k = ps->depth - 1;

        while (k >= 0 && ps->stack[k].kind == K_UNKNOWN)
            k--;
        if (k >= 0 && belongs(id, ps->stack[k].id))
            ps->depth = k + 1;   /* unknown frames close with no effect */
    }
    /* A transaction whose end tag is missing ends where the next one starts. */
    if (id == E_STMTTRN && ps->txn_at >= 0 && pop_to(ps, ps->txn_at))
        return LEDGER_ERR;
    if (t->self_closing) {
        if (kind != K_AGG)
            return leaf(ps, t, id, s, s);
        if (push(ps, t, id, kind))
            return LEDGER_ERR;
        return pop_to(ps, ps->depth - 1);
    }
    for (q = s; q < ps->end && *q != '<'; q++)
        if (!is_ws(*q)) {
            if (text == NULL)
                text = q;
            text_end = q + 1;
        }
    if (kind == K_AGG) {
        char sb[48];

        if (text)
            return fail(ps, line_at(ps, text), "text '%s' in <%s>, which holds elements",
                        shown(text, (size_t)(text_end - text), sb), t->name);
        return push(ps, t, id, kind);
    }
    if (text || kind == K_LEAF || end_tag_here(ps, q, t->name, &after)) {
        if (text && text_end - text > OFX_MAX_VALUE)
            return fail(ps, t->line, "<%s> is longer than %d bytes", t->name, OFX_MAX_VALUE);
        if (leaf(ps, t, id, s, q))
            return LEDGER_ERR;
        *pp = end_tag_here(ps, q, t->name, &after) ? after : q;
        return LEDGER_OK;
    }
    /* an unknown element with another element next: an aggregate, as far
     * as can be told (see the top) */
    return push(ps, t, id, kind);
}

static int close_tag(struct parser *ps, const struct tag *t)
{
    int i;

    for (i = ps->depth - 1; i >= 0; i--)
        if (strcmp(ps->stack[i].name, t->name) == 0)
            return pop_to(ps, i);
    return fail(ps, t->line, "</%s> closes no open element", t->name);
}

/* ---- the file ------------------------------------------------------------------- */

/* The OFX 1.x header, KEY:VALUE lines before the first '<' (OFX 2.x has its
 * header in <?OFX ...?>, read as markup).  Its values are not needed: the
 * bytes decide the character set and the body the version. */
static int read_header(struct parser *ps)
{
    const unsigned char *q = ps->p, *end = ps->end;
    size_t i;

    while (q < end && is_ws(*q))
        q++;
    if (q == end)
        return fail(ps, last_line(ps), "empty file");
    if (*q == '<') {
        ps->p = q;
        return LEDGER_OK;
    }
    for (i = 0; i < 9 && q + i < end && upper(q[i]) == (unsigned char)"OFXHEADER"[i]; i++)
        ;
    if (i < 9)
        return fail(ps, line_at(ps, q), "not an OFX file: it starts with neither "
                    "OFXHEADER nor a tag");
    while (q < end && *q != '<') {
        const unsigned char *ls = q;   /* on the line's first non-blank */

        while (q < end && *q != '\n' && *q != '\r' && *q != '<' && *q != ':')
            q++;
        if (q == ls || q >= end || *q != ':') {
            char sb[48];

            return fail(ps, line_at(ps, ls), "malformed OFX header line '%s'",
                        shown(ls, (size_t)(q - ls), sb));
        }
        while (q < end && *q != '\n' && *q != '\r' && *q != '<')
            q++;
        while (q < end && is_ws(*q))
            q++;
    }
    if (q == end)
        return fail(ps, last_line(ps), "no <OFX> element after the header");
    ps->p = q;
    return LEDGER_OK;
}

static int read_body(struct parser *ps)
{
    const unsigned char *p = ps->p, *end = ps->end;
    struct tag t;

    for (;;) {
        const unsigned char *q = p;

        while (q < end && is_ws(*q))
            q++;
        if (q < end && *q != '<') {
            const unsigned char *r = q;
            char sb[48];

            while (r < end && *r != '<')
                r++;
            return fail(ps, line_at(ps, q), ps->depth ? "text '%s' outside any element's value"
                                                      : "text '%s' outside <OFX>",
                        shown(q, (size_t)(r - q), sb));
        }
        p = q;
        if (p == end)
            break;
        if (p + 1 < end && (p[1] == '!' || p[1] == '?')) {
            if (skip_markup(ps, p, &p))
                return LEDGER_ERR;
            continue;
        }
        if (read_tag(ps, p, &t))
            return LEDGER_ERR;
        p = t.after;
        if (t.end_tag) {
            if (close_tag(ps, &t))
                return LEDGER_ERR;
        } else if (open_tag(ps, &t, &p)) {
            return LEDGER_ERR;
        }
    }
    if (ps->depth > 0) {
        const struct frame *f = &ps->stack[ps->depth - 1];

        return fail(ps, last_line(ps), "the file ends inside <%s> (opened on line %d)",
                    f->name, f->line);
    }
    if (ps->roots == 0)
        return fail(ps, last_line(ps), "not an OFX file: no <OFX> element");
    if (ps->doc.naccounts == 0)
        return fail(ps, last_line(ps), "no bank or credit-card statement "
                    "(<STMTRS> or <CCSTMTRS>) in the file");
    return LEDGER_OK;
}

int ofx_parse(const char *buf, size_t len, struct ofx_doc *out, ledger_error *err)
{
    struct parser ps;
    int rc = LEDGER_ERR;

    memset(&ps, 0, sizeof ps);
    if (buf == NULL)
        buf = "", len = 0;
    ps.start = ps.p = ps.counted = (const unsigned char *)buf;
    ps.end = ps.start + len;
    ps.line = 1;
    ps.err = err;
    ps.acct_at = ps.txn_at = ps.bal_at = ps.cur_at = -1;
    index_known(&ps);
    if (len >= 2 && ((ps.p[0] == 0xFF && ps.p[1] == 0xFE) || (ps.p[0] == 0xFE && ps.p[1] == 0xFF))) {
        fail(&ps, 1, "UTF-16 files are not supported (save it as UTF-8 or Windows-1252)");
        goto done;
    }
    if (len >= 3 && ps.p[0] == 0xEF && ps.p[1] == 0xBB && ps.p[2] == 0xBF)
        ps.p += 3;
    while (ps.end > ps.p && ps.end[-1] == 0x1A)
        ps.end--;   /* DOS end-of-file marks */
    if (check_bytes(&ps) || read_header(&ps) || read_body(&ps))
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
    memset(doc, 0, sizeof *doc);
}
