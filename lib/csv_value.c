/*
 * CSV bank exports: the dates and amounts in the fields.
 *
 * Choices where files leave room:
 * - Dates are guessed from the whole date column: the first format, in the
 *   order of formats[] below, that reads every non-empty value wins; when
 *   none does, the one that reads the most.  DD/MM/YYYY comes before
 *   MM/DD/YYYY, so a column that a value with a day over 12 does not settle
 *   is read day first, as Australian banks write dates.  "Reads" means the
 *   shape and the ranges (day 1-31, month 1-12) fit; a day the month does
 *   not have (31/02/2025) is then that row's error.  Two-digit years are
 *   2000-2069 for 00-69 and 1970-1999 for 70-99 (POSIX strptime's %y).  A
 *   time after the date (2025-01-03 10:15, 2025-01-03T10:15:00Z) is dropped.
 * - Amounts never pass through a double: the text is normalised to digits
 *   and one '.' and read by ledger_decimal2_parse.  The decimal mark is '.'
 *   unless the amount columns show a decimal comma (12,50 or 1.234,56) and
 *   no decimal point.  Digit groups may be separated by the other mark, a
 *   space (also no-break and thin spaces) or an apostrophe, and must then be
 *   groups of three: "1,234" is 1234.00 under a '.' mark, "12,50" is not an
 *   amount there.  A thousands ',' with a ',' delimiter can only come quoted
 *   ("1,234.56"); unquoted it would already be two fields.  More than two
 *   decimals is a row error unless the extra ones are zeros (12.500 is
 *   12.50, as ledger_decimal2_parse and the OFX reader take it).
 * - Signs: a leading '-' or '+', a trailing '-', parentheses, or a CR/DR
 *   suffix (DR is money out); two of them at once is a row error.  Before
 *   and after the number, currency symbols (every Unicode Sc character,
 *   A$ AU$ US$ NZ$ C$ CA$, the Arabic-letter symbols such as د.ا.), any
 *   three ASCII letters (an ISO code) and the marks that only steer the
 *   text's direction (LRM, RLM, ALM, embeddings, isolates, zero-width
 *   marks) are dropped.
 * - Money is integer cents, so an amount in a currency with three decimal
 *   places (JOD KWD BHD TND OMR IQD LYD, by code or symbol) cannot be
 *   held exactly: csv_parse refuses such a file whole, naming the line.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "csv_parts.h"
#include "text.h"

int csv_same_word(const char *s, size_t n, const char *w)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (w[i] == '\0' || ascii_lower((unsigned char)s[i]) != ascii_lower((unsigned char)w[i]))
            return 0;
    return w[n] == '\0';
}

/* ---- dates ---------------------------------------------------------------------- */

/* Pattern letters: D M day and month of 1 or 2 digits, d m of exactly 2,
 * Y a year of 2 or 4 digits, 4 a year of exactly 4, N a month's name,
 * _ a separator (spaces, or one of - / .), ' ' one or more spaces,
 * , a comma and/or spaces, o an optional '.' (Hungarian dates end with
 * one: 2024.03.05.); anything else stands for itself.  In order of
 * preference: see the top for why DD/MM comes before MM/DD. */
