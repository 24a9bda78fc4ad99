/*
 * CSV bank exports.
 *
 * A bank's "CSV" is whatever its export code writes, so the reader follows
 * RFC 4180 where a file does and guesses where it is silent: the delimiter,
 * whether there is a header, the date format, the decimal mark.  Each guess
 * is reported in the result so the client can show it and send it back
 * corrected.
 *
 * The file is read in passes, each linear: csv_read.c checks the bytes
 * and, if need be, converts them to UTF-8, guesses the delimiter from the
 * first records and splits every record into fields in one arena; here the
 * mapping is resolved to columns, the header, the date format and the
 * decimal mark are decided from the columns (csv_value.c reads the dates
 * and amounts), and the rows are built.  Problems of one row (a bad date, a
 * bad amount, missing columns) go into that row's error and the row is
 * kept, so the user sees and fixes them in the preview; only a file that
 * cannot be read as CSV, or a mapping that does not fit it, fails the
 * whole call.
 *
 * Choices where files and the RFC leave room:
 * - The header, when not given: a mapping by name implies one.  With
 *   indexes, the first record is a header when its date and amount columns
 *   both do not parse but the second record's do (or there is no second).
 *   With names, the header is the first of the file's first records that
 *   holds every name: some banks (DKB, ING-DiBa, Bank of America) write
 *   account details or a summary above it, and the lines before it are
 *   not rows.  The header's line is reported (header_line), so a client
 *   can show where it was found.
 * - Debit and credit columns: the column decides the direction, so a value
 *   there is read as a magnitude whatever sign it carries (banks write debits
 *   as -12.50 as often as 12.50).  Both empty is a row error; a zero in one
 *   beside an amount in the other is taken as empty; two non-zero values is a
 *   row error.  negate flips the result in either layout.
 * - A direction column (with one amount column): the amount is a
 *   magnitude and the column's word says which way it went, since banks
 *   that write one (Mint, ING NL, Knab) write every amount positive.  A
 *   word in neither list, or none, is a row error.
 * - Description: its columns' non-empty text joined with " - "; when all
 *   are empty the merchant, then the notes stand in (Venmo, PayPal and
 *   Knab leave the description of some rows empty and name the other
 *   side in another column).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_parts.h"
#include "db.h"
#include "text.h"

/* What a direction column writes for money out and in, when the mapping
 * does not list its own: the banks' words in English, Dutch, German,
 * French, Spanish and Hungarian, matched whole and ignoring ASCII case
 * (accented capitals are listed). */
static const char *const debit_words[] = {
    "D", "DR", "Debit", "Withdrawal", "Af", "Debet", "Soll", "S", "D\xc3\xa9" "bit", "D\xc3\x89" "BIT",
    "Cargo", "D\xc3\xa9" "bito", "D\xc3\x89" "BITO", "T"
};
static const char *const credit_words[] = {
    "C", "CR", "Credit", "Deposit", "Bij", "Haben", "H", "Cr\xc3\xa9" "dit", "CR\xc3\x89" "DIT",
    "Abono", "Cr\xc3\xa9" "dito", "CR\xc3\x89" "DITO", "J"
};

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

/* ---- rows --------------------------------------------------------------------------- */

static void row_date(const struct parser *ps, const struct record *r, int col,
                     const struct date_format *fmt, struct csv_row *row)
{
    const char *s = csv_cell(ps, r, col);
    char sb[48];

    if (s == NULL)
        return;
    if (*s == '\0') {
        row_error(row, "the date is empty");
        return;
    }
    if (fmt == NULL) {
        row_error(row, "date '%s' is not a date in a known format",
                  csv_snip(s, csv_cell_len(ps, r, col), sb));
        return;
    }
    switch (csv_parse_date(s, fmt, row->date)) {
    case DT_OK:
        return;
    case DT_NOTREAL:
        row->date[0] = '\0';
        row_error(row, "date '%s' is not a real day", csv_snip(s, csv_cell_len(ps, r, col), sb));
        return;
    default:
        row->date[0] = '\0';
        row_error(row, "date '%s' is not a date in the format %s",
                  csv_snip(s, csv_cell_len(ps, r, col), sb), fmt->name);
        return;
    }
}

