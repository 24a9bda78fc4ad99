/* ledger-admin clean-merchants: POST /api/merchants/clean for a user. */
#include <stdio.h>
#include <string.h>

#include "admin.h"

static const struct admin_usage clean_usage = {
    "clean-merchants", "--db PATH | --config FILE --user USER [--json]",
    "Gives every row of USER's without a merchant but the bank's raw text one,\n"
    "cleaned from that text (or the name USER gave that merchant), as\n"
    "POST /api/merchants/clean does: one run, recorded as a rule run is, that\n"
    "DELETE /api/rules/apply/{run_id} reverts.  Prints the run's id and how many\n"
    "rows it named; a user with no such row gets no run.\n"
    "A USER is an identity (subject), an email, or id:N (see `users`).\n"
    "  --db PATH       the database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --user USER     whose rows\n"
    "  --json          the run as JSON on stdout\n"
    "Exit status: 0 done, 1 failed (nothing changed), 2 usage.\n",
};

int admin_clean_merchants(int argc, char **argv)
{
    static const struct option longopts[] = {
        ADMIN_COMMON_OPTIONS,
        { "user", required_argument, NULL, 'u' },
        { "json", no_argument, NULL, 'j' },
        { NULL, 0, NULL, 0 }
    };
    struct admin_db o;
    const char *path, *user = NULL;
    ledger_db *db = NULL;
    ledger_error err;
    cJSON *run = NULL;
    int64_t user_id;
    int c, json = 0, rc;

    memset(&o, 0, sizeof o);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'u')
            user = optarg;
        else if (c == 'j')
            json = 1;
        else if ((rc = admin_common_option(&o, &clean_usage, c, optarg)) != ADMIN_OK)
            return rc < 0 ? ADMIN_OK : rc;
    }
    if (optind < argc)
        return admin_usage_error(&clean_usage, "unexpected argument '%s'", argv[optind]);
    if ((path = admin_db_path(&o, &clean_usage)) == NULL)
        return ADMIN_USAGE;
    if (user == NULL)
        return admin_usage_error(&clean_usage, "--user is required");
    rc = ADMIN_FAIL;
    if (admin_open(&o, path, 0, &db))
        goto out;
    if (ledger_begin(db, 1, &err))
        goto fail;
    if (ledger_user_find(db, user, &user_id, &err)) {
        admin_error(user, &err);
        goto out;
    }
    if (ledger_merchant_run(db, user_id, &run, &err) || ledger_commit(db, &err))
        goto fail;
    if (json)
        admin_print_json(run);
    else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(run, "run_id")))
        printf("run %d: merchants for %d transactions\n", admin_number(run, "run_id"),
               admin_number(run, "transactions"));
    else
        printf("no transaction without a merchant: no run\n");
    rc = ADMIN_OK;
    goto out;
fail:
    fprintf(stderr, "ledger-admin: clean-merchants: nothing changed: %s\n", err.message);
out:
    if (db)
        ledger_rollback(db);
    cJSON_Delete(run);
    ledger_close(db);
    return rc;
}
