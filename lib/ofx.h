/*
 * OFX/QFX statement files, as banks export them: OFX 1.x (SGML, end tags of
 * elements left out, a KEY:VALUE header, often Windows-1252 text) and OFX
 * 2.x (XML), bank and credit-card statements, any number of accounts.
 *
 * Internal to libledger: the statement import turns an ofx_doc into rows.
 * Everything is read into fixed-size fields, so a transaction costs about
 * 1.1 KB whatever the file holds.
 */
#ifndef LEDGER_OFX_H
#define LEDGER_OFX_H

#include <stddef.h>
#include <stdint.h>
#include "ledger.h"

/* Bounds on the input.  An element nested deeper, a tag name or an element's
 * text (before entities are decoded) longer than these is a 400. */
#define OFX_MAX_DEPTH 32
#define OFX_MAX_TAG 64
#define OFX_MAX_VALUE 8192
#define OFX_MAX_WARNINGS 100
#define OFX_WARNING_SIZE 240

struct ofx_txn {
    char date[11];          /* YYYY-MM-DD from DTPOSTED (DTUSER if no DTPOSTED) */
    int64_t amount;         /* cents, signed as in the file (TRNAMT) */
    char trntype[16];       /* TRNTYPE upper-case: DEBIT, CREDIT, FEE, INT, PAYMENT, ...;
                             * any word the bank sends, "" when absent */
    char fitid[256];        /* FITID, may be empty */
    char name[256];         /* NAME (or PAYEE/NAME), UTF-8, may be truncated */
    char memo[512];         /* MEMO, UTF-8, may be truncated */
    char checknum[32];      /* CHECKNUM, may be empty */
    char currency[4];       /* CURRENCY/CURSYM: TRNAMT is in this currency
                             * rather than CURDEF; "" when absent */
    char orig_currency[4];  /* ORIGCURRENCY/CURSYM: TRNAMT was converted to
                             * CURDEF from this currency; "" when absent */
    char currate[24];       /* the CURRATE of either, as decimal text with a
                             * '.' ("0.6512"); "" when absent */
    int line;               /* line of the <STMTTRN> tag */
};

struct ofx_account {
    char bank_id[64];       /* BANKID, empty for credit cards */
    char acct_id[64];       /* ACCTID, empty when the file gives none */
    char acct_type[32];     /* ACCTTYPE (CHECKING, SAVINGS, MONEYMRKT, CREDITLINE, CD)
                             * upper-case, or "CREDITCARD" */
    int credit_card;        /* from CCSTMTRS */
    char currency[4];       /* CURDEF upper-case, default "" */
    char start[11], end[11];            /* DTSTART, DTEND as YYYY-MM-DD, may be empty */
    int has_ledger_balance; int64_t ledger_balance; char ledger_balance_date[11];  /* LEDGERBAL;
                             * its date is kept when it has no BALAMT, to date a statement
                             * without rows */
    int has_available_balance; int64_t available_balance;                            /* AVAILBAL */
    int has_opening_balance; int64_t opening_balance;   /* CAMT.053's OPBD: OFX has none */
    char available_balance_date[11];    /* AVAILBAL/DTASOF, may be empty */
    struct ofx_txn *txns; size_t ntxns;
    int line;               /* line of the <STMTRS> or <CCSTMTRS> tag */
};

struct ofx_doc {
    struct ofx_account *accounts; size_t naccounts;
    char org[128];          /* SONRS/FI/ORG (the bank's name), may be truncated or empty */
    char fid[32];           /* SONRS/FI/FID, may be empty */
    char server_date[11];   /* SONRS/DTSERVER as YYYY-MM-DD, may be empty */
    /* What the reader dropped or read other than as written, each "line N:
     * ...", in the file's order; more_warnings counts those past the
     * OFX_MAX_WARNINGS kept. */
    char (*warnings)[OFX_WARNING_SIZE]; size_t nwarnings, more_warnings;
};

/* Parses buf[0..len) (no NUL terminator needed).  On failure returns
 * LEDGER_ERR with a 400 "invalid_field" (field "file") whose message starts
 * "line N: " (500 "internal" when out of memory); never crashes, never reads
 * past len, and leaves *out alone.  The caller frees a successful result with
 * ofx_doc_free.  A success holds at least one account. */
int ofx_parse(const char *buf, size_t len, struct ofx_doc *out, ledger_error *err);
void ofx_doc_free(struct ofx_doc *doc);

#endif
