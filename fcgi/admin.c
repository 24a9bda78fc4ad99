/*
 * ledger-admin: the operator's command for a ledger database: migrate,
 * backup, check, import, users, merge-users, export.  Built on libledger like
 * ledger-fcgi, and like it never writes SQL: whatever touches the domain is
 * a ledger_* function, so the HTTP API and this tool share one write path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <config.h>
#include "admin.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    { "migrate", admin_migrate, "apply pending schema migrations" },
    { "backup", admin_backup, "copy the database while the service runs" },
    { "check", admin_check, "integrity, foreign keys and derived tables" },
    { "import", admin_import, "import CSV, OFX/QFX, QIF or CAMT.053 files for a user" },
    { "users", admin_users, "list users with what they hold" },
    { "merge-users", admin_merge_users, "move everything of one user to another" },
    { "clean-merchants", admin_clean_merchants, "give a user's rows merchants from their bank text" },
    { "export", admin_export, "write a user's ledger as CSV, JSON or a journal" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    size_t i;

    fprintf(f, "usage: ledger-admin COMMAND [--db PATH | --config FILE] [OPTIONS]\n"
               "       ledger-admin COMMAND --help\n\ncommands:\n");
    for (i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit status: 0 ok, 1 a problem was found or the work failed, 2 usage\n");
}

void admin_print_usage(FILE *f, const struct admin_usage *u)
{
    fprintf(f, "usage: ledger-admin %s %s\n%s", u->name, u->synopsis, u->help);
}

int admin_usage_error(const struct admin_usage *u, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ledger-admin %s: ", u->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: ledger-admin %s %s\n(ledger-admin %s --help for more)\n",
            u->name, u->synopsis, u->name);
    return ADMIN_USAGE;
}

void admin_error(const char *what, const ledger_error *err)
{
    fprintf(stderr, "ledger-admin: %s: %s\n", what, err->message);
}

int admin_common_option(struct admin_db *o, const struct admin_usage *u, int c, const char *arg)
{
    char msg[600];

    switch (c) {
    case ADMIN_OPT_DB: {
        struct config check;

        /* The service's rule for a database name (an empty one, or
         * :memory:, is a database that vanishes). */
        config_defaults(&check);
        if (config_set(&check, "db", arg, msg, sizeof msg))
            return admin_usage_error(u, "%s", msg);
        o->db_flag = arg;
        return ADMIN_OK;
    }
    case ADMIN_OPT_CONFIG:
        /* The service's own file and parser: one place says where the
         * database is. */
        config_defaults(&o->cfg);
        if (config_load(&o->cfg, arg, msg, sizeof msg)) {
            /* A file that cannot be read or has a bad line is a failed
             * run, not a wrong command line (exit 1, no usage). */
            fprintf(stderr, "ledger-admin: %s\n", msg);
            return ADMIN_FAIL;
        }
        o->have_config = 1;
        return ADMIN_OK;
    case ADMIN_OPT_HELP:
        admin_print_usage(stdout, u);
        return -1;
    default:
        /* getopt_long has said what was wrong. */
        fprintf(stderr, "usage: ledger-admin %s %s\n", u->name, u->synopsis);
        return ADMIN_USAGE;
    }
}