static const struct date_format formats[] = {
    {"YYYY-MM-DD", "4-M-D"},
    {"YYYY/MM/DD", "4/M/D"},
    {"YYYY.MM.DD", "4.M.Do"},
    {"DD/MM/YYYY", "D/M/Y"},
    {"MM/DD/YYYY", "M/D/Y"},
    {"DD-MM-YYYY", "D-M-Y"},
    {"MM-DD-YYYY", "M-D-Y"},
    {"DD.MM.YYYY", "D.M.Y"},
    {"D MMM YYYY", "D_N_Y"},
    {"MMM D, YYYY", "N D,Y"},
    {"YYYYMMDD", "4md"},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* Other spellings a client may send for the same formats. */
static const struct {
    const char *alias, *name;
} format_aliases[] = {
    {"DD/MM/YY", "DD/MM/YYYY"}, {"D/M/YYYY", "DD/MM/YYYY"}, {"D/M/YY", "DD/MM/YYYY"},
    {"MM/DD/YY", "MM/DD/YYYY"}, {"M/D/YYYY", "MM/DD/YYYY"}, {"M/D/YY", "MM/DD/YYYY"},
    {"DD-MM-YY", "DD-MM-YYYY"}, {"MM-DD-YY", "MM-DD-YYYY"}, {"DD.MM.YY", "DD.MM.YYYY"},
    {"D.M.YYYY", "DD.MM.YYYY"}, {"DD MMM YYYY", "D MMM YYYY"}, {"D MMM YY", "D MMM YYYY"},
    {"DD MMM YY", "D MMM YYYY"}, {"DD-MMM-YYYY", "D MMM YYYY"}, {"D-MMM-YYYY", "D MMM YYYY"},
    {"DD-MMM-YY", "D MMM YYYY"}, {"D-MMM-YY", "D MMM YYYY"}, {"DD/MMM/YYYY", "D MMM YYYY"},
    {"MMM DD, YYYY", "MMM D, YYYY"}, {"MMM D YYYY", "MMM D, YYYY"}, {"ISO", "YYYY-MM-DD"},
    {"ISO 8601", "YYYY-MM-DD"}, {"YYYY-M-D", "YYYY-MM-DD"}, {"YYYY.MM.DD.", "YYYY.MM.DD"},
};

static const char *const month_names[12] = {
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december"
};

/* A month's name at s: its 3-letter abbreviation, its whole name or "Sept",
 * in any case; its length and *month (1-12), or 0. */
static size_t month_name(const char *s, int *month)
{
    size_t n = 0;
    int i;

    while (ascii_alpha((unsigned char)s[n]))
        n++;
    if (n < 3)
        return 0;
    for (i = 0; i < 12; i++) {
        const char *mn = month_names[i];

        if (ascii_lower((unsigned char)s[0]) == mn[0] && ascii_lower((unsigned char)s[1]) == mn[1]
            && ascii_lower((unsigned char)s[2]) == mn[2]
            && (n == 3 || csv_same_word(s, n, mn) || (i == 8 && csv_same_word(s, n, "sept")))) {
            *month = i + 1;
            return n;
        }
    }
    return 0;
}

/* 1..max digits at *s into *v (exactly max when exact); moves *s on. */
static int digits(const char **s, int max, int exact, int *v)
{
    int k = 0;

    *v = 0;
    while (k < max && ascii_digit((unsigned char)**s)) {
        *v = *v * 10 + (**s - '0');
        (*s)++;
        k++;
    }
    return k > 0 && (!exact || k == max);
}

/* A time of day after a date, which is dropped: " 10:15", " 10:15:00",
 * "T10:15:00.000Z", " 3:05 PM", " 10:15:00+10:00". */
static int time_suffix(const char *s)
{
    int v;

    if (*s == '\0')
        return 1;
    if (*s == 'T')
        s++;
    else if (*s == ' ')
        while (*s == ' ')
            s++;
    else
        return 0;
    if (!digits(&s, 2, 0, &v) || v > 23 || *s++ != ':' || !digits(&s, 2, 1, &v) || v > 59)
        return 0;
    if (*s == ':' && (s++, !digits(&s, 2, 1, &v) || v > 60))
        return 0;
    if (*s == '.' && (s++, !digits(&s, 9, 0, &v)))
        return 0;
    while (*s == ' ')
        s++;
    if ((ascii_lower((unsigned char)s[0]) == 'a' || ascii_lower((unsigned char)s[0]) == 'p')
        && ascii_lower((unsigned char)s[1]) == 'm')
        s += 2;
    if (*s == 'Z')
        s++;
    else if (*s == '+' || *s == '-') {
        s++;
        if (!digits(&s, 2, 1, &v))
            return 0;
        if (*s == ':')
            s++;
        if (ascii_digit((unsigned char)*s) && !digits(&s, 2, 1, &v))
            return 0;
    }
    return *s == '\0';
}

/* Reads s with format f into out (YYYY-MM-DD): DT_OK, DT_NOMATCH when the
 * shape or a range (day 1-31, month 1-12, year 1900-9999) does not fit,
 * DT_NOTREAL for a day the month does not have. */
int csv_parse_date(const char *s, const struct date_format *f, char out[11])
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *pat;
    int y = -1, mo = -1, d = -1, v;
    size_t k;

    for (pat = f->pat; *pat; pat++) {
        switch (*pat) {
        case 'D': case 'M': case 'd': case 'm':
            if (!digits(&s, 2, *pat == 'd' || *pat == 'm', &v))
                return DT_NOMATCH;
            if (*pat == 'D' || *pat == 'd')
                d = v;
            else
                mo = v;
            break;
        case 'Y': {
            const char *at = s;

            if (!digits(&s, 4, 0, &v) || ascii_digit((unsigned char)*s)
                || (s - at != 2 && s - at != 4))
                return DT_NOMATCH;
            y = s - at == 2 ? (v < 70 ? 2000 + v : 1900 + v) : v;
            break;
        }
        case '4':
            if (!digits(&s, 4, 1, &y))
                return DT_NOMATCH;
            break;
        case 'N':
            if ((k = month_name(s, &mo)) == 0)
                return DT_NOMATCH;
            s += k;
            break;
        case '_':
            if (*s == '-' || *s == '/' || *s == '.')
                s++;
            else if (*s == ' ')
                while (*s == ' ')
                    s++;
            else
                return DT_NOMATCH;
            break;
        case ' ':
            if (*s != ' ')
                return DT_NOMATCH;
            while (*s == ' ')
                s++;
            break;
        case 'o':
            s += *s == '.';
            break;
        case ',':
            if (*s != ',' && *s != ' ')
                return DT_NOMATCH;
            if (*s == ',')
                s++;
            while (*s == ' ')
                s++;
            break;
        default:
            if (*s++ != *pat)
                return DT_NOMATCH;
            break;
        }
    }
    if (!time_suffix(s))
        return DT_NOMATCH;
    if (y < 1900 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31)
        return DT_NOMATCH;
    if (d > mdays[mo - 1] + (mo == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)))
        return DT_NOTREAL;
    snprintf(out, 11, "%04d-%02d-%02d", y, mo, d);
    return DT_OK;
}