/* One amount column into *v: 1 read, 0 empty, -1 bad (with the row's error). */
static int row_money(const struct parser *ps, const struct record *r, int col, const char *what,
                     char mark, int64_t *v, struct csv_row *row)
{
    const char *s = csv_cell(ps, r, col);
    char sb[48];
    int rc;

    if (s == NULL || *s == '\0')
        return 0;
    rc = csv_parse_money(s, mark, v, row->currency[0] ? NULL : row->currency);
    if (rc == AMT_OK)
        return 1;
    row->refuse |= rc == AMT_THREE;
    row_error(row, "%s '%s' %s", what, csv_snip(s, csv_cell_len(ps, r, col), sb), csv_amount_why[rc]);
    return -1;
}

/* Whether the direction s is in the mapping's list (or the default one):
 * -1 money out, 1 money in, 0 neither. */
static int direction_of(const struct csv_mapping *m, const char *s)
{
    size_t i, n = strlen(s);

    if (m->ndebit_values || m->ncredit_values) {
        for (i = 0; i < (size_t)m->ndebit_values; i++)
            if (csv_same_word(s, n, m->debit_values[i]))
                return -1;
        for (i = 0; i < (size_t)m->ncredit_values; i++)
            if (csv_same_word(s, n, m->credit_values[i]))
                return 1;
        return 0;
    }
    for (i = 0; i < sizeof debit_words / sizeof debit_words[0]; i++)
        if (csv_same_word(s, n, debit_words[i]))
            return -1;
    for (i = 0; i < sizeof credit_words / sizeof credit_words[0]; i++)
        if (csv_same_word(s, n, credit_words[i]))
            return 1;
    return 0;
}

static void row_amount(const struct parser *ps, const struct record *r, const struct colspec *spec,
                       const struct csv_mapping *m, char mark, struct csv_row *row)
{
    int64_t v = 0, dv = 0, cv = 0;
    int d, c;

    if (spec[C_AMOUNT].col >= 0) {
        const char *dir = spec[C_DIRECTION].col >= 0 ? csv_cell(ps, r, spec[C_DIRECTION].col) : NULL;
        char sb[48];

        if (csv_cell(ps, r, spec[C_AMOUNT].col) == NULL
            || (spec[C_DIRECTION].col >= 0 && dir == NULL))
            return;   /* a short row, said already */
        d = row_money(ps, r, spec[C_AMOUNT].col, "amount", mark, &v, row);
        if (d == 0)
            row_error(row, "the amount is empty");
        if (d <= 0)
            return;
        /* With a direction column the amount is a magnitude: the column
         * says which way it went, whatever sign the amount carries. */
        if (dir) {
            c = *dir ? direction_of(m, dir) : 0;
            if (*dir == '\0') {
                row_error(row, "the direction is empty");
                return;
            }
            if (c == 0) {
                row_error(row, "direction '%s' is neither a debit nor a credit value (map "
                          "debit_values and credit_values)",
                          csv_snip(dir, csv_cell_len(ps, r, spec[C_DIRECTION].col), sb));
                return;
            }
            v = v < 0 ? -v : v;
            v = c < 0 ? -v : v;
        }
    } else {
        if (csv_cell(ps, r, spec[C_DEBIT].col) == NULL || csv_cell(ps, r, spec[C_CREDIT].col) == NULL)
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
    row->amount = m->negate ? -v : v;
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

        for (i = 0; i < C_MERCHANT; i++)   /* the next missing column after last */
            if (spec[i].col > last && (unsigned)spec[i].col >= r->nfields
                && (next < 0 || spec[i].col < next))
                next = spec[i].col;
        if (next < 0)
            break;
        /* at most four names (date, description, amount or debit and
         * credit, direction) of at most 47 bytes each: list never fills,
         * nor does the message */
        o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", n ? ", " : "",
                              csv_snip(columns[next], strlen(columns[next]), sb));
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
        const char *c = csv_cell(ps, r, (int)i);
        size_t k, n = csv_cell_len(ps, r, (int)i);

        for (k = 0; k < n && ascii_space((unsigned char)c[k]); k++)
            ;
        text += k < n;
    }
    if (text)
        row_error(row, "the row has %u fields where the file has %u: is a value with the"
                  " delimiter in it not quoted?", r->nfields, width);
}

