/*
 * Jobs: a write too large for one short transaction (a CSV commit of up to
 * 100,000 rows, a statement or a statement file of as many, a statement's
 * delete, a rule applied to as many, apply-all, a run's revert, the
 * merchant run: seconds of writing) written in many, so that no request
 * holds the write lock for long: between two chunks other processes'
 * waiting writers take the lock, and another user's write waits for one
 * chunk at most, not the whole job.
 *
 * It stays all or nothing for everyone who can read it:
 *   - Its row in jobs is committed before its first chunk.  While the row
 *     exists its owner's other requests are refused, 409 job_running
 *     (ledger_job_check, called in each request's transaction), and what
 *     a job writes is seen by nobody else until its last transaction (new
 *     rows, a CSV commit's or a statement's, have no splits and no trip,
 *     and the summaries they add to are their owner's; a rule apply,
 *     apply-all, a revert, the merchant run or a statement's delete
 *     changes the rows shared with someone, by a split or a trip, in its
 *     last transaction, and a rule that shares the rows it changes
 *     changes them all there).  So nobody reads a part of a job.
 *   - The row says what the job has committed so far.  A job that fails
 *     undoes that (job_end; a revert that began writing is finished
 *     instead, from its run's snapshots, and so is a statement's delete);
 *     its last transaction deletes the row with its last chunk, and only
 *     then is the job's answer sent.
 *   - A job's process holds a POSIX lock on the byte at the job's id of the
 *     file <database>-jobs while the job runs.  The system lets go of it
 *     when the process dies (kill -9, a crash), so a job row whose byte
 *     nobody holds is a dead job's, and the first request of its owner's
 *     that finds it undoes it (ledger_job_recover), holding the byte itself
 *     meanwhile so that no other process undoes it too.
 *
 * A POSIX lock is the process's, and closing any descriptor of the file
 * drops all of them, so each connection opens the lock file once and keeps
 * it (one connection per process, as ledger-fcgi has).  A database with no
 * file (":memory:") has no other process: a job there is alive only while
 * its own connection runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "job.h"
#include "txn.h"
#include "rule.h"
#include "statement.h"

/* The pause after each chunk's commit.  A waiting writer in another
 * process tries the lock at least every 4 ms (db_busy_wait), and holds it
 * for a millisecond or two, so in this long the writers waiting take it in
 * turn before the next chunk asks again.
 *
 * The pause checkpoints first (ledger_idle), holding no lock: the process
 * running a job answers nothing else, so its checkpoints would otherwise
 * wait for the job's end, and the chunks' pages would pile up in the log
 * (each chunk writes again the pages of every index its rows touch: a
 * 100,000-row statement's delete grows it past a gigabyte), for the job's
 * last commit, synced, to write to disk while it holds the lock. */
#define JOB_PAUSE_MS 10

/* A chunk's commit after the first is not synced to disk (WAL,
 * synchronous=NORMAL: a power cut may lose the last commits, never order
 * them differently); the job's last commit is (FULL, the connection's
 * level, which job_yield sets again for the last transaction and job_end
 * in any case), and with it every chunk before it, as the log is one file
 * written in order.  Until that commit nothing of the job is
 * acknowledged, and a chunk lost with the power goes with the rest of the
 * job, undone when its owner next asks.  That saves a sync per chunk.  A
 * job whose first write transaction is its last (one chunk, or a rule run
 * whose rows are all shared) never leaves FULL. */
static const char SQL_SYNC_FULL[] = "PRAGMA synchronous = FULL";
static const char SQL_SYNC_NORMAL[] = "PRAGMA synchronous = NORMAL";
static const char SQL_MINE[] = "SELECT id FROM jobs WHERE owner_id = ?";
static const char SQL_NEW[] =
    "INSERT INTO jobs (id, owner_id, kind) VALUES (1 + abs(random() % 1099511627775), ?, ?)";
static const char SQL_NOTE[] =
    "UPDATE jobs SET batch = ?2, tag = NULLIF(?3, 0), lo = COALESCE(lo, NULLIF(?4, 0)),"
    " hi = COALESCE(NULLIF(?5, 0), hi) WHERE id = ?1";
