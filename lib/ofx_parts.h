/* The OFX reader's parts, private to libledger: ofx_lex.c reads the bytes
 * and the markup and keeps the stack of open elements; ofx.c builds the
 * document as elements open, hold text and close (ofx_parse). */
#ifndef LEDGER_OFX_PARTS_H
#define LEDGER_OFX_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "ofx.h"

/* What an element holds: elements, text, or what the file shows. */
enum kind { K_UNKNOWN, K_AGG, K_LEAF };

/* The elements this reader acts on; every other known element is E_OTHER. */
enum elem {
    E_OTHER = 0,
    E_OFX, E_SONRS, E_FI, E_STMTRS, E_CCSTMTRS, E_BANKACCTFROM, E_CCACCTFROM,
    E_BANKTRANLIST, E_STMTTRN, E_PAYEE, E_CURRENCY, E_ORIGCURRENCY, E_LEDGERBAL,
    E_AVAILBAL,
    E_ORG, E_FID, E_CURDEF, E_BANKID, E_ACCTID, E_ACCTTYPE, E_DTSTART, E_DTEND,
    E_TRNTYPE, E_DTPOSTED, E_DTUSER, E_TRNAMT, E_FITID, E_NAME, E_MEMO,
    E_CHECKNUM, E_CURSYM, E_CURRATE, E_BALAMT, E_DTASOF,
    E_STATUS, E_CODE, E_SEVERITY, E_MESSAGE, E_DTSERVER, E_INVSTMTRS
};

#define BIT(e) ((uint64_t)1 << (e))

struct frame {
    char name[OFX_MAX_TAG + 1];
    unsigned char id, kind;
    int line;
};

struct tag {
    char name[OFX_MAX_TAG + 1];
    int end_tag, self_closing, line;
    const unsigned char *after;     /* just past the '>' */
};

struct parser {
    const unsigned char *start, *p, *end;
    ledger_error *err;
    int cp1252;                     /* values are Windows-1252, not UTF-8 */
    int xml;                        /* OFX 2.x: every element has its end tag */
    int cdata;                      /* a value so far held a CDATA section */
    const unsigned char *counted;   /* lines are counted up to here ... */
    int line;                       /* ... where this line is */
    struct frame stack[OFX_MAX_DEPTH];
    int depth;
    int roots;                      /* <OFX> elements seen */
    unsigned char index[256];       /* known[] by hash of name: 1 + its position, 0 free */
    uint64_t leaf_names[4];         /* by hash of name: unknown elements read as text */
    struct ofx_doc doc;
    size_t acct_cap, txn_cap;       /* of doc.accounts, of the open account's txns */
    /* Stack indexes of the open statement, transaction, balance and currency
     * aggregates this reader fills, or -1, with the fields each has had. */
    int acct_at, txn_at, bal_at, cur_at;
    uint64_t acct_seen, txn_seen, bal_seen, cur_seen;
    char dtuser[11], payee_name[256];
    int64_t bal_amount;
    char bal_date[11];
    char cur_sym[4], cur_rate[24];
    /* The open STATUS aggregate's values. */
    char st_code[16], st_severity[16], st_message[160];
    int inv_line;                   /* line of the first <INVSTMTRS>, or 0 */
    /* The first STATUS with a CODE other than 0: the bank's refusal. */
    int bad_line;
    char bad_code[16], bad_severity[16], bad_message[160];
};

/* ---- ofx_lex.c: bytes, characters and markup ------------------------------ */

/* The file's one error: 400 invalid_field "file", "line N: " before the
 * message. */
int ofx_fail(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds "line N: " and the message to the document's warnings: a value
 * the reader drops or reads other than as written.  LEDGER_ERR only when
 * out of memory. */
int ofx_warn(struct parser *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text from the file for an error message: printable ASCII only, so the
 * message stays valid UTF-8 whatever the file's bytes, and short. */
const char *ofx_shown(const void *text, size_t n, char buf[48]);
enum { DEC_OK, DEC_LONG, DEC_BADREF, DEC_CUT };
/* Decodes element text [s, e) into out (cap bytes with the NUL): entities
 * and the file's character set to UTF-8, surrounding white space trimmed,
 * line breaks and tabs inside made spaces (SGML values may run over lines).
 * Text that does not fit is cut at a character boundary when truncate is
 * set (DEC_CUT), and is DEC_LONG otherwise. */
int ofx_decode_text(const struct parser *ps, const unsigned char *s, const unsigned char *e,
                    char *out, size_t cap, int truncate);
/* Reads buf[0..len) into ps, calling the builder's ofx_opened, ofx_leaf
 * and ofx_closed as elements open, hold text and close. */
int ofx_lex(struct parser *ps, const char *buf, size_t len);

/* ---- ofx.c: the document --------------------------------------------------- */

/* The aggregate at stack index i has just opened. */
int ofx_opened(struct parser *ps, int i);
/* Element text [s, e) of t (element id), in the aggregate on top of the
 * stack. */
int ofx_leaf(struct parser *ps, const struct tag *t, int id, const unsigned char *s,
             const unsigned char *e);
/* The aggregate at stack index i is closing, by its end tag or its parent's. */
int ofx_closed(struct parser *ps, int i);
/* Whether the element child has a place in parent, for the elements this
 * reader acts on. */
int ofx_belongs(int child, int parent);

/* The line of the file at byte at (counted on from the last call). */
int ofx_line_at(struct parser *ps, const unsigned char *at);
/* Checks the whole file's bytes and settles its character set
 * (ofx_text.c): control characters mean it is not text at all. */
int ofx_check_bytes(struct parser *ps);
#endif