/* Column c's text in the row, or NULL when unmapped, absent or empty. */
static const char *row_text(const struct parser *ps, const struct record *r,
                            const struct colspec *spec, int c)
{
    const char *s = spec[c].col >= 0 ? csv_cell(ps, r, spec[c].col) : NULL;

    return s && *s ? s : NULL;
}

/* A text column's copy for display, or NULL with *oom clear when there is
 * no text. */
static char *text_copy(const struct parser *ps, const struct record *r,
                       const struct colspec *spec, int c, int *oom)
{
    const char *s = row_text(ps, r, spec, c);
    char *o;

    if (s == NULL)
        return NULL;
    o = clean_copy(s, csv_cell_len(ps, r, spec[c].col));
    *oom |= o == NULL;
    return o;
}

/* The description: the non-empty description columns joined in order
 * with " - " (a payee and a memo), else the merchant, else the notes, so
 * a row whose bank left the description empty still says what it was. */
static char *row_description(const struct parser *ps, const struct record *r,
                             const struct colspec *spec)
{
    static const int order[] = { C_DESC, C_DESC2, C_DESC2 + 1, C_DESC2 + 2, C_DESC2 + 3,
                                 C_DESC2 + 4, C_DESC2 + 5, C_DESC2 + 6 };
    char *o;
    size_t i, n = 0, k = 0;
    int any = 0;

    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if (row_text(ps, r, spec, order[i]))
            n += csv_cell_len(ps, r, spec[order[i]].col) + 3;
    if (n == 0) {
        const char *s = row_text(ps, r, spec, C_MERCHANT);
        int c = s ? C_MERCHANT : C_NOTES;

        if (s || (s = row_text(ps, r, spec, C_NOTES)))
            return clean_copy(s, csv_cell_len(ps, r, spec[c].col));
        return clean_copy("", 0);
    }
    if ((o = malloc(n + 1)) == NULL)
        return NULL;
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *s = row_text(ps, r, spec, order[i]);
        char *t;

        if (s == NULL)
            continue;
        if (any)
            memcpy(o + k, " - ", 3), k += 3;
        if ((t = clean_copy(s, csv_cell_len(ps, r, spec[order[i]].col))) == NULL) {
            free(o);
            return NULL;
        }
        memcpy(o + k, t, strlen(t));
        k += strlen(t);
        free(t);
        any = 1;
    }
    o[k] = '\0';
    return o;
}

