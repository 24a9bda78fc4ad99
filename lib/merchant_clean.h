/* A merchant name from raw bank text (merchant_clean.c).  Private to
 * libledger; the unit test and contrib/bench/merchant-eval link it
 * statically. */
#ifndef LEDGER_MERCHANT_CLEAN_H
#define LEDGER_MERCHANT_CLEAN_H

#include <stddef.h>

/* Room for a cleaned name or key, NUL included: bank text longer than
 * this is cut before cleaning (no bank writes a payee that long). */
#define MERCHANT_CLEAN_MAX 256

/* The compiled patterns, JIT-compiled too when jit is set (and the
 * platform has it).  merchant_cleaner_new returns NULL when out of
 * memory; the caller frees the result with merchant_cleaner_free. */
struct merchant_cleaner;
struct merchant_cleaner *merchant_cleaner_new(int jit);
void merchant_cleaner_free(struct merchant_cleaner *c);

/* The readable merchant in raw (e.g. "SQ *BLUE BOTTLE COFFEE 0123 SAN
 * FRANCISCO CA" -> "Blue Bottle Coffee") into name, and its key (lower
 * case, letters and digits only: "bluebottlecoffee") into key when key is
 * not NULL; both buffers MERCHANT_CLEAN_MAX bytes.  Returns 1 with a name,
 * 0 when nothing of a merchant is left (only numbers, dates, a card
 * mask ...), -1 when a pattern could not run (out of memory). */
int merchant_clean(struct merchant_cleaner *c, const char *raw, char *name, char *key);

/* The key of a name as merchant_clean makes it (lower case, ASCII
 * letters and digits and every non-ASCII byte kept); out has room for
 * MERCHANT_CLEAN_MAX bytes. */
void merchant_key(const char *name, char *out);

#endif /* LEDGER_MERCHANT_CLEAN_H */
