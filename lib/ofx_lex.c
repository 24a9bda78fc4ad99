/*
 * OFX and QFX statement files: the bytes and the markup.
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
 * ofx.c fills the document; this file reads the bytes, the header and the
 * tags, keeps the stack of open elements and tells ofx.c as each opens,
 * holds text and closes.
 *
 * Choices where files and the specification leave room:
 * - The character set is decided by the bytes, not the header: a file that
 *   is valid UTF-8 is read as UTF-8, anything else as Windows-1252 (whose
 *   printable characters include all of ISO-8859-1's).  Banks label UTF-8
 *   files "CHARSET:1252" often enough that trusting the label would garble
 *   names, while Windows-1252 text with accents is practically never valid
 *   UTF-8.
 * - A bare '&' that starts no known entity is kept as text: SGML files from
 *   banks write "M&S" unescaped.  Entities are decoded once, as OFX says:
 *   "&amp;lt;" is the text "&lt;".
 * - A CDATA section in a value is text, as written (a bank writes its NAMEs
 *   so); outside a value it is an error like any other text there.
 * - Files are read as the readers in the field read them: an aggregate left
 *   open ends where an element of an aggregate around it starts, a STMTTRN
 *   after its list's end tag is one of its rows, and in SGML the end tag of
 *   a text element written after other tags (nested order) ends nothing.
 *   Each is said in the document's warnings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "ofx_parts.h"
#include "text.h"

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
    {"CODE", E_CODE, K_LEAF},
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
    {"DTSERVER", E_DTSERVER, K_LEAF},
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
    {"INVSTMTRS", E_INVSTMTRS, K_AGG},
    {"LANGUAGE", E_OTHER, K_LEAF},
    {"LEDGERBAL", E_LEDGERBAL, K_AGG},
    {"MEMO", E_MEMO, K_LEAF},
    {"MESSAGE", E_MESSAGE, K_LEAF},
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
    {"SEVERITY", E_SEVERITY, K_LEAF},
    {"SIC", E_OTHER, K_LEAF},
    {"SIGNONMSGSRSV1", E_OTHER, K_AGG},
    {"SONRS", E_SONRS, K_AGG},
    {"SRVRTID", E_OTHER, K_LEAF},
    {"STATE", E_OTHER, K_LEAF},
    {"STATUS", E_STATUS, K_AGG},
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

/* Line of the byte at `at`: counted on from the last call, since the reader
 * mostly moves forward.  A lone CR ends a line too (old Mac exports). */
int ofx_line_at(struct parser *ps, const unsigned char *at)
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

    while (q > ps->p && ascii_space(q[-1]))
        q--;
    return ofx_line_at(ps, q > ps->p ? q - 1 : ps->p);
}

int ofx_fail(struct parser *ps, int line, const char *fmt, ...)
{
    char msg[240];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return error_field(ps->err, "file", "line %d: %s", line, msg);
}

int ofx_warn(struct parser *ps, int line, const char *fmt, ...)
{
    struct ofx_doc *d = &ps->doc;
    va_list ap;
    int n;

    if (d->nwarnings == OFX_MAX_WARNINGS) {
        d->more_warnings++;
        return LEDGER_OK;
    }
    if (d->warnings == NULL) {
        d->warnings = malloc(OFX_MAX_WARNINGS * sizeof *d->warnings);
        if (d->warnings == NULL)
            return ledger_error_oom(ps->err);
    }
    n = snprintf(d->warnings[d->nwarnings], OFX_WARNING_SIZE, "line %d: ", line);
    va_start(ap, fmt);
    vsnprintf(d->warnings[d->nwarnings] + n, OFX_WARNING_SIZE - (size_t)n, fmt, ap);
    va_end(ap);
    d->nwarnings++;
    return LEDGER_OK;
}

/* Text from the file for an error message: printable ASCII only, so the
 * message stays valid UTF-8 whatever the file's bytes, and short. */
