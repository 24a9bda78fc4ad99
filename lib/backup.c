/*
 * Online backup and reading a file's schema version, for ledger-admin.
 *
 * The copy uses SQLite's backup API a few pages at a time with a pause
 * between steps, so the service's writers are never held up: in WAL mode a
 * step is only a read transaction, and between steps the service writes
 * freely.  The copy goes to a temporary file beside the destination, is
 * checked with integrity_check, synced, and only then renamed over the
 * destination: a reader of FILE never sees half a backup, and a failed
 * backup leaves an older FILE as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

/* Pages per step (of 4 KiB: 1 MiB) and the pause between steps. */
#define STEP_PAGES 256
#define STEP_PAUSE_MS 10
/* A write by another connection between two steps restarts the copy from
 * the first page.  Against a service that writes all the time a stepped
 * copy might never finish, so after this many restarts the rest is copied
 * in one step: still only a read transaction in WAL mode, which writers do
 * not wait for, at the price of keeping a checkpoint from completing for
 * the length of the copy. */
#define RESTARTS_MAX 3
#define BUSY_TIMEOUT_MS 5000

int ledger_schema_version_file(const char *path, int *version, ledger_error *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = LEDGER_ERR;

    if (access(path, F_OK) != 0) {
        if (errno != ENOENT)
            return ledger_error_set(err, 500, "internal", NULL, "%s: %s", path, strerror(errno));
        *version = 0;  /* ledger_open creates it */
        return LEDGER_OK;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK
        || sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS) != SQLITE_OK
        || sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK
        || sqlite3_step(st) != SQLITE_ROW) {
        ledger_error_set(err, 500, "internal", NULL, "%s: %s", path,
                         db ? sqlite3_errmsg(db) : "out of memory");
        goto out;
    }
    *version = sqlite3_column_int(st, 0);
    rc = LEDGER_OK;
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

static int sql_fail(sqlite3 *db, const char *what, const char *path, ledger_error *err)
{
    return ledger_error_set(err, 500, "backup_failed", NULL, "%s %s: %s", what, path,
                            db ? sqlite3_errmsg(db) : "out of memory");
}

/* Copies src into the open connection to, page steps with pauses. */
static int copy_pages(sqlite3 *from, sqlite3 *to, const char *src, ledger_progress_fn *progress,
                      void *ctx, ledger_error *err)
{
    sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
    int rc, restarts = 0, step = STEP_PAGES, last_remaining = -1;

    if (b == NULL)
        return sql_fail(to, "backup of", src, err);
    do {
        rc = sqlite3_backup_step(b, step);
        if (rc == SQLITE_OK || rc == SQLITE_DONE) {
            int remaining = sqlite3_backup_remaining(b), total = sqlite3_backup_pagecount(b);

            if (last_remaining >= 0 && remaining > last_remaining && ++restarts >= RESTARTS_MAX)
                step = -1;
            last_remaining = remaining;
            if (progress)
                progress(ctx, total - remaining, total);
        }
        if (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            sqlite3_sleep(STEP_PAUSE_MS);
    } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
    /* finish reports the step's error, if there was one, on to. */
    if (sqlite3_backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE)
        return sql_fail(to, "backup of", src, err);
    return LEDGER_OK;
}

static int integrity(sqlite3 *db, const char *path, ledger_error *err)
{
    sqlite3_stmt *st = NULL;
    const char *v;
    int rc = LEDGER_ERR;

    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK
        || sqlite3_step(st) != SQLITE_ROW) {
        sql_fail(db, "integrity_check of", path, err);
        goto out;
    }
    v = (const char *)sqlite3_column_text(st, 0);
    if (v == NULL || strcmp(v, "ok") != 0) {
        ledger_error_set(err, 500, "backup_failed", NULL, "the copy fails integrity_check: %s",
                         v ? v : "no answer");
        goto out;
    }
    rc = LEDGER_OK;
out:
    sqlite3_finalize(st);
    return rc;
}

/* fsync of a file or directory by path. */
static int sync_path(const char *path, int dir, ledger_error *err)
{
    int fd = open(path, (dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);

    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;

        if (fd >= 0)
            close(fd);
        return ledger_error_set(err, 500, "backup_failed", NULL, "sync %s: %s", path,
                                strerror(e));
    }
    close(fd);
    return LEDGER_OK;
}

int ledger_backup(const char *src, const char *dest, ledger_progress_fn *progress, void *ctx,
                  ledger_error *err)
{
    sqlite3 *from = NULL, *to = NULL;
    char *tmp = NULL, *dircopy = NULL;
    size_t len = strlen(dest) + sizeof ".tmp-XXXXXX";
    int fd, rc = LEDGER_ERR;

    if (access(src, R_OK) != 0)
        return ledger_error_set(err, 404, "not_found", NULL, "%s: %s", src, strerror(errno));
    if ((tmp = malloc(len)) == NULL || (dircopy = strdup(dest)) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    snprintf(tmp, len, "%s.tmp-XXXXXX", dest);
    if ((fd = mkstemp(tmp)) < 0) {
        ledger_error_set(err, 500, "backup_failed", NULL, "cannot create %s: %s", tmp,
                         strerror(errno));
        free(tmp);
        tmp = NULL;
        goto out;
    }
    close(fd);
    /* Read-write without CREATE: a WAL reader may need to write the -shm
     * index, and a mistyped path must not become a new empty database. */
    if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sql_fail(from, "cannot open", src, err);
        goto out;
    }
    sqlite3_busy_timeout(from, BUSY_TIMEOUT_MS);
    if (sqlite3_open_v2(tmp, &to, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sql_fail(to, "cannot open", tmp, err);
        goto out;
    }
    if (copy_pages(from, to, src, progress, ctx, err) || integrity(to, tmp, err))
        goto out;
    /* Closing checkpoints and removes the copy's own -wal, so the single
     * file that is renamed is the whole backup. */
    if (sqlite3_close(to) != SQLITE_OK) {
        sql_fail(to, "cannot close", tmp, err);
        goto out;
    }
    to = NULL;
    if (sync_path(tmp, 0, err))
        goto out;
    if (rename(tmp, dest) != 0) {
        ledger_error_set(err, 500, "backup_failed", NULL, "rename %s to %s: %s", tmp, dest,
                         strerror(errno));
        goto out;
    }
    free(tmp);
    tmp = NULL;
    if (sync_path(dirname(dircopy), 1, err))
        goto out;
    rc = LEDGER_OK;
out:
    sqlite3_close(to);
    sqlite3_close(from);
    if (tmp) {
        size_t n = strlen(tmp) + sizeof "-journal";
        char *side = malloc(n);

        unlink(tmp);
        if (side) {
            snprintf(side, n, "%s-wal", tmp);
            unlink(side);
            snprintf(side, n, "%s-shm", tmp);
            unlink(side);
            snprintf(side, n, "%s-journal", tmp);
            unlink(side);
            free(side);
        }
    }
    free(tmp);
    free(dircopy);
    return rc;
}
