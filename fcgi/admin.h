/* ledger-admin: the operator's command.  Each subcommand is one function
 * that takes its own argv (argv[0] is the subcommand's name) and returns
 * the exit status. */
#ifndef LEDGER_ADMIN_H
#define LEDGER_ADMIN_H

#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

#include "conf.h"
#include "ledger.h"

/* Exit statuses, as ledger-admin(1) documents them. */
#define ADMIN_OK 0
#define ADMIN_FAIL 1     /* a problem was found, or the work failed */
#define ADMIN_USAGE 2    /* the command line was wrong */

/* Where the database is: --db, else the db of --config's file.  The config
 * file also gives home_currency, which imports must share with the
 * service. */
struct admin_db {
    const char *db_flag;
    struct config cfg;
    int have_config;
};

/* The long options every subcommand takes; getopt_long returns these. */
#define ADMIN_OPT_DB 'd'
#define ADMIN_OPT_CONFIG 'c'
#define ADMIN_OPT_HELP 'h'
#define ADMIN_COMMON_OPTIONS \
    { "db", required_argument, NULL, ADMIN_OPT_DB }, \
    { "config", required_argument, NULL, ADMIN_OPT_CONFIG }, \
    { "help", no_argument, NULL, ADMIN_OPT_HELP }

/* One subcommand's usage: its name, its synopsis (the options after the
 * name) and its help (what it does, each option, the exit statuses). */
struct admin_usage {
    const char *name;
    const char *synopsis;
    const char *help;
};

/* Handles a common option c (returns ADMIN_OK), --help (prints the usage
 * to stdout and returns -1: the caller exits 0), a --config file it cannot
 * read (why on stderr, ADMIN_FAIL), or anything else (a usage line on
 * stderr, ADMIN_USAGE). */
int admin_common_option(struct admin_db *o, const struct admin_usage *u, int c,
                        const char *arg);
/* Prints the message and the synopsis to stderr; returns ADMIN_USAGE. */
int admin_usage_error(const struct admin_usage *u, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void admin_print_usage(FILE *f, const struct admin_usage *u);
/* "ledger-admin: what: message" to stderr. */
void admin_error(const char *what, const ledger_error *err);
/* The database path to use, or NULL after a usage error was printed. */
const char *admin_db_path(const struct admin_db *o, const struct admin_usage *u);
/* Parses a command line of the common options only, and --json when json
 * is not NULL (setting *json); *path is set on success.  Returns ADMIN_OK,
 * -1 after --help (the caller exits 0), or ADMIN_USAGE. */
int admin_parse_db_only(int argc, char **argv, const struct admin_usage *u,
                        struct admin_db *o, int *json, const char **path);
/* A read-only command of the common options and --json: reads *doc with
 * get in one read transaction and prints it, as JSON with --json, else
 * with print.  Returns the exit status; the caller frees *doc. */
int admin_report(int argc, char **argv, const struct admin_usage *u,
                 int (*get)(ledger_db *, cJSON **, ledger_error *),
                 void (*print)(const cJSON *), cJSON **doc);
/* A report as indented JSON on stdout. */
void admin_print_json(const cJSON *doc);
/* The member key of o as an int (a count or an id in a report). */
int admin_number(const cJSON *o, const char *key);
/* ledger_open plus the configured home currency; prints why on failure.
 * Without create, a path that names nothing, or a database not at this
 * release's schema, is refused (only migrate makes or changes one). */
int admin_open(const struct admin_db *o, const char *path, int create, ledger_db **db);

/* A progress bar on stderr when it is a terminal; otherwise a plain line
 * at each quarter, so a log or a test sees a few lines, not a thousand
 * carriage returns. */
struct progress {
    const char *label;
    int tty;
    int shown;      /* a bar is on the screen */
    int last_step;  /* the last percent (tty) or quarter (not) shown */
};
void progress_init(struct progress *p, const char *label);
void progress_update(struct progress *p, int64_t done, int64_t total, const char *note);
/* Clears the bar so a plain line can be printed in its place. */
void progress_clear(struct progress *p);
void progress_finish(struct progress *p);

int admin_migrate(int argc, char **argv);
int admin_backup(int argc, char **argv);
int admin_check(int argc, char **argv);
int admin_import(int argc, char **argv);
int admin_users(int argc, char **argv);
int admin_clean_merchants(int argc, char **argv);
int admin_merge_users(int argc, char **argv);
int admin_export(int argc, char **argv);

#endif
