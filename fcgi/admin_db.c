/* ledger-admin migrate, backup and check: the database as a whole. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "admin.h"

/* ---- migrate ------------------------------------------------------------------- */

static const struct admin_usage migrate_usage = {
    "migrate", "--db PATH | --config FILE",
    "Applies every pending schema migration (all in one transaction, as\n"
    "ledger-fcgi does at start-up) and prints the version before and after.\n"
    "A database written by a newer release is refused and left untouched.\n"
    "  --db PATH       the database file (created when missing)\n"
    "  --config FILE   read db (and home_currency) from ledger-fcgi's ledger.conf\n"
    "Exit status: 0 migrated or already current, 1 refused or failed, 2 usage.\n",
};

int admin_migrate(int argc, char **argv)
{
    struct admin_db o;
    const char *path;
    ledger_db *db = NULL;
    ledger_error err;
    int before, after, rc;

    if ((rc = admin_parse_db_only(argc, argv, &migrate_usage, &o, NULL, &path)) != ADMIN_OK)
        return rc < 0 ? ADMIN_OK : rc;
    /* Read first without writing: ledger_open migrates straight away, and
     * a newer database must be refused before anything touches it. */
    if (ledger_schema_version_file(path, &before, &err)) {
        fprintf(stderr, "ledger-admin: %s\n", err.message);  /* it names the path */
        return ADMIN_FAIL;
    }
    if (before > ledger_schema_latest()) {
        fprintf(stderr, "ledger-admin: %s is at schema version %d, newer than this release "
                        "knows (%d): upgrade ledger-admin and ledger-fcgi; nothing was changed\n",
                path, before, ledger_schema_latest());
        return ADMIN_FAIL;
    }
    if (admin_open(&o, path, 1, &db))
        return ADMIN_FAIL;
    after = ledger_schema_version(db);
    ledger_close(db);
    if (before == after)
        printf("%s: schema version %d, up to date\n", path, after);
    else
        printf("%s: schema version %d -> %d\n", path, before, after);
    return ADMIN_OK;
}

/* ---- backup -------------------------------------------------------------------- */

static const struct admin_usage backup_usage = {
    "backup", "--db PATH | --config FILE --to FILE",
    "Copies the database while ledger-fcgi keeps serving: SQLite's online\n"
    "backup in small steps with pauses, so writers are not held up.  The copy\n"
    "is written to FILE.tmp-XXXXXX beside FILE, must pass integrity_check, and\n"
    "is then renamed to FILE (replacing an older backup only when complete).\n"
    "The copy is readable by its owner only, like the data it holds.\n"
    "  --db PATH       the live database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --to FILE       where the backup goes\n"
    "Exit status: 0 written and verified, 1 failed (FILE untouched), 2 usage.\n",
};

static void backup_progress(void *ctx, int64_t done, int64_t total)
{
    progress_update(ctx, done, total, "pages");
}

/* Whether two paths name one file (the backup must not overwrite its source). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev
           && sa.st_ino == sb.st_ino;
}

/* path made absolute through its directory (the file itself need not
 * exist) into out; 0 when the directory cannot be resolved. */
static int absolute(const char *path, char *out, size_t len)
{
    char copy[PATH_MAX], dir[PATH_MAX], *slash;
    const char *base;

    if (snprintf(copy, sizeof copy, "%s", path) >= (int)sizeof copy)
        return 0;
    if ((slash = strrchr(copy, '/')) == NULL) {
        base = path;
        if (realpath(".", dir) == NULL)
            return 0;
    } else {
        *slash = '\0';
        base = slash + 1;
        if (realpath(slash == copy ? "/" : copy, dir) == NULL)
            return 0;
    }
    return snprintf(out, len, "%s/%s", dir, base) < (int)len;
}

/* Whether `to` is the database or a file SQLite keeps beside it: a copy
 * written over the live write-ahead log (PATH-wal) passes its own
 * integrity check, and every new connection then reads the database as
 * malformed.  A name ending in -wal, -shm or -journal is refused when what
 * precedes it is the database, by name (the log may not exist yet) or by
 * file (a symbolic or hard link of it: SQLite names the log after the
 * file it opens, through links). */
