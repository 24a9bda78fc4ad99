/*
 * OFX and QFX statement files: the bytes and the characters.  One pass
 * checks the bytes and settles the character set (ofx_lex.c's top says
 * how); the values the reader keeps are decoded here, entities and
 * Windows-1252 to UTF-8, once each.
 */
#include <string.h>

#include "db.h"
#include "ofx_parts.h"
#include "text.h"

/* One pass over the whole file before reading it: control characters mean
 * it is not text at all (a spreadsheet, an image, UTF-16), and whether the
 * bytes are valid UTF-8 decides the character set (see the top). */
int ofx_check_bytes(struct parser *ps)
{
    const unsigned char *q = ps->p;

    ps->cp1252 = 0;
    while (q < ps->end) {
        unsigned char c = *q;
        size_t n;

        if (c < 0x80) {
            if ((c < 0x20 && !ascii_space(c)) || c == 0x7F)
                return ofx_fail(ps, ofx_line_at(ps, q),
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
            if (charset_char(CHARSET_WINDOWS_1252, *q) == 0)
                return ofx_fail(ps, ofx_line_at(ps, q), "byte 0x%02X is neither UTF-8 nor "
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

            if (ascii_digit(c))
                d = c - '0';
            else if (hex && ascii_upper(c) >= 'A' && ascii_upper(c) <= 'F')
                d = ascii_upper(c) - 'A' + 10;
            else
                break;
            v = v * (hex ? 16 : 10) + d;
        }
        if (digits == 0 || q >= e || *q != ';')
            return 0;
        /* &#150; from a Windows program means cp1252's en dash, as in HTML. */
        if (v >= 0x80 && v < 0xA0 && charset_char(CHARSET_WINDOWS_1252, (unsigned char)v))
            v = charset_char(CHARSET_WINDOWS_1252, (unsigned char)v);
        if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)
            || (v < 0x20 && !ascii_space((unsigned char)v)) || (v >= 0x7F && v < 0xA0))
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

/* Decodes element text [s, e) into out (cap bytes with the NUL): entities
 * and the file's character set to UTF-8, surrounding white space trimmed,
 * line breaks and tabs inside made spaces (SGML values may run over lines).
 * Text that does not fit is cut at a character boundary when truncate is
 * set (DEC_CUT), and is DEC_LONG otherwise. */
/* Decodes [s, e) onto o[*np...]: entities unless in a CDATA section, the
 * file's character set to UTF-8, line breaks and tabs made spaces. */
static int decode_run(const struct parser *ps, const unsigned char *s, const unsigned char *e,
                      unsigned char *o, size_t *np, size_t cap, int truncate, int entities)
{
    size_t n = *np;

    while (s < e) {
        unsigned char ch[4];
        size_t k;
        unsigned cp;
        int r;

        if (*s == '&' && entities && (r = entity(s, e, &cp)) != 0) {
            if (r < 0)
                return DEC_BADREF;
            s += r;
            k = put_utf8(ch, cp == '\t' || cp == '\n' || cp == '\r' ? ' ' : cp);
        } else if (*s < 0x80) {
            if (*s == '\r' && s + 1 < e && s[1] == '\n')
                s++;
            ch[0] = ascii_space(*s) ? ' ' : *s;
            k = 1;
            s++;
        } else if (!ps->cp1252 && (k = utf8_len(s, e)) != 0) {
            memcpy(ch, s, k);
            s += k;
        } else {
            /* ofx_check_bytes refused the bytes cp1252 leaves undefined */
            cp = charset_char(CHARSET_WINDOWS_1252, *s);
            k = put_utf8(ch, cp ? cp : 0xFFFD);
            s++;
        }
        if (n + k + 1 > cap) {
            *np = n;
            return truncate ? DEC_CUT : DEC_LONG;
        }
        if (k == 1)
            o[n] = ch[0];   /* most text is ASCII: no call per character */
        else
            memcpy(o + n, ch, k);
        n += k;
    }
    *np = n;
    return DEC_OK;
}

int ofx_decode_text(const struct parser *ps, const unsigned char *s, const unsigned char *e,
                    char *out, size_t cap, int truncate)
{
    unsigned char *o = (unsigned char *)out;
    const unsigned char *lt;
    size_t n = 0, lead;
    int rc = DEC_OK;

    while (s < e && ascii_space(*s))
        s++;
    while (e > s && ascii_space(e[-1]))
        e--;
    /* A CDATA section's text is as written.  The lexer ends a value at any
     * other '<', so in a file with CDATA a '<' in a value starts one. */
    while (rc == DEC_OK && ps->cdata && (lt = memchr(s, '<', (size_t)(e - s))) != NULL) {
        const unsigned char *c = lt + 9;

        while (c + 3 <= e && memcmp(c, "]]>", 3) != 0)
            c++;
        if (e - lt < 12 || memcmp(lt, "<![CDATA[", 9) != 0 || c + 3 > e)
            break;
        rc = decode_run(ps, s, lt, o, &n, cap, truncate, 1);
        if (rc == DEC_OK)
            rc = decode_run(ps, lt + 9, c, o, &n, cap, truncate, 0);
        s = c + 3;
    }
    if (rc == DEC_OK)
        rc = decode_run(ps, s, e, o, &n, cap, truncate, 1);
    if (rc == DEC_LONG || rc == DEC_BADREF)
        return rc;
    /* an entity may have made white space at either end */
    while (n > 0 && o[n - 1] == ' ')
        n--;
    o[n] = '\0';
    for (lead = 0; o[lead] == ' '; lead++)
        ;
    if (lead)
        memmove(o, o + lead, n - lead + 1);
    return rc;
}
