/*
 * CSV bank exports.
 *
 * A bank's "CSV" is whatever its export code writes, so the reader follows
 * RFC 4180 where a file does and guesses where it is silent: the delimiter,
 * whether there is a header, the date format, the decimal mark.  Each guess
 * is reported in the result so the client can show it and send it back
 * corrected.
 *
 * The file is read in passes, each linear: the bytes are checked and, if
 * need be, converted to UTF-8; the delimiter is guessed from the first
 * records; every record is split into fields in one arena; then the header,
 * the date format and the decimal mark are decided from the columns, and the
 * rows are built.  Problems of one row (a bad date, a bad amount, missing
 * columns) go into that row's error and the row is kept, so the user sees
 * and fixes them in the preview; only a file that cannot be read as CSV, or
 * a mapping that does not fit it, fails the whole call.
 *
 * Choices where files and the RFC leave room:
 * - Characters: a UTF-8 byte order mark is dropped.  A file that is valid
 *   UTF-8 is read as UTF-8; any other is read as Windows-1252 (the code page
 *   of most bank exports made on Windows, and a superset of ISO-8859-1's
 *   printable characters) and converted, the whole file at once, since
 *   Windows-1252 text with accents is practically never valid UTF-8.  The
 *   five bytes Windows-1252 leaves undefined become U+FFFD.  A file that
 *   starts with a UTF-8 byte order mark says what it is, so invalid UTF-8
 *   after one is a 400 rather than a guess.  UTF-16 and control characters
 *   other than tab, CR and LF (a spreadsheet, a PDF) are a 400.
 * - Quoting: a '"' opens a quoted field only at the start of a field
 *   (spaces before it are dropped, as "a, "b"" writers expect); elsewhere it
 *   is text (5" pipe).  Inside quotes a doubled '"' is one, and delimiters
 *   and line breaks are text.  Text after a closing quote is kept as text.
 *   A quoted field still open at the end of the file is a 400 naming the
 *   line the quote opened on.
 * - Lines end with CRLF, LF or a lone CR (old Mac exports).  A record whose
 *   fields are all blank (an empty line, ",,,") is skipped.  Every field is
 *   trimmed of white space; line breaks and tabs inside a description or a
 *   header name become spaces.
 * - The delimiter, when not given, is the one of , ; TAB | whose count
 *   outside quotes is the same non-zero number on each of the first 20
 *   records (most fields wins a tie, so decimal commas in a ';' file do not
 *   win; at as many fields the one splitting off more fields that are only
 *   a number or a date, so neither a ',' in every description of a ';'
 *   file nor a ';' in every one of a ',' file wins, and then the rarer in
 *   text: TAB, |, ;, ,); failing that, the one the most records agree on.
 *   A file with none of them is "not a CSV file".
 * - The header, when not given: a mapping by name implies one.  With
 *   indexes, the first record is a header when its date and amount columns
 *   both do not parse but the second record's do (or there is no second).
 *   With names, the header is the first of the file's first records that
 *   holds every name: some banks (DKB, ING-DiBa, Bank of America) write
 *   account details or a summary above it, and the lines before it are
 *   not rows.  The header's line is reported (header_line), so a client
 *   can show where it was found.
 * - Lines above the table: the mapping's skip_lines (0 to 1000) first lines
 *   of the file are not read at all, neither as header nor as rows, and the
 *   delimiter is guessed from the lines after them.  They are counted as
 *   the rows' line numbers count lines (LF, CRLF or a lone CR each end
 *   one; a quoted field over two lines is two), but quotes in them are not
 *   looked at, so they need not be CSV (a bank's note with a lone '"').
 *   This is how a client that maps by index, and so cannot have the header
 *   found by its names, says where the table starts; with names the header
 *   is still looked for, from the line after the skipped ones.  Rows keep
 *   their line numbers in the file.  Skipping every line that holds data
 *   (more lines than the file has, or only blank ones after them) is a 400
 *   naming mapping.skip_lines rather than an empty preview: the mapping,
 *   not the file, is wrong.
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
 *   suffix (DR is money out); two of them at once is a row error.  Currency
 *   symbols ($ A$ AU$ US$ NZ$ C$ CA$ € £ ¥) and a few ISO codes (AUD USD ...)
 *   before or after the number are dropped.
 * - Debit and credit columns: the column decides the direction, so a value
 *   there is read as a magnitude whatever sign it carries (banks write debits
 *   as -12.50 as often as 12.50).  Both empty is a row error; a zero in one
 *   beside an amount in the other is taken as empty; two non-zero values is a
 *   row error.  negate flips the result in either layout.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

/* The records the header may be found among (see the top). */
#define HEADER_SEARCH 30
#include "text.h"

/* How many records the delimiter guess looks at. */
#define GUESS_RECORDS 20

struct field {
    size_t off, len;          /* into the arena; the text is NUL-terminated there */
};

struct record {
    int line;                 /* of its first byte */
    unsigned nfields;
    size_t first;             /* its first field in fields[] */
};

struct parser {
    const unsigned char *t;   /* the text, UTF-8, without a BOM */
    size_t n;
    size_t start;             /* where the table starts: after the lines skipped */
    int start_line;           /* the line it starts on, 1-based */
    unsigned char *utf8;      /* owned: the text converted from Windows-1252 */
    int cp1252;
    unsigned char delim;
    char *arena;              /* every field, unquoted, trimmed, NUL-terminated */
    struct field *fields;
    size_t nfields, fields_cap;
    struct record *recs;
    size_t nrecs, recs_cap;
    ledger_error *err;
};

/* The mapped columns. */
enum { C_DATE, C_DESC, C_AMOUNT, C_DEBIT, C_CREDIT, C_N };

static const char *const col_field[C_N] = {
    "mapping.date", "mapping.description", "mapping.amount", "mapping.debit", "mapping.credit"
};

struct colspec {
    const char *s;            /* trimmed, s[0..n); NULL when absent */
    size_t n;
    int is_index;             /* digits only: an index, unless a name (see resolve) */
    int number;               /* given as a number: an index, never a name */
    long index;
    int col;                  /* resolved column, -1 when absent */
};


static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether s[0..n) equals the NUL-terminated w, ignoring ASCII case. */
static int same_word(const char *s, size_t n, const char *w)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (w[i] == '\0' || lower((unsigned char)s[i]) != lower((unsigned char)w[i]))
            return 0;
    return w[n] == '\0';
}