static const char SQL_DONE[] = "DELETE FROM jobs WHERE id = ?";
static const char SQL_KIND[] = "SELECT kind, batch FROM jobs WHERE id = ?";
static const char SQL_LEFT[] = "SELECT count(*) FROM jobs WHERE id = ?";
static const char SQL_UNDO_RUN_ROWS[] = "DELETE FROM rule_run_rows WHERE run_id = ?";
static const char SQL_UNDO_RUN[] = "DELETE FROM rule_runs WHERE id = ?";
static const char SQL_UNDO_ROWS[] =
    "DELETE FROM transactions WHERE id IN (SELECT t.id FROM jobs j, transactions t"
    " WHERE j.id = ?1 AND t.id BETWEEN j.lo AND j.hi AND t.import_id = j.batch"
    " AND t.owner_id = j.owner_id LIMIT ?2)";
static const char SQL_UNDO_BATCH[] =
    "DELETE FROM csv_imports WHERE id = (SELECT batch FROM jobs WHERE id = ?1)"
    " AND owner_id = (SELECT owner_id FROM jobs WHERE id = ?1)";
static const char SQL_UNDO_TAG[] =
    "DELETE FROM tags WHERE id = (SELECT tag FROM jobs WHERE id = ?1)"
    " AND owner_id = (SELECT owner_id FROM jobs WHERE id = ?1)";
/* A statement job's: the rows of the owner's statements with ids from lo
 * to hi (the job's, see schema/0033_statement_jobs.sql), then those
 * statements. */
static const char SQL_UNDO_STATEMENT_ROWS[] =
    "DELETE FROM transactions WHERE id IN (SELECT t.id FROM jobs j, statements s, transactions t"
    " WHERE j.id = ?1 AND s.owner_id = j.owner_id AND s.id BETWEEN j.lo AND j.hi"
    " AND t.statement_id = s.id LIMIT ?2)";
/* An apply-all's last run of those it wrote (the owner's runs with ids
 * from lo to hi), undone first. */
static const char SQL_UNDO_LAST_RUN[] =
    "SELECT max(r.id) FROM jobs j, rule_runs r"
    " WHERE j.id = ?1 AND r.owner_id = j.owner_id AND r.id BETWEEN j.lo AND j.hi";
static const char SQL_UNDO_STATEMENTS[] =
    "DELETE FROM statements WHERE id IN (SELECT s.id FROM jobs j, statements s"
    " WHERE j.id = ?1 AND s.owner_id = j.owner_id AND s.id BETWEEN j.lo AND j.hi)";

/* The statement just run wrote only a job's row: bookkeeping, not
 * content, so it does not move the data version (ledger_commit), and a
 * job refused, or with nothing to write, leaves every tag as it was. */
static void bookkeeping(ledger_db *db)
{
    db->changes_at_begin += sqlite3_changes(db->sql);
}

/* ---- the lock file ------------------------------------------------------------------------ */

/* The connection's descriptor of <database>-jobs, opened on first use:
 * -1 for a database with no file, and -2 (with err) when the file cannot
 * be opened. */
static int lock_fd(ledger_db *db, ledger_error *err)
{
    const char *file;
    char *path;

    if (db->job_fd >= 0)
        return db->job_fd;
    file = sqlite3_db_filename(db->sql, "main");
    if (file == NULL || *file == '\0')
        return -1;
    if ((path = malloc(strlen(file) + sizeof "-jobs")) == NULL) {
        ledger_error_oom(err);
        return -2;
    }
    sprintf(path, "%s-jobs", file);
    db->job_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (db->job_fd < 0)
        ledger_error_set(err, 500, "internal", NULL, "cannot open %s: %s", path, strerror(errno));
    free(path);
    return db->job_fd < 0 ? -2 : db->job_fd;
}

/* Takes (F_WRLCK) or lets go of (F_UNLCK) the byte of job id, without
 * waiting: LEDGER_ERR when another process holds it. */
