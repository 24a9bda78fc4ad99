/* Characters: UTF-8 sequences and Windows-1252 bytes (see text.h). */
#include <string.h>

#include "text.h"

size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t n, i;
    unsigned cp;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))
        || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

size_t put_utf8(unsigned char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

unsigned cp1252_char(unsigned char b)
{
    /* 0x80-0x9F are Windows-1252's own; the rest is ISO-8859-1. */
    static const unsigned short high[32] = {
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178
    };

    return b >= 0x80 && b < 0xA0 ? high[b - 0x80] : b;
}

/* Simple lower-casing of the letters with case in Latin-1, Latin
 * Extended-A, Greek and Cyrillic, the scripts of the bank exports this
 * service reads: enough that "CAFÉ", "Café" and "café" are one word.  Each
 * maps to a code point of the same UTF-8 length (U+0130, capital I with
 * dot, whose lower case is plain "i", is left as it is for that reason),
 * so text folds in place.  Final sigma folds to sigma, as Unicode's case
 * folding does. */
unsigned unicode_lower(unsigned cp)
{
    if (cp < 0x80)
        return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    if ((cp >= 0xC0 && cp <= 0xDE && cp != 0xD7))
        return cp + 0x20;
    if (cp >= 0x100 && cp <= 0x17F) {
        if (cp == 0x130 || cp == 0x131 || cp == 0x138 || cp == 0x149 || cp == 0x17F)
            return cp;
        if (cp == 0x178)
            return 0xFF;
        if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E))
            return cp & 1 ? cp + 1 : cp;
        return cp & 1 ? cp : cp + 1;
    }
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2)
        return cp + 0x20;
    if (cp == 0x386)
        return 0x3AC;
    if (cp >= 0x388 && cp <= 0x38A)
        return cp + 0x25;
    if (cp == 0x38C)
        return 0x3CC;
    if (cp == 0x38E || cp == 0x38F)
        return cp + 0x3F;
    if (cp == 0x3C2)
        return 0x3C3;
    if (cp >= 0x410 && cp <= 0x42F)
        return cp + 0x20;
    if (cp >= 0x400 && cp <= 0x40F)
        return cp + 0x50;
    return cp;
}

void utf8_lower(char *s)
{
    unsigned char *p = (unsigned char *)s, *end = p + strlen(s);

    while (p < end) {
        size_t n = utf8_len(p, end), i;
        unsigned cp;

        if (n == 0) {        /* not UTF-8: left as it is */
            p++;
            continue;
        }
        if (n == 1) {
            *p = (unsigned char)unicode_lower(*p);
            p++;
            continue;
        }
        cp = p[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
        for (i = 1; i < n; i++)
            cp = (cp << 6) | (p[i] & 0x3F);
        cp = unicode_lower(cp);
        put_utf8(p, cp);     /* the same length: see unicode_lower */
        p += n;
    }
}

int text_contains(const char *text, size_t n, const char *term, size_t m)
{
    const unsigned char *t = (const unsigned char *)text, *p = (const unsigned char *)term;
    unsigned char first, upper;
    size_t i, j;

    if (m == 0)
        return 1;
    if (m > n)
        return 0;
    first = p[0];
    upper = first >= 'a' && first <= 'z' ? (unsigned char)(first - 'a' + 'A') : first;
    for (i = 0; i + m <= n; i++) {
        if (t[i] != first && t[i] != upper)
            continue;
        for (j = 1; j < m; j++) {
            unsigned char c = t[i + j];

            if (c >= 'A' && c <= 'Z')
                c = (unsigned char)(c - 'A' + 'a');
            if (c != p[j])
                break;
        }
        if (j == m)
            return 1;
    }
    return 0;
}