const struct date_format *csv_format_named(const char *s, size_t n)
{
    size_t i, j;

    for (i = 0; i < NFORMATS; i++)
        if (csv_same_word(s, n, formats[i].name))
            return &formats[i];
    for (i = 0; i < sizeof format_aliases / sizeof format_aliases[0]; i++)
        if (csv_same_word(s, n, format_aliases[i].alias))
            for (j = 0; j < NFORMATS; j++)
                if (strcmp(formats[j].name, format_aliases[i].name) == 0)
                    return &formats[j];
    return NULL;
}

/* Whether s is a date in fmt, or in any format when fmt is NULL. */
int csv_is_date(const char *s, const struct date_format *fmt)
{
    char ymd[11];
    size_t i;

    if (fmt)
        return csv_parse_date(s, fmt, ymd) == DT_OK;
    for (i = 0; i < NFORMATS; i++)
        if (csv_parse_date(s, &formats[i], ymd) == DT_OK)
            return 1;
    return 0;
}

const struct date_format *csv_guess_format(const struct parser *ps, size_t from, int col)
{
    size_t reads[NFORMATS], total = 0, i, f, best = 0;
    char ymd[11];

    memset(reads, 0, sizeof reads);
    for (i = from; i < ps->nrecs; i++) {
        const char *s = csv_cell(ps, &ps->recs[i], col);

        if (s == NULL || *s == '\0')
            continue;
        total++;
        for (f = 0; f < NFORMATS; f++)
            if (csv_parse_date(s, &formats[f], ymd) != DT_NOMATCH)
                reads[f]++;
    }
    for (f = 0; f < NFORMATS; f++) {
        if (total > 0 && reads[f] == total)
            return &formats[f];
        if (reads[f] > reads[best])
            best = f;
    }
    return reads[best] > 0 ? &formats[best] : NULL;
}

/* ---- amounts ---------------------------------------------------------------------- */

const char *const csv_amount_why[] = {
    "", "is not an amount", "has more than 2 decimal places", "is out of range",
    "has more than one sign",
    ("is in a currency with three decimal places: amounts are kept in cents, which cannot "
     "hold its third decimal")
};

/* Symbols written with Latin letters, longest first, so "A$" is not read
 * as "A" then "$" (the "$" alone is a currency symbol, below). */
