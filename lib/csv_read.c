/*
 * CSV bank exports: the file into records of fields.
 *
 * The bytes are checked and, if need be, converted to UTF-8; the lines
 * the mapping skips are passed over; the delimiter is guessed from the
 * first records; every record is split into fields in one arena, each
 * pass linear.  csv.c makes rows of the records.
 *
 * Choices where files and the RFC leave room:
 * - Characters: a UTF-8 byte order mark is dropped.  The mapping's
 *   encoding, when given, says what the bytes are (charset.c's names):
 *   UTF-8 must then be valid, and a single-byte code page is converted
 *   byte by byte.  Without one, a file that is valid UTF-8 is read as
 *   UTF-8 and any other as Windows-1252 (the code page of most bank exports
 *   made on Windows, and a superset of ISO-8859-1's printable characters),
 *   the whole file at once, since Windows-1252 text with accents is
 *   practically never valid UTF-8.  The guess cannot tell the Windows code
 *   pages apart (a Hungarian "ő" is an "õ" in Windows-1252), which is what
 *   the encoding is for.  A byte the code page leaves undefined becomes
 *   U+FFFD.  A file that starts with a UTF-8 byte order mark says what it
 *   is, so invalid UTF-8 after one is a 400 rather than a guess, and so is
 *   an encoding that says otherwise.  UTF-16 and control characters other
 *   than tab, CR and LF (a spreadsheet, a PDF) are a 400.
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
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_parts.h"
#include "db.h"
#include "text.h"

/* How many records the delimiter guess looks at. */
#define GUESS_RECORDS 20

int csv_fail(struct parser *ps, int line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        return error_field(ps->err, "csv", "line %d: %s", line, msg);
    return error_field(ps->err, "csv", "%s", msg);
}

/* ---- the bytes --------------------------------------------------------------- */

/* The charset the mapping names (enc), or -1 to guess; a name not read
 * here is a 400. */
static int mapping_charset(struct parser *ps, const char *enc, int *out)
{
    *out = -1;
    if (enc == NULL)
        return LEDGER_OK;
    if ((*out = charset_find(enc, strlen(enc))) < 0)
        return error_field(ps->err, "mapping.encoding", "mapping.encoding must be one of "
                           CHARSET_NAMES);
    return LEDGER_OK;
}

/* Converts b[0..len), in a single-byte charset, to UTF-8 in ps->utf8. */
static int convert(struct parser *ps, const unsigned char *b, size_t len, int charset)
{
    size_t i, o;

    if (len > (SIZE_MAX - 1) / 3)
        return ledger_error_oom(ps->err);
    if ((ps->utf8 = malloc(len * 3 + 1)) == NULL)
        return ledger_error_oom(ps->err);
    for (i = 0, o = 0; i < len; i++) {
        unsigned cp = charset_char(charset, b[i]);

        o += put_utf8(ps->utf8 + o, cp ? cp : 0xFFFD);
    }
    ps->t = ps->utf8;
    ps->n = o;
    return LEDGER_OK;
}

/* Checks the bytes and settles the character set: ps->t, ps->n is then
 * UTF-8 text without a BOM, and ps->charset what it was read as. */
