/* What the QIF and CAMT.053 readers share (bank_doc.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "text.h"
#include "bank_doc.h"

int bank_doc_warn(struct ofx_doc *doc, ledger_error *err, int line, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (doc->nwarnings == OFX_MAX_WARNINGS) {
        doc->more_warnings++;
        return LEDGER_OK;
    }
    if (doc->warnings == NULL) {
        doc->warnings = malloc(OFX_MAX_WARNINGS * sizeof *doc->warnings);
        if (doc->warnings == NULL)
            return ledger_error_oom(err);
    }
    n = snprintf(doc->warnings[doc->nwarnings], OFX_WARNING_SIZE, "line %d: ", line);
    va_start(ap, fmt);
    vsnprintf(doc->warnings[doc->nwarnings] + n, OFX_WARNING_SIZE - (size_t)n, fmt, ap);
    va_end(ap);
    doc->nwarnings++;
    return LEDGER_OK;
}

struct ofx_account *bank_doc_account(struct ofx_doc *doc, ledger_error *err)
{
    struct ofx_account *a = realloc(doc->accounts, (doc->naccounts + 1) * sizeof *a);

    if (a == NULL) {
        ledger_error_oom(err);
        return NULL;
    }
    doc->accounts = a;
    a += doc->naccounts++;
    memset(a, 0, sizeof *a);
    return a;
}

struct ofx_txn *bank_doc_txn(struct ofx_account *a, size_t *cap, ledger_error *err)
{
    struct ofx_txn *t;

    if (a->ntxns == *cap) {
        size_t n = *cap ? *cap * 2 : 16;

        t = realloc(a->txns, n * sizeof *t);
        if (t == NULL) {
            ledger_error_oom(err);
            return NULL;
        }
        a->txns = t;
        *cap = n;
    }
    t = &a->txns[a->ntxns++];
    memset(t, 0, sizeof *t);
    return t;
}

int bank_amount(const char *text, int64_t *cents)
{
    const char *s = text;
    int neg = 0, digits = 0, frac = 0;
    int64_t v = 0;

    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    for (; ascii_digit((unsigned char)*s); s++, digits++) {
        if (v > LEDGER_MONEY_MAX_CENTS / 10)
            return AMOUNT_BAD;
        v = v * 10 + (*s - '0');
    }
    v *= 100;
    if (*s == '.') {
        for (s++; ascii_digit((unsigned char)*s); s++, digits++, frac++) {
            if (frac == 0)
                v += (*s - '0') * 10;
            else if (frac == 1)
                v += *s - '0';
            else if (*s != '0')
                return AMOUNT_PRECISE;
        }
    }
    if (*s != '\0' || digits == 0 || v > LEDGER_MONEY_MAX_CENTS)
        return AMOUNT_BAD;
    *cents = neg ? -v : v;
    return AMOUNT_OK;
}

int bank_currency_three_decimals(const char *currency)
{
    static const char *const three[] = { "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND" };
    size_t i;

    for (i = 0; i < sizeof three / sizeof three[0]; i++)
        if (strcmp(currency, three[i]) == 0)
            return 1;
    return 0;
}

static uint64_t plain_hash(const struct ofx_txn *t)
{
    char amount[32];
    uint64_t h = HASH_START;

    snprintf(amount, sizeof amount, "%lld", (long long)t->amount);
    /* Each field ends with a byte no field holds. */
    h = hash_bytes(h, t->date, strlen(t->date) + 1);
    h = hash_bytes(h, amount, strlen(amount) + 1);
    h = hash_bytes(h, t->name, strlen(t->name) + 1);
    h = hash_bytes(h, t->checknum, strlen(t->checknum) + 1);
    return hash_bytes(h, t->memo, strlen(t->memo) + 1);
}

struct keyed { uint64_t h; size_t i; };

static int by_hash(const void *x, const void *y)
{
    const struct keyed *a = x, *b = y;

    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

int bank_plain_keys(struct ofx_account *a, const char *kind, ledger_error *err)
{
    struct keyed *k = malloc((a->ntxns ? a->ntxns : 1) * sizeof *k);
    size_t i, n = 0, nth = 0;

    if (k == NULL)
        return ledger_error_oom(err);
    for (i = 0; i < a->ntxns; i++)
        if (a->txns[i].fitid[0] == '\0') {
            k[n].h = plain_hash(&a->txns[i]);
            k[n++].i = i;
        }
    /* Sorted by what they say, then in file order: the nth of a run
     * saying the same is n. */
    qsort(k, n, sizeof *k, by_hash);
    for (i = 0; i < n; i++) {
        nth = i > 0 && k[i].h == k[i - 1].h ? nth + 1 : 1;
        snprintf(a->txns[k[i].i].fitid, sizeof a->txns[0].fitid, "%s:%016llx.%zu", kind,
                 (unsigned long long)k[i].h, nth);
    }
    free(k);
    return LEDGER_OK;
}

int bank_text(const char *s, const char *e, int cp1252, char *out, size_t cap)
{
    const unsigned char *p = (const unsigned char *)s, *end = (const unsigned char *)e;
    size_t n = 0;
    int space = 0;

    while (p < end && ascii_space(*p))
        p++;
    while (end > p && ascii_space(end[-1]))
        end--;
    while (p < end) {
        unsigned char buf[4];
        size_t len = utf8_len(p, end), k;

        if (ascii_space(*p)) {
            space = 1;
            p++;
            continue;
        }
        if (len) {
            memcpy(buf, p, len);
            k = len;
        } else {
            unsigned cp = cp1252 ? charset_char(CHARSET_WINDOWS_1252, *p) : 0;

            k = put_utf8(buf, cp ? cp : 0xFFFD);
            len = 1;
        }
        if (n + space + k + 1 > cap) {
            out[n] = '\0';
            return 1;
        }
        if (space)
            out[n++] = ' ';
        space = 0;
        memcpy(out + n, buf, k);
        n += k;
        p += len;
    }
    out[n] = '\0';
    return 0;
}

int bank_date_ok(int y, int m, int d, char *out)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    if (y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > days[m - 1] + (m == 2 && leap))
        return 0;
    out[0] = (char)('0' + y / 1000);
    out[1] = (char)('0' + y / 100 % 10);
    out[2] = (char)('0' + y / 10 % 10);
    out[3] = (char)('0' + y % 10);
    out[4] = out[7] = '-';
    out[5] = (char)('0' + m / 10);
    out[6] = (char)('0' + m % 10);
    out[8] = (char)('0' + d / 10);
    out[9] = (char)('0' + d % 10);
    out[10] = '\0';
    return 1;
}
