/*
 * Money and percentages: the one place decimal text becomes integers and
 * back.  Both are fixed-point with two decimals (cents, hundredths of a
 * percent), and neither ever passes through a double: the literal text that
 * json.c keeps is read digit by digit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "text.h"

#define MAX_DIGITS 64

int ledger_decimal2_parse(const char *text, int64_t *cents)
{
    const char *s = text;
    char dig[MAX_DIGITS];
    int nd = 0, frac = 0, neg = 0, shift, i;
    long exp = 0;
    int64_t v = 0;

    if (s == NULL)
        return LEDGER_ERR;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (!ascii_digit(*s))
        return LEDGER_ERR;
    for (; ascii_digit(*s) || *s == '.'; s++) {
        if (*s == '.') {
            if (frac || !ascii_digit(s[1]))
                return LEDGER_ERR;
            frac = -1;  /* counting starts with the next digit */
            continue;
        }
        if (frac)
            frac--;
        if (nd == 0 && *s == '0')
            continue;  /* leading zeros carry nothing */
        if (nd == MAX_DIGITS)
            return LEDGER_ERR;
        dig[nd++] = *s;
    }
    frac = frac ? -frac - 1 : 0;  /* digits after the point */
    if (*s == 'e' || *s == 'E') {
        int eneg = 0;

        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        if (!ascii_digit(*s))
            return LEDGER_ERR;
        for (; ascii_digit(*s); s++)
            if (exp < 100000)
                exp = exp * 10 + (*s - '0');
        if (eneg)
            exp = -exp;
    }
    if (*s != '\0')
        return LEDGER_ERR;
    if (nd == 0) {
        *cents = 0;
        return LEDGER_OK;
    }
    /* value = dig * 10^(exp - frac); cents = dig * 10^(exp - frac + 2) */
    if (exp - frac + 2 < -MAX_DIGITS || exp - frac + 2 > 20)
        return LEDGER_ERR;
    shift = (int)(exp - frac + 2);
    while (shift < 0) {
        if (dig[nd - 1] != '0')
            return LEDGER_ERR;  /* a non-zero digit below a cent */
        nd--;
        shift++;
    }
    if (nd + shift > 16)
        return LEDGER_ERR;
    for (i = 0; i < nd; i++)
        v = v * 10 + (dig[i] - '0');
    for (i = 0; i < shift; i++)
        v *= 10;
    if (v > LEDGER_MONEY_MAX_CENTS)
        return LEDGER_ERR;
    *cents = neg ? -v : v;
    return LEDGER_OK;
}

static int decimal2_from_json(const cJSON *item, const char *field, int64_t *out,
                              const char *what, ledger_error *err)
{
    char buf[40];
    const char *text;

    if (!cJSON_IsNumber(item))
        return error_field(err, field, "%s must be a number", field);
    text = item->valuestring;
    if (text == NULL) {
        /* A tree built in C rather than parsed: its double is all there is. */
        snprintf(buf, sizeof buf, "%.2f", item->valuedouble);
        text = buf;
        if (item->valuedouble != item->valuedouble)
            text = "NaN";
    }
    if (ledger_decimal2_parse(text, out))
        return error_field(err, field, "%s must be %s with at most 2 decimal places", field, what);
    return LEDGER_OK;
}

int ledger_money_from_json(const cJSON *item, const char *field, int64_t *cents,
                           ledger_error *err)
{
    return decimal2_from_json(item, field, cents,
                              "an amount of at most 10000000000000", err);
}

int ledger_percent_from_json(const cJSON *item, const char *field,
                             int64_t *hundredths, ledger_error *err)
{
    int64_t v;

    if (decimal2_from_json(item, field, &v, "a percentage from 0 to 100", err))
        return LEDGER_ERR;
    if (v < 0 || v > 10000)
        return error_field(err, field, "%s must be a percentage from 0 to 100", field);
    *hundredths = v;
    return LEDGER_OK;
}

/* A magnitude of cents as "units.cc", negative when neg, in buf.  Digits
 * from the right (every report writes thousands of these, and snprintf
 * is too slow for that), two at a time from a table
 * once the cents are out: two decimals, the point, then at least one
 * digit before it.  The 128-bit division only for the part past 64 bits,
 * which no single amount has. */