static int byte_lock(ledger_db *db, int64_t id, short type, ledger_error *err)
{
    struct flock fl;
    int fd = lock_fd(db, err);

    if (fd == -1)
        return LEDGER_OK;
    if (fd < 0)
        return LEDGER_ERR;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)id;
    fl.l_len = 1;
    if (fcntl(fd, F_SETLK, &fl) == 0)
        return LEDGER_OK;
    if (errno == EACCES || errno == EAGAIN)
        return ledger_job_busy(err);
    return ledger_error_set(err, 500, "internal", NULL, "locking a job: %s", strerror(errno));
}

/* Whether job id is running: this connection's own job, or one whose byte
 * another process holds.  Unknown (no lock file to ask) counts as running:
 * undoing a live job would lose its rows. */
static int job_alive(ledger_db *db, int64_t id)
{
    struct flock fl;
    ledger_error ignored;
    int fd;

    if (id == db->job_id)
        return 1;
    fd = lock_fd(db, &ignored);
    if (fd == -1)
        return 0;
    if (fd < 0)
        return 1;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)id;
    fl.l_len = 1;
    if (fcntl(fd, F_GETLK, &fl) != 0)
        return 1;
    return fl.l_type != F_UNLCK;
}

void job_close(ledger_db *db)
{
    if (db->job_fd >= 0)
        close(db->job_fd);
    db->job_fd = -1;
}

/* ---- checking and undoing ----------------------------------------------------------------- */

int ledger_job_busy(ledger_error *err)
{
    return ledger_error_set(err, 409, "job_running", NULL,
                            "a job of yours (an import, a rule run or a delete) is still being"
                            " written; try again when it has finished");
}

int ledger_job_check(ledger_db *db, int64_t me, int64_t *dead, ledger_error *err)
{
    int64_t id;

    *dead = 0;
    if (db_int(db, err, "jobs", &id, 0, SQL_MINE, DB_INT(me)))
        return LEDGER_ERR;
    if (id == 0)
        return LEDGER_OK;
    if (job_alive(db, id))
        return ledger_job_busy(err);
    *dead = id;
    return LEDGER_OK;
}

/* A run written by a job, undone: its rows put back as its snapshots of
 * them say (the owner, refused meanwhile, changed none of them since),
 * and its record gone. */
static int run_undo(ledger_db *db, int64_t run, ledger_error *err)
{
    if (run_restore(db, run, 0, err)
        || db_exec(db, err, "job undo", SQL_UNDO_RUN_ROWS, DB_INT(run))
        || db_exec(db, err, "job undo", SQL_UNDO_RUN, DB_INT(run)))
        return LEDGER_ERR;
    return LEDGER_OK;
}

/* A rule apply's undo, in one transaction (run_undo).  A revert's is its
 * end instead (see rule_revert.c): the rest of its rows put back, the run
 * marked reverted.  Either does nothing before the job noted its run (the
 * revert's checks had not passed). */
static int undo_run(ledger_db *db, int64_t id, int is_revert, int64_t run, ledger_error *err)
{
    if (run && !is_revert && run_undo(db, run, err))
        return LEDGER_ERR;
    if (run && is_revert && (run_restore(db, run, 0, err) || rule_run_reverted(db, run, err)))
        return LEDGER_ERR;
    if (db_exec(db, err, "job undo", SQL_DONE, DB_INT(id)))
        return LEDGER_ERR;
    bookkeeping(db);
    return LEDGER_OK;
}

/* One transaction of job id's undo.  A CSV commit's: up to JOB_CHUNK_ROWS
 * of its rows, or, with none left, its batch, its tag and its row; a
 * statement job's the same with its statements' rows, then its
 * statements; an apply-all's, one of its runs; a statement delete's, a
 * step of its end; *more says whether another transaction follows. */
