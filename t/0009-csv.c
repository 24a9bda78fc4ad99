/* CSV bank exports: quoting, delimiters, encodings, dates, amounts and the
 * guesses, as real exports write them; row problems kept in the row; file
 * and mapping problems a 400 naming the line or the mapping field; and
 * malformed input, which must never crash. */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdint.h>
#include <time.h>

#include "fields.h"
#include "csv.h"
#include "tap.h"
#include "text.h"
#include "textcheck.h"

#define S(lit) lit, sizeof(lit) - 1
#define NOAMT INT64_MIN   /* a row without an amount */

static struct csv_mapping map3(const char *date, const char *desc, const char *amount)
{
    struct csv_mapping m;

    memset(&m, 0, sizeof m);
    m.date = date;
    m.description = desc;
    m.amount = amount;
    m.has_header = -1;
    return m;
}

static struct csv_mapping map_dc(const char *date, const char *desc, const char *debit,
                                 const char *credit)
{
    struct csv_mapping m = map3(date, desc, NULL);

    m.debit = debit;
    m.credit = credit;
    return m;
}

static int parse(const char *buf, size_t len, const struct csv_mapping *m,
                 struct csv_result *res, ledger_error *err)
{
    char *copy = exact(buf, len);
    int rc;

    ledger_error_clear(err);
    rc = csv_parse(copy, len, m, res, err);
    free(copy);
    return rc;
}

static int parses(const char *buf, size_t len, const struct csv_mapping *m,
                  struct csv_result *res, const char *what)
{
    ledger_error err;

    if (!ok(parse(buf, len, m, res, &err) == LEDGER_OK, "%s parses", what)) {
        printf("#   %d %s: %s\n", err.status, err.field, err.message);
        memset(res, 0, sizeof *res);
        return 0;
    }
    return 1;
}

/* Refused with 400 invalid_field on field, a message containing want (and
 * starting with it when want starts "line "), and *out left alone. */
static void refuses(const char *buf, size_t len, const struct csv_mapping *m, const char *field,
                    const char *want, const char *what)
{
    struct csv_result res, before;
    ledger_error err;
    int rc;

    memset(&res, 0x5A, sizeof res);
    before = res;
    rc = parse(buf, len, m, &res, &err);
    ok(rc == LEDGER_ERR && err.status == 400 && strcmp(err.code, "invalid_field") == 0
       && strcmp(err.field, field) == 0 && strstr(err.message, want) != NULL
       && (strncmp(want, "line ", 5) != 0 || strncmp(err.message, want, strlen(want)) == 0)
       && memcmp(&res, &before, sizeof res) == 0,
       "%s: a 400 on %s (%s: %s)", what, field, err.field, err.message);
    if (rc == LEDGER_OK)
        csv_result_free(&res);
}

/* Row i is exactly this; amount NOAMT for none, error "" for a good row. */
static void row_is(const struct csv_result *r, size_t i, int line, const char *date,
                   const char *desc, int64_t amount, const char *error, const char *what)
{
    const struct csv_row *x;
    int good;

    if (i >= r->nrows) {
        ok(0, "%s: row %zu exists (%zu rows)", what, i, r->nrows);
        return;
    }
    x = &r->rows[i];
    good = x->line == line && strcmp(x->date, date) == 0 && x->description
           && strcmp(x->description, desc) == 0
           && (amount == NOAMT ? !x->has_amount : x->has_amount && x->amount == amount)
           && strcmp(x->error, error) == 0;
    if (!ok(good, "%s", what))
        printf("#   got line %d, date '%s', description '%s', amount %s%lld, error '%s'\n"
               "#  want line %d, date '%s', description '%s', amount %lld, error '%s'\n",
               x->line, x->date, x->description ? x->description : "(null)",
               x->has_amount ? "" : "(none) ", (long long)x->amount, x->error,
               line, date, desc, (long long)amount, error);
}

/* ---- helpers for checking any result ------------------------------------------ */

/* Everything a successful parse promises, whatever the input was. */
static int result_sane(const struct csv_result *r)
{
    size_t i;
    int last = 0;

    if (r->ncolumns == 0 || r->ncolumns > CSV_MAX_FIELDS || r->columns == NULL
        || r->nrows > CSV_MAX_ROWS || (r->nrows && r->rows == NULL)
        || (r->has_header != 0 && r->has_header != 1)
        || strchr(",;\t|", r->delimiter) == NULL || r->delimiter == 0
        || (r->decimal != '.' && r->decimal != ',')
        || (r->has_header ? r->header_line < 1 : r->header_line != 0)
        || (r->has_header && r->nrows && r->rows[0].line <= r->header_line))
        return 0;
    for (i = 0; i < r->ncolumns; i++)
        if (r->columns[i] == NULL || r->columns[i][0] == '\0' || !valid_utf8(r->columns[i]))
            return 0;
    for (i = 0; i < r->nrows; i++) {
        const struct csv_row *x = &r->rows[i];
        const char *d = x->description;
        size_t n;

        if (x->line <= last || memchr(x->error, 0, sizeof x->error) == NULL
            || !valid_utf8(x->error) || d == NULL || !valid_utf8(d)
            || (x->date[0] && !is_ymd(x->date))
            || ((x->date[0] == '\0' || !x->has_amount) && x->error[0] == '\0')
            || (x->has_amount && (x->amount > LEDGER_MONEY_MAX_CENTS
                                  || x->amount < -LEDGER_MONEY_MAX_CENTS)))
            return 0;
        n = strlen(d);
        if (n && (d[0] == ' ' || d[n - 1] == ' '))
            return 0;
        for (; *d; d++)
            if ((unsigned char)*d < 0x20)
                return 0;
        last = x->line;
    }
    return 1;
}

/* A refusal as promised: 400 invalid_field on "csv" or a mapping field,
 * with a message in valid UTF-8. */
static int error_sane(const ledger_error *err)
{
    return err->status == 400 && strcmp(err->code, "invalid_field") == 0
           && (strcmp(err->field, "csv") == 0 || strncmp(err->field, "mapping", 7) == 0)
           && err->message[0] && valid_utf8(err->message);
}

/* ---- a typical export ------------------------------------------------------------ */

static void basic(void)
{
    static const char file[] =
        "Date,Description,Amount\r\n"
        "03/01/2025,Coffee,-4.50\r\n"
        "13/01/2025,\"Salary, January\",3200.00\r\n"
        "\r\n"
        "14/01/2025,  Rent  ,-1500\r\n";
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;

    if (parses(S(file), &m, &r, "a CRLF file with a header, mapped by name")) {
        is_int(r.ncolumns, 3, "three columns");
        is_str(r.columns[0], "Date", "column 0 named from the header");
        is_str(r.columns[2], "Amount", "column 2 named from the header");
        is_int(r.delimiter, ',', "',' guessed");
        is_int(r.has_header, 1, "a mapping by name implies a header");
        is_str(r.date_format, "DD/MM/YYYY", "DD/MM/YYYY guessed (13/01)");
        is_int(r.decimal, '.', "decimal point");
        is_int(r.charset, CHARSET_UTF8, "UTF-8 (ASCII)");
        is_int(r.nrows, 3, "three rows: the blank line is skipped");
        row_is(&r, 0, 2, "2025-01-03", "Coffee", -450, "", "row 1");
        row_is(&r, 1, 3, "2025-01-13", "Salary, January", 320000, "",
               "a quoted comma; 3200.00");
        row_is(&r, 2, 5, "2025-01-14", "Rent", -150000, "",
               "after a blank line: line 5, description trimmed");
        csv_result_free(&r);
        ok(r.rows == NULL && r.nrows == 0 && r.columns == NULL,
           "csv_result_free empties the result");
        csv_result_free(&r);   /* and a second free is harmless */
    }
    m = map3(" date ", "DESCRIPTION", "aMoUnT");
    if (parses(S(file), &m, &r, "names are matched trimmed and in any case")) {
        row_is(&r, 0, 2, "2025-01-03", "Coffee", -450, "", "row 1 by other spellings");
        csv_result_free(&r);
    }
    m = map3("0", "1", "2");
    if (parses(S(file), &m, &r, "mapped by index, header guessed")) {
        is_int(r.has_header, 1, "the header is detected: its date and amount do not parse");
        is_str(r.columns[1], "Description", "header names kept");
        is_int(r.nrows, 3, "three rows");
        row_is(&r, 1, 3, "2025-01-13", "Salary, January", 320000, "", "row 2 by index");
        csv_result_free(&r);
    }
    m = map3("0", NULL, "2");
    if (parses(S(file), &m, &r, "no description column")) {
        row_is(&r, 0, 2, "2025-01-03", "", -450, "", "an absent description is \"\"");
        csv_result_free(&r);
    }
}

/* ---- delimiters ----------------------------------------------------------------- */

