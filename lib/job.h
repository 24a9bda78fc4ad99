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

/* Begins a write of `rows` rows of me's, when called in no transaction
 * (*own then set: the caller ends what this begins).  More rows than a
 * chunk: a job of kind (job_start, into run, *job set), in a read
 * transaction to check them in; else one write transaction
 * (ledger_begin_as).  Called in a transaction, nothing: that one holds
 * the write.  On failure, the caller still ends *job. */
int job_begin(ledger_db *db, int64_t me, const char *kind, size_t rows, struct job *run,
              struct job **job, int *own, ledger_error *err);

/* In the job's write transaction: what it has written, for its undo (the
 * csv_imports batch, the csv-import tag it made or 0, and the id range of
 * its committed rows so far, lo 0 for none yet). */
int job_note(ledger_db *db, struct job *job, int64_t batch, int64_t tag, int64_t lo,
             int64_t hi, ledger_error *err);

/* Commits the chunk written and pauses, as job_yield does, leaving the job
 * in no transaction: it begins the one it needs next (a read one, say,
 * to ready its next chunk without holding the lock). */
int job_pause(ledger_db *db, const struct job *job, int last, ledger_error *err);

/* Commits the chunk written and begins the next write transaction, after
 * a pause in which other processes' waiting writers take the lock; last
 * says the next is the job's last, whose commit acknowledges the job (and
 * is synced, see job.c): a caller passes it true before its last
 * transaction, whatever that holds.  Nothing when job is NULL (the caller's one
 * transaction holds it all). */
int job_yield(ledger_db *db, const struct job *job, int last, ledger_error *err);

/* Ends the job's transaction and begins a read one (write 0), whose
 * checks hold no lock, or a write one.  Nothing when job is NULL. */
int job_switch(ledger_db *db, const struct job *job, int write, ledger_error *err);

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