static int undo_step(ledger_db *db, int64_t id, int *more, ledger_error *err)
{
    sqlite3_stmt *st;
    int64_t run = 0;
    int is_apply = 0, is_revert = 0, is_statement = 0, is_all = 0, is_delete = 0, rc;

    *more = 0;
    if (ledger_begin(db, 1, err))
        return LEDGER_ERR;
    if ((st = db_stmt(db, SQL_KIND, err)) == NULL)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kind = (const char *)sqlite3_column_text(st, 0);

        is_apply = kind && strcmp(kind, "rule_apply") == 0;
        is_revert = kind && strcmp(kind, "rule_revert") == 0;
        is_statement = kind && strcmp(kind, "statement") == 0;
        is_all = kind && strcmp(kind, "rule_apply_all") == 0;
        is_delete = kind && strcmp(kind, "statement_delete") == 0;
        run = sqlite3_column_int64(st, 1);
    }
    db_stmt_done(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        db_error(db, err, "job undo");
        goto fail;
    }
    if (rc == SQLITE_DONE)  /* undone already, by another process */
        return ledger_commit(db, err);
    /* An apply-all's: one run a transaction, the last first, then its row. */
    if (is_all) {
        if (db_int(db, err, "job undo", &run, 0, SQL_UNDO_LAST_RUN, DB_INT(id)))
            goto fail;
        *more = run != 0;
        if (run ? run_undo(db, run, err) : db_exec(db, err, "job undo", SQL_DONE, DB_INT(id)))
            goto fail;
        bookkeeping(db);
        return ledger_commit(db, err);
    }
    /* A statement's delete is finished: a chunk a transaction, then the
     * rest with its row (nothing before it noted its statement). */
    if (is_delete) {
        if (run && statement_delete_step(db, run, 0, more, err))
            goto fail;
        if (!*more && ((run && statement_delete_step(db, run, 1, more, err))
                       || db_exec(db, err, "job undo", SQL_DONE, DB_INT(id))))
            goto fail;
        bookkeeping(db);
        return ledger_commit(db, err);
    }
    if (is_apply || is_revert) {
        if (undo_run(db, id, is_revert, run, err))
            goto fail;
        return ledger_commit(db, err);
    }
    if (db_exec(db, err, "job undo", is_statement ? SQL_UNDO_STATEMENT_ROWS : SQL_UNDO_ROWS,
                DB_INT(id), DB_INT(JOB_CHUNK_ROWS)))
        goto fail;
    *more = sqlite3_changes(db->sql) > 0;
    if (!*more && is_statement
        && (db_exec(db, err, "job undo", SQL_UNDO_STATEMENTS, DB_INT(id))
            || db_exec(db, err, "job undo", SQL_DONE, DB_INT(id))))
        goto fail;
    if (!*more && !is_statement
        && (db_exec(db, err, "job undo", SQL_UNDO_BATCH, DB_INT(id))
            || db_exec(db, err, "job undo", SQL_UNDO_TAG, DB_INT(id))
            || db_exec(db, err, "job undo", SQL_DONE, DB_INT(id))))
        goto fail;
    bookkeeping(db);
    return ledger_commit(db, err);
fail:
    ledger_rollback(db);
    return LEDGER_ERR;
}

/* Undoes job id, in transactions of its own, as a job would write: its
 * owner stays refused until its row goes, in the last of them. */
static int job_undo(ledger_db *db, int64_t id, ledger_error *err)
{
    int more = 1;

    while (more) {
        if (undo_step(db, id, &more, err))
            return LEDGER_ERR;
        if (more)
            sqlite3_sleep(JOB_PAUSE_MS);
    }
    return LEDGER_OK;
}

int ledger_job_recover(ledger_db *db, int64_t id, ledger_error *err)
{
    ledger_error ignored;
    int rc;

    /* Holding the byte while undoing: another process that finds the job
     * meanwhile sees it running, and waits for it. */
    if (byte_lock(db, id, F_WRLCK, err))
        return LEDGER_ERR;
    rc = job_undo(db, id, err);
    byte_lock(db, id, F_UNLCK, &ignored);
    return rc;
}

int ledger_begin_as(ledger_db *db, int64_t me, int write, ledger_error *err)
{
    int64_t dead;
    int tries;

    for (tries = 0; tries < 2; tries++) {
        if (ledger_begin(db, write, err))
            return LEDGER_ERR;
        if (ledger_job_check(db, me, &dead, err)) {
            ledger_rollback(db);
            return LEDGER_ERR;
        }
        if (dead == 0)
            return LEDGER_OK;
        ledger_rollback(db);
        if (ledger_job_recover(db, dead, err))
            return LEDGER_ERR;
    }
    return ledger_job_busy(err);
}

/* ---- running ------------------------------------------------------------------------------ */