static void delimiters(void)
{
    static const struct {
        const char *file, *what, *desc;
        char delim;
    } cases[] = {
        {"Date,Description,Amount\n03/01/2025,Coffee; large,-4.50\n04/01/2025,Tea,1.00\n",
         "',' (a ';' in one description)", "Coffee; large", ','},
        {"Date;Description;Amount\n03/01/2025;Coffee, large;-4.50\n04/01/2025;Tea;1.00\n",
         "';' (a ',' in one description)", "Coffee, large", ';'},
        {"Date\tDescription\tAmount\n03/01/2025\tCoffee, large\t-4.50\n04/01/2025\tTea\t1.00\n",
         "tab", "Coffee, large", '\t'},
        {"Date|Description|Amount\n03/01/2025|Coffee, large|-4.50\n04/01/2025|Tea|1.00\n",
         "'|'", "Coffee, large", '|'},
        {"Date;Description;Amount\n\"03/01/2025\";\"a;b;c\";\"-4.50\"\n04/01/2025;Tea;1.00\n",
         "';' inside quotes are not counted", "a;b;c", ';'},
    };
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (parses(cases[i].file, strlen(cases[i].file), &m, &r, cases[i].what)) {
            is_int(r.delimiter, cases[i].delim, "%s: delimiter guessed", cases[i].what);
            is_int(r.nrows, 2, "%s: two rows", cases[i].what);
            row_is(&r, 0, 2, "2025-01-03", cases[i].desc, -450, "", cases[i].what);
            row_is(&r, 1, 3, "2025-01-04", "Tea", 100, "", cases[i].what);
            csv_result_free(&r);
        }
    }
    /* ';' with decimal commas in every data row: the header settles it */
    m = map3("Datum", "Text", "Betrag");
    if (parses(S("Datum;Text;Betrag\n03.01.2025;Kaffee;-4,50\n04.01.2025;Tee;1,00\n"), &m, &r,
               "a ';' file with decimal commas")) {
        is_int(r.delimiter, ';', "';' beats the decimal commas");
        is_int(r.decimal, ',', "decimal comma guessed");
        is_str(r.date_format, "DD.MM.YYYY", "DD.MM.YYYY guessed");
        row_is(&r, 0, 2, "2025-01-03", "Kaffee", -450, "", "-4,50 under a decimal comma");
        csv_result_free(&r);
    }
    /* No header and a ',' in every description of a ';' file: as many ','
     * as ';' on each line, and ';' wins the tie (',' would read every row
     * wrong: "50.00 credit" for a 12.50 debit). */
    m = map3("0", "1", "2");
    m.has_header = 0;
    if (parses(S("03.01.2025;REWE, Berlin;-12,50\n04.01.2025;ALDI, Hamburg;-7,99\n"
                 "05.01.2025;Lohn, Januar;2500,00\n"), &m, &r, "a ';' file, a ',' in every description")) {
        is_int(r.delimiter, ';', "';' wins the tie with ','");
        row_is(&r, 0, 1, "2025-01-03", "REWE, Berlin", -1250, "", "the first row read right");
        csv_result_free(&r);
    }
    /* And the mirror: a ',' file with as many ';' (or '|') in every
     * description: the delimiter that splits off the dates and amounts
     * wins, not the rarer (a re-check found every row read wrong). */
    if (parses(S("2024-01-05,EFTPOS; CARD; AU,-4.50\n2024-01-06,EFTPOS; WOOLIES; AU,-10.00\n"), &m, &r,
               "a ',' file, two ';' in every description")) {
        is_int(r.delimiter, ',', "',' wins the tie with ';'");
        row_is(&r, 0, 1, "2024-01-05", "EFTPOS; CARD; AU", -450, "", "the first row read right");
        csv_result_free(&r);
    }
    if (parses(S("2024-01-05,A|B|C,-4.50\n2024-01-06,D|E|F,-10.00\n"), &m, &r,
               "a ',' file, '|' in every description")) {
        is_int(r.delimiter, ',', "',' wins the tie with '|'");
        csv_result_free(&r);
    }
    /* What counts is a field that is only an amount or a date: not text
     * beyond ASCII, nor a bare reference number (a second re-check). */
    if (parses(S("2024-01-05,\xd0\x9e\xd0\xbf\xd0\xbb\xd0\xb0\xd1\x82\xd0\xb0; \xd0\xba\xd0\xb0\xd1\x84\xd0\xb5; \xd0\x9c,-4.50\n"
                 "2024-01-06,\xd0\x9e\xd0\xbf\xd0\xbb\xd0\xb0\xd1\x82\xd0\xb0; \xd1\x87\xd0\xb0\xd0\xb9; \xd0\x9c,-1.00\n"),
               &m, &r, "a ',' file, a ';' in every Cyrillic description")) {
        is_int(r.delimiter, ',', "',' wins the tie with ';' under Cyrillic text");
        csv_result_free(&r);
    }
    if (parses(S("2024-01-05,BPAY; 12345; 67890,-4.50\n2024-01-06,BPAY; 22222; 33333,-1.00\n"), &m, &r,
               "a ',' file, reference numbers between ';'")) {
        is_int(r.delimiter, ',', "',' wins the tie with ';' around reference numbers");
        csv_result_free(&r);
    }
    /* given, not guessed */
    m = map3("0", "1", "2");
    m.delimiter = '|';
    m.has_header = 0;
    if (parses(S("03/01/2025|a,b;c|1.00\n"), &m, &r, "a given delimiter")) {
        is_int(r.delimiter, '|', "'|' as given");
        row_is(&r, 0, 1, "2025-01-03", "a,b;c", 100, "", "one row with , and ; in it");
        csv_result_free(&r);
    }
    /* a preamble line with another count does not stop the guess */
    m = map3("0", "1", "2");
    m.has_header = 0;
    if (parses(S("03/01/2025;x;1.00\n04/01/2025;y;2.00\n05/01/2025;z;3.00\nTotal;6.00\n"), &m, &r,
               "one odd line: the count most lines agree on")) {
        is_int(r.delimiter, ';', "';' still guessed");
        is_int(r.nrows, 4, "four rows");
        row_is(&r, 3, 4, "", "6.00", NOAMT,
               "the row has only 2 fields: 'column 3' is missing; "
               "date 'Total' is not a date in the format DD/MM/YYYY",
               "the short total line is kept with an error");
        csv_result_free(&r);
    }
}

/* ---- quoting, line breaks, BOM, encodings ------------------------------------------ */

static void quoting(void)
{
    static const char file[] =
        "Date,Description,Amount\n"
        "03/01/2025,\"Smith, J \"\"Jr\"\"\",-1.00\n"
        "04/01/2025,\"line one\nline two\r\nline three\",-2.00\n"
        "05/01/2025,after,-3.00\n"
        "06/01/2025,  \"spaced quotes\"  ,-4.00\n"
        "07/01/2025,5\" pipe,-5.00\n"
        "08/01/2025,\"\",-6.00\n"
        "09/01/2025,\"quoted\" tail,-7.00\n"
        "10/01/2025,tab\there,\"-8.00\"";
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;

    if (parses(S(file), &m, &r, "RFC 4180 quoting")) {
        is_int(r.nrows, 8, "eight rows");
        row_is(&r, 0, 2, "2025-01-03", "Smith, J \"Jr\"", -100, "", "doubled quotes and a comma");
        row_is(&r, 1, 3, "2025-01-04", "line one line two line three", -200, "",
               "embedded LF and CRLF become spaces");
        row_is(&r, 2, 6, "2025-01-05", "after", -300, "",
               "the row after a three-line field is on line 6");
        row_is(&r, 3, 7, "2025-01-06", "spaced quotes", -400, "", "spaces around quotes");
        row_is(&r, 4, 8, "2025-01-07", "5\" pipe", -500, "", "a quote inside a field is text");
        row_is(&r, 5, 9, "2025-01-08", "", -600, "", "an empty quoted field");
        row_is(&r, 6, 10, "2025-01-09", "quoted tail", -700, "", "text after a closing quote");
        row_is(&r, 7, 11, "2025-01-10", "tab here", -800, "",
               "a tab in a description; a quoted amount; no line break at the end");
        csv_result_free(&r);
    }
    refuses(S("Date,Description,Amount\n03/01/2025,Coffee,-4.50\n04/01/2025,\"never closed,-1\n"
              "05/01/2025,x,1\n"), &m, "csv", "line 3: a quoted field is never closed",
            "an unterminated quote names the line it opened on");
    refuses(S("Date,Description,Amount\n\"03/01/2025"), &m, "csv",
            "line 2: a quoted field is never closed", "a quote cut by the end of the file");
}

static void line_endings(void)
{
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;

    if (parses(S("Date,Description,Amount\r03/01/2025,a,1\r\r04/01/2025,\"b\rc\",2\r"), &m, &r,
               "old Mac CR line endings")) {
        is_int(r.nrows, 2, "two rows");
        row_is(&r, 0, 2, "2025-01-03", "a", 100, "", "CR: row 1");
        row_is(&r, 1, 4, "2025-01-04", "b c", 200, "", "CR: a blank line, a CR in quotes");
        csv_result_free(&r);
    }
    if (parses(S("Date,Description,Amount\n03/01/2025,a,1\n\n  \n,,\n04/01/2025,b,2\n\n"), &m, &r,
               "LF, blank and empty-field lines")) {
        is_int(r.nrows, 2, "blank lines and ',,' skipped");
        row_is(&r, 1, 6, "2025-01-04", "b", 200, "", "line numbers count skipped lines");
        csv_result_free(&r);
    }
    if (parses(S("\xef\xbb\xbf" "Date,Description,Amount\r\n03/01/2025,Caf\xc3\xa9,1\r\n"), &m, &r,
               "a UTF-8 BOM")) {
        is_str(r.columns[0], "Date", "the BOM is not part of the first name");
        row_is(&r, 0, 2, "2025-01-03", "Caf\xc3\xa9", 100, "", "UTF-8 text after a BOM");
        is_int(r.charset, CHARSET_UTF8, "read as UTF-8");
        csv_result_free(&r);
    }
    if (parses(S("Date,Description,Amount\n03/01/2025,Caf\xe9 \x80 5,1\n04/01/2025,\x93quoted\x94,2\n"
                 "05/01/2025,x\x81y,3\n\x1a"), &m, &r, "Windows-1252 (invalid UTF-8, no BOM)")) {
        is_int(r.charset, CHARSET_WINDOWS_1252, "read as Windows-1252");
        row_is(&r, 0, 2, "2025-01-03", "Caf\xc3\xa9 \xe2\x82\xac 5", 100, "",
               "0xE9 and 0x80 (euro) converted");
        row_is(&r, 1, 3, "2025-01-04", "\xe2\x80\x9cquoted\xe2\x80\x9d", 200, "", "curly quotes");
        row_is(&r, 2, 4, "2025-01-05", "x\xef\xbf\xbdy", 300, "",
               "an undefined byte becomes U+FFFD; a DOS EOF mark is dropped");
        csv_result_free(&r);
    }
    refuses(S("\xef\xbb\xbf" "Date,Description,Amount\n03/01/2025,Caf\xe9,1\n"), &m, "csv",
            "line 2: invalid UTF-8, though the file starts with a UTF-8 byte order mark",
            "invalid UTF-8 after a BOM");
    /* The mapping's encoding: the Windows code pages the guess cannot
     * tell apart. */
    m.encoding = "Windows-1250";
    if (parses(S("Date,Description,Amount\n03/01/2025,F\xd5V\xc1ROSI V\xcdZM\xdbVEK \x8a\x8d,1\n"),
               &m, &r, "Windows-1250 named")) {
        is_int(r.charset, CHARSET_WINDOWS_1250, "read as Windows-1250");
        row_is(&r, 0, 2, "2025-01-03",
               "F\xc5\x90V\xc3\x81ROSI V\xc3\x8dZM\xc5\xb0VEK \xc5\xa0\xc5\xa4", 100, "",
               "\xc5\x90 and \xc5\xb0 (not \xc3\x95 and \xc3\x9b as Windows-1252 reads them)");
        csv_result_free(&r);
    }
    m.encoding = "latin2";
    if (parses(S("Date,Description,Amount\n03/01/2025,\xa9koda \xb1\x85,1\n"), &m, &r,
               "ISO-8859-2 by a label")) {
        is_int(r.charset, CHARSET_ISO_8859_2, "read as ISO-8859-2");
        row_is(&r, 0, 2, "2025-01-03", "\xc5\xa0koda \xc4\x85\xef\xbf\xbd", 100, "",
               "0xA9, 0xB1 converted; a C1 control byte becomes U+FFFD");
        csv_result_free(&r);
    }
    m.encoding = "windows-1251";
    if (parses(S("Date,Description,Amount\n03/01/2025,\xcf\xf0\xee\xe4\xf3\xea\xf2\xfb,1\n"),
               &m, &r, "Windows-1251 named")) {
        row_is(&r, 0, 2, "2025-01-03",
               "\xd0\x9f\xd1\x80\xd0\xbe\xd0\xb4\xd1\x83\xd0\xba\xd1\x82\xd1\x8b", 100, "",
               "Cyrillic converted");
        csv_result_free(&r);
    }
    m.encoding = "iso-8859-15";
    if (parses(S("Date,Description,Amount\n03/01/2025,Caf\xc3\xa9,1\n"), &m, &r,
               "a named single-byte code page is believed even for valid UTF-8")) {
        row_is(&r, 0, 2, "2025-01-03", "Caf\xc3\x83\xc2\xa9", 100, "", "two ISO-8859-15 characters");
        csv_result_free(&r);
    }
    if (parses(S("Date,Description,Amount\n03/01/2025,Cafe,1\n"), &m, &r, "ASCII in a named code page")) {
        is_int(r.charset, CHARSET_ISO_8859_15, "reported as the named code page");
        csv_result_free(&r);
    }
    m.encoding = "utf-8";
    refuses(S("Date,Description,Amount\n03/01/2025,Caf\xe9,1\n"), &m, "csv",
            "line 2: invalid UTF-8, though mapping.encoding says utf-8", "invalid UTF-8 named UTF-8");
    m.encoding = "windows-1250";
    refuses(S("\xef\xbb\xbf" "Date,Description,Amount\n03/01/2025,Cafe,1\n"), &m, "csv",
            "line 1: the file starts with a UTF-8 byte order mark, but mapping.encoding says "
            "windows-1250", "a BOM against the named code page");
    m.encoding = "ebcdic";
    refuses(S("Date,Description,Amount\n03/01/2025,Cafe,1\n"), &m, "mapping.encoding",
            "mapping.encoding must be one of " CHARSET_NAMES, "an encoding not read here");
    m.encoding = NULL;
}