/* ---- errors ---------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *ps, int line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        return ledger_error_set(ps->err, 400, "invalid_field", "csv", "line %d: %s", line, msg);
    return ledger_error_set(ps->err, 400, "invalid_field", "csv", "%s", msg);
}

static int oom(ledger_error *err)
{
    return ledger_error_set(err, 500, "internal", NULL, "out of memory");
}


/* Text for a message: at most 40 bytes, cut at a character boundary with
 * "..." after it, control characters as spaces and bytes that are not UTF-8
 * (only a caller's mapping can hold them) as '?', so a message stays valid
 * UTF-8 and short. */
static const char *snip(const char *s, size_t n, char buf[48])
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t o = 0, k;

    while (p < end) {
        k = utf8_len(p, end);
        if (k == 0) {
            k = 1;
            if (o + 1 > 40)
                break;
            buf[o++] = '?';
        } else {
            if (o + k > 40)
                break;
            if (k == 1)
                buf[o++] = *p < 0x20 || *p == 0x7F ? ' ' : (char)*p;
            else
                memcpy(buf + o, p, k), o += k;
        }
        p += k;
    }
    if (p < end) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* How much of s[0..n) is whole UTF-8 characters, for text cut at n. */
static size_t utf8_whole(const char *s, size_t n)
{
    size_t k = n, need;
    unsigned char lead;

    while (k > 0 && n - k < 3 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
        k--;
    if (k == 0)
        return 0;
    lead = (unsigned char)s[k - 1];
    need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return n - (k - 1) < need ? k - 1 : n;
}

/* Appends a reason to the row's error, "; " between reasons, cut at a
 * character boundary if the buffer is full. */
__attribute__((format(printf, 2, 3)))
static void row_error(struct csv_row *r, const char *fmt, ...)
{
    char msg[256];
    size_t have = strlen(r->error), room, n;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (have) {
        if (have + 3 >= sizeof r->error)
            return;
        memcpy(r->error + have, "; ", 2);
        have += 2;
    }
    room = sizeof r->error - 1 - have;
    n = strlen(msg);
    n = utf8_whole(msg, n < room ? n : room);   /* vsnprintf may have cut it too */
    memcpy(r->error + have, msg, n);
    r->error[have + n] = '\0';
}

/* ---- the bytes --------------------------------------------------------------- */

/* Checks the bytes and settles the character set: ps->t, ps->n is then
 * UTF-8 text without a BOM. */
static int decode(struct parser *ps, const unsigned char *b, size_t len)
{
    size_t i, k, o;
    int line = 1, bad_line = 0, bom = 0;
    const unsigned char *q;

    if (len >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF)))
        return fail(ps, 1, "UTF-16 files are not supported (save it as UTF-8 or Windows-1252 CSV)");
    if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        b += 3;
        len -= 3;
        bom = 1;
    }
    while (len > 0 && b[len - 1] == 0x1A)
        len--;   /* DOS end-of-file marks */
    for (i = 0; i < len;) {
        unsigned char c = b[i];

        if (c < 0x80) {
            if (c == '\n' || (c == '\r' && (i + 1 >= len || b[i + 1] != '\n')))
                line++;
            else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
                return fail(ps, line, "binary data (byte 0x%02X): not a CSV text file", c);
            i++;
            continue;
        }
        if (bad_line == 0 && (k = utf8_len(b + i, b + len)) != 0) {
            i += k;
            continue;
        }
        if (bad_line == 0)
            bad_line = line;
        i++;
    }
    if (bad_line && bom)
        return fail(ps, bad_line, "invalid UTF-8, though the file starts with a UTF-8 "
                    "byte order mark");
    ps->t = b;
    ps->n = len;
    if (bad_line) {
        if (len > (SIZE_MAX - 1) / 3)
            return oom(ps->err);
        ps->utf8 = malloc(len * 3 + 1);
        if (ps->utf8 == NULL)
            return oom(ps->err);
        for (i = 0, o = 0; i < len; i++) {
            unsigned cp = b[i];

            if ((cp = cp1252_char((unsigned char)cp)) == 0)
                cp = 0xFFFD;
            o += put_utf8(ps->utf8 + o, cp);
        }
        ps->t = ps->utf8;
        ps->n = o;
        ps->cp1252 = 1;
    }
    for (q = ps->t, line = 1; q < ps->t + ps->n && is_ws(*q); q++)
        if (*q == '\n' || (*q == '\r' && (q + 1 >= ps->t + ps->n || q[1] != '\n')))
            line++;
    if (q == ps->t + ps->n)
        return fail(ps, 0, "the file is empty");
    /* Files that are plainly something else get a message that says so. */
    if (*q == '<')
        return fail(ps, line, "not a CSV file: it starts with '<' (HTML, XML or OFX?)");
    if (ps->t + ps->n - q >= 9 && same_word((const char *)q, 9, "OFXHEADER"))
        return fail(ps, line, "not a CSV file but OFX: import it as a statement");
    return LEDGER_OK;
}

/* ---- records ------------------------------------------------------------------- */

/* Moves the start of the table past the first `want` lines (see the top):
 * a line ends at LF, CRLF or a lone CR, as the tokenizer counts them, and
 * quotes are not looked at. */
static int skip_lines(struct parser *ps, int want)
{
    const unsigned char *t = ps->t;
    size_t p = 0, n = ps->n;
    int done = 0;

    while (done < want && p < n) {
        while (p < n && t[p] != '\n' && t[p] != '\r')
            p++;
        if (p < n && t[p] == '\r' && p + 1 < n && t[p + 1] == '\n')
            p++;
        if (p < n)
            p++;
        done++;
    }
    ps->start = p;
    ps->start_line = done + 1;
    if (done < want)
        return ledger_error_set(ps->err, 400, "invalid_field", "mapping.skip_lines",
                                "mapping.skip_lines is %d, but the file has only %d line%s",
                                want, done, done == 1 ? "" : "s");
    /* what a record of nothing but delimiters and white space is: blank */
    while (p < n && (is_ws(t[p]) || t[p] == ',' || t[p] == ';' || t[p] == '|'))
        p++;
    if (want > 0 && p == n)
        return ledger_error_set(ps->err, 400, "invalid_field", "mapping.skip_lines",
                                "mapping.skip_lines is %d, but the file has nothing but blank "
                                "lines after line %d", want, want);
    return LEDGER_OK;
}

/* Whether f[0..n) (white space around it allowed) is only an amount or a
 * date, as a bank writes them: "-1,234.56", "(12.50)", "$4.50", "12,50-"
 * (a sign, a bracket or a dollar sign, digits with one decimal part of one
 * or two digits after a point or comma, grouping by , . ' or space), or
 * "2024-01-05", "05/01/2024", "5.1.24".  A bare whole number is neither: a
 * reference ("BPAY; 12345; 67890") would look like one.  For settling a tie
 * between delimiters (guess_delimiter). */