static int names_database(const char *path, const char *to)
{
    static const char *const beside[] = { "-wal", "-shm", "-journal" };
    char db[PATH_MAX], stem[PATH_MAX], stem_abs[PATH_MAX];
    size_t i, n = strlen(to), k;

    if (strcmp(path, to) == 0 || same_file(path, to))
        return 1;
    for (i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        k = strlen(beside[i]);
        if (n <= k || n - k >= sizeof stem || strcmp(to + n - k, beside[i]) != 0)
            continue;
        memcpy(stem, to, n - k);
        stem[n - k] = '\0';
        if (same_file(stem, path))
            return 1;
        if (absolute(path, db, sizeof db) && absolute(stem, stem_abs, sizeof stem_abs)
            && strcmp(db, stem_abs) == 0)
            return 1;
    }
    return 0;
}

int admin_backup(int argc, char **argv)
{
    static const struct option longopts[] = {
        ADMIN_COMMON_OPTIONS, { "to", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 }
    };
    struct admin_db o;
    struct progress p;
    struct stat st;
    const char *path, *to = NULL;
    ledger_error err;
    int c, rc;

    memset(&o, 0, sizeof o);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 't')
            to = optarg;
        else if ((rc = admin_common_option(&o, &backup_usage, c, optarg)) != ADMIN_OK)
            return rc < 0 ? ADMIN_OK : rc;
    }
    if (optind < argc)
        return admin_usage_error(&backup_usage, "unexpected argument '%s'", argv[optind]);
    if ((path = admin_db_path(&o, &backup_usage)) == NULL)
        return ADMIN_USAGE;
    if (to == NULL || *to == '\0')
        return admin_usage_error(&backup_usage, "--to FILE is required");
    if (names_database(path, to))
        return admin_usage_error(&backup_usage,
                                 "--to names the database itself, or its -wal, -shm or -journal file");
    progress_init(&p, "backup");
    if (ledger_backup(path, to, backup_progress, &p, &err)) {
        progress_finish(&p);
        admin_error("backup", &err);
        return ADMIN_FAIL;
    }
    progress_finish(&p);
    if (stat(to, &st) == 0)
        printf("%s: backed up to %s (%lld bytes, integrity ok)\n", path, to,
               (long long)st.st_size);
    return ADMIN_OK;
}

/* ---- check --------------------------------------------------------------------- */

static const struct admin_usage check_usage = {
    "check", "--db PATH | --config FILE [--json]",
    "Checks the database: PRAGMA integrity_check and foreign_key_check, then\n"
    "every table the triggers keep (spend_monthly, visible_count and\n"
    "visible_total, shared_rows, the effective category and merchant, the\n"
    "has_split flag, the search indexes) against a recount from the rows,\n"
    "splits totalling 100% and naming someone besides the row's owner, and\n"
    "statement rows owned by their statement's owner.  Read-only: a database\n"
    "with pending migrations is refused (run migrate first), and one snapshot\n"
    "is checked while the service writes.\n"
    "  --db PATH       the database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --json          the report as JSON on stdout\n"
    "Exit status: 0 no problem, 1 problems found (or the check failed), 2 usage.\n",
};

static void print_report(const cJSON *doc)
{
    const cJSON *p, *checks = cJSON_GetObjectItemCaseSensitive(doc, "checks");
    int total = admin_number(doc, "total");

    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(doc, "problems"))
        printf("%s: %s\n", cJSON_GetObjectItemCaseSensitive(p, "check")->valuestring,
               cJSON_GetObjectItemCaseSensitive(p, "detail")->valuestring);
    if (total == 0)
        printf("ok: %d checks, no problems\n", cJSON_GetArraySize(checks));
    else
        printf("%d problem%s found\n", total, total == 1 ? "" : "s");
}

int admin_check(int argc, char **argv)
{
    cJSON *doc = NULL;
    int rc = admin_report(argc, argv, &check_usage, ledger_check, print_report, &doc);

    if (rc == ADMIN_OK && doc && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ok")))
        rc = ADMIN_FAIL;
    cJSON_Delete(doc);
    return rc;
}