/* ---- the file and the mapping ------------------------------------------------------- */

static void bad_files(void)
{
    struct csv_mapping m = map3("Date", "Description", "Amount");
    char *big;
    size_t i, n;

    refuses(S(""), &m, "csv", "the file is empty", "no bytes");
    refuses(S("\xef\xbb\xbf \r\n\r\n"), &m, "csv", "the file is empty", "a BOM and blank lines");
    refuses(S(",,,\n;;\n"), &m, "csv", "the file is empty", "only empty fields");
    refuses(S("Date,Amount\n03/01/2025,\0\n"), &m, "csv",
            "line 2: binary data (byte 0x00): not a CSV text file", "a NUL byte");
    refuses(S("PK\x03\x04\x14\x00"), &m, "csv", "line 1: binary data (byte 0x03)",
            "a spreadsheet (zip)");
    {
        /* never read: the size alone is refused */
        static const char one = 'x';
        struct csv_result r;
        ledger_error err;

        ok(csv_parse(&one, (size_t)CSV_MAX_BYTES + 1, &m, &r, &err) == LEDGER_ERR
           && err.status == 400 && strcmp(err.field, "csv") == 0
           && strstr(err.message, "the file is larger than") != NULL,
           "a file over 1 GiB is refused by its size (%s)", err.message);
    }
    refuses(S("\xff\xfe" "D\0a\0"), &m, "csv", "line 1: UTF-16 files are not supported", "UTF-16");
    refuses(S("\n<html><body>Date,Amount</body></html>\n"), &m, "csv",
            "line 2: not a CSV file: it starts with '<'", "an HTML page");
    refuses(S("OFXHEADER:100\nDATA:OFXSGML\n"), &m, "csv", "line 1: not a CSV file but OFX",
            "an OFX file");
    refuses(S("just some text\nand more text\n"), &m, "csv",
            "line 1: not a CSV file: no comma, semicolon, tab or '|' separates fields",
            "plain text");

    big = alloc(8000);
    n = (size_t)sprintf(big, "a,b,\"");
    for (i = 0; i < 4100; i++)
        big[n++] = 'x';
    big[n++] = '"';
    refuses(big, n, &m, "csv", "line 1: a quoted field longer than 4096 bytes",
            "a quoted field over the bound");
    n = (size_t)sprintf(big, "Date,Description,Amount\n03/01/2025,");
    for (i = 0; i < 4097; i++)
        big[n++] = 'x';
    refuses(big, n, &m, "csv", "line 2: a field longer than 4096 bytes", "a field over the bound");
    n = (size_t)sprintf(big, "Date,Description,Amount\n03/01/2025");
    for (i = 0; i < 200; i++)
        big[n++] = ',';
    refuses(big, n, &m, "csv", "line 2: more than 200 fields in a row", "201 fields");
    n = (size_t)sprintf(big, "Date,Description,Amount\n03/01/2025");
    for (i = 0; i < 199; i++)
        big[n++] = ',';
    {
        struct csv_result r;

        if (parses(big, n, &m, &r, "200 fields is within the bound")) {
            is_int(r.ncolumns, 200, "200 columns");
            is_str(r.columns[199], "column 200", "columns past the header are numbered");
            csv_result_free(&r);
        }
    }
    free(big);
}

static void mapping_errors(void)
{
    static const char file[] = "Date,Description,Amount\n03/01/2025,Coffee,-4.50\n";
    struct csv_mapping m;

    m = map3(NULL, "Description", "Amount");
    refuses(S(file), &m, "mapping.date", "mapping.date is required", "no date column");
    m = map3("  ", "Description", "Amount");
    refuses(S(file), &m, "mapping.date", "mapping.date is required", "a blank date column");
    m = map3("Date", "Description", NULL);
    refuses(S(file), &m, "mapping.amount",
            "mapping.amount is required (or mapping.debit and mapping.credit)",
            "neither amount nor debit and credit");
    m = map_dc("Date", "Description", "Amount", "Amount");
    m.amount = "Amount";
    refuses(S(file), &m, "mapping.amount",
            "give either mapping.amount or mapping.debit and mapping.credit, not both",
            "both amount and debit/credit");
    m = map_dc("Date", "Description", "Amount", NULL);
    refuses(S(file), &m, "mapping.credit", "mapping.credit is required with mapping.debit",
            "debit without credit");
    m = map_dc("Date", "Description", NULL, "Amount");
    refuses(S(file), &m, "mapping.debit", "mapping.debit is required with mapping.credit",
            "credit without debit");
    m = map3("Date", "Description", "Betrag");
    refuses(S(file), &m, "mapping.amount",
            "mapping.amount: no column 'Betrag' in the header (it has 'Date', 'Description', "
            "'Amount')", "a column name that is not in the header");
    m = map3("Datum", "Description", "Amount");
    refuses(S(file), &m, "mapping.date", "no column 'Datum'", "a date column not in the header");
    m = map3("Date", "Memo", "Amount");
    refuses(S(file), &m, "mapping.description", "no column 'Memo'", "a description not there");
    m = map3("0", "1", "3");
    refuses(S(file), &m, "mapping.amount",
            "mapping.amount: there is no column 3: the file has 3 columns (indexes start at 0)",
            "an index past the last column");
    m = map3("0", "1", "99999999999999999999");
    refuses(S(file), &m, "mapping.amount", "there is no column 99999999999999999999",
            "a huge index");
    m = map_dc("0", "1", "2", "7");
    refuses(S(file), &m, "mapping.credit", "there is no column 7", "a credit index past the end");
    m = map3("Date", "Description", "Amount");
    m.date_format = "YYYY-DD-MM";
    refuses(S(file), &m, "mapping.date_format", "mapping.date_format 'YYYY-DD-MM' is not one of",
            "an unknown date format");
    m = map3("Date", "Description", "Amount");
    m.delimiter = 'x';
    refuses(S(file), &m, "mapping.delimiter", "mapping.delimiter must be", "a bad delimiter");
    m = map3("Date", "Description", "Amount");
    m.has_header = 2;
    refuses(S(file), &m, "mapping.has_header", "mapping.has_header must be", "a bad has_header");
    m = map3("Date", "Description", "Amount");
    m.decimal = ';';
    refuses(S(file), &m, "mapping.decimal", "mapping.decimal must be", "a bad decimal mark");
    refuses(S(file), NULL, "mapping", "a column mapping is required", "no mapping at all");
    /* without a header, names are the numbered ones */
    m = map3("Date", "Description", "Amount");
    m.has_header = 0;
    refuses(S(file), &m, "mapping.date",
            "no column 'Date' in the header (it has 'column 1', 'column 2', 'column 3')",
            "has_header false: names are not looked up in the first row");
    {
        struct csv_result r;

        m = map3("column 1", "COLUMN 2", "column 3");
        m.has_header = 0;
        if (parses(S(file), &m, &r, "has_header false with numbered names")) {
            is_int(r.nrows, 2, "the header line is a row");
            row_is(&r, 0, 1, "", "Description", NOAMT,
                   "date 'Date' is not a date in the format DD/MM/YYYY; "
                   "amount 'Amount' is not an amount", "the header read as a row");
            csv_result_free(&r);
        }
    }
}

/* ---- header guessing ------------------------------------------------------------------- */

static void headers(void)
{
    struct csv_mapping m = map3("0", "1", "2");
    struct csv_result r;

    if (parses(S("03/01/2025,Coffee,-4.50\n04/01/2025,Tea,-3.00\n"), &m, &r, "no header")) {
        is_int(r.has_header, 0, "no header: the first row's date and amount parse");
        is_int(r.ncolumns, 3, "three columns");
        is_str(r.columns[0], "column 1", "numbered names");
        is_str(r.columns[2], "column 3", "numbered names");
        row_is(&r, 0, 1, "2025-01-03", "Coffee", -450, "", "the first line is a row");
        csv_result_free(&r);
    }
    if (parses(S("Posted,Payee,Value\n03/01/2025,Coffee,-4.50\n"), &m, &r, "a header")) {
        is_int(r.has_header, 1, "a header: the second row parses, the first does not");
        is_int(r.nrows, 1, "one row");
        is_str(r.columns[2], "Value", "named from the header");
        csv_result_free(&r);
    }
    if (parses(S("Posted,Payee,Value\n"), &m, &r, "a header and nothing else")) {
        is_int(r.has_header, 1, "a lone row that does not parse is a header");
        is_int(r.nrows, 0, "no rows");
        is_str(r.date_format, "", "no date format with no dates");
        csv_result_free(&r);
    }
    if (parses(S("03/01/2025,Coffee,oops\n04/01/2025,Tea,-3.00\n"), &m, &r,
               "a bad amount on the first row")) {
        is_int(r.has_header, 0, "a date that parses: not a header");
        row_is(&r, 0, 1, "2025-01-03", "Coffee", NOAMT, "amount 'oops' is not an amount",
               "the bad first row is kept");
        csv_result_free(&r);
    }
    if (parses(S("Posted,Payee,Value\nsoon,Coffee,-4.50\n"), &m, &r,
               "neither the first nor the second row has a date")) {
        is_int(r.has_header, 0, "not a header when the second row does not parse either");
        is_int(r.nrows, 2, "both are rows");
        csv_result_free(&r);
    }
    m.has_header = 1;
    if (parses(S("03/01/2025,Coffee,-4.50\n04/01/2025,Tea,-3.00\n"), &m, &r, "has_header given")) {
        is_int(r.has_header, 1, "has_header true is obeyed");
        is_int(r.nrows, 1, "one row");
        is_str(r.columns[0], "03/01/2025", "the first row names the columns");
        csv_result_free(&r);
    }
    m = map_dc("0", "1", "2", "3");
    if (parses(S("Date,Description,Debit,Credit\n03/01/2025,Coffee,4.50,\n"), &m, &r,
               "a header over debit and credit")) {
        is_int(r.has_header, 1, "detected with debit and credit columns");
        row_is(&r, 0, 2, "2025-01-03", "Coffee", -450, "", "a debit");
        csv_result_free(&r);
    }
}

/* ---- lines above the table ------------------------------------------------------------------ */