const char *ofx_shown(const void *text, size_t n, char buf[48])
{
    const unsigned char *s = text;
    size_t i, o = 0;

    while (n > 0 && ascii_space(s[n - 1]))
        n--;
    for (i = 0; i < n && o < 40; i++)
        buf[o++] = ascii_space(s[i]) ? ' ' : s[i] >= 0x20 && s[i] < 0x7F ? (char)s[i] : '?';
    if (i < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* ---- markup --------------------------------------------------------------------- */

static int is_name_char(unsigned char c)
{
    return ascii_alpha(c) || ascii_digit(c) || c == '.' || c == '_' || c == '-' || c == ':';
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

static inline const struct known *lookup(const struct parser *ps, const char *name)
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
            return ofx_fail(ps, ofx_line_at(ps, p), "unterminated comment");
        *after = q + 3;
    } else if (starts(p, ps->end, "<?")) {
        q = find(p + 2, ps->end, "?>");
        if (q == NULL)
            return ofx_fail(ps, ofx_line_at(ps, p), "unterminated <?...?>");
        /* <?xml ...?> or <?OFX OFXHEADER="200" ...?> before the body */
        if (ps->roots == 0 && q - p >= 5
            && (memcmp(p + 2, "xml", 3) == 0 || memcmp(p + 2, "OFX", 3) == 0))
            ps->xml = 1;
        *after = q + 2;
    } else if (starts(p, ps->end, "<![CDATA[")) {
        return ofx_fail(ps, ofx_line_at(ps, p), "a CDATA section outside any element's value");
    } else {
        q = find(p + 2, ps->end, ">");
        if (q == NULL)
            return ofx_fail(ps, ofx_line_at(ps, p), "unterminated <!...>");
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

    t->line = ofx_line_at(ps, p);
    t->end_tag = t->self_closing = 0;
    if (q < end && *q == '/') {
        t->end_tag = 1;
        q++;
    }
    if (q >= end)
        return ofx_fail(ps, t->line, "unterminated tag at the end of the file");
    if (!ascii_alpha(*q))
        return ofx_fail(ps, t->line, "'<' followed by '%s' does not start a tag",
                    ofx_shown(q, (size_t)(end - q) < 8 ? (size_t)(end - q) : 8, sb));
    while (q < end && is_name_char(*q)) {
        if (n == OFX_MAX_TAG)
            return ofx_fail(ps, t->line, "a tag name longer than %d characters", OFX_MAX_TAG);
        t->name[n++] = (char)ascii_upper(*q++);
    }
    t->name[n] = '\0';
    name_end = q;
    if (q < end && *q != '>' && *q != '/' && !ascii_space(*q))
        return ofx_fail(ps, t->line, "malformed tag <%s%s", t->end_tag ? "/" : "", t->name);
    /* OFX has no attributes; XML's would be skipped here */
    while (q < end && *q != '>' && *q != '<')
        q++;
    if (q >= end || *q == '<')
        return ofx_fail(ps, t->line, "unterminated tag <%s%s", t->end_tag ? "/" : "", t->name);
    if (t->end_tag) {
        const unsigned char *w;

        for (w = name_end; w < q; w++)
            if (!ascii_space(*w))
                return ofx_fail(ps, t->line, "malformed end tag </%s", t->name);
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
        if (ascii_upper(q[2 + i]) != (unsigned char)name[i])
            return 0;
    for (q += 2 + n; q < ps->end && ascii_space(*q); q++)
        ;
    if (q >= ps->end || *q != '>')
        return 0;
    *after = q + 1;
    return 1;
}

/* Closes every open element above stack index i, and i itself. */
static int pop_to(struct parser *ps, int i)
{
    while (ps->depth > i) {
        if (ofx_closed(ps, ps->depth - 1))
            return LEDGER_ERR;
        ps->depth--;
    }
    return LEDGER_OK;
}

static int push(struct parser *ps, const struct tag *t, int id, int kind)
{
    struct frame *f;

    if (ps->depth == OFX_MAX_DEPTH)
        return ofx_fail(ps, t->line, "elements nested more than %d deep", OFX_MAX_DEPTH);
    f = &ps->stack[ps->depth];
    memcpy(f->name, t->name, sizeof f->name);
    f->id = (unsigned char)id;
    f->kind = (unsigned char)kind;
    f->line = t->line;
    ps->depth++;
    return ofx_opened(ps, ps->depth - 1);
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
                return ofx_fail(ps, t->line, "<%s> after the end of <OFX>", t->name);
            return ofx_fail(ps, t->line, "not an OFX file: <%s> where <OFX> should be", t->name);
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
        if (k >= 0 && ofx_belongs(id, ps->stack[k].id))
            ps->depth = k + 1;   /* unknown frames close with no effect */
    }
    /* An aggregate left open (a </BANKTRANLIST> never written) ends where
     * an element of an aggregate around it starts, as SGML ends an element
     * whose end tag is left out, so that what follows (the LEDGERBAL) is
     * read in its place. */
    if (id != E_OTHER && ps->depth > 1 && ps->stack[ps->depth - 1].kind == K_AGG
        && ps->stack[ps->depth - 1].id != E_OTHER && !ofx_belongs(id, ps->stack[ps->depth - 1].id)) {
        int k = ps->depth - 2;

        while (k >= 0 && ps->stack[k].id != E_OTHER && !ofx_belongs(id, ps->stack[k].id))
            k--;
        if (k >= 0 && ps->stack[k].id != E_OTHER) {
            const struct frame *f = &ps->stack[k + 1];

            if (ofx_warn(ps, t->line, "<%s> (line %d) is not closed: it ends before <%s>",
                         f->name, f->line, t->name)
                || pop_to(ps, k + 1))
                return LEDGER_ERR;
        }
    }
    /* A transaction whose end tag is missing ends where the next one starts. */
    if (id == E_STMTTRN && ps->txn_at >= 0 && pop_to(ps, ps->txn_at))
        return LEDGER_ERR;
    /* A transaction after its list's end tag, in the statement: in a list
     * again, whose end tag is the second </BANKTRANLIST> such files have. */
    if (id == E_STMTTRN && ps->acct_at >= 0 && ps->acct_at == ps->depth - 1) {
        struct tag list = *t;

        memcpy(list.name, "BANKTRANLIST", sizeof "BANKTRANLIST");
        if (ofx_warn(ps, t->line, "<STMTTRN> outside <BANKTRANLIST>: read as one of its rows")
            || push(ps, &list, E_BANKTRANLIST, K_AGG))
            return LEDGER_ERR;
    }
    if (t->self_closing) {
        if (kind != K_AGG)
            return ofx_leaf(ps, t, id, s, s);
        if (push(ps, t, id, kind))
            return LEDGER_ERR;
        return pop_to(ps, ps->depth - 1);
    }
    for (q = s; q < ps->end; q++) {
        if (*q == '<') {
            /* a CDATA section is text (a bank writes its NAMEs so) */
            const unsigned char *c;

            if (q + 1 == ps->end || q[1] != '!' || !starts(q, ps->end, "<![CDATA["))
                break;
            if ((c = find(q + 9, ps->end, "]]>")) == NULL)
                return ofx_fail(ps, ofx_line_at(ps, q), "unterminated CDATA section");
            ps->cdata = 1;
            if (text == NULL)
                text = q;
            text_end = c + 3;
            q = c + 2;
        } else if (!ascii_space(*q)) {
            if (text == NULL)
                text = q;
            text_end = q + 1;
        }
    }
    /* A PAYEE holding text rather than elements is the payee's name, as
     * some banks write it. */
    if (kind == K_AGG && text && id == E_PAYEE)
        kind = K_LEAF;
    if (kind == K_AGG) {
        char sb[48];

        if (text)
            return ofx_fail(ps, ofx_line_at(ps, text), "text '%s' in <%s>, which holds elements",
                        ofx_shown(text, (size_t)(text_end - text), sb), t->name);
        return push(ps, t, id, kind);
    }
    if (text || kind == K_LEAF || end_tag_here(ps, q, t->name, &after)) {
        if (text && text_end - text > OFX_MAX_VALUE)
            return ofx_fail(ps, t->line, "<%s> is longer than %d bytes", t->name, OFX_MAX_VALUE);
        if (kn == NULL) {
            unsigned h = name_hash(t->name) & 255;

            ps->leaf_names[h >> 6] |= (uint64_t)1 << (h & 63);
        }
        if (ofx_leaf(ps, t, id, s, q))
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
    const struct known *kn;
    int i;

    for (i = ps->depth - 1; i >= 0; i--)
        if (strcmp(ps->stack[i].name, t->name) == 0)
            return pop_to(ps, i);
    /* In SGML, the end tag of a text element written later than its text
     * (leaf end tags in nested order: <CODE>0<SEVERITY>INFO</SEVERITY>
     * </CODE>) ends nothing: the element ended where the next tag began.
     * An unknown element is a text element when it was read as one (a
     * name that shares the hash of one is let through too: harmless). */
    if (!ps->xml) {
        unsigned h = name_hash(t->name) & 255;

        if ((kn = lookup(ps, t->name)) != NULL ? kn->kind == K_LEAF
                                               : (ps->leaf_names[h >> 6] >> (h & 63)) & 1)
            return LEDGER_OK;
    }
    return ofx_fail(ps, t->line, "</%s> closes no open element", t->name);
}

/* ---- the file ------------------------------------------------------------------- */

/* The OFX 1.x header, KEY:VALUE lines before the first '<' (OFX 2.x has its
 * header in <?OFX ...?>, read as markup).  Its values are not needed: the
 * bytes decide the character set and the body the version. */
static int read_header(struct parser *ps)
{
    const unsigned char *q = ps->p, *end = ps->end;
    size_t i;

    while (q < end && ascii_space(*q))
        q++;
    if (q == end)
        return ofx_fail(ps, last_line(ps), "empty file");
    if (*q == '<') {
        ps->p = q;
        return LEDGER_OK;
    }
    for (i = 0; i < 9 && q + i < end && ascii_upper(q[i]) == (unsigned char)"OFXHEADER"[i]; i++)
        ;
    if (i < 9)
        return ofx_fail(ps, ofx_line_at(ps, q), "not an OFX file: it starts with neither "
                    "OFXHEADER nor a tag");
    while (q < end && *q != '<') {
        const unsigned char *ls = q;   /* on the line's first non-blank */

        while (q < end && *q != '\n' && *q != '\r' && *q != '<' && *q != ':')
            q++;
        if (q == ls || q >= end || *q != ':') {
            char sb[48];

            return ofx_fail(ps, ofx_line_at(ps, ls), "malformed OFX header line '%s'",
                        ofx_shown(ls, (size_t)(q - ls), sb));
        }
        while (q < end && *q != '\n' && *q != '\r' && *q != '<')
            q++;
        while (q < end && ascii_space(*q))
            q++;
    }
    if (q == end)
        return ofx_fail(ps, last_line(ps), "no <OFX> element after the header");
    ps->p = q;
    return LEDGER_OK;
}

static int read_body(struct parser *ps)
{
    const unsigned char *p = ps->p, *end = ps->end;
    struct tag t;

    for (;;) {
        const unsigned char *q = p;

        while (q < end && ascii_space(*q))
            q++;
        if (q < end && *q != '<') {
            const unsigned char *r = q;
            char sb[48];

            while (r < end && *r != '<')
                r++;
            return ofx_fail(ps, ofx_line_at(ps, q), ps->depth ? "text '%s' outside any element's value"
                                                      : "text '%s' outside <OFX>",
                        ofx_shown(q, (size_t)(r - q), sb));
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

        return ofx_fail(ps, last_line(ps), "the file ends inside <%s> (opened on line %d)",
                    f->name, f->line);
    }
    if (ps->roots == 0)
        return ofx_fail(ps, last_line(ps), "not an OFX file: no <OFX> element");
    if (ps->doc.naccounts == 0 && ps->bad_line)
        return ofx_fail(ps, ps->bad_line, "the bank refused the request: STATUS CODE %s (%s)%s%s%s",
                        ps->bad_code, ps->bad_severity[0] ? ps->bad_severity : "no SEVERITY",
                        ps->bad_message[0] ? " \"" : "", ps->bad_message,
                        ps->bad_message[0] ? "\"" : "");
    if (ps->doc.naccounts == 0 && ps->inv_line)
        return ofx_fail(ps, ps->inv_line, "an investment statement (<INVSTMTRS>) and no bank or "
                        "credit-card statement: only those are imported; export the cash "
                        "account's transactions as a bank statement (OFX or CSV) instead");
    if (ps->doc.naccounts == 0)
        return ofx_fail(ps, last_line(ps), "no bank or credit-card statement "
                    "(<STMTRS> or <CCSTMTRS>) in the file");
    return LEDGER_OK;
}

int ofx_lex(struct parser *ps, const char *buf, size_t len)
{
    ps->start = ps->p = ps->counted = (const unsigned char *)buf;
    ps->end = ps->start + len;
    ps->line = 1;
    index_known(ps);
    if (len >= 2 && ((ps->p[0] == 0xFF && ps->p[1] == 0xFE) || (ps->p[0] == 0xFE && ps->p[1] == 0xFF)))
        return ofx_fail(ps, 1, "UTF-16 files are not supported (save it as UTF-8 or Windows-1252)");
    if (len >= 3 && ps->p[0] == 0xEF && ps->p[1] == 0xBB && ps->p[2] == 0xBF)
        ps->p += 3;
    while (ps->end > ps->p && ps->end[-1] == 0x1A)
        ps->end--;   /* DOS end-of-file marks */
    return ofx_check_bytes(ps) || read_header(ps) || read_body(ps) ? LEDGER_ERR : LEDGER_OK;
}
