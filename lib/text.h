/* Characters: UTF-8 and Windows-1252, shared by the JSON, OFX and CSV
 * readers (text.c).  Private to libledger. */
#ifndef LEDGER_TEXT_H
#define LEDGER_TEXT_H

#include <stddef.h>

/* ASCII character classes, as the readers of bank files need them: the
 * C library's isdigit and isspace follow the locale, and a file means the
 * same whatever locale the service runs in. */
static inline int ascii_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static inline int ascii_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Space, tab, CR and LF: what separates values in CSV and OFX. */
static inline int ascii_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static inline unsigned char ascii_upper(unsigned char c)
{
    return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
size_t utf8_len(const unsigned char *p, const unsigned char *end);
/* Writes code point cp as UTF-8 at o (room for 4 bytes); returns its length. */
size_t put_utf8(unsigned char *o, unsigned cp);
/* The character sets a file's bytes are read in (charset.c). */
enum {
    CHARSET_UTF8, CHARSET_WINDOWS_1252, CHARSET_WINDOWS_1250, CHARSET_WINDOWS_1251,
    CHARSET_ISO_8859_2, CHARSET_ISO_8859_15, CHARSET_COUNT
};
/* The names a charset is known by, for the message that lists them. */
#define CHARSET_NAMES \
    "utf-8, windows-1252 (iso-8859-1), windows-1250, windows-1251, iso-8859-2 or iso-8859-15"
/* The charset label[0..n) names (ASCII case ignored; the WHATWG labels),
 * or -1 for none read here. */
int charset_find(const char *label, size_t n);
/* The charset's canonical name ("windows-1250"). */
const char *charset_name(int charset);
/* The Unicode code point byte b stands for in a single-byte charset: b
 * itself below 0x80, 0 for a byte the charset leaves undefined (and for
 * any byte from 0x80 in CHARSET_UTF8, which is no single-byte set). */
unsigned charset_char(int charset, unsigned char b);

/* The lower case of code point cp, for the scripts with case that bank
 * exports use (Latin, Greek, Cyrillic, Armenian, Georgian); always one of
 * the same UTF-8 length.  utf8_lower lowers a NUL-terminated UTF-8 string
 * in place, leaving bytes that are not UTF-8 as they are. */
unsigned unicode_lower(unsigned cp);
void utf8_lower(char *s);

/* Whether term (m bytes, lower case) is in text (n bytes), A-Z in text
 * compared as a-z and every other byte as it is: what LIKE '%term%'
 * answers for a term without wildcards, without LIKE's pattern walk. */
int text_contains(const char *text, size_t n, const char *term, size_t m);

/* What the character at s (a UTF-8 sequence; *len set to its length, 1
 * for a byte that starts none) is to a name: 1 a space (Unicode
 * White_Space, or a C1 control), 2 a character with no look of its own
 * (zero-width, directional marks, the byte order mark...), 0 a character
 * of the name. */
int unicode_kind(const unsigned char *s, size_t *len);
/* Whether s holds nothing to see: only ASCII spaces and controls and the
 * characters unicode_kind calls 1 or 2. */
int text_blank(const char *s);

#endif