static const char dkb[] =
    "\"Kontonummer:\";\"DE12 1203 0000 1234 5678 90 / Girokonto\";\n"
    "\"Von:\";\"01.01.2025\";\n\"Bis:\";\"31.01.2025\";\n"
    "\"Kontostand vom 31.01.2025:\";\"1.234,56 EUR\";\n\n"
    "\"Buchungstag\";\"Wertstellung\";\"Buchungstext\";\"Auftraggeber / Beguenstigter\";"
    "\"Verwendungszweck\";\"Kontonummer\";\"BLZ\";\"Betrag (EUR)\";\"Glaeubiger-ID\";"
    "\"Mandatsreferenz\";\"Kundenreferenz\";\n"
    "\"15.01.2025\";\"15.01.2025\";\"Lastschrift\";\"REWE Markt GmbH\";\"Einkauf\";\"DE00\";"
    "\"\";\"-45,67\";\"\";\"\";\"\";\n"
    "\"14.01.2025\";\"14.01.2025\";\"Gutschrift\";\"Arbeitgeber GmbH\";\"Gehalt\";\"DE00\";"
    "\"\";\"2.500,00\";\"\";\"\";\"\";\n";

static void skipping(void)
{
    struct csv_mapping m = map3("0", "3", "7");
    struct csv_result r;

    /* by index with a header (as the web client maps), the first record
     * is the header: the preamble's 3 fields */
    m.has_header = 1;
    if (parses(S(dkb), &m, &r, "DKB by index, nothing skipped")) {
        is_int(r.header_line, 1, "the first line is taken as the header");
        ok(r.nrows > 0 && strstr(r.rows[r.nrows - 1].error, "fields where the file has 3") != NULL,
           "and the real rows are flagged long (%s)", r.nrows ? r.rows[r.nrows - 1].error : "");
        csv_result_free(&r);
    }
    m.has_header = -1;
    m.skip_lines = 5;
    if (parses(S(dkb), &m, &r, "DKB by index, 5 lines skipped")) {
        is_int(r.delimiter, ';', "the delimiter of the lines after them");
        is_int(r.has_header, 1, "the header is guessed on the line after them");
        is_int(r.header_line, 6, "on line 6");
        is_int(r.ncolumns, 12, "its 12 columns (the trailing ';' makes one)");
        is_str(r.columns[0], "Buchungstag", "named from it");
        is_int(r.nrows, 2, "two rows");
        row_is(&r, 0, 7, "2025-01-15", "REWE Markt GmbH", -4567, "", "the first, line 7");
        row_is(&r, 1, 8, "2025-01-14", "Arbeitgeber GmbH", 250000, "", "the second, line 8");
        csv_result_free(&r);
    }
    /* 4 skipped leaves the blank line 5, which is no record */
    m.skip_lines = 4;
    if (parses(S(dkb), &m, &r, "DKB by index, 4 lines skipped")) {
        is_int(r.header_line, 6, "the blank line after them is not the header");
        is_int(r.nrows, 2, "the same two rows");
        csv_result_free(&r);
    }
    /* by name, the header is still looked for after the lines skipped */
    m = map3("Buchungstag", "Auftraggeber / Beguenstigter", "Betrag (EUR)");
    if (parses(S(dkb), &m, &r, "DKB by name")) {
        is_int(r.header_line, 6, "by name, the header found is on line 6");
        csv_result_free(&r);
    }
    m.skip_lines = 2;
    if (parses(S(dkb), &m, &r, "DKB by name, 2 lines skipped")) {
        is_int(r.header_line, 6, "and after 2 skipped lines too");
        row_is(&r, 1, 8, "2025-01-14", "Arbeitgeber GmbH", 250000, "", "its rows");
        csv_result_free(&r);
    }
    m.skip_lines = 7;
    refuses(S(dkb), &m, "mapping.date", "no column 'Buchungstag'", "the header skipped");

    /* Lines end at LF, CRLF and a lone CR; a quoted field over two lines
     * is two, and a lone quote above the table does no harm. */
    m = map3("0", "1", "2");
    m.skip_lines = 4;
    if (parses(S("Statement \"2025\r\n\"a\nb\"\r,,\rDate,Description,Amount\n"
                 "03/01/2025,Coffee,-4.50\r\n"), &m, &r, "mixed line ends above the table")) {
        is_int(r.header_line, 5, "four lines skipped, whatever ends them");
        row_is(&r, 0, 6, "2025-01-03", "Coffee", -450, "", "the row keeps its line");
        csv_result_free(&r);
    }
    m.skip_lines = 1;
    m.has_header = 0;
    if (parses(S("Account: 1234\n03/01/2025,Coffee,-4.50\n"), &m, &r, "no header after them")) {
        is_int(r.header_line, 0, "no header: no header line");
        row_is(&r, 0, 2, "2025-01-03", "Coffee", -450, "", "the rows start after them");
        csv_result_free(&r);
    }
    m.has_header = -1;
    m.skip_lines = 0;
    if (parses(S("\xef\xbb\xbf\nDate,Description,Amount\n03/01/2025,Coffee,-4.50\n"), &m, &r,
               "nothing skipped")) {
        is_int(r.header_line, 2, "the header's line counts a blank line before it");
        csv_result_free(&r);
    }

    /* Skipping everything is the mapping's mistake. */
    m.skip_lines = 3;
    refuses(S("a\nb\n"), &m, "mapping.skip_lines", "the file has only 2 lines",
            "more lines than the file has");
    refuses(S("a\nb"), &m, "mapping.skip_lines", "the file has only 2 lines",
            "more lines than the file has, no line break at the end");
    m.skip_lines = 2;
    refuses(S("Date,Amount\n03/01/2025,1\n\n ; \r\n"), &m, "mapping.skip_lines",
            "nothing but blank lines after line 2", "only blank lines after them");
    m.skip_lines = 1;
    refuses(S("Date,Amount\n"), &m, "mapping.skip_lines", "nothing but blank lines after line 1",
            "the whole file");
    m.skip_lines = -1;
    refuses(S("Date,Amount\n03/01/2025,1\n"), &m, "mapping.skip_lines", "from 0 to 1000",
            "a negative skip_lines");
    m.skip_lines = CSV_MAX_SKIP + 1;
    refuses(S("Date,Amount\n03/01/2025,1\n"), &m, "mapping.skip_lines", "from 0 to 1000",
            "skip_lines over 1000");
}

/* ---- dates --------------------------------------------------------------------------------- */

/* One row "value;1.00" with the format given (or NULL to guess). */
static void date_is(const char *value, const char *format, const char *want, const char *want_fmt)
{
    struct csv_mapping m = map3("0", NULL, "1");
    struct csv_result r;
    ledger_error err;
    char file[128];

    m.date_format = format;
    m.delimiter = ';';
    m.has_header = 0;
    snprintf(file, sizeof file, "%s;1.00\n", value);
    if (parse(file, strlen(file), &m, &r, &err) != LEDGER_OK) {
        ok(0, "'%s' parses (%s)", value, err.message);
        return;
    }
    ok(r.nrows == 1 && strcmp(r.rows[0].date, want) == 0 && r.rows[0].error[0] == '\0'
       && strcmp(r.date_format, want_fmt) == 0,
       "date '%s' (%s) is %s, %s", value, format ? format : "guessed", want, want_fmt);
    if (r.nrows == 1 && (strcmp(r.rows[0].date, want) != 0 || r.rows[0].error[0]))
        printf("#   got '%s' (%s) as %s\n", r.rows[0].date, r.rows[0].error, r.date_format);
    csv_result_free(&r);
}

static void date_bad(const char *value, const char *format, const char *want_error)
{
    struct csv_mapping m = map3("0", NULL, "1");
    struct csv_result r;
    ledger_error err;
    char file[128];

    m.date_format = format;
    m.delimiter = ';';
    m.has_header = 0;
    snprintf(file, sizeof file, "%s;1.00\n", value);
    if (parse(file, strlen(file), &m, &r, &err) != LEDGER_OK) {
        ok(0, "'%s' parses (%s)", value, err.message);
        return;
    }
    row_is(&r, 0, 1, "", "", 100, want_error, value);
    csv_result_free(&r);
}

/* A column of dates, guessed: the format and the first row's date. */
static void column_is(const char *values, const char *want_fmt, const char *first,
                      const char *what)
{
    struct csv_mapping m = map3("0", NULL, "1");
    struct csv_result r;
    ledger_error err;
    char file[512];
    const char *p = values;
    size_t o = 0;

    m.has_header = 0;
    m.delimiter = ';';
    while (*p) {   /* values are '|'-separated */
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);

        o += (size_t)snprintf(file + o, sizeof file - o, "%.*s;1\n", (int)n, p);
        p += n + (e != NULL);
    }
    if (parse(file, o, &m, &r, &err) != LEDGER_OK) {
        ok(0, "%s parses (%s)", what, err.message);
        return;
    }
    ok(strcmp(r.date_format, want_fmt) == 0 && r.nrows > 0 && strcmp(r.rows[0].date, first) == 0,
       "%s: %s, first %s", what, want_fmt, first);
    if (strcmp(r.date_format, want_fmt) != 0 || r.nrows == 0 || strcmp(r.rows[0].date, first) != 0)
        printf("#   got %s, first '%s'\n", r.date_format, r.nrows ? r.rows[0].date : "");
    csv_result_free(&r);
}

