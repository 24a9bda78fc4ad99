/* The analytics reports' shared parts, private to libledger (analytics.c,
 * analytics_monthly.c). */
#ifndef LEDGER_ANALYTICS_H
#define LEDGER_ANALYTICS_H

#include "db.h"

/* The most months one report covers. */
#define MONTHS_MAX 240

/* from and to as YYYY-MM (inclusive), defaulting to the twelve months up to
 * this one; first and end are the date bounds [first, end), *months how
 * many months the range has; a bad one is a 400 naming it. */
int month_range(const struct ledger_params *p, char *from, char *to, char *first, char *end,
                int *months, ledger_error *err);
/* A month "YYYY-MM..." as a count of months; -1 when it is not one. */
int month_number(const char *m);
/* sql from the statement cache with the caller (?1) and the date range
 * [?2, ?3) bound, as every report's statement takes them; NULL (err
 * set) when it cannot be had. */
sqlite3_stmt *report_stmt(ledger_db *db, const char *sql, int64_t me, const char *first,
                          const char *end, ledger_error *err);

#endif
