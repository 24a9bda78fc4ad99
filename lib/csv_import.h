/* The CSV import's parts, private to libledger: csv_import.c previews a
 * file, csv_commit.c commits its rows, and csv_duplicate.c finds the rows
 * either would duplicate. */
#ifndef LEDGER_CSV_IMPORT_H
#define LEDGER_CSV_IMPORT_H

#include "db.h"

/* The longest description a row may have, in bytes. */
#define CSV_DESCRIPTION_MAX 1000

/* One line to look for: money out (debit, fee, interest) or in.  A line
 * with no date is not looked for. */
struct dup_key {
    const char *date, *description;
    int64_t amount;
    int out;
};

/* dup[i]: the id of the caller's row that line k[i] duplicates, or 0.
 * One stored row stands for one line: the nth of several same lines is
 * the duplicate of the nth stored row like them, lowest id first, and the
 * lines past the rows stored are new.  A manual row reconciled with a
 * statement row is that row. */
int csv_find_duplicates(ledger_db *db, int64_t me, const struct dup_key *k, size_t n,
                        int64_t *dup, ledger_error *err);

#endif