static int typed_field(const unsigned char *f, size_t n)
{
    size_t i = 0, digits = 0, seps = 0, tail = 0;
    int sep = 0, date = 1;

    while (n > 0 && (f[n - 1] == ' ' || f[n - 1] == '\t'))
        n--;
    while (i < n && (f[i] == ' ' || f[i] == '\t'))
        i++;
    if (i < n && (f[i] == '-' || f[i] == '+' || f[i] == '('))
        i++, date = 0;
    if (i < n && f[i] == '$')
        i++, date = 0;
    if (n > i && (f[n - 1] == '-' || f[n - 1] == ')'))
        n--, date = 0;
    if (i >= n || f[i] < '0' || f[i] > '9')
        return 0;
    for (; i < n; i++) {
        if (f[i] >= '0' && f[i] <= '9') {
            digits++;
            tail++;
        } else if (strchr(".,/-' ", f[i]) && tail > 0) {
            /* a date's separators are all one character */
            if (sep && f[i] != sep)
                date = 0;
            sep = f[i];
            seps++;
            tail = 0;
        } else {
            return 0;
        }
    }
    if (tail == 0 || seps == 0)
        return 0;  /* ends in a separator, or a bare whole number */
    if (date && seps == 2 && (sep == '-' || sep == '/' || sep == '.') && digits >= 4 && digits <= 8)
        return 1;
    /* an amount: its last part is its cents (one or two digits) or a
     * group of three after a thousands separator */
    return (f[n - 1 - tail] == '.' || f[n - 1 - tail] == ',') && tail <= 3;
}

/* Scans the record at p as the tokenizer would with delimiter d: returns the
 * offset after it, with *count the delimiters outside quotes and *blank
 * whether the record holds nothing but white space and delimiters of any
 * kind (",,," is blank whichever delimiter is tried), and *typed the
 * fields that hold only a number or a date (settling a tie between
 * delimiters: a ',' in every description of a ';' file, or a ';' in
 * every one of a ',' file). */
static size_t scan_record(const unsigned char *t, size_t n, size_t p, unsigned char d,
                          unsigned *count, int *blank, unsigned *typed)
{
    *count = 0;
    *blank = 1;
    *typed = 0;
    for (;;) {
        size_t q = p, from = p, to = 0;
        int quoted = 0;

        while (q < n && t[q] == ' ')
            q++;
        if (q < n && t[q] == '"') {
            *blank = 0;
            quoted = 1;
            from = q + 1;
            for (p = q + 1; p < n; p++)
                if (t[p] == '"') {
                    if (p + 1 < n && t[p + 1] == '"')
                        p++;
                    else
                        break;
                }
            to = p;
            if (p < n)
                p++;
        }
        while (p < n && t[p] != d && t[p] != '\n' && t[p] != '\r') {
            if (!is_ws(t[p]) && t[p] != ',' && t[p] != ';' && t[p] != '|')
                *blank = 0;
            p++;
        }
        *typed += typed_field(t + from, (quoted ? to : p) - from);
        if (p < n && t[p] == d) {
            ++*count;
            p++;
            continue;
        }
        if (p < n && t[p] == '\r' && p + 1 < n && t[p + 1] == '\n')
            p++;
        return p < n ? p + 1 : p;
    }
}

static int guess_delimiter(struct parser *ps)
{
    /* In the order a tie goes to the later: the rarer in a bank's text. */
    static const unsigned char cands[4] = {',', ';', '|', '\t'};
    unsigned counts[4][GUESS_RECORDS], typed[4] = { 0 };
    int k[4], c, i, j, best = -1;
    unsigned best_count = 0, best_agree = 0;

    memset(counts, 0, sizeof counts);
    for (c = 0; c < 4; c++) {
        size_t p = ps->start;

        k[c] = 0;
        while (p < ps->n && k[c] < GUESS_RECORDS) {
            unsigned count, n_typed;
            int blank;

            p = scan_record(ps->t, ps->n, p, cands[c], &count, &blank, &n_typed);
            if (!blank) {
                counts[c][k[c]++] = count;
                typed[c] += n_typed;
            }
        }
    }
    if (k[0] == 0)   /* nothing but white space and delimiters */
        return fail(ps, 0, "the file is empty");
    /* the same non-zero count on every record, the most fields first */
    for (c = 0; c < 4; c++) {
        int same = k[c] > 0 && counts[c][0] > 0;

        for (i = 1; same && i < k[c]; i++)
            same = counts[c][i] == counts[c][0];
        /* At as many fields, the one whose fields hold more numbers and
         * dates, then the rarer in text. */
        if (same && (counts[c][0] > best_count
                     || (counts[c][0] == best_count && typed[c] >= typed[best]))) {
            best = c;
            best_count = counts[c][0];
        }
    }
    /* else the count most records agree on */
    if (best < 0)
        for (c = 0; c < 4; c++)
            for (i = 0; i < k[c]; i++) {
                unsigned agree = 0;

                if (counts[c][i] == 0)
                    continue;
                for (j = 0; j < k[c]; j++)
                    agree += counts[c][j] == counts[c][i];
                if (agree > best_agree || (agree == best_agree && counts[c][i] >= best_count)) {
                    best = c;
                    best_agree = agree;
                    best_count = counts[c][i];
                }
            }
    if (best < 0)
        return fail(ps, 1, "not a CSV file: no comma, semicolon, tab or '|' separates "
                    "fields in the first lines");
    ps->delim = cands[best];
    return LEDGER_OK;
}

static int push_field(struct parser *ps, size_t off, size_t len)
{
    if (ps->nfields == ps->fields_cap) {
        size_t cap = ps->fields_cap ? ps->fields_cap * 2 : 1024;
        void *grown = realloc(ps->fields, cap * sizeof *ps->fields);

        if (grown == NULL)
            return oom(ps->err);
        ps->fields = grown;
        ps->fields_cap = cap;
    }
    ps->fields[ps->nfields].off = off;
    ps->fields[ps->nfields].len = len;
    ps->nfields++;
    return LEDGER_OK;
}

static int push_record(struct parser *ps, int line, size_t first, unsigned nfields)
{
    if (ps->nrecs == ps->recs_cap) {
        size_t cap = ps->recs_cap ? ps->recs_cap * 2 : 256;
        void *grown = realloc(ps->recs, cap * sizeof *ps->recs);

        if (grown == NULL)
            return oom(ps->err);
        ps->recs = grown;
        ps->recs_cap = cap;
    }
    ps->recs[ps->nrecs].line = line;
    ps->recs[ps->nrecs].first = first;
    ps->recs[ps->nrecs].nfields = nfields;
    ps->nrecs++;
    return LEDGER_OK;
}