static const char *const symbols[] = { "AU$", "US$", "NZ$", "CA$", "A$", "C$" };

/* Symbols written with Arabic letters (no code point of their own), and
 * the ISO code each stands for: read with an optional '.' after them. */
static const struct {
    const char *sym, *code;
} arabic_symbols[] = {
    {"\xd8\xaf.\xd8\xa7", "JOD"}, {"\xd8\xaf.\xd9\x83", "KWD"}, {"\xd8\xaf.\xd8\xa8", "BHD"},
    {"\xd8\xa8.\xd8\xaf", "BHD"}, {"\xd8\xaf.\xd8\xaa", "TND"}, {"\xd8\xb1.\xd8\xb9", "OMR"},
    {"\xd8\xb9.\xd8\xaf", "IQD"}, {"\xd8\xaf.\xd8\xb9", "IQD"}, {"\xd9\x84.\xd8\xaf", "LYD"},
    {"\xd8\xaf.\xd9\x84", "LYD"}, {"\xd8\xb1.\xd8\xb3", "SAR"}, {"\xd8\xaf.\xd8\xa5", "AED"},
    {"\xd8\xb1.\xd9\x82", "QAR"}, {"\xd8\xac.\xd9\x85", "EGP"}, {"\xd8\xaf.\xd9\x85", "MAD"},
    {"\xd8\xaf.\xd8\xac", "DZD"}, {"\xd9\x84.\xd9\x84", "LBP"}, {"\xd9\x84.\xd8\xb3", "SYP"},
};

/* The currencies with three decimal places (ISO 4217 minor unit 3). */
static const char *const three_decimals[] = { "JOD", "KWD", "BHD", "TND", "OMR", "IQD", "LYD" };

/* A space inside or around a number: ' ', a tab, U+00A0 no-break space,
 * U+2009 thin space or U+202F narrow no-break space; its length or 0. */
static size_t space_at(const char *p, const char *e)
{
    if (p < e && (*p == ' ' || *p == '\t'))
        return 1;
    if (e - p >= 2 && memcmp(p, "\xc2\xa0", 2) == 0)
        return 2;
    if (e - p >= 3 && (memcmp(p, "\xe2\x80\x89", 3) == 0 || memcmp(p, "\xe2\x80\xaf", 3) == 0))
        return 3;
    return 0;
}

static size_t space_before(const char *b, const char *e)
{
    if (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        return 1;
    if (e - b >= 2 && memcmp(e - 2, "\xc2\xa0", 2) == 0)
        return 2;
    if (e - b >= 3
        && (memcmp(e - 3, "\xe2\x80\x89", 3) == 0 || memcmp(e - 3, "\xe2\x80\xaf", 3) == 0))
        return 3;
    return 0;
}

/* The code point of the UTF-8 character at p[0..k), k 2 to 4. */
static unsigned code_point(const unsigned char *p, size_t k)
{
    unsigned c = p[0] & (0x7F >> k);
    size_t i;

    for (i = 1; i < k; i++)
        c = c << 6 | (p[i] & 0x3F);
    return c;
}

/* Whether c is a currency symbol (Unicode category Sc) or a mark that
 * only steers the text's direction or joins letters (Cf: LRM, RLM, ALM,
 * the embeddings and isolates, zero-width spaces, a BOM): both are dropped
 * around a number. */
static int symbol_or_mark(unsigned c)
{
    static const unsigned ranges[][2] = {
        {0x24, 0x24}, {0xA2, 0xA5}, {0x58F, 0x58F}, {0x60B, 0x60B}, {0x61C, 0x61C},
        {0x7FE, 0x7FF}, {0x9F2, 0x9F3}, {0x9FB, 0x9FB}, {0xAF1, 0xAF1}, {0xBF9, 0xBF9},
        {0xE3F, 0xE3F}, {0x17DB, 0x17DB}, {0x200B, 0x200F}, {0x202A, 0x202E},
        {0x2066, 0x2069}, {0x20A0, 0x20C0}, {0xA838, 0xA838}, {0xFDFC, 0xFDFC},
        {0xFE69, 0xFE69}, {0xFEFF, 0xFEFF}, {0xFF04, 0xFF04}, {0xFFE0, 0xFFE1},
        {0xFFE5, 0xFFE6}, {0x11FDD, 0x11FE0}, {0x1E2FF, 0x1E2FF}, {0x1ECB0, 0x1ECB0},
    };
    size_t i;

    for (i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1])
            return 1;
    return 0;
}