static void dates(void)
{
    /* each format, given */
    date_is("03/01/2025", "DD/MM/YYYY", "2025-01-03", "DD/MM/YYYY");
    date_is("3/1/2025", "DD/MM/YYYY", "2025-01-03", "DD/MM/YYYY");
    date_is("03/01/25", "DD/MM/YYYY", "2025-01-03", "DD/MM/YYYY");
    date_is("03/01/25", "DD/MM/YY", "2025-01-03", "DD/MM/YYYY");
    date_is("01/03/2025", "MM/DD/YYYY", "2025-01-03", "MM/DD/YYYY");
    date_is("1/3/25", "mm/dd/yyyy", "2025-01-03", "MM/DD/YYYY");
    date_is("2025-01-03", "YYYY-MM-DD", "2025-01-03", "YYYY-MM-DD");
    date_is("2025-1-3", "YYYY-MM-DD", "2025-01-03", "YYYY-MM-DD");
    date_is("3 Jan 2025", "D MMM YYYY", "2025-01-03", "D MMM YYYY");
    date_is("03-Jan-2025", "D MMM YYYY", "2025-01-03", "D MMM YYYY");
    date_is("03-JAN-25", "DD-MMM-YY", "2025-01-03", "D MMM YYYY");
    date_is("3 January 2025", "D MMM YYYY", "2025-01-03", "D MMM YYYY");
    date_is("30 Sept 2025", "D MMM YYYY", "2025-09-30", "D MMM YYYY");
    date_is("03-01-2025", "DD-MM-YYYY", "2025-01-03", "DD-MM-YYYY");
    date_is("01-03-2025", "MM-DD-YYYY", "2025-01-03", "MM-DD-YYYY");
    date_is("2025/01/03", "YYYY/MM/DD", "2025-01-03", "YYYY/MM/DD");
    date_is("03.01.2025", "DD.MM.YYYY", "2025-01-03", "DD.MM.YYYY");
    date_is("Jan 3, 2025", "MMM D, YYYY", "2025-01-03", "MMM D, YYYY");
    date_is("December 31 2024", "MMM D, YYYY", "2024-12-31", "MMM D, YYYY");
    date_is("20250103", "YYYYMMDD", "2025-01-03", "YYYYMMDD");
    date_is("29/02/2024", "DD/MM/YYYY", "2024-02-29", "DD/MM/YYYY");
    date_is("31/12/69", "DD/MM/YYYY", "2069-12-31", "DD/MM/YYYY");
    date_is("01/01/70", "DD/MM/YYYY", "1970-01-01", "DD/MM/YYYY");
    date_is("03/01/2025 14:05", "DD/MM/YYYY", "2025-01-03", "DD/MM/YYYY");
    date_is("2025-01-03T14:05:09.123Z", "YYYY-MM-DD", "2025-01-03", "YYYY-MM-DD");
    date_is("1/3/2025 2:05:09 PM", "MM/DD/YYYY", "2025-01-03", "MM/DD/YYYY");
    date_is("2025-01-03 23:59:59+10:00", "YYYY-MM-DD", "2025-01-03", "YYYY-MM-DD");

    /* each format, guessed from one value */
    date_is("2025-01-03", NULL, "2025-01-03", "YYYY-MM-DD");
    date_is("2025/01/03", NULL, "2025-01-03", "YYYY/MM/DD");
    date_is("2025.01.03", NULL, "2025-01-03", "YYYY.MM.DD");
    date_is("2025.01.03.", NULL, "2025-01-03", "YYYY.MM.DD");   /* Hungarian: a trailing dot */
    date_is("2025.01.03. 10:15", NULL, "2025-01-03", "YYYY.MM.DD");
    date_is("2025.1.3", "YYYY.MM.DD.", "2025-01-03", "YYYY.MM.DD");
    date_is("2021-09-06 6:11:59", NULL, "2021-09-06", "YYYY-MM-DD");  /* a one-digit hour */
    date_is("2017-04-25T03:15:53", NULL, "2017-04-25", "YYYY-MM-DD");
    date_is("05/03/2024 14:22", NULL, "2024-03-05", "DD/MM/YYYY");
    date_bad("2025.01.03..", "YYYY.MM.DD", "date '2025.01.03..' is not a date in the format YYYY.MM.DD");
    date_bad("2025.02.30.", "YYYY.MM.DD", "date '2025.02.30.' is not a real day");
    date_is("03/01/2025", NULL, "2025-01-03", "DD/MM/YYYY");
    date_is("01/13/2025", NULL, "2025-01-13", "MM/DD/YYYY");
    date_is("03-01-2025", NULL, "2025-01-03", "DD-MM-YYYY");
    date_is("01-13-2025", NULL, "2025-01-13", "MM-DD-YYYY");
    date_is("03.01.2025", NULL, "2025-01-03", "DD.MM.YYYY");
    date_is("3 Jan 2025", NULL, "2025-01-03", "D MMM YYYY");
    date_is("03-jan-2025", NULL, "2025-01-03", "D MMM YYYY");
    date_is("Jan 3, 2025", NULL, "2025-01-03", "MMM D, YYYY");
    date_is("20250103", NULL, "2025-01-03", "YYYYMMDD");

    /* the whole column decides */
    column_is("03/01/2025|04/01/2025|05/01/2025", "DD/MM/YYYY", "2025-01-03",
              "all ambiguous: day first (Australian banks)");
    column_is("03/01/2025|04/01/2025|25/01/2025", "DD/MM/YYYY", "2025-01-03",
              "a day over 12 first: DD/MM");
    column_is("03/01/2025|04/01/2025|01/25/2025", "MM/DD/YYYY", "2025-03-01",
              "a day over 12 second: MM/DD, every row read so");
    column_is("03-01-2025|12-31-2025", "MM-DD-YYYY", "2025-03-01", "dashes: MM-DD");
    column_is("3 Jan 2025|14 Feb 2025|", "D MMM YYYY", "2025-01-03", "names");
    column_is("03/01/2025|pending|04/01/2025", "DD/MM/YYYY", "2025-01-03",
              "a value no format reads: the format reading the most");
    column_is("31/02/2025|03/01/2025", "DD/MM/YYYY", "",
              "31/02 fits DD/MM's shape (and is then a row error)");

    /* row errors */
    date_bad("31/02/2025", "DD/MM/YYYY", "date '31/02/2025' is not a real day");
    date_bad("29/02/2025", NULL, "date '29/02/2025' is not a real day");
    date_bad("31/04/2025", "DD/MM/YYYY", "date '31/04/2025' is not a real day");
    date_bad("13/13/2025", "DD/MM/YYYY", "date '13/13/2025' is not a date in the format DD/MM/YYYY");
    date_bad("2025-01-03", "DD/MM/YYYY", "date '2025-01-03' is not a date in the format DD/MM/YYYY");
    date_bad("03/01/202", "DD/MM/YYYY", "date '03/01/202' is not a date in the format DD/MM/YYYY");
    date_bad("03/01/1899", "DD/MM/YYYY", "date '03/01/1899' is not a date in the format DD/MM/YYYY");
    date_bad("03/01/2025x", "DD/MM/YYYY", "date '03/01/2025x' is not a date in the format DD/MM/YYYY");
    date_bad("3 Foo 2025", "D MMM YYYY", "date '3 Foo 2025' is not a date in the format D MMM YYYY");
    date_bad("03/01/2025 25:00", "DD/MM/YYYY",
             "date '03/01/2025 25:00' is not a date in the format DD/MM/YYYY");
    date_bad("tomorrow", NULL, "date 'tomorrow' is not a date in a known format");
    date_bad("\"\"", "DD/MM/YYYY", "the date is empty");
}

/* ---- amounts ------------------------------------------------------------------------------- */

/* One row "03/01/2025;value" with the decimal mark given (0: guessed). */
static int one_amount(const char *value, char mark, int negate, struct csv_result *r,
                      ledger_error *err)
{
    struct csv_mapping m = map3("0", NULL, "1");
    char file[256];

    m.delimiter = ';';
    m.has_header = 0;
    m.decimal = mark;
    m.negate = negate;
    snprintf(file, sizeof file, "03/01/2025;%s\n", value);
    return parse(file, strlen(file), &m, r, err);
}

static void amount_is(const char *value, char mark, int64_t want)
{
    struct csv_result r;
    ledger_error err;

    if (one_amount(value, mark, 0, &r, &err) != LEDGER_OK) {
        ok(0, "'%s' parses (%s)", value, err.message);
        return;
    }
    if (!ok(r.nrows == 1 && r.rows[0].has_amount && r.rows[0].amount == want
            && r.rows[0].error[0] == '\0', "amount '%s' is %lld cents", value, (long long)want))
        printf("#   got %lld (%s)\n", r.nrows ? (long long)r.rows[0].amount : 0LL,
               r.nrows ? r.rows[0].error : "");
    csv_result_free(&r);
}

static void amount_bad(const char *value, char mark, const char *want_error)
{
    struct csv_result r;
    ledger_error err;

    if (one_amount(value, mark, 0, &r, &err) != LEDGER_OK) {
        ok(0, "'%s' parses (%s)", value, err.message);
        return;
    }
    row_is(&r, 0, 1, "2025-01-03", "", NOAMT, want_error, value);
    csv_result_free(&r);
}

/* An amount the whole file is refused for: a 400 on "csv" naming line 1. */
static void amount_refused(const char *value, char mark, const char *want_error)
{
    struct csv_result r;
    ledger_error err;
    char want[300];

    snprintf(want, sizeof want, "line 1: %s", want_error);
    if (one_amount(value, mark, 0, &r, &err) == LEDGER_OK) {
        ok(0, "'%s' refuses the file", value);
        csv_result_free(&r);
        return;
    }
    is_int(err.status, 400, "'%s': 400", value);
    is_str(err.field, "csv", "'%s': on csv", value);
    is_str(err.message, want, "'%s': the line and why", value);
}