/* Trims the field the arena holds at [off, off + len) of white space and
 * no-break spaces, in place; NUL-terminates it. */
static void trim_field(char *a, size_t *off, size_t *len)
{
    size_t s = *off, e = *off + *len;

    for (;;) {
        if (s < e && is_ws((unsigned char)a[s]))
            s++;
        else if (e - s >= 2 && (unsigned char)a[s] == 0xC2 && (unsigned char)a[s + 1] == 0xA0)
            s += 2;
        else
            break;
    }
    for (;;) {
        if (e > s && is_ws((unsigned char)a[e - 1]))
            e--;
        else if (e - s >= 2 && (unsigned char)a[e - 2] == 0xC2 && (unsigned char)a[e - 1] == 0xA0)
            e -= 2;
        else
            break;
    }
    a[e] = '\0';
    *off = s;
    *len = e - s;
}

/* Splits the whole text into records of fields.  The arena needs no more
 * than n + 1 bytes: a field's text is never longer than its bytes in the
 * file, and the delimiter or line break that ends it (or, for the last
 * field of the file, the one extra byte) holds its NUL. */
static int tokenize(struct parser *ps)
{
    const unsigned char *t = ps->t, d = ps->delim;
    size_t n = ps->n, p = ps->start, o = 0;
    int line = ps->start_line;
    char *a;

    ps->arena = a = malloc(n + 1);
    if (a == NULL)
        return oom(ps->err);
    while (p < n) {
        size_t first = ps->nfields, rec_o = o;
        unsigned nf = 0;
        int rec_line = line, blank = 1;

        for (;;) {
            size_t start = o, q = p, off, flen;
            int fline = line;

            while (q < n && t[q] == ' ')
                q++;
            if (q < n && t[q] == '"') {
                for (p = q + 1;; p++) {
                    if (p >= n)
                        return fail(ps, fline, "a quoted field is never closed (a '\"' is "
                                    "missing)");
                    if (t[p] == '"') {
                        if (p + 1 < n && t[p + 1] == '"')
                            p++;
                        else
                            break;
                    } else if (t[p] == '\n' || (t[p] == '\r' && (p + 1 >= n || t[p + 1] != '\n'))) {
                        line++;
                    }
                    if (o - start == CSV_MAX_FIELD)
                        return fail(ps, fline, "a quoted field longer than %d bytes (is its "
                                    "closing '\"' missing?)", CSV_MAX_FIELD);
                    a[o++] = (char)t[p];
                }
                p++;   /* the closing quote */
            }
            while (p < n && t[p] != d && t[p] != '\n' && t[p] != '\r') {
                if (o - start == CSV_MAX_FIELD)
                    return fail(ps, fline, "a field longer than %d bytes", CSV_MAX_FIELD);
                a[o++] = (char)t[p++];
            }
            off = start;
            flen = o - start;
            trim_field(a, &off, &flen);
            o++;   /* past the NUL */
            if (nf == CSV_MAX_FIELDS)
                return fail(ps, rec_line, "more than %d fields in a row", CSV_MAX_FIELDS);
            if (push_field(ps, off, flen))
                return LEDGER_ERR;
            nf++;
            if (flen > 0)
                blank = 0;
            if (p < n && t[p] == d) {
                p++;
                continue;
            }
            if (p < n) {
                if (t[p] == '\r' && p + 1 < n && t[p + 1] == '\n')
                    p++;
                p++;
                line++;
            }
            break;
        }
        if (blank) {
            ps->nfields = first;
            o = rec_o;
            continue;
        }
        /* A header and CSV_MAX_ROWS rows at most, after lines of account
         * details above the header (the exact count is the caller's, once
         * the header is found: a file of 100,000 rows under five such
         * lines was refused, blaming a row of it: an audit). */
        if (ps->nrecs == CSV_MAX_ROWS + HEADER_SEARCH)
            return fail(ps, rec_line, "more than %d rows", CSV_MAX_ROWS);
        if (push_record(ps, rec_line, first, nf))
            return LEDGER_ERR;
    }
    if (ps->nrecs == 0)
        return fail(ps, 0, "the file is empty");
    return LEDGER_OK;
}

/* Field i of record r, or NULL when the record is shorter. */
static const char *cell(const struct parser *ps, const struct record *r, int i)
{
    if (i < 0 || (unsigned)i >= r->nfields)
        return NULL;
    return ps->arena + ps->fields[r->first + (unsigned)i].off;
}

static size_t cell_len(const struct parser *ps, const struct record *r, int i)
{
    return ps->fields[r->first + (unsigned)i].len;
}

/* A copy of a field for display: line breaks and tabs as spaces. */
static char *clean_copy(const char *s, size_t n)
{
    char *o = malloc(n + 1);
    size_t i, k = 0;

    if (o == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
            continue;   /* CRLF is one space */
        o[k++] = s[i] == '\r' || s[i] == '\n' || s[i] == '\t' ? ' ' : s[i];
    }
    o[k] = '\0';
    return o;
}

/* ---- dates ---------------------------------------------------------------------- */

/* Pattern letters: D M day and month of 1 or 2 digits, d m of exactly 2,
 * Y a year of 2 or 4 digits, 4 a year of exactly 4, N a month's name,
 * _ a separator (spaces, or one of - / .), ' ' one or more spaces,
 * , a comma and/or spaces; anything else stands for itself. */
struct date_format {
    const char *name, *pat;
};

/* In order of preference: see the top for why DD/MM comes before MM/DD. */
static const struct date_format formats[] = {
    {"YYYY-MM-DD", "4-M-D"},
    {"YYYY/MM/DD", "4/M/D"},
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
    {"ISO 8601", "YYYY-MM-DD"}, {"YYYY-M-D", "YYYY-MM-DD"},
};