static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static size_t format_cents(unsigned __int128 mag, int neg, char *buf, size_t len)
{
    static const uint64_t ten_to[19] = {
        10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
        1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
        100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
        1000000000000000000ULL, 10000000000000000000ULL,
    };
    char tmp[48], *p = tmp + sizeof tmp;
    int n = 0;  /* digits written */
    uint64_t low;
    size_t k = 0;

    /* Within 64 bits the text's length is known first, and it is written
     * straight into buf when it fits, not copied there from tmp. */
    if (mag <= UINT64_MAX && len > 0) {
        int digits = 1;

        for (low = (uint64_t)mag; digits < 20 && low >= ten_to[digits - 1]; digits++)
            ;
        k = (size_t)(digits < 3 ? 3 : digits) + 1 + (neg != 0);
        if (k < len) {
            buf[k] = '\0';
            p = buf + k;
        }
    }
    while (mag > UINT64_MAX) {
        *--p = (char)('0' + (int)(mag % 10));
        mag /= 10;
        if (++n == 2)
            *--p = '.';
    }
    low = (uint64_t)mag;
    if (n == 0) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * (low % 100), 2);
        low /= 100;
        *--p = '.';
    } else if (n == 1) {
        *--p = (char)('0' + low % 10);
        low /= 10;
        *--p = '.';
    }
    while (low >= 100) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * (low % 100), 2);
        low /= 100;
    }
    if (low >= 10) {
        p -= 2;
        memcpy(p, digit_pairs + 2 * low, 2);
    } else if (low > 0 || n <= 2) {
        /* The one digit before the point, 0 included; past 64 bits the
         * digits already written are the low ones and a 0 here would be
         * a leading zero. */
        *--p = (char)('0' + low);
    }
    if (neg)
        *--p = '-';
    if (p == buf)
        return k;
    if (len == 0)
        return 0;
    k = (size_t)(tmp + sizeof tmp - p);
    if (k > len - 1)
        k = len - 1;
    memcpy(buf, p, k);
    buf[k] = '\0';
    return k;
}

char *ledger_decimal2_format(int64_t cents, char *buf, size_t len)
{
    /* Through uint64_t so INT64_MIN has a magnitude too. */
    format_cents(cents < 0 ? (uint64_t)0 - (uint64_t)cents : (uint64_t)cents, cents < 0, buf, len);
    return buf;
}

cJSON *ledger_money_to_json(int64_t cents)
{
    char buf[32];

    return cJSON_CreateRaw(ledger_decimal2_format(cents, buf, sizeof buf));
}

size_t money_sum_text(money_sum cents, char *buf, size_t len)
{
    return format_cents(cents < 0 ? (unsigned __int128)0 - (unsigned __int128)cents
                                  : (unsigned __int128)cents,
                        cents < 0, buf, len);
}

char *money_sum_format(money_sum cents, char *buf, size_t len)
{
    money_sum_text(cents, buf, len);
    return buf;
}

cJSON *money_sum_to_json(money_sum cents)
{
    char buf[48];

    return cJSON_CreateRaw(money_sum_format(cents, buf, sizeof buf));
}

/* Two's complement with the sign bit flipped, most significant byte first:
 * memcmp orders the bytes as the numbers are ordered. */
void money_sum_pack(money_sum cents, unsigned char out[MONEY_SUM_BYTES])
{
    unsigned __int128 u = (unsigned __int128)cents ^ ((unsigned __int128)1 << 127);
    int i;

    for (i = MONEY_SUM_BYTES - 1; i >= 0; i--) {
        out[i] = (unsigned char)(u & 0xff);
        u >>= 8;
    }
}

money_sum money_sum_column(sqlite3_stmt *st, int col)
{
    const unsigned char *b;
    unsigned __int128 u = 0;
    int i;

    if (sqlite3_column_type(st, col) != SQLITE_BLOB)
        return sqlite3_column_int64(st, col);
    b = sqlite3_column_blob(st, col);
    if (b == NULL || sqlite3_column_bytes(st, col) != MONEY_SUM_BYTES)
        return 0;
    for (i = 0; i < MONEY_SUM_BYTES; i++)
        u = u << 8 | b[i];
    return (money_sum)(u ^ ((unsigned __int128)1 << 127));
}