static int build_row(const struct parser *ps, const struct record *r, const struct colspec *spec,
                     char **columns, unsigned width, const struct date_format *fmt, char mark,
                     const struct csv_mapping *m, struct csv_row *row)
{
    int oom = 0;

    row->line = r->line;
    short_row(r, spec, columns, row);
    long_row(ps, r, width, row);
    row->description = row_description(ps, r, spec);
    row->merchant = text_copy(ps, r, spec, C_MERCHANT, &oom);
    row->category = text_copy(ps, r, spec, C_CATEGORY, &oom);
    row->notes = text_copy(ps, r, spec, C_NOTES, &oom);
    if (row->description == NULL || oom)
        return ledger_error_oom(ps->err);
    row_date(ps, r, spec[C_DATE].col, fmt, row);
    row_amount(ps, r, spec, m, mark, row);
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
    for (r = 0; named && r < ps->nrecs && r < CSV_HEADER_SEARCH; r++) {
        int all = 1;

        for (i = 0; i < C_N && all; i++) {
            unsigned j;

            if (spec[i].s == NULL || spec[i].is_index)
                continue;
            for (all = 0, j = 0; j < ps->recs[r].nfields && !all; j++)
                all = csv_same_word(spec[i].s, spec[i].n, csv_cell(ps, &ps->recs[r], (int)j));
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

static char guess_mark(const struct parser *ps, size_t from, const struct colspec *spec)
{
    size_t i, points = 0, commas = 0;
    int c;

    for (i = from; i < ps->nrecs; i++)
        for (c = C_AMOUNT; c <= C_CREDIT; c++) {
            const char *s = spec[c].col >= 0 ? csv_cell(ps, &ps->recs[i], spec[c].col) : NULL;
            char ev = s ? csv_decimal_evidence(s) : 0;

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
    if (csv_check_mapping(m, spec, &fmt, err))
        goto done;
    if (csv_read(&ps, buf, len, m))
        goto done;

    /* The header, and the columns: as many as the longest record from the
     * header on has. */
    res.has_header = m->has_header >= 0 ? m->has_header : csv_header_guess(&ps, spec, fmt);
    head = res.has_header ? header_record(&ps, spec) : 0;
    res.header_line = res.has_header ? ps.recs[head].line : 0;
    for (i = head; i < ps.nrecs; i++)
        if (ps.recs[i].nfields > res.ncolumns)
            res.ncolumns = ps.recs[i].nfields;
    res.columns = calloc(res.ncolumns, sizeof *res.columns);
    if (res.columns == NULL) {
        ledger_error_oom(err);
        goto done;
    }
    for (i = 0; i < res.ncolumns; i++) {
        const char *h = res.has_header ? csv_cell(&ps, &ps.recs[head], (int)i) : NULL;
        char name[32];

        if (h && *h) {
            res.columns[i] = clean_copy(h, csv_cell_len(&ps, &ps.recs[head], (int)i));
        } else {
            snprintf(name, sizeof name, "column %zu", i + 1);
            res.columns[i] = clean_copy(name, strlen(name));
        }
        if (res.columns[i] == NULL) {
            ledger_error_oom(err);
            goto done;
        }
    }
    if (csv_resolve(&ps, spec, res.columns, res.ncolumns, res.has_header))
        goto done;

    from = res.has_header ? head + 1 : 0;
    if (ps.nrecs - from > CSV_MAX_ROWS) {
        csv_fail(&ps, ps.recs[from + CSV_MAX_ROWS].line, "more than %d rows", CSV_MAX_ROWS);
        goto done;
    }
    if (fmt == NULL)
        fmt = csv_guess_format(&ps, from, spec[C_DATE].col);
    res.decimal = m->decimal ? m->decimal : guess_mark(&ps, from, spec);
    res.nrows = ps.nrecs - from;
    if (res.nrows) {
        res.rows = calloc(res.nrows, sizeof *res.rows);
        if (res.rows == NULL) {
            res.nrows = 0;
            ledger_error_oom(err);
            goto done;
        }
    }
    width = file_width(&ps, from, res.has_header, head);
    for (i = 0; i < res.nrows; i++)
        if (build_row(&ps, &ps.recs[from + i], spec, res.columns, width, fmt, res.decimal, m,
                      &res.rows[i]))
            goto done;
    /* A currency with three decimals is the file's, not one row's: the
     * file is refused at its first such amount rather than imported in
     * part (or rounded). */
    for (i = 0; i < res.nrows; i++)
        if (res.rows[i].refuse) {
            csv_fail(&ps, res.rows[i].line, "%s", res.rows[i].error);
            goto done;
        }
    /* A signed column in which nothing is money out: the file likely
     * writes magnitudes, with the direction in a column of its own. */
    if (spec[C_AMOUNT].col >= 0 && spec[C_DIRECTION].col < 0) {
        int pos = 0, neg = 0;

        for (i = 0; i < res.nrows; i++) {
            pos |= res.rows[i].has_amount && res.rows[i].amount > 0;
            neg |= res.rows[i].has_amount && res.rows[i].amount < 0;
        }
        res.no_negative = pos && !neg;
    }
    res.delimiter = (char)ps.delim;
    snprintf(res.date_format, sizeof res.date_format, "%s", fmt ? fmt->name : "");
    res.charset = ps.charset;
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
    for (i = 0; r->rows && i < r->nrows; i++) {
        free(r->rows[i].description);
        free(r->rows[i].merchant);
        free(r->rows[i].category);
        free(r->rows[i].notes);
    }
    free(r->rows);
    memset(r, 0, sizeof *r);
}