static int decode(struct parser *ps, const unsigned char *b, size_t len, const char *enc)
{
    size_t i, k;
    int line = 1, bad_line = 0, bom = 0, charset;
    const unsigned char *q;

    if (mapping_charset(ps, enc, &charset))
        return LEDGER_ERR;
    if (len >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF)))
        return csv_fail(ps, 1, "UTF-16 files are not supported (save it as UTF-8 or Windows-1252 CSV)");
    if (len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        b += 3;
        len -= 3;
        bom = 1;
    }
    if (bom && charset > CHARSET_UTF8)
        return csv_fail(ps, 1, "the file starts with a UTF-8 byte order mark, but "
                        "mapping.encoding says %s", charset_name(charset));
    while (len > 0 && b[len - 1] == 0x1A)
        len--;   /* DOS end-of-file marks */
    for (i = 0; i < len;) {
        unsigned char c = b[i];

        if (c < 0x80) {
            if (c == '\n' || (c == '\r' && (i + 1 >= len || b[i + 1] != '\n')))
                line++;
            else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
                return csv_fail(ps, line, "binary data (byte 0x%02X): not a CSV text file", c);
            i++;
            continue;
        }
        if (bad_line == 0 && charset <= CHARSET_UTF8 && (k = utf8_len(b + i, b + len)) != 0) {
            i += k;
            continue;
        }
        if (bad_line == 0)
            bad_line = line;
        i++;
    }
    if (bad_line && (bom || charset == CHARSET_UTF8))
        return csv_fail(ps, bad_line, bom ? "invalid UTF-8, though the file starts with a UTF-8 "
                        "byte order mark" : "invalid UTF-8, though mapping.encoding says utf-8");
    ps->t = b;
    ps->n = len;
    ps->charset = charset >= 0 ? charset : bad_line ? CHARSET_WINDOWS_1252 : CHARSET_UTF8;
    if (bad_line && convert(ps, b, len, ps->charset))
        return LEDGER_ERR;
    for (q = ps->t, line = 1; q < ps->t + ps->n && ascii_space(*q); q++)
        if (*q == '\n' || (*q == '\r' && (q + 1 >= ps->t + ps->n || q[1] != '\n')))
            line++;
    if (q == ps->t + ps->n)
        return csv_fail(ps, 0, "the file is empty");
    /* Files that are plainly something else get a message that says so. */
    if (*q == '<')
        return csv_fail(ps, line, "not a CSV file: it starts with '<' (HTML, XML or OFX?)");
    if (ps->t + ps->n - q >= 9 && csv_same_word((const char *)q, 9, "OFXHEADER"))
        return csv_fail(ps, line, "not a CSV file but OFX: import it as a statement");
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
        return error_field(ps->err, "mapping.skip_lines",
                           "mapping.skip_lines is %d, but the file has only %d line%s",
                           want, done, done == 1 ? "" : "s");
    /* what a record of nothing but delimiters and white space is: blank */
    while (p < n && (ascii_space(t[p]) || t[p] == ',' || t[p] == ';' || t[p] == '|'))
        p++;
    if (want > 0 && p == n)
        return error_field(ps->err, "mapping.skip_lines",
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
            if (!ascii_space(t[p]) && t[p] != ',' && t[p] != ';' && t[p] != '|')
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
        return csv_fail(ps, 0, "the file is empty");
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
        return csv_fail(ps, 1, "not a CSV file: no comma, semicolon, tab or '|' separates "
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
            return ledger_error_oom(ps->err);
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
            return ledger_error_oom(ps->err);
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
        if (s < e && ascii_space((unsigned char)a[s]))
            s++;
        else if (e - s >= 2 && (unsigned char)a[s] == 0xC2 && (unsigned char)a[s + 1] == 0xA0)
            s += 2;
        else
            break;
    }
    for (;;) {
        if (e > s && ascii_space((unsigned char)a[e - 1]))
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
        return ledger_error_oom(ps->err);
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
                        return csv_fail(ps, fline, "a quoted field is never closed (a '\"' is "
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
                        return csv_fail(ps, fline, "a quoted field longer than %d bytes (is its "
                                    "closing '\"' missing?)", CSV_MAX_FIELD);
                    a[o++] = (char)t[p];
                }
                p++;   /* the closing quote */
            }
            while (p < n && t[p] != d && t[p] != '\n' && t[p] != '\r') {
                if (o - start == CSV_MAX_FIELD)
                    return csv_fail(ps, fline, "a field longer than %d bytes", CSV_MAX_FIELD);
                a[o++] = (char)t[p++];
            }
            off = start;
            flen = o - start;
            trim_field(a, &off, &flen);
            o++;   /* past the NUL */
            if (nf == CSV_MAX_FIELDS)
                return csv_fail(ps, rec_line, "more than %d fields in a row", CSV_MAX_FIELDS);
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
         * details above the header: the exact count is the caller's, once
         * the header is found, so a full file under such lines is read and
         * no row of it is blamed. */
        if (ps->nrecs == CSV_MAX_ROWS + CSV_HEADER_SEARCH)
            return csv_fail(ps, rec_line, "more than %d rows", CSV_MAX_ROWS);
        if (push_record(ps, rec_line, first, nf))
            return LEDGER_ERR;
    }
    if (ps->nrecs == 0)
        return csv_fail(ps, 0, "the file is empty");
    return LEDGER_OK;
}

int csv_read(struct parser *ps, const char *buf, size_t len, const struct csv_mapping *m)
{
    if (len > CSV_MAX_BYTES)   /* lines are counted in an int */
        return csv_fail(ps, 0, "the file is larger than %d bytes", CSV_MAX_BYTES);
    if (decode(ps, (const unsigned char *)buf, len, m->encoding) || skip_lines(ps, m->skip_lines))
        return LEDGER_ERR;
    ps->delim = (unsigned char)m->delimiter;
    if (ps->delim == 0 && guess_delimiter(ps))
        return LEDGER_ERR;
    return tokenize(ps);
}
