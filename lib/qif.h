/*
 * QIF files (Quicken Interchange Format) as Quicken, MS Money, GnuCash and
 * banks export them: !Type:Bank, !Type:CCard and !Type:Cash sections, each
 * record's D (date), T or U (amount), P (payee), M (memo), N (number),
 * L (category), C (cleared mark), A (address) and S/E/$ (split lines), and
 * !Account blocks naming the account the sections after them belong to.
 *
 * Internal to libledger: the reader fills an ofx_doc (ofx.h), one account
 * per account the file names (one per section type when it names none),
 * so that the statement import treats it as it treats an OFX file.
 */
#ifndef LEDGER_QIF_H
#define LEDGER_QIF_H

#include <stddef.h>
#include "ofx.h"

/* How the file writes its dates: decided from the dates themselves
 * (QIF_ORDER_AUTO), or as the caller says. */
enum qif_order { QIF_ORDER_AUTO, QIF_ORDER_MDY, QIF_ORDER_DMY };

/* Whether buf[0..len) looks like a QIF file: its first line (after a BOM
 * and blank lines) starts with "!Type:", "!Account" or "!Option:". */
int qif_sniff(const char *buf, size_t len);

/* Parses buf[0..len) into *out: 400 invalid_field "file" with "line N: "
 * before the message for a file it cannot read whole (an investment or
 * other account section, a record without a date or amount, dates whose
 * day order the file does not settle); 500 when out of memory.  Rows get
 * keys made of what they say (bank_plain_keys: QIF has no transaction
 * ids).  The caller frees a success with ofx_doc_free. */
int qif_parse(const char *buf, size_t len, enum qif_order order, struct ofx_doc *out,
              ledger_error *err);

#endif
