/* Characters: UTF-8 sequences and case (see text.h). */
#include <ctype.h>
#include <string.h>

#include "ledger.h"
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

/* Simple lower-casing (Unicode's simple case mappings) of the letters with
 * case in the scripts bank exports use: Latin (Latin-1, Extended-A and -B,
 * Extended Additional: Romanian, Vietnamese...), Greek (with its extended
 * block), Cyrillic (with the letters of Ukrainian, Kazakh and the rest),
 * Armenian, Georgian, and the fullwidth, circled and Roman-numeral forms:
 * enough that "CAFÉ", "Café" and "café" are one word, and "ȘOSEA" and
 * "șosea".  Each maps to a code point of the same UTF-8 length, so text
 * folds in place; the few whose lower case is longer or shorter are left
 * as they are: U+0130, capital I with dot, whose lower case is plain "i";
 * the Kelvin sign; U+1E9E, capital sharp s; and the Latin capitals whose
 * small letter is of another UTF-8 length (U+023A, U+023E, U+2C62, U+2C64,
 * U+2C6D-2C70, U+2C7E-2C7F, U+A78D, U+A7AA-A7AE, U+A7B0-A7B2, U+A7C5).
 * Final sigma folds to sigma, as Unicode's case folding does.  t/0012
 * checks every code point below U+10000 keeps its length and folds to a
 * letter that folds no further. */
enum { ADD, EVEN, ODD };  /* a range: cp + delta; or pairs, upper case even / odd */

