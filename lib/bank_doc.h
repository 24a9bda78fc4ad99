/*
 * What the QIF and CAMT.053 readers share: they fill the OFX reader's
 * document (ofx.h), so that one statement import turns every format into
 * statements and rows.  Private to libledger.
 */
#ifndef LEDGER_BANK_DOC_H
#define LEDGER_BANK_DOC_H

#include <stddef.h>
#include <stdint.h>

#include "ofx.h"

/* Adds "line N: " and the message to doc's warnings (at most
 * OFX_MAX_WARNINGS, the rest counted).  LEDGER_ERR only when out of
 * memory. */
int bank_doc_warn(struct ofx_doc *doc, ledger_error *err, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A new account at the end of doc, zeroed; NULL when out of memory. */
struct ofx_account *bank_doc_account(struct ofx_doc *doc, ledger_error *err);
/* A new row at the end of a, zeroed; *cap is the room a->txns has.  NULL
 * when out of memory. */
struct ofx_txn *bank_doc_txn(struct ofx_account *a, size_t *cap, ledger_error *err);

enum { AMOUNT_OK, AMOUNT_BAD, AMOUNT_PRECISE };
/* Decimal text ("-1234.50", "+3", ".5") to cents.  Digits past the cent
 * are allowed only as zeros (AMOUNT_PRECISE otherwise): money is kept in
 * cents and a rounded amount would not be the bank's. */
int bank_amount(const char *text, int64_t *cents);
/* Whether currency (an ISO 4217 code) has three decimal places, which
 * cents cannot hold. */
int bank_currency_three_decimals(const char *currency);

/* Gives each row of a without a key one made of what it says: kind, then a
 * hash of its date, amount, name, number and memo, then which of the
 * account's rows saying the same it is ("qif:9f..c1.2").  The same file
 * makes the same keys again, and a later file with one more such row
 * (two coffees, same day and price) adds that one.  LEDGER_ERR only
 * when out of memory. */
int bank_plain_keys(struct ofx_account *a, const char *kind, ledger_error *err);

/* Copies text [s, e) into out (cap bytes with the NUL) as UTF-8: bytes
 * that are not UTF-8 are read as Windows-1252 when cp1252 is set;
 * surrounding white space trimmed and runs of white space inside made one
 * space.  Returns whether it was cut to fit (at a character). */
int bank_text(const char *s, const char *e, int cp1252, char *out, size_t cap);

/* A date to YYYY-MM-DD in out (11 bytes) when it is a real calendar day. */
int bank_date_ok(int y, int m, int d, char *out);

#endif