enum { DT_OK, DT_NOMATCH, DT_NOTREAL };

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

    while (is_alpha((unsigned char)s[n]))
        n++;
    if (n < 3)
        return 0;
    for (i = 0; i < 12; i++) {
        const char *mn = month_names[i];

        if (lower((unsigned char)s[0]) == mn[0] && lower((unsigned char)s[1]) == mn[1]
            && lower((unsigned char)s[2]) == mn[2]
            && (n == 3 || same_word(s, n, mn) || (i == 8 && same_word(s, n, "sept")))) {
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
    while (k < max && is_digit((unsigned char)**s)) {
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
    if ((lower((unsigned char)s[0]) == 'a' || lower((unsigned char)s[0]) == 'p')
        && lower((unsigned char)s[1]) == 'm')
        s += 2;
    if (*s == 'Z')
        s++;
    else if (*s == '+' || *s == '-') {
        s++;
        if (!digits(&s, 2, 1, &v))
            return 0;
        if (*s == ':')
            s++;
        if (is_digit((unsigned char)*s) && !digits(&s, 2, 1, &v))
            return 0;
    }
    return *s == '\0';
}

/* Reads s with format f into out (YYYY-MM-DD): DT_OK, DT_NOMATCH when the
 * shape or a range (day 1-31, month 1-12, year 1900-9999) does not fit,
 * DT_NOTREAL for a day the month does not have. */
static int parse_date(const char *s, const struct date_format *f, char out[11])
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

            if (!digits(&s, 4, 0, &v) || is_digit((unsigned char)*s)
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

static const struct date_format *format_named(const char *s, size_t n)
{
    size_t i, j;

    for (i = 0; i < NFORMATS; i++)
        if (same_word(s, n, formats[i].name))
            return &formats[i];
    for (i = 0; i < sizeof format_aliases / sizeof format_aliases[0]; i++)
        if (same_word(s, n, format_aliases[i].alias))
            for (j = 0; j < NFORMATS; j++)
                if (strcmp(formats[j].name, format_aliases[i].name) == 0)
                    return &formats[j];
    return NULL;
}

/* Whether s is a date in fmt, or in any format when fmt is NULL. */
static int is_date(const char *s, const struct date_format *fmt)
{
    char ymd[11];
    size_t i;

    if (fmt)
        return parse_date(s, fmt, ymd) == DT_OK;
    for (i = 0; i < NFORMATS; i++)
        if (parse_date(s, &formats[i], ymd) == DT_OK)
            return 1;
    return 0;
}

/* ---- amounts ---------------------------------------------------------------------- */

enum { AMT_OK, AMT_NAN, AMT_DECIMALS, AMT_RANGE, AMT_SIGNS };

static const char *const amount_why[] = {
    "", "is not an amount", "has more than 2 decimal places", "is out of range",
    "has more than one sign"
};

/* Symbols longest first, so "A$" is not read as "A" then "$". */
static const char *const symbols[] = {
    "AU$", "US$", "NZ$", "CA$", "A$", "C$", "$", "\xe2\x82\xac", "\xc2\xa3", "\xc2\xa5"
};
static const char *const codes[] = {
    "AUD", "USD", "EUR", "GBP", "NZD", "CAD", "JPY", "CHF", "SGD", "HKD", "CNY", "INR"
};

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

/* A currency symbol or code starting at p; its length or 0. */
static size_t currency_at(const char *p, const char *e)
{
    size_t i, n;

    for (i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        n = strlen(symbols[i]);
        if ((size_t)(e - p) >= n && memcmp(p, symbols[i], n) == 0)
            return n;
    }
    if (e - p >= 3 && (e - p == 3 || !is_alpha((unsigned char)p[3])))
        for (i = 0; i < sizeof codes / sizeof codes[0]; i++)
            if (same_word(p, 3, codes[i]))
                return 3;
    return 0;
}

/* A currency symbol or code ending at e; its length or 0. */
static size_t currency_before(const char *b, const char *e)
{
    size_t i, n;

    for (i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        n = strlen(symbols[i]);
        if ((size_t)(e - b) >= n && memcmp(e - n, symbols[i], n) == 0)
            return n;
    }
    if (e - b >= 3 && (e - b == 3 || !is_alpha((unsigned char)e[-4])))
        for (i = 0; i < sizeof codes / sizeof codes[0]; i++)
            if (same_word(e - 3, 3, codes[i]))
                return 3;
    return 0;
}

/* Reads an amount as bank exports write it (see the top) with the decimal
 * mark `mark` into signed cents. */
static int parse_money(const char *s, char mark, int64_t *cents)
{
    const char *b = s, *e = s + strlen(s), *p;
    int minus = 0, plus = 0, open = 0, close = 0, crdr = 0, dr = 0, first_group = -1;
    size_t k, glen = 0, nint = 0, nfrac = 0, i, o = 0;
    char norm[64], frac[32], group = 0;
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
        else if ((k = currency_at(b, e)) != 0)
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
        else if (e - b >= 2 && lower((unsigned char)e[-1]) == 'r'
                 && (lower((unsigned char)e[-2]) == 'c' || lower((unsigned char)e[-2]) == 'd')
                 && (e - b == 2 || !is_alpha((unsigned char)e[-3]))) {
            crdr++;
            dr = lower((unsigned char)e[-2]) == 'd';
            e -= 2;
        } else if ((k = currency_before(b, e)) != 0)
            e -= k;
        else
            break;
    }
    if (open != close || open > 1)
        return AMT_NAN;
    if (minus + plus + open + crdr > 1)
        return AMT_SIGNS;
    /* digits in groups of three after the first, then the mark and decimals */
    for (p = b; p < e;) {
        char sep;

        if (is_digit((unsigned char)*p)) {
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
        for (p++; p < e && is_digit((unsigned char)*p); p++) {
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
    return AMT_OK;
}

/* Which decimal mark an amount shows: ',' for 12,50 or 1.234,56, '.' for
 * 12.50 or 1,234.56, 0 when it cannot tell (1,234 or 1234). */
static char decimal_evidence(const char *s)
{
    const char *p, *last = NULL;
    int points = 0, commas = 0;
    size_t n;

    for (p = s; *p; p++)
        if ((*p == '.' || *p == ',') && is_digit((unsigned char)p[1])) {
            last = p;
            if (*p == '.')
                points++;
            else
                commas++;
        }
    if (last == NULL)
        return 0;
    for (n = 0; is_digit((unsigned char)last[1 + n]); n++)
        ;
    if (points && commas)
        return *last;   /* the last one is the decimal mark */
    if (n != 3)
        return *last;   /* not a group of three: a decimal mark */
    if (points + commas > 1)
        return *last == '.' ? ',' : '.';   /* 1.234.567: groups */
    return 0;
}

/* ---- the mapping ---------------------------------------------------------------------- */

static void spec_of(const char *s, struct colspec *c)
{
    size_t n, i;

    memset(c, 0, sizeof *c);
    c->col = -1;
    if (s == NULL)
        return;
    while (is_ws((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n > 0 && is_ws((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return;
    c->s = s;
    c->n = n;
    c->is_index = 1;
    for (i = 0; i < n; i++)
        if (!is_digit((unsigned char)s[i]))
            c->is_index = 0;
    if (c->is_index) {
        c->index = 0;
        for (i = 0; i < n && c->index <= CSV_MAX_FIELDS; i++)
            c->index = c->index * 10 + (s[i] - '0');
    }
}

static int check_mapping(const struct csv_mapping *m, struct colspec spec[C_N],
                         const struct date_format **fmt, ledger_error *err)
{
    char sb[48];
    int i;

    if (m == NULL)
        return ledger_error_set(err, 400, "invalid_field", "mapping",
                                "a column mapping is required");
    spec_of(m->date, &spec[C_DATE]);
    spec_of(m->description, &spec[C_DESC]);
    spec_of(m->amount, &spec[C_AMOUNT]);
    spec_of(m->debit, &spec[C_DEBIT]);
    spec_of(m->credit, &spec[C_CREDIT]);
    for (i = 0; i < C_N; i++)
        spec[i].number = spec[i].s && (m->numbers >> i & 1u);
    if (spec[C_DATE].s == NULL)
        return ledger_error_set(err, 400, "invalid_field", "mapping.date",
                                "mapping.date is required: the date column's name or "
                                "0-based index");
    if (spec[C_AMOUNT].s && (spec[C_DEBIT].s || spec[C_CREDIT].s))
        return ledger_error_set(err, 400, "invalid_field", "mapping.amount",
                                "give either mapping.amount or mapping.debit and "
                                "mapping.credit, not both");
    if (spec[C_AMOUNT].s == NULL && spec[C_DEBIT].s == NULL && spec[C_CREDIT].s == NULL)
        return ledger_error_set(err, 400, "invalid_field", "mapping.amount",
                                "mapping.amount is required (or mapping.debit and mapping.credit)");
    for (i = C_DEBIT; i <= C_CREDIT; i++)
        if (spec[C_AMOUNT].s == NULL && spec[i].s == NULL)
            return ledger_error_set(err, 400, "invalid_field", col_field[i],
                                    "%s is required with %s", col_field[i],
                                    col_field[i == C_DEBIT ? C_CREDIT : C_DEBIT]);
    if (m->has_header < -1 || m->has_header > 1)
        return ledger_error_set(err, 400, "invalid_field", "mapping.has_header",
                                "mapping.has_header must be true, false or absent (guess)");
    if (m->delimiter != 0 && m->delimiter != ',' && m->delimiter != ';'
        && m->delimiter != '\t' && m->delimiter != '|')
        return ledger_error_set(err, 400, "invalid_field", "mapping.delimiter",
                                "mapping.delimiter must be ',', ';', a tab or '|' "
                                "(or absent to guess)");
    if (m->decimal != 0 && m->decimal != '.' && m->decimal != ',')
        return ledger_error_set(err, 400, "invalid_field", "mapping.decimal",
                                "mapping.decimal must be '.' or ',' (or absent to guess)");
    if (m->skip_lines < 0 || m->skip_lines > CSV_MAX_SKIP)
        return ledger_error_set(err, 400, "invalid_field", "mapping.skip_lines",
                                "mapping.skip_lines must be a whole number of lines from 0 "
                                "to %d", CSV_MAX_SKIP);
    *fmt = NULL;
    if (m->date_format) {
        struct colspec f;

        spec_of(m->date_format, &f);
        if (f.s && (*fmt = format_named(f.s, f.n)) == NULL)
            return ledger_error_set(err, 400, "invalid_field", "mapping.date_format",
                                    "mapping.date_format '%s' is not one of DD/MM/YYYY, "
                                    "MM/DD/YYYY, YYYY-MM-DD, D MMM YYYY, DD-MM-YYYY, "
                                    "MM-DD-YYYY, YYYY/MM/DD, DD.MM.YYYY, MMM D, YYYY, YYYYMMDD",
                                    snip(f.s, f.n, sb));
    }
    return LEDGER_OK;
}

/* Whether a record's amount columns read as an amount (either mark). */
static int amount_ok(const struct parser *ps, const struct record *r, const struct colspec *spec)
{
    int i, any = 0;
    int64_t v;

    for (i = C_AMOUNT; i <= C_CREDIT; i++) {
        const char *s = spec[i].s ? cell(ps, r, (int)spec[i].index) : NULL;

        if (s == NULL || *s == '\0')
            continue;
        if (parse_money(s, '.', &v) != AMT_OK && parse_money(s, ',', &v) != AMT_OK)
            return 0;
        any = 1;
    }
    return any;
}

static int header_guess(const struct parser *ps, const struct colspec *spec,
                        const struct date_format *fmt)
{
    const struct record *r1 = &ps->recs[0], *r2 = ps->nrecs > 1 ? &ps->recs[1] : NULL;
    const char *d1, *d2;
    int i;

    for (i = 0; i < C_N; i++)
        if (spec[i].s && !spec[i].is_index)
            return 1;   /* names are looked up in a header */
    d1 = cell(ps, r1, (int)spec[C_DATE].index);
    if ((d1 && is_date(d1, fmt)) || amount_ok(ps, r1, spec))
        return 0;
    if (r2 == NULL)
        return 1;
    d2 = cell(ps, r2, (int)spec[C_DATE].index);
    return d2 && is_date(d2, fmt) && amount_ok(ps, r2, spec);
}

/* Finds each mapped column among the columns. */
static int resolve(struct parser *ps, struct colspec *spec, char **columns, size_t ncolumns,
                   int has_header)
{
    char sb[48], list[160];
    size_t j, o;
    int i;

    for (i = 0; i < C_N; i++) {
        struct colspec *c = &spec[i];

        if (c->s == NULL)
            continue;
        /* Digits given as text name the header's column of that name
         * when it has one (a bank's header "Date,1,2"; a client sending
         * the header's names), else they are an index, as query
         * parameters, all text, give indexes. */
        if (c->is_index && !c->number && has_header)
            for (j = 0; j < ncolumns && c->col < 0; j++)
                if (strlen(columns[j]) == c->n && memcmp(columns[j], c->s, c->n) == 0)
                    c->col = (int)j;
        if (c->col >= 0)
            continue;
        if (c->is_index) {
            if (c->index >= (long)ncolumns)
                return ledger_error_set(ps->err, 400, "invalid_field", col_field[i],
                                        "%s: there is no column %s: the file has %zu column%s "
                                        "(indexes start at 0)", col_field[i],
                                        snip(c->s, c->n, sb), ncolumns, ncolumns == 1 ? "" : "s");
            c->col = (int)c->index;
            continue;
        }
        for (j = 0; j < ncolumns && c->col < 0; j++)
            if (same_word(c->s, c->n, columns[j]))
                c->col = (int)j;
        if (c->col >= 0)
            continue;
        /* the columns there are, for the message; each name is at most 43
         * bytes, so the list never fills */
        list[0] = '\0';
        for (j = 0, o = 0; j < ncolumns && o < 70; j++) {
            char cb[48];

            o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", j ? ", " : "",
                                  snip(columns[j], strlen(columns[j]), cb));
        }
        return ledger_error_set(ps->err, 400, "invalid_field", col_field[i],
                                "%s: no column '%s' in the header (it has %s%s)", col_field[i],
                                snip(c->s, c->n, sb), list, j < ncolumns ? ", ..." : "");
    }
    return LEDGER_OK;
}

/* ---- rows --------------------------------------------------------------------------- */

static void row_date(const struct parser *ps, const struct record *r, int col,
                     const struct date_format *fmt, struct csv_row *row)
{
    const char *s = cell(ps, r, col);
    char sb[48];

    if (s == NULL)
        return;
    if (*s == '\0') {
        row_error(row, "the date is empty");
        return;
    }
    if (fmt == NULL) {
        row_error(row, "date '%s' is not a date in a known format",
                  snip(s, cell_len(ps, r, col), sb));
        return;
    }
    switch (parse_date(s, fmt, row->date)) {
    case DT_OK:
        return;
    case DT_NOTREAL:
        row->date[0] = '\0';
        row_error(row, "date '%s' is not a real day", snip(s, cell_len(ps, r, col), sb));
        return;
    default:
        row->date[0] = '\0';
        row_error(row, "date '%s' is not a date in the format %s",
                  snip(s, cell_len(ps, r, col), sb), fmt->name);
        return;
    }
}

/* One amount column into *v: 1 read, 0 empty, -1 bad (with the row's error). */
static int row_money(const struct parser *ps, const struct record *r, int col, const char *what,
                     char mark, int64_t *v, struct csv_row *row)
{
    const char *s = cell(ps, r, col);
    char sb[48];
    int rc;

    if (s == NULL || *s == '\0')
        return 0;
    rc = parse_money(s, mark, v);
    if (rc == AMT_OK)
        return 1;
    row_error(row, "%s '%s' %s", what, snip(s, cell_len(ps, r, col), sb), amount_why[rc]);
    return -1;
}

static void row_amount(const struct parser *ps, const struct record *r, const struct colspec *spec,
                       char mark, int negate, struct csv_row *row)
{
    int64_t v = 0, dv = 0, cv = 0;
    int d, c;

    if (spec[C_AMOUNT].col >= 0) {
        if (cell(ps, r, spec[C_AMOUNT].col) == NULL)
            return;   /* a short row, said already */
        d = row_money(ps, r, spec[C_AMOUNT].col, "amount", mark, &v, row);
        if (d == 0)
            row_error(row, "the amount is empty");
        if (d <= 0)
            return;
    } else {
        if (cell(ps, r, spec[C_DEBIT].col) == NULL || cell(ps, r, spec[C_CREDIT].col) == NULL)
            return;
        d = row_money(ps, r, spec[C_DEBIT].col, "debit", mark, &dv, row);
        c = row_money(ps, r, spec[C_CREDIT].col, "credit", mark, &cv, row);
        if (d < 0 || c < 0)
            return;
        if (d == 0 && c == 0) {
            row_error(row, "neither debit nor credit holds an amount");
            return;
        }
        dv = dv < 0 ? -dv : dv;   /* the column gives the direction */
        cv = cv < 0 ? -cv : cv;
        if (dv != 0 && cv != 0) {
            row_error(row, "both debit and credit hold an amount");
            return;
        }
        v = cv - dv;
    }
    row->amount = negate ? -v : v;
    row->has_amount = 1;
}

/* The mapped columns a short row lacks, in column order, for its error:
 * "'Amount' is missing", "'Description', 'Amount' are missing". */
static void short_row(const struct record *r, const struct colspec *spec, char **columns,
                      struct csv_row *row)
{
    char list[200];
    size_t o = 0;
    int i, n = 0, last = -1;

    for (;;) {
        int next = -1;
        char sb[48];

        for (i = 0; i < C_N; i++)   /* the next missing column after last */
            if (spec[i].col > last && (unsigned)spec[i].col >= r->nfields
                && (next < 0 || spec[i].col < next))
                next = spec[i].col;
        if (next < 0)
            break;
        /* at most four names (date, description, debit, credit) of at most
         * 47 bytes each: list never fills, nor does the message */
        o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", n ? ", " : "",
                              snip(columns[next], strlen(columns[next]), sb));
        n++;
        last = next;
    }
    if (n)
        row_error(row, "the row has only %u field%s: %s %s missing", r->nfields,
                  r->nfields == 1 ? "" : "s", list, n == 1 ? "is" : "are");
}

/* A row with text in more fields than the file's width: an unquoted
 * delimiter ("1,234.50" written without quotes) has moved every field
 * after it, so its values cannot be trusted.  Empty fields at the end
 * ("a,b,c,") are not text. */
static void long_row(const struct parser *ps, const struct record *r, unsigned width,
                     struct csv_row *row)
{
    unsigned i, text = 0;

    for (i = width; i < r->nfields; i++) {
        const char *c = cell(ps, r, (int)i);
        size_t k, n = cell_len(ps, r, (int)i);

        for (k = 0; k < n && (c[k] == ' ' || c[k] == '\t' || c[k] == '\r' || c[k] == '\n'); k++)
            ;
        text += k < n;
    }
    if (text)
        row_error(row, "the row has %u fields where the file has %u: is a value with the"
                  " delimiter in it not quoted?", r->nfields, width);
}

static int build_row(const struct parser *ps, const struct record *r, const struct colspec *spec,
                     char **columns, unsigned width, const struct date_format *fmt, char mark,
                     int negate, struct csv_row *row)
{
    row->line = r->line;
    short_row(r, spec, columns, row);
    long_row(ps, r, width, row);
    if (spec[C_DESC].col >= 0 && cell(ps, r, spec[C_DESC].col))
        row->description = clean_copy(cell(ps, r, spec[C_DESC].col),
                                      cell_len(ps, r, spec[C_DESC].col));
    else
        row->description = clean_copy("", 0);
    if (row->description == NULL)
        return oom(ps->err);
    row_date(ps, r, spec[C_DATE].col, fmt, row);
    row_amount(ps, r, spec, mark, negate, row);
    return LEDGER_OK;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

    return x < y ? -1 : x > y;
}


/* The header record: the first, or for a mapping that names columns the
 * first of the early records holding every name (none: the first, whose
 * missing name resolve reports). */
static size_t header_record(const struct parser *ps, const struct colspec *spec)
{
    size_t r;
    int i, named = 0;

    for (i = 0; i < C_N; i++)
        named |= spec[i].s && !spec[i].is_index;
    for (r = 0; named && r < ps->nrecs && r < HEADER_SEARCH; r++) {
        int all = 1;

        for (i = 0; i < C_N && all; i++) {
            unsigned j;

            if (spec[i].s == NULL || spec[i].is_index)
                continue;
            for (all = 0, j = 0; j < ps->recs[r].nfields && !all; j++)
                all = same_word(spec[i].s, spec[i].n, cell(ps, &ps->recs[r], (int)j));
        }
        if (all)
            return r;
    }
    return 0;
}

/* How many fields a row of the file has: the header's (record head), or
 * without one the count most data rows have (the smallest such count on a
 * tie). */
static unsigned file_width(const struct parser *ps, size_t from, int has_header, size_t head)
{
    unsigned *v, best = 0;
    size_t n = ps->nrecs - from, i, run, best_run = 0;

    if (has_header)
        return ps->recs[head].nfields;
    if (n == 0 || (v = malloc(n * sizeof *v)) == NULL)
        return UINT_MAX;  /* no rows to judge, or no memory to judge them: none is long */
    for (i = 0; i < n; i++)
        v[i] = ps->recs[from + i].nfields;
    qsort(v, n, sizeof *v, cmp_unsigned);
    for (i = 0; i < n; i += run) {
        for (run = 1; i + run < n && v[i + run] == v[i]; run++)
            ;
        if (run > best_run) {
            best_run = run;
            best = v[i];
        }
    }
    free(v);
    return best;
}

static const struct date_format *guess_format(const struct parser *ps, size_t from, int col)
{
    size_t reads[NFORMATS], total = 0, i, f, best = 0;
    char ymd[11];

    memset(reads, 0, sizeof reads);
    for (i = from; i < ps->nrecs; i++) {
        const char *s = cell(ps, &ps->recs[i], col);

        if (s == NULL || *s == '\0')
            continue;
        total++;
        for (f = 0; f < NFORMATS; f++)
            if (parse_date(s, &formats[f], ymd) != DT_NOMATCH)
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

static char guess_mark(const struct parser *ps, size_t from, const struct colspec *spec)
{
    size_t i, points = 0, commas = 0;
    int c;

    for (i = from; i < ps->nrecs; i++)
        for (c = C_AMOUNT; c <= C_CREDIT; c++) {
            const char *s = spec[c].col >= 0 ? cell(ps, &ps->recs[i], spec[c].col) : NULL;
            char ev = s ? decimal_evidence(s) : 0;

            points += ev == '.';
            commas += ev == ',';
        }
    return commas > 0 && points == 0 ? ',' : '.';
}

/* ---- the file ------------------------------------------------------------------------- */

int csv_parse(const char *buf, size_t len, const struct csv_mapping *m,
              struct csv_result *out, ledger_error *err)
{
    struct parser ps;
    struct colspec spec[C_N];
    struct csv_result res;
    const struct date_format *fmt;
    size_t i, from, head;
    unsigned width;
    int rc = LEDGER_ERR;

    memset(&ps, 0, sizeof ps);
    memset(&res, 0, sizeof res);
    ps.err = err;
    if (buf == NULL)
        buf = "", len = 0;
    if (check_mapping(m, spec, &fmt, err))
        goto done;
    if (len > CSV_MAX_BYTES) {
        /* lines are counted in an int */
        fail(&ps, 0, "the file is larger than %d bytes", CSV_MAX_BYTES);
        goto done;
    }
    if (decode(&ps, (const unsigned char *)buf, len) || skip_lines(&ps, m->skip_lines))
        goto done;
    ps.delim = (unsigned char)m->delimiter;
    if (ps.delim == 0 && guess_delimiter(&ps))
        goto done;
    if (tokenize(&ps))
        goto done;

    /* The header, and the columns: as many as the longest record from the
     * header on has. */
    res.has_header = m->has_header >= 0 ? m->has_header : header_guess(&ps, spec, fmt);
    head = res.has_header ? header_record(&ps, spec) : 0;
    res.header_line = res.has_header ? ps.recs[head].line : 0;
    for (i = head; i < ps.nrecs; i++)
        if (ps.recs[i].nfields > res.ncolumns)
            res.ncolumns = ps.recs[i].nfields;
    res.columns = calloc(res.ncolumns, sizeof *res.columns);
    if (res.columns == NULL) {
        oom(err);
        goto done;
    }
    for (i = 0; i < res.ncolumns; i++) {
        const char *h = res.has_header ? cell(&ps, &ps.recs[head], (int)i) : NULL;
        char name[32];

        if (h && *h) {
            res.columns[i] = clean_copy(h, cell_len(&ps, &ps.recs[head], (int)i));
        } else {
            snprintf(name, sizeof name, "column %zu", i + 1);
            res.columns[i] = clean_copy(name, strlen(name));
        }
        if (res.columns[i] == NULL) {
            oom(err);
            goto done;
        }
    }
    if (resolve(&ps, spec, res.columns, res.ncolumns, res.has_header))
        goto done;

    from = res.has_header ? head + 1 : 0;
    if (ps.nrecs - from > CSV_MAX_ROWS) {
        fail(&ps, ps.recs[from + CSV_MAX_ROWS].line, "more than %d rows", CSV_MAX_ROWS);
        goto done;
    }
    if (fmt == NULL)
        fmt = guess_format(&ps, from, spec[C_DATE].col);
    res.decimal = m->decimal ? m->decimal : guess_mark(&ps, from, spec);
    res.nrows = ps.nrecs - from;
    if (res.nrows) {
        res.rows = calloc(res.nrows, sizeof *res.rows);
        if (res.rows == NULL) {
            res.nrows = 0;
            oom(err);
            goto done;
        }
    }
    width = file_width(&ps, from, res.has_header, head);
    for (i = 0; i < res.nrows; i++)
        if (build_row(&ps, &ps.recs[from + i], spec, res.columns, width, fmt, res.decimal,
                      m->negate != 0, &res.rows[i]))
            goto done;
    res.delimiter = (char)ps.delim;
    snprintf(res.date_format, sizeof res.date_format, "%s", fmt ? fmt->name : "");
    res.windows1252 = ps.cp1252;
    *out = res;
    memset(&res, 0, sizeof res);
    rc = LEDGER_OK;
done:
    csv_result_free(&res);
    free(ps.utf8);
    free(ps.arena);
    free(ps.fields);
    free(ps.recs);
    return rc;
}

void csv_result_free(struct csv_result *r)
{
    size_t i;

    if (r == NULL)
        return;
    for (i = 0; r->columns && i < r->ncolumns; i++)
        free(r->columns[i]);
    free(r->columns);
    for (i = 0; r->rows && i < r->nrows; i++)
        free(r->rows[i].description);
    free(r->rows);
    memset(r, 0, sizeof *r);
}
