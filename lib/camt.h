/*
 * ISO 20022 CAMT.053 bank-to-customer statements (BkToCstmrStmt, message
 * versions camt.053.001.02 to .08), read with expat, a streaming parser:
 * each Stmt is an account with its opening (OPBD, else PRCD) and closing
 * (CLBD) booked balances and its booked entries (Ntry).  An entry with
 * several transaction details (TxDtls, a batch) whose amounts add up to
 * the entry's is one row per detail.
 *
 * Internal to libledger: the reader fills an ofx_doc (ofx.h), so that the
 * statement import treats it as it treats an OFX file.  A row's key is the
 * bank's AcctSvcrRef, else its NtryRef ("/n" added for each detail of a
 * batch), else one made of what it says (bank_plain_keys).
 */
#ifndef LEDGER_CAMT_H
#define LEDGER_CAMT_H

#include <stddef.h>
#include "ofx.h"

/* Whether buf[0..len) looks like CAMT.053: XML naming BkToCstmrStmt or a
 * camt.053 namespace in its first 4 KB. */
int camt_sniff(const char *buf, size_t len);

/* Parses buf[0..len) into *out: 400 invalid_field "file" with "line N: "
 * before the message for a file it cannot read whole (not well-formed
 * XML, a DOCTYPE or entity declaration, another message than camt.053,
 * an amount finer than cents, an entry without a date or amount); 500
 * when out of memory.  The caller frees a success with ofx_doc_free. */
int camt_parse(const char *buf, size_t len, struct ofx_doc *out, ledger_error *err);

#endif