/* A currency (a symbol, a three-letter code, or a mark) starting at p; its
 * length or 0, and its ISO code in code[] when it names one. */
static size_t currency_at(const char *p, const char *e, char code[4])
{
    const unsigned char *u = (const unsigned char *)p;
    size_t i, n;

    for (i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        n = strlen(symbols[i]);
        if ((size_t)(e - p) >= n && memcmp(p, symbols[i], n) == 0)
            return n;
    }
    for (i = 0; i < sizeof arabic_symbols / sizeof arabic_symbols[0]; i++) {
        n = strlen(arabic_symbols[i].sym);
        if ((size_t)(e - p) >= n && memcmp(p, arabic_symbols[i].sym, n) == 0) {
            memcpy(code, arabic_symbols[i].code, 4);
            return n + ((size_t)(e - p) > n && p[n] == '.');
        }
    }
    if (e - p >= 3 && ascii_alpha(u[0]) && ascii_alpha(u[1]) && ascii_alpha(u[2])
        && (e - p == 3 || !ascii_alpha(u[3]))) {
        for (i = 0; i < 3; i++)
            code[i] = (char)(u[i] & ~0x20);
        code[3] = '\0';
        return 3;
    }
    if (*u < 0x80)
        return *u == '$';
    n = *u >= 0xF0 ? 4 : *u >= 0xE0 ? 3 : *u >= 0xC0 ? 2 : 0;
    return n && (size_t)(e - p) >= n && symbol_or_mark(code_point(u, n)) ? n : 0;
}

/* The same ending at e. */
static size_t currency_before(const char *b, const char *e, char code[4])
{
    const unsigned char *u;
    size_t i, n, dot = e > b && e[-1] == '.';

    for (i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        n = strlen(symbols[i]);
        if ((size_t)(e - b) >= n && memcmp(e - n, symbols[i], n) == 0)
            return n;
    }
    for (i = 0; i < sizeof arabic_symbols / sizeof arabic_symbols[0]; i++) {
        n = strlen(arabic_symbols[i].sym);
        if ((size_t)(e - dot - b) >= n && memcmp(e - dot - n, arabic_symbols[i].sym, n) == 0) {
            memcpy(code, arabic_symbols[i].code, 4);
            return n + dot;
        }
    }
    u = (const unsigned char *)e;
    if (e - b >= 3 && ascii_alpha(u[-1]) && ascii_alpha(u[-2]) && ascii_alpha(u[-3])
        && (e - b == 3 || !ascii_alpha(u[-4]))) {
        for (i = 0; i < 3; i++)
            code[i] = (char)(e[(ptrdiff_t)i - 3] & ~0x20);
        code[3] = '\0';
        return 3;
    }
    if (e == b)
        return 0;
    if (u[-1] < 0x80)
        return u[-1] == '$';
    for (n = 1; n < 4 && (size_t)n < (size_t)(e - b) && (u[-(long)n] & 0xC0) == 0x80; n++)
        ;
    return (u[-(long)n] & 0xC0) == 0xC0 && symbol_or_mark(code_point(u - n, n)) ? n : 0;
}

/* Reads an amount as bank exports write it (see the top) with the decimal
 * mark `mark` into signed cents. */