static const struct case_range {
    unsigned lo, hi;
    unsigned char kind;
    int delta;
} lower_ranges[] = {
    { 0x00C0, 0x00D6, ADD, 0x20 }, { 0x00D8, 0x00DE, ADD, 0x20 },
    { 0x0100, 0x012F, EVEN, 0 }, { 0x0132, 0x0137, EVEN, 0 }, { 0x0139, 0x0148, ODD, 0 },
    { 0x014A, 0x0177, EVEN, 0 }, { 0x0178, 0x0178, ADD, 0x00FF - 0x0178 },
    { 0x0179, 0x017E, ODD, 0 },
    { 0x0181, 0x0181, ADD, 0x0253 - 0x0181 }, { 0x0182, 0x0185, EVEN, 0 },
    { 0x0186, 0x0186, ADD, 0x0254 - 0x0186 }, { 0x0187, 0x0188, ODD, 0 },
    { 0x0189, 0x018A, ADD, 0x0256 - 0x0189 }, { 0x018B, 0x018C, ODD, 0 },
    { 0x018E, 0x018E, ADD, 0x01DD - 0x018E }, { 0x018F, 0x018F, ADD, 0x0259 - 0x018F },
    { 0x0190, 0x0190, ADD, 0x025B - 0x0190 }, { 0x0191, 0x0192, ODD, 0 },
    { 0x0193, 0x0193, ADD, 0x0260 - 0x0193 }, { 0x0194, 0x0194, ADD, 0x0263 - 0x0194 },
    { 0x0196, 0x0196, ADD, 0x0269 - 0x0196 }, { 0x0197, 0x0197, ADD, 0x0268 - 0x0197 },
    { 0x0198, 0x0199, EVEN, 0 }, { 0x019C, 0x019C, ADD, 0x026F - 0x019C },
    { 0x019D, 0x019D, ADD, 0x0272 - 0x019D }, { 0x019F, 0x019F, ADD, 0x0275 - 0x019F },
    { 0x01A0, 0x01A5, EVEN, 0 }, { 0x01A6, 0x01A6, ADD, 0x0280 - 0x01A6 },
    { 0x01A7, 0x01A8, ODD, 0 }, { 0x01A9, 0x01A9, ADD, 0x0283 - 0x01A9 },
    { 0x01AC, 0x01AD, EVEN, 0 }, { 0x01AE, 0x01AE, ADD, 0x0288 - 0x01AE },
    { 0x01AF, 0x01B0, ODD, 0 }, { 0x01B1, 0x01B2, ADD, 0x028A - 0x01B1 },
    { 0x01B3, 0x01B6, ODD, 0 }, { 0x01B7, 0x01B7, ADD, 0x0292 - 0x01B7 },
    { 0x01B8, 0x01B9, EVEN, 0 }, { 0x01BC, 0x01BD, EVEN, 0 },
    { 0x01C4, 0x01C4, ADD, 2 }, { 0x01C5, 0x01C5, ADD, 1 }, { 0x01C7, 0x01C7, ADD, 2 },
    { 0x01C8, 0x01C8, ADD, 1 }, { 0x01CA, 0x01CA, ADD, 2 }, { 0x01CB, 0x01DC, ODD, 0 },
    { 0x01DE, 0x01EF, EVEN, 0 }, { 0x01F1, 0x01F1, ADD, 2 }, { 0x01F2, 0x01F5, EVEN, 0 },
    { 0x01F6, 0x01F6, ADD, 0x0195 - 0x01F6 }, { 0x01F7, 0x01F7, ADD, 0x01BF - 0x01F7 },
    { 0x01F8, 0x021F, EVEN, 0 }, { 0x0220, 0x0220, ADD, 0x019E - 0x0220 },
    { 0x0222, 0x0233, EVEN, 0 }, { 0x023B, 0x023C, ODD, 0 },
    { 0x023D, 0x023D, ADD, 0x019A - 0x023D }, { 0x0241, 0x0242, ODD, 0 },
    { 0x0243, 0x0243, ADD, 0x0180 - 0x0243 }, { 0x0244, 0x0244, ADD, 0x0289 - 0x0244 },
    { 0x0245, 0x0245, ADD, 0x028C - 0x0245 }, { 0x0246, 0x024F, EVEN, 0 },
    { 0x0370, 0x0373, EVEN, 0 }, { 0x0376, 0x0377, EVEN, 0 },
    { 0x037F, 0x037F, ADD, 0x03F3 - 0x037F }, { 0x0386, 0x0386, ADD, 0x03AC - 0x0386 },
    { 0x0388, 0x038A, ADD, 0x25 }, { 0x038C, 0x038C, ADD, 0x03CC - 0x038C },
    { 0x038E, 0x038F, ADD, 0x3F }, { 0x0391, 0x03A1, ADD, 0x20 }, { 0x03A3, 0x03AB, ADD, 0x20 },
    { 0x03C2, 0x03C2, ADD, 1 }, { 0x03CF, 0x03CF, ADD, 0x03D7 - 0x03CF },
    { 0x03D8, 0x03EF, EVEN, 0 }, { 0x03F4, 0x03F4, ADD, 0x03B8 - 0x03F4 },
    { 0x03F7, 0x03F8, ODD, 0 }, { 0x03F9, 0x03F9, ADD, 0x03F2 - 0x03F9 },
    { 0x03FA, 0x03FB, EVEN, 0 }, { 0x03FD, 0x03FF, ADD, 0x037B - 0x03FD },
    { 0x0400, 0x040F, ADD, 0x50 }, { 0x0410, 0x042F, ADD, 0x20 },
    { 0x0460, 0x0481, EVEN, 0 }, { 0x048A, 0x04BF, EVEN, 0 },
    { 0x04C0, 0x04C0, ADD, 0x04CF - 0x04C0 }, { 0x04C1, 0x04CE, ODD, 0 },
    { 0x04D0, 0x052F, EVEN, 0 }, { 0x0531, 0x0556, ADD, 0x30 },
    { 0x10A0, 0x10C5, ADD, 0x2D00 - 0x10A0 }, { 0x10C7, 0x10C7, ADD, 0x2D27 - 0x10C7 },
    { 0x10CD, 0x10CD, ADD, 0x2D2D - 0x10CD }, { 0x1C90, 0x1CBA, ADD, 0x10D0 - 0x1C90 },
    { 0x1CBD, 0x1CBF, ADD, 0x10FD - 0x1CBD },
    { 0x1E00, 0x1E95, EVEN, 0 }, { 0x1EA0, 0x1EFF, EVEN, 0 },
    { 0x1F08, 0x1F0F, ADD, -8 }, { 0x1F18, 0x1F1D, ADD, -8 }, { 0x1F28, 0x1F2F, ADD, -8 },
    { 0x1F38, 0x1F3F, ADD, -8 }, { 0x1F48, 0x1F4D, ADD, -8 }, { 0x1F59, 0x1F59, ADD, -8 },
    { 0x1F5B, 0x1F5B, ADD, -8 }, { 0x1F5D, 0x1F5D, ADD, -8 }, { 0x1F5F, 0x1F5F, ADD, -8 },
    { 0x1F68, 0x1F6F, ADD, -8 }, { 0x1F88, 0x1F8F, ADD, -8 }, { 0x1F98, 0x1F9F, ADD, -8 },
    { 0x1FA8, 0x1FAF, ADD, -8 }, { 0x1FB8, 0x1FB9, ADD, -8 }, { 0x1FBA, 0x1FBB, ADD, -0x4A },
    { 0x1FBC, 0x1FBC, ADD, -9 }, { 0x1FC8, 0x1FCB, ADD, -0x56 }, { 0x1FCC, 0x1FCC, ADD, -9 },
    { 0x1FD8, 0x1FD9, ADD, -8 }, { 0x1FDA, 0x1FDB, ADD, -0x64 }, { 0x1FE8, 0x1FE9, ADD, -8 },
    { 0x1FEA, 0x1FEB, ADD, -0x70 }, { 0x1FEC, 0x1FEC, ADD, -7 }, { 0x1FF8, 0x1FF9, ADD, -0x80 },
    { 0x1FFA, 0x1FFB, ADD, -0x7E }, { 0x1FFC, 0x1FFC, ADD, -9 },
    { 0x2160, 0x216F, ADD, 0x10 }, { 0x24B6, 0x24CF, ADD, 0x1A },
    { 0x2C00, 0x2C2F, ADD, 0x30 }, { 0x2C60, 0x2C61, EVEN, 0 },
    { 0x2C63, 0x2C63, ADD, 0x1D7D - 0x2C63 }, { 0x2C67, 0x2C6C, ODD, 0 },
    { 0x2C72, 0x2C73, EVEN, 0 }, { 0x2C75, 0x2C76, ODD, 0 }, { 0x2C80, 0x2CE3, EVEN, 0 },
    { 0xA640, 0xA66D, EVEN, 0 }, { 0xA680, 0xA69B, EVEN, 0 }, { 0xA722, 0xA72F, EVEN, 0 },
    { 0xA732, 0xA76F, EVEN, 0 }, { 0xA779, 0xA77C, ODD, 0 },
    { 0xA77D, 0xA77D, ADD, 0x1D79 - 0xA77D }, { 0xA77E, 0xA787, EVEN, 0 },
    { 0xA78B, 0xA78C, ODD, 0 }, { 0xA790, 0xA793, EVEN, 0 }, { 0xA796, 0xA7A9, EVEN, 0 },
    { 0xA7B3, 0xA7B3, ADD, 0xAB53 - 0xA7B3 }, { 0xA7B4, 0xA7C3, EVEN, 0 },
    { 0xA7C4, 0xA7C4, ADD, 0xA794 - 0xA7C4 }, { 0xA7C6, 0xA7C6, ADD, 0x1D8E - 0xA7C6 },
    { 0xA7C7, 0xA7CA, ODD, 0 }, { 0xA7D0, 0xA7D1, EVEN, 0 }, { 0xA7D6, 0xA7D9, EVEN, 0 },
    { 0xA7F5, 0xA7F6, ODD, 0 },
    { 0xFF21, 0xFF3A, ADD, 0x20 },
};

