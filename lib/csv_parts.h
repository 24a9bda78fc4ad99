/* The CSV reader's parts, private to libledger: csv_read.c reads the
 * bytes into records of fields, csv_value.c reads dates and amounts, and
 * csv.c maps the columns and builds the rows (csv_parse). */
#ifndef LEDGER_CSV_PARTS_H
#define LEDGER_CSV_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "csv.h"

/* The records the header may be found among (csv.c's top). */
#define CSV_HEADER_SEARCH 30

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
    unsigned char *utf8;      /* owned: the text converted from a single-byte charset */
    int charset;              /* what the bytes were read as (CHARSET_*) */
    unsigned char delim;
    char *arena;              /* every field, unquoted, trimmed, NUL-terminated */
    struct field *fields;
    size_t nfields, fields_cap;
    struct record *recs;
    size_t nrecs, recs_cap;
    ledger_error *err;
};

/* Field i of record r, or NULL when the record is shorter. */
static inline const char *csv_cell(const struct parser *ps, const struct record *r, int i)
{
    if (i < 0 || (unsigned)i >= r->nfields)
        return NULL;
    return ps->arena + ps->fields[r->first + (unsigned)i].off;
}

static inline size_t csv_cell_len(const struct parser *ps, const struct record *r, int i)
{
    return ps->fields[r->first + (unsigned)i].len;
}

/* ---- csv_read.c: the file into records ----------------------------------- */

/* The file's one error: 400 invalid_field "csv", "line N: " before the
 * message when line is above 0. */
int csv_fail(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reads buf[0..len) into ps's records: the bytes checked and made UTF-8
 * (read in m's encoding, or guessed), m's skip_lines first lines passed
 * over, the delimiter guessed when m gives none, every record split into
 * trimmed fields.  A file that is not CSV is a 400; ps owns what it
 * allocated, freed or not. */
int csv_read(struct parser *ps, const char *buf, size_t len, const struct csv_mapping *m);

/* ---- csv_value.c: dates and amounts -------------------------------------- */

/* Whether s[0..n) equals the NUL-terminated w, ignoring ASCII case. */
int csv_same_word(const char *s, size_t n, const char *w);

/* A date format: its name (as a mapping gives it) and its pattern. */
struct date_format {
    const char *name, *pat;
};
enum { DT_OK, DT_NOMATCH, DT_NOTREAL };
/* Reads s with format f into out (YYYY-MM-DD): DT_OK, DT_NOMATCH when the
 * shape or a range (day 1-31, month 1-12, year 1900-9999) does not fit,
 * DT_NOTREAL for a day the month does not have. */
int csv_parse_date(const char *s, const struct date_format *f, char out[11]);
/* The format named s[0..n) (a name or an alias, any case), or NULL. */
const struct date_format *csv_format_named(const char *s, size_t n);
/* Whether s is a date in fmt, or in any format when fmt is NULL. */
int csv_is_date(const char *s, const struct date_format *fmt);
/* The format of column col of the records from `from` on (csv_value.c's top),
 * or NULL when no value in it is a date. */
const struct date_format *csv_guess_format(const struct parser *ps, size_t from, int col);

enum { AMT_OK, AMT_NAN, AMT_DECIMALS, AMT_RANGE, AMT_SIGNS, AMT_THREE };
/* Why an amount is not one, by csv_parse_money's answer. */
extern const char *const csv_amount_why[];
/* Reads an amount as bank exports write it with the decimal mark `mark`
 * into signed cents: AMT_OK or why not (AMT_THREE: its currency has three
 * decimal places, which cents cannot hold; csv_parse refuses the file).
 * code, when not NULL, is set to the ISO code the amount names (a
 * three-letter code or an Arabic-letter symbol), "" for none. */
int csv_parse_money(const char *s, char mark, int64_t *cents, char code[4]);
/* Which decimal mark an amount shows: ',' for 12,50 or 1.234,56, '.' for
 * 12.50 or 1,234.56, 0 when it cannot tell (1,234 or 1234). */
char csv_decimal_evidence(const char *s);

/* The mapped columns: those a row must have (date to direction), then
 * the text kept beside the description and the description's further
 * columns, which a short row may lack (they are then empty). */
enum {
    C_DATE, C_DESC, C_AMOUNT, C_DEBIT, C_CREDIT, C_DIRECTION, C_MERCHANT, C_CATEGORY, C_NOTES,
    C_DESC2, C_N = C_DESC2 + CSV_MAX_DESC - 1
};

struct colspec {
    const char *s;            /* trimmed, s[0..n); NULL when absent */
    size_t n;
    int is_index;             /* digits only: an index, unless a name (see resolve) */
    int number;               /* given as a number: an index, never a name */
    long index;
    int col;                  /* resolved column, -1 when absent */
};

/* Text for a message: s[0..n) cut to 40 bytes at a character boundary,
 * control characters as spaces, bytes that are not UTF-8 as '?'. */
const char *csv_snip(const char *s, size_t n, char buf[48]);
/* Checks the mapping before the file is read, into spec[] (csv_map.c);
 * *fmt is its date format, NULL to guess. */
int csv_check_mapping(const struct csv_mapping *m, struct colspec spec[C_N],
                      const struct date_format **fmt, ledger_error *err);
/* Whether the first record is a header, for a mapping by indexes. */
int csv_header_guess(const struct parser *ps, const struct colspec *spec,
                     const struct date_format *fmt);
/* Resolves spec's names and indexes to columns of the file. */
int csv_resolve(struct parser *ps, struct colspec *spec, char **columns, size_t ncolumns,
                int has_header);

#endif