int job_start(ledger_db *db, int64_t me, const char *kind, struct job *job, ledger_error *err)
{
    int64_t dead;
    int tries;

    job->id = 0;
    job->owner = me;
    job->noted = 0;
    for (tries = 0; tries < 2; tries++) {
        if (ledger_begin(db, 1, err))
            return LEDGER_ERR;
        if (ledger_job_check(db, me, &dead, err))
            goto fail;
        if (dead) {
            ledger_rollback(db);
            if (ledger_job_recover(db, dead, err))
                return LEDGER_ERR;
            continue;
        }
        if (db_exec(db, err, "job", SQL_NEW, DB_INT(me), DB_TEXT(kind)))
            goto fail;
        bookkeeping(db);
        job->id = sqlite3_last_insert_rowid(db->sql);
        /* The byte before the commit: no one can find the row and take
         * the job for dead. */
        if (byte_lock(db, job->id, F_WRLCK, err))
            goto fail;
        if (ledger_commit(db, err)) {
            ledger_error ignored;

            byte_lock(db, job->id, F_UNLCK, &ignored);
            job->id = 0;
            return LEDGER_ERR;
        }
        db->job_id = job->id;
        return LEDGER_OK;
    }
    return ledger_job_busy(err);
fail:
    ledger_rollback(db);
    job->id = 0;
    return LEDGER_ERR;
}

int job_begin(ledger_db *db, int64_t me, const char *kind, size_t rows, struct job *run,
              struct job **job, int *own, ledger_error *err)
{
    *job = NULL;
    *own = !db->in_txn;
    if (!*own)
        return LEDGER_OK;
    if (rows <= JOB_CHUNK_ROWS)
        return ledger_begin_as(db, me, 1, err);
    if (job_start(db, me, kind, run, err))
        return LEDGER_ERR;
    *job = run;
    return ledger_begin(db, 0, err);
}

int job_note(ledger_db *db, struct job *job, int64_t batch, int64_t tag, int64_t lo,
             int64_t hi, ledger_error *err)
{
    if (job == NULL)
        return LEDGER_OK;
    job->noted = 1;
    return db_exec(db, err, "job", SQL_NOTE, DB_INT(job->id), DB_INT(batch), DB_INT(tag),
                   DB_INT(lo), DB_INT(hi));
}

int job_pause(ledger_db *db, const struct job *job, int last, ledger_error *err)
{
    if (job == NULL)
        return LEDGER_OK;
    if (ledger_commit(db, err))
        return LEDGER_ERR;
    ledger_idle(db);
    sqlite3_sleep(JOB_PAUSE_MS);
    return db_step_once(db, last ? SQL_SYNC_FULL : SQL_SYNC_NORMAL, "job", err);
}

int job_yield(ledger_db *db, const struct job *job, int last, ledger_error *err)
{
    if (job == NULL)
        return LEDGER_OK;
    return job_pause(db, job, last, err) || ledger_begin(db, 1, err) ? LEDGER_ERR : LEDGER_OK;
}

int job_switch(ledger_db *db, const struct job *job, int write, ledger_error *err)
{
    if (job == NULL)
        return LEDGER_OK;
    if (ledger_commit(db, err))
        return LEDGER_ERR;
    return ledger_begin(db, write, err);
}

int job_done(ledger_db *db, const struct job *job, ledger_error *err)
{
    if (job == NULL)
        return LEDGER_OK;
    return db_exec(db, err, "job", SQL_DONE, DB_INT(job->id));
}

void job_end(ledger_db *db, struct job *job)
{
    ledger_error ignored;
    int64_t left;

    if (job->id == 0)
        return;
    if (db->in_txn)
        ledger_rollback(db);
    db_step_once(db, SQL_SYNC_FULL, "job", &ignored);
    /* A row left (the job failed, or its last commit did) is undone now;
     * should that fail too, the next request of the owner's finds the job
     * dead once its byte is let go, and undoes it then. */
    if (db_int(db, &ignored, "jobs", &left, 0, SQL_LEFT, DB_INT(job->id)) || left)
        job_undo(db, job->id, &ignored);
    db->job_id = 0;
    byte_lock(db, job->id, F_UNLCK, &ignored);
    job->id = 0;
}