static void amounts(void)
{
    struct csv_mapping m;
    struct csv_result r;
    ledger_error err;

    amount_is("12.50", '.', 1250);
    amount_is("-12.50", '.', -1250);
    amount_is("+12.50", '.', 1250);
    amount_is("12", '.', 1200);
    amount_is("12.5", '.', 1250);
    amount_is(".5", '.', 50);
    amount_is("12.", '.', 1200);
    amount_is("0", '.', 0);
    amount_is("-0.00", '.', 0);
    amount_is("007.10", '.', 710);
    amount_is("12.500", '.', 1250);
    amount_is("(12.50)", '.', -1250);
    amount_is("12.50-", '.', -1250);
    amount_is("12.50 DR", '.', -1250);
    amount_is("12.50DR", '.', -1250);
    amount_is("12.50 dr", '.', -1250);
    amount_is("12.50 CR", '.', 1250);
    amount_is("12.50 Cr", '.', 1250);
    amount_is("$12.50", '.', 1250);
    amount_is("-$12.50", '.', -1250);
    amount_is("$-12.50", '.', -1250);
    amount_is("($12.50)", '.', -1250);
    amount_is("$ 12.50", '.', 1250);
    amount_is("A$12.50", '.', 1250);
    amount_is("AU$ 1,234.50", '.', 123450);
    amount_is("US$12.50", '.', 1250);
    amount_is("\xe2\x82\xac" "12.50", '.', 1250);
    amount_is("12.50 \xe2\x82\xac", '.', 1250);
    amount_is("\xc2\xa3" "12.50", '.', 1250);
    amount_is("-\xc2\xa3" "12.50", '.', -1250);
    amount_is("AUD 12.50", '.', 1250);
    amount_is("12.50 AUD", '.', 1250);
    amount_is("-12.50 USD", '.', -1250);
    amount_is("12.50USD", '.', 1250);
    amount_is("1,234.56", '.', 123456);
    amount_is("1,234,567.89", '.', 123456789);
    amount_is("1,234", '.', 123400);
    amount_is("-1,234.56", '.', -123456);
    amount_is("(1,234.56)", '.', -123456);
    amount_is("1 234.56", '.', 123456);
    amount_is("1\xc2\xa0" "234.56", '.', 123456);
    amount_is("1\xe2\x80\xaf" "234.56", '.', 123456);
    amount_is("1'234.56", '.', 123456);
    amount_is("- 12.50", '.', -1250);
    amount_is("  12.50  ", '.', 1250);
    amount_is("\xe2\x88\x92" "12.50", '.', -1250);
    amount_is("10000000000000", '.', INT64_C(1000000000000000));
    amount_is("-9,999,999,999,999.99", '.', -INT64_C(999999999999999));
    amount_is("12,50", ',', 1250);
    amount_is("-1.234,56", ',', -123456);
    amount_is("1 234,56 \xe2\x82\xac", ',', 123456);
    amount_is("1.234", ',', 123400);
    amount_is("12,50", 0, 1250);       /* guessed: a decimal comma */
    amount_is("1.234,56", 0, 123456);  /* guessed */
    amount_is("1,234.56", 0, 123456);  /* guessed */
    amount_is("1,234", 0, 123400);     /* nothing says otherwise: a thousands ',' */
    /* Every currency symbol (Sc), three-letter code and direction mark
     * around the number is dropped. */
    amount_is("12.50 XYZ", '.', 1250);
    amount_is("sek 12.50", '.', 1250);
    amount_is("\xe2\x82\xb9" "1,234.50", '.', 123450);            /* rupee sign */
    amount_is("-\xe2\x82\xaa" "12.50", '.', -1250);               /* shekel sign */
    amount_is("\xef\xb7\xbc" "\xe2\x80\x8f" "12.50", '.', 1250); /* rial sign, RLM */
    amount_is("\xe2\x80\x8e" "-12.50" "\xe2\x80\x8e", '.', -1250);  /* LRM both sides */
    amount_is("\xe2\x81\xa6" "12.50" "\xe2\x81\xa9", '.', 1250);   /* an isolate */
    amount_is("\xd8\x9c" "-12.50", '.', -1250);                   /* ALM */
    amount_is("\xd8\xb1.\xd8\xb3.\xe2\x80\x8f" "1,234.50", '.', 123450);  /* SAR in Arabic */
    amount_is("12.50 \xd8\xb1.\xd8\xb3.", '.', 1250);
    amount_is("\xe2\x82\xac" "\xc2\xa0" "12,50", ',', 1250);

    amount_bad("12.345", '.', "amount '12.345' has more than 2 decimal places");
    amount_bad("0.001", '.', "amount '0.001' has more than 2 decimal places");
    amount_bad("1,234.567", '.', "amount '1,234.567' has more than 2 decimal places");
    amount_bad("abc", '.', "amount 'abc' is not an amount");
    amount_bad("12,50", '.', "amount '12,50' is not an amount");
    amount_bad("1,23,456", '.', "amount '1,23,456' is not an amount");
    amount_bad("1234,567", '.', "amount '1234,567' is not an amount");
    amount_bad("1,234 567", '.', "amount '1,234 567' is not an amount");
    amount_bad("12 50", '.', "amount '12 50' is not an amount");
    amount_bad("1.2.3", '.', "amount '1.2.3' is not an amount");
    amount_bad("1e5", '.', "amount '1e5' is not an amount");
    amount_bad("$", '.', "amount '$' is not an amount");
    amount_bad("-", '.', "amount '-' is not an amount");
    amount_bad(".", '.', "amount '.' is not an amount");
    amount_bad("(12.50", '.', "amount '(12.50' is not an amount");
    amount_bad("12.50)", '.', "amount '12.50)' is not an amount");
    amount_bad("12.50 EURO", '.', "amount '12.50 EURO' is not an amount");
    amount_bad("12.50 X1Z", '.', "amount '12.50 X1Z' is not an amount");
    amount_bad("\xe2\x80\x8f", '.', "amount '\xe2\x80\x8f' is not an amount");
    amount_bad("12.50 \xd8\xa8", '.', "amount '12.50 \xd8\xa8' is not an amount");
    amount_bad("--12.50", '.', "amount '--12.50' has more than one sign");
    amount_bad("-12.50-", '.', "amount '-12.50-' has more than one sign");
    amount_bad("(-12.50)", '.', "amount '(-12.50)' has more than one sign");
    amount_bad("-12.50 DR", '.', "amount '-12.50 DR' has more than one sign");
    amount_bad("+12.50 CR", '.', "amount '+12.50 CR' has more than one sign");
    amount_bad("10000000000000.01", '.', "amount '10000000000000.01' is out of range");
    amount_bad("99999999999999999999999999", '.',
               "amount '99999999999999999999999999' is out of range");
    amount_bad("12.50", ',', "amount '12.50' is not an amount");
    amount_bad("1,234.56", ',', "amount '1,234.56' is not an amount");
    amount_bad("\"\"", '.', "the amount is empty");
    /* Three-decimal currencies, by code or Arabic symbol: cents cannot
     * hold them, whatever the digits. */
    amount_refused("4.750 JOD", '.', "amount '4.750 JOD' is in a currency with three decimal places: "
               "amounts are kept in cents, which cannot hold its third decimal");
    amount_refused("KWD 1.000", '.', "amount 'KWD 1.000' is in a currency with three decimal places: "
               "amounts are kept in cents, which cannot hold its third decimal");
    amount_refused("-\xd8\xaf.\xd8\xa7.\xe2\x80\x8f" "4.750", '.',
               "amount '-\xd8\xaf.\xd8\xa7.\xe2\x80\x8f" "4.750' is in a currency with three "
               "decimal places: amounts are kept in cents, which cannot hold its third decimal");

    /* negate */
    if (one_amount("-12.50", 0, 1, &r, &err) == LEDGER_OK) {
        row_is(&r, 0, 1, "2025-01-03", "", 1250, "", "negate flips -12.50");
        csv_result_free(&r);
    } else {
        ok(0, "negate parses (%s)", err.message);
    }
    if (one_amount("12.50 DR", 0, 1, &r, &err) == LEDGER_OK) {
        row_is(&r, 0, 1, "2025-01-03", "", 1250, "", "negate flips a DR");
        csv_result_free(&r);
    } else {
        ok(0, "negate parses (%s)", err.message);
    }

    /* thousands separators in a ',' file: quoted */
    m = map3("Date", "Description", "Amount");
    if (parses(S("Date,Description,Amount\n03/01/2025,Car,\"-12,345.67\"\n"
                 "04/01/2025,Pay,\"$1,000.00\"\n"), &m, &r, "quoted thousands in a ',' file")) {
        is_int(r.decimal, '.', "a decimal point");
        row_is(&r, 0, 2, "2025-01-03", "Car", -1234567, "", "\"-12,345.67\"");
        row_is(&r, 1, 3, "2025-01-04", "Pay", 100000, "", "\"$1,000.00\"");
        csv_result_free(&r);
    }
    /* and unquoted in a ';' file */
    if (parses(S("Date;Description;Amount\n03/01/2025;Car;-12,345.67\n04/01/2025;Pay;1,000\n"),
               &m, &r, "unquoted thousands in a ';' file")) {
        is_int(r.delimiter, ';', "';'");
        row_is(&r, 0, 2, "2025-01-03", "Car", -1234567, "", "-12,345.67");
        row_is(&r, 1, 3, "2025-01-04", "Pay", 100000, "", "1,000 beside a decimal point");
        csv_result_free(&r);
    }
}

/* ---- debit and credit columns --------------------------------------------------------------- */

static void debit_credit(void)
{
    static const char file[] =
        "Date,Description,Debit,Credit\n"
        "03/01/2025,Coffee,4.50,\n"
        "04/01/2025,Salary,,3200.00\n"
        "05/01/2025,Refund,-12.00,\n"
        "06/01/2025,Nothing,,\n"
        "07/01/2025,Zero credit,9.99,0.00\n"
        "08/01/2025,Both,1.00,2.00\n"
        "09/01/2025,Bad,x,\n"
        "10/01/2025,Card,\"$1,000.00\",\n"
        "11/01/2025,Short,5.00\n"
        "12/01/2025,Zeros,0.00,0.00\n";
    struct csv_mapping m = map_dc("Date", "Description", "Debit", "Credit");
    struct csv_result r;

    if (parses(S(file), &m, &r, "debit and credit columns")) {
        is_int(r.nrows, 10, "ten rows");
        row_is(&r, 0, 2, "2025-01-03", "Coffee", -450, "", "a debit is money out");
        row_is(&r, 1, 3, "2025-01-04", "Salary", 320000, "", "a credit is money in");
        row_is(&r, 2, 4, "2025-01-05", "Refund", -1200, "", "a negative debit is a magnitude");
        row_is(&r, 3, 5, "2025-01-06", "Nothing", NOAMT,
               "neither debit nor credit holds an amount", "both empty");
        row_is(&r, 4, 6, "2025-01-07", "Zero credit", -999, "", "a zero beside a debit");
        row_is(&r, 5, 7, "2025-01-08", "Both", NOAMT, "both debit and credit hold an amount",
               "both filled");
        row_is(&r, 6, 8, "2025-01-09", "Bad", NOAMT, "debit 'x' is not an amount", "a bad debit");
        row_is(&r, 7, 9, "2025-01-10", "Card", -100000, "", "a quoted debit with $ and ,");
        row_is(&r, 8, 10, "2025-01-11", "Short", NOAMT,
               "the row has only 3 fields: 'Credit' is missing", "a row without the credit column");
        row_is(&r, 9, 11, "2025-01-12", "Zeros", 0, "", "zero in both is zero");
        csv_result_free(&r);
    }
    m.negate = 1;
    if (parses(S(file), &m, &r, "debit and credit, negated")) {
        row_is(&r, 0, 2, "2025-01-03", "Coffee", 450, "", "negate: a debit in");
        row_is(&r, 1, 3, "2025-01-04", "Salary", -320000, "", "negate: a credit out");
        csv_result_free(&r);
    }
    m = map_dc("0", "1", "2", "3");
    if (parses(S("03/01/2025;Card;12,50 DR;\n04/01/2025;Pay;;1.234,00\n"), &m, &r,
               "debit and credit by index with decimal commas")) {
        is_int(r.decimal, ',', "decimal comma guessed from both columns");
        row_is(&r, 0, 1, "2025-01-03", "Card", -1250, "", "DR in a debit column");
        row_is(&r, 1, 2, "2025-01-04", "Pay", 123400, "", "1.234,00 in a credit column");
        csv_result_free(&r);
    }
}

/* ---- row errors --------------------------------------------------------------------------------- */

