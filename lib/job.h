/* Jobs: a write too large for one short transaction, written in many
 * (job.c).  Private to libledger; the request loop sees ledger_job_check
 * and ledger_job_recover in ledger.h. */
#ifndef LEDGER_JOB_H
#define LEDGER_JOB_H

#include "db.h"

/* Rows a job writes per transaction: about 30 ms of a CSV commit's
 * writing, so another user's write waits at most that long for the lock. */
#define JOB_CHUNK_ROWS 500

struct job {
    int64_t id;     /* its row in jobs */
    int64_t owner;
    int noted;      /* job_note has run: it has begun writing */
};

/* In no transaction: starts a job of me's, its row committed.  409
 * job_running when another of me's is being written; one whose process
 * died is undone first. */
int job_start(ledger_db *db, int64_t me, const char *kind, struct job *job, ledger_error *err);

/* In the job's write transaction: what it has written, for its undo (the
 * csv_imports batch, the csv-import tag it made or 0, and the id range of
 * its committed rows so far, lo 0 for none yet). */
int job_note(ledger_db *db, struct job *job, int64_t batch, int64_t tag, int64_t lo,
             int64_t hi, ledger_error *err);

/* Commits the chunk written and begins the next write transaction, after
 * a pause in which other processes' waiting writers take the lock; last
 * says the next is the job's last, whose commit acknowledges the job (and
 * is synced, see job.c): a caller passes it true before its last
 * transaction, whatever that holds.  Nothing when job is NULL (the caller's one
 * transaction holds it all). */
int job_yield(ledger_db *db, const struct job *job, int last, ledger_error *err);

/* In the job's last transaction: the job is done once that commits. */
int job_done(ledger_db *db, const struct job *job, ledger_error *err);

/* After the job's last commit, or its failure (its transaction, if any,
 * already rolled back): undoes what a failed job committed, and lets go of
 * it.  A job whose undo failed too stays, and the next request of its
 * owner's undoes it (ledger_job_recover). */
void job_end(ledger_db *db, struct job *job);

/* Closes the lock file (ledger_close). */
void job_close(ledger_db *db);

#endif