int csv_parse_money(const char *s, char mark, int64_t *cents, char code_out[4])
{
    const char *b = s, *e = s + strlen(s), *p;
    int minus = 0, plus = 0, open = 0, close = 0, crdr = 0, dr = 0, first_group = -1;
    size_t k, glen = 0, nint = 0, nfrac = 0, i, o = 0;
    char norm[64], frac[32], group = 0, code[4] = "";
    int64_t v;

    for (;;) {   /* what may come before the number */
        if ((k = space_at(b, e)) != 0)
            b += k;
        else if (b < e && *b == '(')
            open++, b++;
        else if (b < e && *b == '-')
            minus++, b++;
        else if (e - b >= 3 && memcmp(b, "\xe2\x88\x92", 3) == 0)
            minus++, b += 3;   /* U+2212 MINUS SIGN */
        else if (b < e && *b == '+')
            plus++, b++;
        else if ((k = currency_at(b, e, code)) != 0)
            b += k;
        else
            break;
    }
    for (;;) {   /* and after it */
        if ((k = space_before(b, e)) != 0)
            e -= k;
        else if (e > b && e[-1] == ')')
            close++, e--;
        else if (e > b && e[-1] == '-')
            minus++, e--;
        else if (e - b >= 2 && ascii_lower((unsigned char)e[-1]) == 'r'
                 && (ascii_lower((unsigned char)e[-2]) == 'c' || ascii_lower((unsigned char)e[-2]) == 'd')
                 && (e - b == 2 || !ascii_alpha((unsigned char)e[-3]))) {
            crdr++;
            dr = ascii_lower((unsigned char)e[-2]) == 'd';
            e -= 2;
        } else if ((k = currency_before(b, e, code)) != 0)
            e -= k;
        else
            break;
    }
    if (open != close || open > 1)
        return AMT_NAN;
    for (i = 0; i < sizeof three_decimals / sizeof three_decimals[0]; i++)
        if (strcmp(code, three_decimals[i]) == 0)
            return AMT_THREE;
    if (minus + plus + open + crdr > 1)
        return AMT_SIGNS;
    /* digits in groups of three after the first, then the mark and decimals */
    for (p = b; p < e;) {
        char sep;

        if (ascii_digit((unsigned char)*p)) {
            if (nint == 0 && *p == '0') {
                p++, glen++;   /* leading zeros carry nothing */
                continue;
            }
            if (o == 40)
                return AMT_RANGE;
            norm[o++] = *p++;
            nint++, glen++;
            continue;
        }
        if (*p == mark)
            break;
        if ((k = space_at(p, e)) != 0)
            sep = ' ';
        else if (*p == '\'' || *p == (mark == '.' ? ',' : '.'))
            sep = *p, k = 1;
        else
            return AMT_NAN;
        if (glen == 0 || (group && group != sep) || (first_group < 0 ? glen > 3 : glen != 3))
            return AMT_NAN;
        if (first_group < 0)
            first_group = (int)glen;
        group = sep;
        glen = 0;
        p += k;
    }
    if (group && glen != 3)
        return AMT_NAN;
    if (p < e && *p == mark) {
        for (p++; p < e && ascii_digit((unsigned char)*p); p++) {
            if (nfrac < sizeof frac)
                frac[nfrac] = *p;
            else if (*p != '0')
                return AMT_DECIMALS;
            nfrac++;
        }
    }
    if (p != e || (glen == 0 && nfrac == 0))
        return AMT_NAN;
    for (i = 2; i < nfrac && i < sizeof frac; i++)
        if (frac[i] != '0')
            return AMT_DECIMALS;
    if (o == 0)
        norm[o++] = '0';
    if (nfrac) {
        norm[o++] = '.';
        for (i = 0; i < nfrac && i < 2; i++)
            norm[o++] = frac[i];
    }
    norm[o] = '\0';
    if (ledger_decimal2_parse(norm, &v) != LEDGER_OK)
        return AMT_RANGE;
    *cents = minus || open || dr ? -v : v;
    if (code_out)
        memcpy(code_out, code, 4);
    return AMT_OK;
}

/* Which decimal mark an amount shows: ',' for 12,50 or 1.234,56, '.' for
 * 12.50 or 1,234.56, 0 when it cannot tell (1,234 or 1234). */
char csv_decimal_evidence(const char *s)
{
    const char *p, *last = NULL;
    int points = 0, commas = 0;
    size_t n;

    for (p = s; *p; p++)
        if ((*p == '.' || *p == ',') && ascii_digit((unsigned char)p[1])) {
            last = p;
            if (*p == '.')
                points++;
            else
                commas++;
        }
    if (last == NULL)
        return 0;
    for (n = 0; ascii_digit((unsigned char)last[1 + n]); n++)
        ;
    if (points && commas)
        return *last;   /* the last one is the decimal mark */
    if (n != 3)
        return *last;   /* not a group of three: a decimal mark */
    if (points + commas > 1)
        return *last == '.' ? ',' : '.';   /* 1.234.567: groups */
    return 0;
}