unsigned unicode_lower(unsigned cp)
{
    size_t lo = 0, hi = sizeof lower_ranges / sizeof lower_ranges[0];

    if (cp < 0x80)
        return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
    /* The ranges are in order and do not overlap: a binary search. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct case_range *r = &lower_ranges[mid];

        if (cp < r->lo)
            hi = mid;
        else if (cp > r->hi)
            lo = mid + 1;
        else if (r->kind == ADD)
            return (unsigned)((int)cp + r->delta);
        else
            return (cp & 1) == (r->kind == ODD) ? cp + 1 : cp;
    }
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
    upper = ascii_upper(first);
    for (i = 0; i + m <= n; i++) {
        if (t[i] != first && t[i] != upper)
            continue;
        for (j = 1; j < m; j++) {
            if (ascii_lower(t[i + j]) != p[j])
                break;
        }
        if (j == m)
            return 1;
    }
    return 0;
}

/* What the character at s (a UTF-8 sequence of *len bytes) is to a name:
 * 1 a space (Unicode White_Space, or a C1 control): it parts words like
 * any ASCII punctuation; 2 a character with no look of its own (soft
 * hyphen, zero-width characters, directional marks, variation selectors,
 * the byte order mark): dropped; 0 a character of the name.  So an NBSP
 * from a copied name does not make "dining out" another category than
 * "Dining Out", nor a zero-width space one that looks like "transfers"
 * but is spend. */
int unicode_kind(const unsigned char *s, size_t *len)
{
    unsigned cp;

    if ((s[0] & 0xE0) == 0xC0 && (s[1] & 0xC0) == 0x80) {
        cp = (s[0] & 0x1Fu) << 6 | (s[1] & 0x3Fu);
        *len = 2;
    } else if ((s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        cp = (s[0] & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu);
        *len = 3;
    } else if ((s[0] & 0xF8) == 0xF0 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80
               && (s[3] & 0xC0) == 0x80) {
        cp = (s[0] & 0x07u) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu);
        *len = 4;
    } else {
        *len = 1;
        return 0;
    }
    if ((cp >= 0x80 && cp <= 0xA0) || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A)
        || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000
        || cp == 0x2800)  /* the blank Braille pattern */
        return 1;
    /* Hangul fillers, Khmer inherent vowels, the specials block's
     * unassigned and annotation marks, Egyptian, Khitan, shorthand and
     * musical format controls: blank, not spaces (a user's name of
     * them alone would show as nothing). */
    if (cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0 || cp == 0x17B4
        || cp == 0x17B5 || (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0x13430 && cp <= 0x1343F)
        || cp == 0x16FE4 || (cp >= 0x1BCA0 && cp <= 0x1BCA3) || cp == 0x1D159
        || (cp >= 0x1D173 && cp <= 0x1D17A))
        return 2;
    if (cp == 0xAD || cp == 0x34F || cp == 0x61C || cp == 0x180E || (cp >= 0x180B && cp <= 0x180F)
        || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E)
        || (cp >= 0x2060 && cp <= 0x206F) || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF
        || (cp >= 0xE0000 && cp <= 0xE0FFF))
        return 2;
    return 0;
}

int text_blank(const char *s)
{
    size_t len;

    for (; *s; s += len) {
        len = 1;
        if ((unsigned char)*s < 0x80) {
            if (!isspace((unsigned char)*s) && !iscntrl((unsigned char)*s))
                return 0;
        } else if (unicode_kind((const unsigned char *)s, &len) == 0) {
            return 0;
        }
    }
    return 1;
}

int ledger_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
