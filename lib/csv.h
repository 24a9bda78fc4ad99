/*
 * CSV bank exports, for the preview of POST /api/import/csv/preview (API.md
 * 9): the rows of a file as dates, descriptions and signed amounts, each
 * with the reason it could not be read, if any.
 *
 * Internal to libledger.  Nothing here touches the database: the preview is
 * shown to the user, edited, and committed by another call.
 */
#ifndef LEDGER_CSV_H
#define LEDGER_CSV_H

#include <stddef.h>
#include <stdint.h>
#include "ledger.h"

/* Bounds on the input; past any of them the file is a 400. */
#define CSV_MAX_FIELD 4096      /* bytes in one field, after unquoting */
#define CSV_MAX_FIELDS 200      /* fields in one row */
#define CSV_MAX_ROWS 100000     /* rows, not counting the header */
#define CSV_MAX_BYTES 0x40000000  /* the whole file: 1 GiB */
#define CSV_MAX_SKIP 1000       /* lines before the table a mapping may skip */
#define CSV_MAX_DESC 8          /* columns the description may be joined from */
#define CSV_MAX_WORDS 32        /* words a mapping's debit_values or credit_values may list */

/* Which columns hold what: a column NAME (matched case-insensitively and
 * trimmed against the header) or a 0-based INDEX given as decimal text;
 * NULL (or blank) when absent.  date is required; description may be
 * absent (every description is then ""); either amount, or debit and
 * credit. */
struct csv_mapping {
    const char *date, *description, *amount, *debit, *credit;
    const char *direction;    /* with amount: the column saying money out or in */
    const char *merchant, *category, *notes;  /* text columns kept beside the description */
    const char *description_more[CSV_MAX_DESC - 1];  /* further description columns, joined
                                                      * after the first in order */
    const char *debit_values[CSV_MAX_WORDS], *credit_values[CSV_MAX_WORDS];
    int ndebit_values, ncredit_values;  /* 0: the defaults (csv.c's top); else these only */
    const char *date_format;  /* "DD/MM/YYYY", "MM/DD/YYYY", "YYYY-MM-DD", "D MMM YYYY",
                               * "DD-MM-YYYY", "MM-DD-YYYY", "YYYY/MM/DD", "YYYY.MM.DD"
                               * (a trailing '.' allowed), "DD.MM.YYYY",
                               * "MMM D, YYYY", "YYYYMMDD" (and aliases such as
                               * "DD/MM/YY", "DD-MMM-YYYY"); NULL = guess from the column */
    int has_header;           /* -1 guess, 0 no, 1 yes */
    char delimiter;           /* 0 guess among , ; TAB |; else one of those */
    int negate;               /* flip the sign of the amount */
    char decimal;             /* decimal mark of the amounts: 0 guess, '.' or ',' */
    unsigned numbers;         /* bit i (date, description, amount, debit, credit, direction,
                               * merchant, category, notes, description_more[0..]): that
                               * column was given as a number, an index whatever the
                               * header holds; digits given as text may name a column */
    int skip_lines;           /* 0..CSV_MAX_SKIP: the file's first lines (as the rows'
                               * line numbers count them) are not read at all: account
                               * details or a summary above the header */
    const char *encoding;     /* the bytes' charset ("windows-1250", charset.c's names);
                               * NULL: UTF-8 when valid, else Windows-1252 */
};

struct csv_row {
    int line;                 /* 1-based line of the record's first line in the file */
    char date[11];            /* YYYY-MM-DD, "" when it could not be read */
    char *description;        /* UTF-8, trimmed; never NULL ("" if empty) */
    char *merchant, *category, *notes;  /* the mapped columns' text; NULL when unmapped or empty */
    int64_t amount;           /* signed cents: negative is money out */
    int has_amount;
    char error[256];          /* "" when the row is good; else why (shown to the user) */
    int refuse;               /* its amount is in a currency with three decimals: csv_parse
                               * refuses the file */
    char currency[4];         /* the ISO code written with its amount ("12.50 USD"), "" none */
};

struct csv_result {
    char **columns; size_t ncolumns;   /* header names, or "column 1".. when no header */
    struct csv_row *rows; size_t nrows;
    char delimiter; int has_header; char date_format[16];  /* what was used (detected or given);
                                                           * date_format "" when no value
                                                           * in the column is a date */
    char decimal;             /* '.' or ',': the decimal mark used for amounts */
    int header_line;          /* 1-based line of the header, 0 when there is none */
    int charset;              /* what the bytes were read as (CHARSET_* of text.h) */
    int no_negative;          /* a signed amount column, no direction, and no amount read
                               * is money out: likely a direction or debit/credit to map */
};

/* Parses buf[0..len) (no NUL terminator needed) with the mapping.  Row-level
 * problems (a bad date, a bad amount, a short row) go into that row's error
 * and the row is still returned; only problems with the file or the mapping
 * are errors: 400 invalid_field with field "csv" (not CSV at all, empty,
 * invalid UTF-8 after a BOM, over 100,000 rows, a quoted field never closed —
 * message naming the line) or "mapping.date" / "mapping.amount" / ... (a
 * column that does not exist; neither amount nor debit+credit given; both
 * given; an unknown date_format; skip_lines out of range, or skipping every
 * line with data in it), 500 internal when out of memory.  Never
 * reads past len, and leaves *out alone on failure.
 * The caller frees a successful result with csv_result_free. */
int csv_parse(const char *buf, size_t len, const struct csv_mapping *m,
              struct csv_result *out, ledger_error *err);
/* Frees what csv_parse allocated and empties *r; a second call is harmless. */
void csv_result_free(struct csv_result *r);

#endif
