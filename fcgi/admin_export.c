/* ledger-admin export: GET /api/export from the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin.h"

static const struct admin_usage export_usage = {
    "export", "--db PATH | --config FILE --user USER [--format csv|json|journal] [--output FILE]",
    "Writes everything USER can see, as GET /api/export gives it to them:\n"
    "csv (one line per row), json (the default: every row, statement, tag,\n"
    "participant, trip, budget, payment and rule) or journal (an hledger\n"
    "journal whose expenses are the monthly report on basis=mine).  The rows\n"
    "come from one snapshot, written as they are read.  A progress bar goes\n"
    "to stderr when it is a terminal.\n"
    "A USER is an identity (subject), an email, or id:N (see `users`).\n"
    "  --db PATH       the database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --user USER     whose ledger\n"
    "  --format F      csv, json or journal (default json)\n"
    "  --output FILE   write FILE (through a temporary file beside it, renamed\n"
    "                  when the export is whole); stdout when absent or -\n"
    "Exit status: 0 written, 1 failed (no FILE left behind), 2 usage.\n",
};

/* Where the bytes go, and the bar that follows the rows. */
struct sink {
    FILE *f;
    struct progress bar;
};

static int put(void *ctx, const char *buf, size_t len)
{
    struct sink *s = ctx;

    return fwrite(buf, 1, len, s->f) == len ? 0 : -1;
}

static void rows_done(void *ctx, int64_t done, int64_t total)
{
    struct sink *s = ctx;

    progress_update(&s->bar, done, total, "rows");
}

int admin_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        ADMIN_COMMON_OPTIONS,
        { "user", required_argument, NULL, 'u' },
        { "format", required_argument, NULL, 'F' },
        { "output", required_argument, NULL, 'o' },
        { NULL, 0, NULL, 0 }
    };
    struct admin_db o;
    const char *path, *user = NULL, *format = "json", *output = NULL;
    char *tmp = NULL;
    enum ledger_export_format f;
    struct sink s = { stdout, { NULL, 0, 0, 0 } };
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me;
    int c, rc;

    memset(&o, 0, sizeof o);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'u')
            user = optarg;
        else if (c == 'F')
            format = optarg;
        else if (c == 'o')
            output = strcmp(optarg, "-") == 0 ? NULL : optarg;
        else if ((rc = admin_common_option(&o, &export_usage, c, optarg)) != ADMIN_OK)
            return rc < 0 ? ADMIN_OK : rc;
    }
    if (optind < argc)
        return admin_usage_error(&export_usage, "unexpected argument '%s'", argv[optind]);
    if ((path = admin_db_path(&o, &export_usage)) == NULL)
        return ADMIN_USAGE;
    if (user == NULL)
        return admin_usage_error(&export_usage, "--user is required");
    if (ledger_export_format(format, &f, &err))
        return admin_usage_error(&export_usage, "%s", err.message);
    rc = ADMIN_FAIL;
    if (admin_open(&o, path, 0, &db))
        goto out;
    if (ledger_begin(db, 0, &err))
        goto fail;
    if (ledger_user_find(db, user, &me, &err)) {
        admin_error(user, &err);
        goto out;
    }
    if (output) {
        size_t n = strlen(output) + 16;

        if ((tmp = malloc(n)) == NULL) {
            ledger_error_oom(&err);
            goto fail;
        }
        snprintf(tmp, n, "%s.tmp%ld", output, (long)getpid());
        if ((s.f = fopen(tmp, "w")) == NULL) {
            fprintf(stderr, "ledger-admin: export: %s: %s\n", tmp, strerror(errno));
            free(tmp);
            tmp = NULL;
            goto out;
        }
    }
    progress_init(&s.bar, "export");
    if (ledger_export(db, me, f, put, &s, rows_done, &s, &err))
        goto fail;
    progress_finish(&s.bar);
    if (fflush(s.f) != 0 || ferror(s.f) || (output && fsync(fileno(s.f)) != 0)) {
        fprintf(stderr, "ledger-admin: export: %s: %s\n", output ? output : "stdout", strerror(errno));
        goto out;
    }
    if (output) {
        FILE *done = s.f;

        s.f = stdout;
        if (fclose(done) != 0 || rename(tmp, output) != 0) {
            fprintf(stderr, "ledger-admin: export: %s: %s\n", output, strerror(errno));
            goto out;
        }
        free(tmp);
        tmp = NULL;
    }
    rc = ADMIN_OK;
    goto out;
fail:
    progress_clear(&s.bar);
    fprintf(stderr, "ledger-admin: export: %s\n", err.message);
out:
    if (s.f && s.f != stdout)
        fclose(s.f);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    if (db)
        ledger_rollback(db);
    ledger_close(db);
    return rc;
}
