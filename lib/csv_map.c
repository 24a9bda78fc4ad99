/*
 * A CSV mapping: which columns of the file are the date, the amount, the
 * description and the rest, read from what the client sends (indexes or
 * header names), checked before the file is read, then resolved against
 * the file's header.  csv.c builds the rows from the resolved columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_parts.h"
#include "db.h"
#include "text.h"

static const char *const col_field[C_N] = {
    "mapping.date", "mapping.description", "mapping.amount", "mapping.debit", "mapping.credit",
    "mapping.direction", "mapping.merchant", "mapping.category", "mapping.notes",
    "mapping.description[1]", "mapping.description[2]", "mapping.description[3]",
    "mapping.description[4]", "mapping.description[5]", "mapping.description[6]",
    "mapping.description[7]"
};

/* Text for a message: at most 40 bytes, cut at a character boundary with
 * "..." after it, control characters as spaces and bytes that are not UTF-8
 * (only a caller's mapping can hold them) as '?', so a message stays valid
 * UTF-8 and short. */
const char *csv_snip(const char *s, size_t n, char buf[48])
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

/* ---- the mapping ---------------------------------------------------------------------- */

static void spec_of(const char *s, struct colspec *c)
{
    size_t n, i;

    memset(c, 0, sizeof *c);
    c->col = -1;
    if (s == NULL)
        return;
    while (ascii_space((unsigned char)*s))
        s++;
    n = strlen(s);
    while (n > 0 && ascii_space((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return;
    c->s = s;
    c->n = n;
    c->is_index = 1;
    for (i = 0; i < n; i++)
        if (!ascii_digit((unsigned char)s[i]))
            c->is_index = 0;
    if (c->is_index) {
        c->index = 0;
        for (i = 0; i < n && c->index <= CSV_MAX_FIELDS; i++)
            c->index = c->index * 10 + (s[i] - '0');
    }
}

int csv_check_mapping(const struct csv_mapping *m, struct colspec spec[C_N],
                      const struct date_format **fmt, ledger_error *err)
{
    char sb[48];
    int i;

    if (m == NULL)
        return error_field(err, "mapping", "a column mapping is required");
    spec_of(m->date, &spec[C_DATE]);
    spec_of(m->description, &spec[C_DESC]);
    spec_of(m->amount, &spec[C_AMOUNT]);
    spec_of(m->debit, &spec[C_DEBIT]);
    spec_of(m->credit, &spec[C_CREDIT]);
    spec_of(m->direction, &spec[C_DIRECTION]);
    spec_of(m->merchant, &spec[C_MERCHANT]);
    spec_of(m->category, &spec[C_CATEGORY]);
    spec_of(m->notes, &spec[C_NOTES]);
    for (i = 0; i < CSV_MAX_DESC - 1; i++)
        spec_of(m->description_more[i], &spec[C_DESC2 + i]);
    for (i = 0; i < C_N; i++)
        spec[i].number = spec[i].s && (m->numbers >> i & 1u);
    if (spec[C_DATE].s == NULL)
        return error_field(err, "mapping.date",
                           "mapping.date is required: the date column's name or "
                           "0-based index");
    if (spec[C_AMOUNT].s && (spec[C_DEBIT].s || spec[C_CREDIT].s))
        return error_field(err, "mapping.amount",
                           "give either mapping.amount or mapping.debit and "
                           "mapping.credit, not both");
    if (spec[C_AMOUNT].s == NULL && spec[C_DEBIT].s == NULL && spec[C_CREDIT].s == NULL)
        return error_field(err, "mapping.amount",
                           "mapping.amount is required (or mapping.debit and mapping.credit)");
    for (i = C_DEBIT; i <= C_CREDIT; i++)
        if (spec[C_AMOUNT].s == NULL && spec[i].s == NULL)
            return error_field(err, col_field[i],
                               "%s is required with %s", col_field[i],
                               col_field[i == C_DEBIT ? C_CREDIT : C_DEBIT]);
    if (spec[C_DIRECTION].s && spec[C_AMOUNT].s == NULL)
        return error_field(err, "mapping.direction",
                           "mapping.direction goes with mapping.amount: with debit and "
                           "credit columns the column is the direction");
    if (m->ndebit_values < 0 || m->ndebit_values > CSV_MAX_WORDS
        || m->ncredit_values < 0 || m->ncredit_values > CSV_MAX_WORDS)
        return error_field(err, "mapping.debit_values",
                           "mapping.debit_values and mapping.credit_values list at most %d "
                           "values each", CSV_MAX_WORDS);
    if (m->has_header < -1 || m->has_header > 1)
        return error_field(err, "mapping.has_header",
                           "mapping.has_header must be true, false or absent (guess)");
    if (m->delimiter != 0 && m->delimiter != ',' && m->delimiter != ';'
        && m->delimiter != '\t' && m->delimiter != '|')
        return error_field(err, "mapping.delimiter",
                           "mapping.delimiter must be ',', ';', a tab or '|' "
                           "(or absent to guess)");
    if (m->decimal != 0 && m->decimal != '.' && m->decimal != ',')
        return error_field(err, "mapping.decimal",
                           "mapping.decimal must be '.' or ',' (or absent to guess)");
    if (m->skip_lines < 0 || m->skip_lines > CSV_MAX_SKIP)
        return error_field(err, "mapping.skip_lines",
                           "mapping.skip_lines must be a whole number of lines from 0 "
                           "to %d", CSV_MAX_SKIP);
    *fmt = NULL;
    if (m->date_format) {
        struct colspec f;

        spec_of(m->date_format, &f);
        if (f.s && (*fmt = csv_format_named(f.s, f.n)) == NULL)
            return error_field(err, "mapping.date_format",
                               "mapping.date_format '%s' is not one of DD/MM/YYYY, "
                               "MM/DD/YYYY, YYYY-MM-DD, D MMM YYYY, DD-MM-YYYY, "
                               "MM-DD-YYYY, YYYY/MM/DD, YYYY.MM.DD, DD.MM.YYYY, MMM D, YYYY, "
                               "YYYYMMDD",
                               csv_snip(f.s, f.n, sb));
    }
    return LEDGER_OK;
}

/* Whether a record's amount columns read as an amount (either mark). */
static int amount_ok(const struct parser *ps, const struct record *r, const struct colspec *spec)
{
    int i, any = 0;
    int64_t v;

    for (i = C_AMOUNT; i <= C_CREDIT; i++) {
        const char *s = spec[i].s ? csv_cell(ps, r, (int)spec[i].index) : NULL;

        if (s == NULL || *s == '\0')
            continue;
        if (csv_parse_money(s, '.', &v, NULL) != AMT_OK && csv_parse_money(s, ',', &v, NULL) != AMT_OK)
            return 0;
        any = 1;
    }
    return any;
}

int csv_header_guess(const struct parser *ps, const struct colspec *spec,
                     const struct date_format *fmt)
{
    const struct record *r1 = &ps->recs[0], *r2 = ps->nrecs > 1 ? &ps->recs[1] : NULL;
    const char *d1, *d2;
    int i;

    for (i = 0; i < C_N; i++)
        if (spec[i].s && !spec[i].is_index)
            return 1;   /* names are looked up in a header */
    d1 = csv_cell(ps, r1, (int)spec[C_DATE].index);
    if ((d1 && csv_is_date(d1, fmt)) || amount_ok(ps, r1, spec))
        return 0;
    if (r2 == NULL)
        return 1;
    d2 = csv_cell(ps, r2, (int)spec[C_DATE].index);
    return d2 && csv_is_date(d2, fmt) && amount_ok(ps, r2, spec);
}

/* Finds each mapped column among the columns. */
int csv_resolve(struct parser *ps, struct colspec *spec, char **columns, size_t ncolumns,
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
                return error_field(ps->err, col_field[i],
                                   "%s: there is no column %s: the file has %zu column%s "
                                   "(indexes start at 0)", col_field[i],
                                   csv_snip(c->s, c->n, sb), ncolumns, ncolumns == 1 ? "" : "s");
            c->col = (int)c->index;
            continue;
        }
        for (j = 0; j < ncolumns && c->col < 0; j++)
            if (csv_same_word(c->s, c->n, columns[j]))
                c->col = (int)j;
        if (c->col >= 0)
            continue;
        /* the columns there are, for the message; each name is at most 43
         * bytes, so the list never fills */
        list[0] = '\0';
        for (j = 0, o = 0; j < ncolumns && o < 70; j++) {
            char cb[48];

            o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", j ? ", " : "",
                                  csv_snip(columns[j], strlen(columns[j]), cb));
        }
        return error_field(ps->err, col_field[i],
                           "%s: no column '%s' in the header (it has %s%s)", col_field[i],
                           csv_snip(c->s, c->n, sb), list, j < ncolumns ? ", ..." : "");
    }
    return LEDGER_OK;
}