static void row_errors(void)
{
    static const char file[] =
        "Date,Description,Amount\n"
        "03/01/2025,Good,-1.00\n"
        "32/01/2025,Bad date,-2.00\n"
        "04/01/2025,Bad amount,twelve\n"
        "05/01/2025,Three decimals,1.005\n"
        "06/01/2025,Short\n"
        "07/01/2025\n"
        "08/01/2025,Long,-3.00,extra,fields\n"
        ",Empty date,\n"
        "31/02/2025,Not a day,-4.00\n";
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;

    m.date_format = "DD/MM/YYYY";
    if (parses(S(file), &m, &r, "rows with errors still parse")) {
        is_int(r.nrows, 9, "every row is returned");
        is_int(r.ncolumns, 5, "columns as many as the longest row");
        is_str(r.columns[4], "column 5", "extra columns numbered");
        row_is(&r, 0, 2, "2025-01-03", "Good", -100, "", "a good row");
        row_is(&r, 1, 3, "", "Bad date", -200,
               "date '32/01/2025' is not a date in the format DD/MM/YYYY", "a bad date");
        row_is(&r, 2, 4, "2025-01-04", "Bad amount", NOAMT, "amount 'twelve' is not an amount",
               "a bad amount");
        row_is(&r, 3, 5, "2025-01-05", "Three decimals", NOAMT,
               "amount '1.005' has more than 2 decimal places", "three decimals");
        row_is(&r, 4, 6, "2025-01-06", "Short", NOAMT,
               "the row has only 2 fields: 'Amount' is missing", "a short row");
        row_is(&r, 5, 7, "2025-01-07", "", NOAMT,
               "the row has only 1 field: 'Description', 'Amount' are missing",
               "a one-field row names every missing column");
        row_is(&r, 6, 8, "2025-01-08", "Long", -300,
               "the row has 5 fields where the file has 3: is a value with the delimiter in it not quoted?",
               "a longer row is flagged: an unquoted delimiter may have moved its fields");
        row_is(&r, 7, 9, "", "Empty date", NOAMT, "the date is empty; the amount is empty",
               "two errors in one row");
        row_is(&r, 8, 10, "", "Not a day", -400, "date '31/02/2025' is not a real day",
               "an invalid calendar date");
        csv_result_free(&r);
    }
    {
        /* An unquoted thousands separator splits the amount in two: "-1"
         * must not pass for the amount.  Empty fields at the end are
         * not text, and without a header the width is most rows'. */
        static const char sep[] =
            "Date,Description,Amount\n"
            "04/01/2025,Salary,-1,234.50\n"
            "05/01/2025,Rent,-900.00,,\n";
        static const char bare[] =
            "04/01/2025,Salary,-1,234.50\n"
            "05/01/2025,Rent,-900.00\n"
            "06/01/2025,Food,-12.00\n";
        struct csv_mapping mb = map3("0", "1", "2");

        if (parses(S(sep), &m, &r, "an unquoted thousands separator")) {
            row_is(&r, 0, 2, "2025-01-04", "Salary", -100,
                   "the row has 4 fields where the file has 3: is a value with the delimiter in it not quoted?",
                   "the split amount is an error, not -1.00");
            row_is(&r, 1, 3, "2025-01-05", "Rent", -90000, "", "empty fields at the end are fine");
            csv_result_free(&r);
        }
        mb.has_header = 0;
        mb.date_format = "DD/MM/YYYY";
        if (parses(S(bare), &mb, &r, "the same without a header")) {
            row_is(&r, 0, 1, "2025-01-04", "Salary", -100,
                   "the row has 4 fields where the file has 3: is a value with the delimiter in it not quoted?",
                   "without a header, the width is that of most rows");
            row_is(&r, 1, 2, "2025-01-05", "Rent", -90000, "", "the other rows are fine");
            csv_result_free(&r);
        }
    }
    m.date_format = NULL;
    if (parses(S(file), &m, &r, "the same, format guessed")) {
        is_str(r.date_format, "DD/MM/YYYY", "guessed though two rows do not read");
        row_is(&r, 8, 10, "", "Not a day", -400, "date '31/02/2025' is not a real day",
               "an invalid calendar date when guessed");
        csv_result_free(&r);
    }
    {
        char file2[6000];
        size_t n = (size_t)sprintf(file2, "Date,Description,Amount\n03/01/2025,\"");
        int i;

        for (i = 0; i < 200; i++)
            n += (size_t)sprintf(file2 + n, "\xc3\xa9");   /* e-acute, two bytes */
        n += (size_t)sprintf(file2 + n, "\",\"");
        for (i = 0; i < 100; i++)
            n += (size_t)sprintf(file2 + n, "\xe2\x82\xac");
        n += (size_t)sprintf(file2 + n, "\"\n");
        if (parses(file2, n, &m, &r, "a long bad amount")) {
            ok(r.nrows == 1 && strlen(r.rows[0].description) == 400 && valid_utf8(r.rows[0].error)
               && strncmp(r.rows[0].error, "amount '\xe2\x82\xac", 11) == 0
               && strstr(r.rows[0].error, "...' is not an amount") != NULL,
               "the value in the error is cut at a character (%s)", r.nrows ? r.rows[0].error : "");
            csv_result_free(&r);
        }
    }
}

/* A row whose reasons overflow its error: cut at a character, still UTF-8. */
static void long_errors(void)
{
    char file[1024], name[64];
    struct csv_mapping m = map_dc("0", "1", "2", "3");
    struct csv_result r;
    size_t n, i;
    int c;

    m.has_header = 1;
    for (i = 0; i < 20; i++)
        memcpy(name + 2 * i, "\xc3\xa9", 2);   /* 20 e-acutes */
    name[40] = '\0';
    n = (size_t)sprintf(file, "Date");
    for (c = 1; c <= 3; c++)
        n += (size_t)sprintf(file + n, ",%s%d", name, c);
    n += (size_t)sprintf(file + n, "\n");
    for (i = 0; i < 40; i++)
        n += (size_t)sprintf(file + n, "\xe2\x82\xac");   /* a date of 40 euro signs */
    n += (size_t)sprintf(file + n, "\n");
    if (parses(file, n, &m, &r, "a row with long reasons")) {
        ok(r.nrows == 1 && strlen(r.rows[0].error) <= 255 && strlen(r.rows[0].error) > 240
           && valid_utf8(r.rows[0].error)
           && strncmp(r.rows[0].error, "the row has only 1 field: '\xc3\xa9", 29) == 0
           && strstr(r.rows[0].error, "...', '") != NULL
           && strstr(r.rows[0].error, "' are missing; date '\xe2\x82\xac") != NULL,
           "reasons past 255 bytes are cut, the text stays UTF-8 (%zu bytes)",
           r.nrows ? strlen(r.rows[0].error) : 0);
        csv_result_free(&r);
    }
}

/* ---- robustness ----------------------------------------------------------------------------- */

static const char rich[] =
    "\xef\xbb\xbf" "Date;Description;Debit;Credit;Balance\r\n"
    "03/01/2025;\"Caf\xc3\xa9; \"\"Le Petit\"\"\r\nSydney\";4,50;;1.234,56\r\n"
    "\r\n"
    "13/01/2025;Salary;;3.200,00;4.434,56\r\n"
    "14/01/2025;\"Rent\";1.500,00 DR;;2.934,56\r\n"
    "15/01/2025;Short;\r\n"
    "16/01/2025;Refund;(10,00);;2.944,56\r\n";

/* Every prefix of a valid file: a sane result, or a 400 for what a cut
 * file is (an open quote, too little to be CSV, a cut character after the
 * BOM, a header without the mapped column yet); never a crash. */
static void truncations(void)
{
    struct csv_mapping m = map_dc("Date", "Description", "Debit", "Credit");
    size_t len = sizeof rich - 1, n, bad = 0, accepted = 0;
    struct csv_result r;
    ledger_error err;

    if (parses(rich, len, &m, &r, "the rich file")) {
        is_int(r.delimiter, ';', "rich: ';'");
        is_int(r.decimal, ',', "rich: decimal comma");
        is_int(r.nrows, 5, "rich: five rows");
        row_is(&r, 0, 2, "2025-01-03", "Caf\xc3\xa9; \"Le Petit\" Sydney", -450, "",
               "rich: quoted ; and quotes over two lines");
        row_is(&r, 1, 5, "2025-01-13", "Salary", 320000, "", "rich: line 5 after the blank");
        row_is(&r, 2, 6, "2025-01-14", "Rent", -150000, "", "rich: DR");
        row_is(&r, 3, 7, "2025-01-15", "Short", NOAMT,
               "the row has only 3 fields: 'Credit' is missing", "rich: short");
        row_is(&r, 4, 8, "2025-01-16", "Refund", -1000, "", "rich: parentheses in a debit column");
        csv_result_free(&r);
    }
    for (n = 0; n < len; n++) {
        int rc = parse(rich, n, &m, &r, &err);

        if (rc == LEDGER_OK) {
            accepted++;
            if (!result_sane(&r) && bad++ == 0)
                printf("# prefix %zu: an insane result\n", n);
            csv_result_free(&r);
        } else if (!error_sane(&err)
                   || (strstr(err.message, "a quoted field is never closed") == NULL
                       && strstr(err.message, "the file is empty") == NULL
                       && strstr(err.message, "not a CSV file") == NULL
                       && strstr(err.message, "invalid UTF-8") == NULL
                       && strncmp(err.field, "mapping.", 8) != 0)) {
            if (bad++ == 0)
                printf("# prefix %zu: %d %s %s\n", n, err.status, err.field, err.message);
        }
    }
    ok(bad == 0 && accepted > len / 2, "each of %zu prefixes is sane (%zu accepted, %zu bad)",
       len, accepted, bad);
}

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Random byte mutations of a few files under a few mappings: any answer is
 * fine except a crash, a malformed error or a result that breaks its
 * promises. */
static void mutations(int rounds)
{
    static const char *files[] = {
        rich,
        "Date,Description,Amount\n03/01/2025,\"Smith, J \"\"Jr\"\"\",-1.00\n"
        "04/01/2025,\"a\nb\",\"1,234.50\"\n05/01/2025,x,(3.00)\n",
        "03-Jan-2025\tCoffee\t$4.50 DR\n04-Jan-2025\tPay\t1 000.00 CR\n",
        "2025-01-03|A|-1\r2025-01-04|B|2\r",
    };
    static const char interesting[] = "\",;\t|\r\n 0123456789.-+()$DRC/\xc3\xa9\xef\xbb\xbf";
    struct csv_mapping maps[5];
    int r, accepted = 0, refused = 0, broken = 0;

    maps[0] = map_dc("Date", "Description", "Debit", "Credit");
    maps[1] = map3("0", "1", "2");
    maps[2] = map3("0", "1", "2");
    maps[2].date_format = "D MMM YYYY";
    maps[3] = map3("Date", "Description", "Amount");
    maps[3].negate = 1;
    maps[4] = map3("0", "1", "2");
    maps[4].skip_lines = 2;
    for (r = 0; r < rounds; r++) {
        size_t k = rnd() % 4, base = strlen(files[k]), len = base, nmut = 1 + rnd() % 6, mu;
        char *b = alloc(base + 64);
        struct csv_mapping *m = &maps[rnd() % 5];
        struct csv_result res;
        ledger_error err;
        int rc;

        memcpy(b, files[k], base);
        for (mu = 0; mu < nmut && len > 0; mu++) {
            size_t at = rnd() % len, span = 1 + rnd() % 16;

            switch (rnd() % 6) {
            case 0:   /* any byte, NUL and high bytes included */
                b[at] = (char)(rnd() & 0xFF);
                break;
            case 1:
                b[at] = interesting[rnd() % (sizeof interesting - 1)];
                break;
            case 2:   /* delete a span */
                if (span > len - at)
                    span = len - at;
                memmove(b + at, b + at + span, len - at - span);
                len -= span;
                break;
            case 3:   /* insert a byte */
                if (len < base + 64) {
                    memmove(b + at + 1, b + at, len - at);
                    b[at] = interesting[rnd() % (sizeof interesting - 1)];
                    len++;
                }
                break;
            case 4:   /* a high byte: Windows-1252 or broken UTF-8 */
                b[at] = (char)(0x80 | (rnd() & 0x7F));
                break;
            default:  /* cut the file */
                len = at;
                break;
            }
        }
        rc = parse(b, len, m, &res, &err);
        free(b);
        if (rc == LEDGER_OK) {
            accepted++;
            if (!result_sane(&res) && broken++ == 0)
                printf("# round %d: an insane result\n", r);
            csv_result_free(&res);
        } else {
            refused++;
            if (!error_sane(&err) && broken++ == 0)
                printf("# round %d: %d %s %s\n", r, err.status, err.field, err.message);
        }
    }
    ok(broken == 0, "%d random mutations: %d accepted, %d refused, %d broken",
       rounds, accepted, refused, broken);
}

/* n rows read whole and exactly, and one row more refused.  The time is
 * printed, not judged: speed is the benchmark's (ledger-libbench previews
 * 100,000 rows), and a timed test fails on a busy machine. */