static const struct option db_only[] = { ADMIN_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
static const struct option db_json[] = {
    ADMIN_COMMON_OPTIONS, { "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 }
};

int admin_parse_db_only(int argc, char **argv, const struct admin_usage *u,
                        struct admin_db *o, int *json, const char **path)
{
    int c, rc;

    memset(o, 0, sizeof *o);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", json ? db_json : db_only, NULL)) != -1) {
        if (c == 'j' && json) {
            *json = 1;
            continue;
        }
        if ((rc = admin_common_option(o, u, c, optarg)) != ADMIN_OK)
            return rc;
    }
    if (optind < argc)
        return admin_usage_error(u, "unexpected argument '%s'", argv[optind]);
    *path = admin_db_path(o, u);
    return *path ? ADMIN_OK : ADMIN_USAGE;
}

int admin_report(int argc, char **argv, const struct admin_usage *u,
                 int (*get)(ledger_db *, cJSON **, ledger_error *),
                 void (*print)(const cJSON *), cJSON **doc)
{
    struct admin_db o;
    const char *path;
    ledger_db *db = NULL;
    ledger_error err;
    int json = 0, rc;

    if ((rc = admin_parse_db_only(argc, argv, u, &o, &json, &path)) != ADMIN_OK)
        return rc < 0 ? ADMIN_OK : rc;
    rc = ADMIN_FAIL;
    if (admin_open(&o, path, 0, &db))
        goto out;
    if (ledger_begin(db, 0, &err) || get(db, doc, &err)) {
        admin_error(u->name, &err);
        goto out;
    }
    if (json)
        admin_print_json(*doc);
    else
        print(*doc);
    rc = ADMIN_OK;
out:
    if (db)
        ledger_rollback(db);
    ledger_close(db);
    return rc;
}

void admin_print_json(const cJSON *doc)
{
    char *text = cJSON_Print(doc);

    if (text)
        puts(text);
    cJSON_free(text);
}

int admin_number(const cJSON *o, const char *key)
{
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

const char *admin_db_path(const struct admin_db *o, const struct admin_usage *u)
{
    if (o->db_flag)
        return o->db_flag;
    if (o->have_config)
        return o->cfg.db;
    admin_usage_error(u, "--db PATH (or --config FILE) is required");
    return NULL;
}

int admin_open(const struct admin_db *o, const char *path, int create, ledger_db **db)
{
    ledger_error err;
    struct stat sb;
    int version;

    /* Only migrate makes a database: any other command given a path
     * that names nothing (a typo) would make an empty ledger there. */
    if (!create && stat(path, &sb) != 0) {
        fprintf(stderr, "ledger-admin: %s: no such database\n", path);
        return ADMIN_FAIL;
    }
    /* Nor does any other change its schema: ledger_open migrates, and
     * listing the users of an old backup, or a refused or --dry-run
     * merge, leaves the file as it is.  So the version is read first. */
    if (!create) {
        if (ledger_schema_version_file(path, &version, &err)) {
            fprintf(stderr, "ledger-admin: %s\n", err.message);  /* it names the path */
            return ADMIN_FAIL;
        }
        if (version == 0) {
            fprintf(stderr, "ledger-admin: %s is not a ledger database (no schema version;"
                    " ledger-admin migrate makes an empty file one)\n", path);
            return ADMIN_FAIL;
        }
        if (version < ledger_schema_baseline()) {
            fprintf(stderr, "ledger-admin: %s is at schema version %d, from before this"
                    " release's baseline (%d): no release migrates it\n",
                    path, version, ledger_schema_baseline());
            return ADMIN_FAIL;
        }
        if (version != ledger_schema_latest()) {
            fprintf(stderr, "ledger-admin: %s is at schema version %d, this release knows %d: %s\n",
                    path, version, ledger_schema_latest(),
                    version < ledger_schema_latest() ? "run ledger-admin migrate first"
                                                     : "use a newer ledger-admin");
            return ADMIN_FAIL;
        }
    }
    if (ledger_open(path, db, &err)) {
        admin_error(path, &err);
        return ADMIN_FAIL;
    }
    /* The cleaner runs interpreted here (ledger_set_jit): the suite runs
     * ledger-admin under valgrind, and it has no --no-jit of its own. */
    if (o->have_config && ledger_set_home_currency(*db, o->cfg.home_currency, &err)) {
        admin_error("home_currency", &err);
        ledger_close(*db);
        *db = NULL;
        return ADMIN_FAIL;
    }
    return ADMIN_OK;
}

int main(int argc, char **argv)
{
    char name[64];
    size_t i;

    /* A database made here is the service account's alone (see main.c). */
    umask(umask(0) | 077);
    if (argc < 2) {
        usage(stderr);
        return ADMIN_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return ADMIN_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ledger-admin %s (schema %d)\n", PACKAGE_VERSION, ledger_schema_latest());
        return ADMIN_OK;
    }
    for (i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* getopt_long prefixes its messages with argv[0]. */
            snprintf(name, sizeof name, "ledger-admin %s", commands[i].name);
            argv[1] = name;
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "ledger-admin: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return ADMIN_USAGE;
}
