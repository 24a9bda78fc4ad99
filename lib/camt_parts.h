/* The CAMT.053 reader's parts, private to libledger: camt.c reads the XML
 * with expat and fills the open statement, entry and balance; camt_rows.c
 * settles each as it closes (its rows, its balances, its assertion). */
#ifndef LEDGER_CAMT_PARTS_H
#define LEDGER_CAMT_PARTS_H

#include <stdint.h>
#include <expat.h>

#include "bank_doc.h"

#define CAMT_MAX_DEPTH 48
#define CAMT_MAX_TEXT 8192
#define CAMT_MAX_DETAILS 10000
#define NS_CAMT053 "urn:iso:std:iso:20022:tech:xsd:camt.053.001."

/* One TxDtls of an entry. */
struct detail {
    int64_t amount;
    int has_amount, out, has_out, line;
    char dbtr[140], cdtr[140], ultmt_dbtr[140], ultmt_cdtr[140];
    char ustrd[512], addtl[256];
};

struct entry {
    int64_t amount;
    int has_amount, out, has_out, reversal, line, pending;
    char ccy[4], status[8], booked[11], value[11], ntry_ref[128], svcr_ref[128];
    char subfamily[8], addtl[512];
    struct detail *details;
    size_t ndetails, cap;
};

struct balance {
    char code[8], ccy[4], date[11];
    int64_t amount;
    int has_amount, out, line;
};

struct reader {
    XML_Parser xp;
    ledger_error *err;
    int failed;
    struct ofx_doc doc;
    size_t txn_cap;
    char path[CAMT_MAX_DEPTH * 40];
    size_t len_at[CAMT_MAX_DEPTH + 1];
    int depth;
    /* The open statement, entry, detail and balance: where the path below
     * each starts, or -1, and its depth. */
    int stmt_at, ntry_at, txd_at, bal_at;
    int stmt_d, ntry_d, txd_d, bal_d;
    char text[CAMT_MAX_TEXT + 1];
    size_t ntext;
    char amt_ccy[4];
    struct entry e;
    struct balance b;
    int64_t booked_sum;            /* the open statement's booked rows */
    int opening_prcd;              /* its opening balance is a PRCD */
    char bic[16];
};

/* The file's one error: 400 invalid_field "file", "line N: " before the
 * message (N the parser's line); stops the parser. */
int camt_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds "line N: " and the message to the warnings; LEDGER_ERR (and the
 * parser stopped) only when out of memory. */
int camt_warn(struct reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Out of memory: a 500, and the parser stopped. */
void camt_oom(struct reader *r);
/* The open statement's account. */
struct ofx_account *camt_account(struct reader *r);

/* ---- camt_rows.c: what closes ---------------------------------------------- */

/* The closing Ntry: its rows, one per detail of a batch whose amounts add
 * up to the entry's; a pending entry is left out and said so. */
int camt_entry_end(struct reader *r);
/* The closing Bal: the opening, closing or available balance. */
int camt_balance_end(struct reader *r);
/* The closing Stmt: its rows' keys and its balance assertion. */
int camt_statement_end(struct reader *r);

#endif