static void big_file(int n)
{
    size_t cap = (size_t)(n + 1) * 64 + 64, len, i;
    char *buf = alloc(cap);
    struct csv_mapping m = map3("Date", "Description", "Amount");
    struct csv_result r;
    ledger_error err;
    struct timespec t0, t1;
    double secs;
    int64_t sum = 0, want = 0;
    char last_date[16], last_desc[64];
    int rc;

    len = (size_t)sprintf(buf, "Date,Description,Amount\r\n");
    for (i = 0; i < (size_t)n; i++) {
        long cents = (long)(i % 100000) - 50000;

        want += cents;
        len += (size_t)sprintf(buf + len, "%02zu/%02zu/2025,\"Caf\xc3\xa9, number %zu\",%s%ld.%02ld\r\n",
                               1 + i % 28, 1 + i % 12, i, cents < 0 ? "-" : "",
                               labs(cents) / 100, labs(cents) % 100);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = csv_parse(buf, len, &m, &r, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (ok(rc == LEDGER_OK && r.nrows == (size_t)n, "%d rows (%.1f MB) parse", n, (double)len / 1e6)) {
        for (i = 0; i < r.nrows; i++)
            sum += r.rows[i].amount;
        is_int(sum, want, "their amounts add up exactly");
        is_str(r.date_format, "DD/MM/YYYY", "the format guessed over the column");
        i = (size_t)n - 1;
        snprintf(last_date, sizeof last_date, "2025-%02zu-%02zu", 1 + i % 12, 1 + i % 28);
        snprintf(last_desc, sizeof last_desc, "Caf\xc3\xa9, number %zu", i);
        row_is(&r, i, n + 1, last_date, last_desc, (int64_t)(i % 100000) - 50000, "",
               "the last row");
        csv_result_free(&r);
    } else {
        printf("#   %s\n", err.message);
    }
    printf("# %d rows in %.3f s\n", n, secs);

    /* The bound is on rows: lines of account details above the header
     * (found by name) are not rows, so a file of 100,000 rows under them
     * imports. */
    if (n == CSV_MAX_ROWS) {
        static const char pre[] = "Account,Everyday 1234\r\nFrom,01/01/2025\r\nTo,31/12/2025\r\n\r\n";
        char *both = alloc(len + sizeof pre);

        memcpy(both, pre, sizeof pre - 1);
        memcpy(both + sizeof pre - 1, buf, len);
        rc = csv_parse(both, len + sizeof pre - 1, &m, &r, &err);
        ok(rc == LEDGER_OK && r.nrows == (size_t)n && r.header_line == 5,
           "%d rows under three lines of account details parse (%s)", n,
           rc == LEDGER_OK ? "ok" : err.message);
        if (rc == LEDGER_OK)
            csv_result_free(&r);
        free(both);
    }
    /* one row over the bound */
    if (n == CSV_MAX_ROWS) {
        len += (size_t)sprintf(buf + len, "01/01/2026,one too many,1\r\n");
        refuses(buf, len, &m, "csv", "line 100002: more than 100000 rows", "100,001 rows");
        m = map3("0", "1", "2");
        m.has_header = 0;
        refuses(buf + 25, len - 25, &m, "csv", "line 100001: more than 100000 rows",
                "100,001 rows without a header");
    }
    free(buf);
}

/* ---- direction, text columns, several description columns ----------------------------------- */

static void directions(void)
{
    struct csv_mapping m = map3("Date", "Payee", "Amount");
    struct csv_result r;
    static const char file[] =
        "Date,Payee,Amount,Dir\n"
        "03/01/2025,Shop,12.50,D\n"
        "04/01/2025,Pay,100.00,credit\n"
        "05/01/2025,Fee,-1.00,DR\n"      /* a sign is ignored: the column decides */
        "06/01/2025,Zahlung,2.00,Soll\n"
        "07/01/2025,Salaris,3.00,Bij\n"
        "08/01/2025,Achat,4.00,D\xc3\xa9" "bit\n"
        "09/01/2025,Venta,5.00,Abono\n"
        "10/01/2025,Utal\xc3\xa1s,6.00,T\n"
        "11/01/2025,Odd,7.00,sideways\n"
        "12/01/2025,None,8.00,\n";

    m.direction = "Dir";
    if (parses(S(file), &m, &r, "a direction column")) {
        row_is(&r, 0, 2, "2025-01-03", "Shop", -1250, "", "D is money out");
        row_is(&r, 1, 3, "2025-01-04", "Pay", 10000, "", "credit (any case) is money in");
        row_is(&r, 2, 4, "2025-01-05", "Fee", -100, "", "DR: money out, the amount's own sign ignored");
        row_is(&r, 3, 5, "2025-01-06", "Zahlung", -200, "", "Soll (de) is money out");
        row_is(&r, 4, 6, "2025-01-07", "Salaris", 300, "", "Bij (nl) is money in");
        row_is(&r, 5, 7, "2025-01-08", "Achat", -400, "", "D\xc3\xa9" "bit (fr) is money out");
        row_is(&r, 6, 8, "2025-01-09", "Venta", 500, "", "Abono (es) is money in");
        row_is(&r, 7, 9, "2025-01-10", "Utal\xc3\xa1s", -600, "", "T (hu) is money out");
        row_is(&r, 8, 10, "2025-01-11", "Odd", NOAMT,
               "direction 'sideways' is neither a debit nor a credit value (map debit_values and "
               "credit_values)", "an unknown direction is the row's error");
        row_is(&r, 9, 11, "2025-01-12", "None", NOAMT, "the direction is empty",
               "an empty direction is the row's error");
        is_int(r.no_negative, 0, "no warning with a direction column");
        csv_result_free(&r);
    }
    m.debit_values[0] = "out";
    m.credit_values[0] = "in";
    m.ndebit_values = m.ncredit_values = 1;
    m.negate = 1;
    if (parses(S("Date,Payee,Amount,Dir\n03/01/2025,A,1.00,out\n04/01/2025,B,2.00,IN\n"
                 "05/01/2025,C,3.00,D\n"), &m, &r, "the mapping's own direction words")) {
        row_is(&r, 0, 2, "2025-01-03", "A", 100, "", "out is money out, negated");
        row_is(&r, 1, 3, "2025-01-04", "B", -200, "", "IN is money in, negated");
        row_is(&r, 2, 4, "2025-01-05", "C", NOAMT,
               "direction 'D' is neither a debit nor a credit value (map debit_values and "
               "credit_values)", "the defaults are replaced, not added to");
        csv_result_free(&r);
    }
    m = map_dc("Date", "Payee", "Out", "In");
    m.direction = "Dir";
    refuses(S("Date,Payee,Out,In,Dir\n03/01/2025,A,1.00,,D\n"), &m, "mapping.direction",
            "mapping.direction goes with mapping.amount", "a direction with debit and credit");
    m = map3("Date", "Payee", "Amount");
    m.direction = "Way";
    refuses(S("Date,Payee,Amount,Dir\n03/01/2025,A,1.00,D\n"), &m, "mapping.direction",
            "no column 'Way'", "a direction column that is not there");
    m.direction = "Dir";
    if (parses(S("Date,Payee,Amount,Dir\n03/01/2025,A,1.00\n"), &m, &r, "a short row")) {
        row_is(&r, 0, 2, "2025-01-03", "A", NOAMT, "the row has only 3 fields: 'Dir' is missing",
               "a row without its direction says so");
        csv_result_free(&r);
    }
}

static void text_columns(void)
{
    struct csv_mapping m = map3("Date", "Payee", "Amount");
    struct csv_result r;
    static const char file[] =
        "Date,Payee,Memo,Amount,Shop,Cat,Notes\n"
        "03/01/2025,Jane,Rent,-5.00,Landlord,Housing,paid early\n"
        "04/01/2025,,Lunch,-6.00,Cafe,,\n"
        "05/01/2025,,,-7.00,Cafe,Food,a note\n"
        "06/01/2025,,,-8.00,,,only a note\n"
        "07/01/2025,,,-9.00,,,\n"
        "08/01/2025,Bob,,-1.00\n";

    m.description_more[0] = "Memo";
    m.merchant = "Shop";
    m.category = "Cat";
    m.notes = "Notes";
    if (parses(S(file), &m, &r, "several description columns and text columns")) {
        row_is(&r, 0, 2, "2025-01-03", "Jane - Rent", -500, "", "the columns joined in order");
        ok(r.rows[0].merchant && strcmp(r.rows[0].merchant, "Landlord") == 0
           && r.rows[0].category && strcmp(r.rows[0].category, "Housing") == 0
           && r.rows[0].notes && strcmp(r.rows[0].notes, "paid early") == 0,
           "merchant, category and notes read");
        row_is(&r, 1, 3, "2025-01-04", "Lunch", -600, "", "an empty first column is left out");
        ok(r.rows[1].category == NULL && r.rows[1].notes == NULL, "empty text is NULL");
        row_is(&r, 2, 4, "2025-01-05", "Cafe", -700, "", "no description: the merchant");
        row_is(&r, 3, 5, "2025-01-06", "only a note", -800, "", "no merchant either: the notes");
        row_is(&r, 4, 6, "2025-01-07", "", -900, "", "nothing at all: empty (the preview's error)");
        row_is(&r, 5, 7, "2025-01-08", "Bob", -100, "",
               "a row short of text columns only is not short");
        ok(r.rows[5].merchant == NULL && r.rows[5].notes == NULL, "and they are NULL");
        is_int(r.no_negative, 0, "money out seen: no warning");
        csv_result_free(&r);
    }
    m.description_more[0] = "Nope";
    refuses(S(file), &m, "mapping.description[1]", "no column 'Nope'",
            "a further description column that is not there");
    m = map3("Date", "Payee", "Amount");
    if (parses(S("Date,Payee,Amount\n03/01/2025,A,1.00\n04/01/2025,B,2.00\n"), &m, &r,
               "a signed column with nothing out")) {
        is_int(r.no_negative, 1, "no money out in a signed column: the warning");
        csv_result_free(&r);
    }
    m.negate = 1;
    if (parses(S("Date,Payee,Amount\n03/01/2025,A,1.00\n"), &m, &r, "negated")) {
        is_int(r.no_negative, 0, "negated, all is money out: no warning");
        csv_result_free(&r);
    }
    m = map_dc("Date", "Payee", "Out", "In");
    if (parses(S("Date,Payee,Out,In\n03/01/2025,A,,1.00\n"), &m, &r, "debit and credit")) {
        is_int(r.no_negative, 0, "debit and credit columns: no warning");
        csv_result_free(&r);
    }
}

int main(void)
{
    /* make check-valgrind sets LEDGER_VALGRIND; valgrind run by hand shows
     * in the preload it gives the program */
    const char *preload = getenv("LD_PRELOAD");
    int valgrind = getenv("LEDGER_VALGRIND") != NULL
                   || (preload != NULL && strstr(preload, "vgpreload") != NULL);

    basic();
    delimiters();
    quoting();
    line_endings();
    bad_files();
    mapping_errors();
    headers();
    skipping();
    dates();
    amounts();
    debit_credit();
    directions();
    text_columns();
    row_errors();
    long_errors();
    truncations();
    mutations(valgrind ? 2000 : 5000);
    big_file(valgrind ? 10000 : CSV_MAX_ROWS);
    return done_testing();
}
