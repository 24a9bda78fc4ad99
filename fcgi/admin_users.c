/* ledger-admin users and merge-users. */
#include <stdio.h>
#include <string.h>

#include "admin.h"

static const struct admin_usage users_usage = {
    "users", "--db PATH | --config FILE [--json]",
    "Lists every user: id, identity (the subject the proxy passes; '-' for a\n"
    "placeholder added by email who has not signed in), email, name, and how\n"
    "many transactions, statements, rows shared with them, payments, tags,\n"
    "rules, trips and budgets they have.\n"
    "  --db PATH       the database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --json          the list as JSON on stdout\n"
    "Exit status: 0 listed, 1 failed, 2 usage.\n",
};

static const char *text_or_dash(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : "-";
}

static void print_users(const cJSON *doc)
{
    const cJSON *u;

    printf("%6s  %-24s %-28s %-20s %7s %5s %6s %5s %4s %5s %5s %7s\n", "id", "identity", "email",
           "name", "txns", "stmts", "shared", "paymt", "tags", "rules", "trips", "budgets");
    cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(doc, "items"))
        printf("%6d  %-24s %-28s %-20s %7d %5d %6d %5d %4d %5d %5d %7d\n", admin_number(u, "id"),
               text_or_dash(u, "subject"), text_or_dash(u, "email"), text_or_dash(u, "name"),
               admin_number(u, "transactions"), admin_number(u, "statements"), admin_number(u, "shared_with"),
               admin_number(u, "payments"), admin_number(u, "tags"), admin_number(u, "rules"),
               admin_number(u, "trips"), admin_number(u, "budgets"));
}

int admin_users(int argc, char **argv)
{
    cJSON *doc = NULL;
    int rc = admin_report(argc, argv, &users_usage, ledger_user_admin_list, print_users, &doc);

    cJSON_Delete(doc);
    return rc;
}

/* ---- merge-users ------------------------------------------------------------------ */

static const struct admin_usage merge_usage = {
    "merge-users", "--db PATH | --config FILE --from USER --into USER [--dry-run]",
    "Moves everything USER --from owns or takes part in (transactions,\n"
    "statements, splits, payments, tags, rules and their runs, trips,\n"
    "budgets, contacts) to USER --into, in one transaction, then removes the\n"
    "--from user.  Shares of one row that both had are added together; a tag\n"
    "whose name both have becomes --into's tag.  When only a person can decide\n"
    "(a budget for one category with two amounts, payments between the two,\n"
    "one of two shares settled, a rule that would split with its own owner),\n"
    "nothing changes and the conflicts are named.  --into keeps its identity,\n"
    "email and name, taking --from's where it has none.\n"
    "A USER is an identity (subject), an email, or id:N (see `users`).\n"
    "  --db PATH       the database\n"
    "  --config FILE   read db from ledger-fcgi's ledger.conf\n"
    "  --from USER     the user who goes away\n"
    "  --into USER     the user who stays\n"
    "  --dry-run       report what would move, change nothing\n"
    "Exit status: 0 merged, 1 refused or failed (nothing changed), 2 usage.\n",
};

static void print_merge(const cJSON *report, int dry_run)
{
    static const char *const keys[] = { "transactions", "statements", "splits",
                                        "splits_combined", "splits_ended", "payments", "tags",
                                        "tag_links_merged", "rules", "trips", "budgets" };
    size_t i;

    printf("%s user %d into user %d:", dry_run ? "would merge" : "merged",
           admin_number(report, "from"), admin_number(report, "into"));
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        printf(" %s %d%s", keys[i], admin_number(report, keys[i]),
               i + 1 < sizeof keys / sizeof keys[0] ? "," : "\n");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(report, "identity_taken")))
        printf("user %d had no identity: they now sign in with user %d's\n",
               admin_number(report, "into"), admin_number(report, "from"));
}

int admin_merge_users(int argc, char **argv)
{
    static const struct option longopts[] = {
        ADMIN_COMMON_OPTIONS,
        { "from", required_argument, NULL, 'f' },
        { "into", required_argument, NULL, 'i' },
        { "dry-run", no_argument, NULL, 'n' },
        { NULL, 0, NULL, 0 }
    };
    struct admin_db o;
    const char *path, *from = NULL, *into = NULL;
    ledger_db *db = NULL;
    ledger_error err;
    cJSON *report = NULL;
    int64_t from_id, into_id;
    int c, dry_run = 0, rc;

    memset(&o, 0, sizeof o);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'f')
            from = optarg;
        else if (c == 'i')
            into = optarg;
        else if (c == 'n')
            dry_run = 1;
        else if ((rc = admin_common_option(&o, &merge_usage, c, optarg)) != ADMIN_OK)
            return rc < 0 ? ADMIN_OK : rc;
    }
    if (optind < argc)
        return admin_usage_error(&merge_usage, "unexpected argument '%s'", argv[optind]);
    if ((path = admin_db_path(&o, &merge_usage)) == NULL)
        return ADMIN_USAGE;
    if (from == NULL || into == NULL)
        return admin_usage_error(&merge_usage, "--from and --into are both required");
    rc = ADMIN_FAIL;
    if (admin_open(&o, path, 0, &db))
        goto out;
    /* Both names are resolved inside the write transaction, so the users
     * found are the users merged. */
    if (ledger_begin(db, 1, &err))
        goto fail;
    if (ledger_user_find(db, from, &from_id, &err)) {
        admin_error(from, &err);
        goto out;
    }
    if (ledger_user_find(db, into, &into_id, &err)) {
        admin_error(into, &err);
        goto out;
    }
    if (ledger_user_merge(db, from_id, into_id, &report, &err))
        goto fail;
    if (dry_run) {
        ledger_rollback(db);
    } else if (ledger_commit(db, &err)) {
        goto fail;
    }
    print_merge(report, dry_run);
    rc = ADMIN_OK;
    goto out;
fail:
    fprintf(stderr, "ledger-admin: merge-users: nothing changed: %s\n", err.message);
out:
    if (db)
        ledger_rollback(db);
    cJSON_Delete(report);
    ledger_close(db);
    return rc;
}
