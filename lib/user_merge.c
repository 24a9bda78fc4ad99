/*
 * Merging two users: one person who ended up with two accounts (a
 * placeholder someone added by one email, and the account they signed in
 * with under another; or a changed identity provider).  Everything `from`
 * owns or takes part in becomes `into`'s, then `from` is removed.
 *
 * What the specification's rules make of that:
 * - Ownership (rows, statements, trips, tags, rules, runs, budgets, CSV
 *   batches) moves whole.  Statement rows keep owner_id equal to their
 *   statement's owner because both move.
 * - Splits (rule A): where both had a share of one row, the shares add up,
 *   so the row still totals 100%.  On a row one of them owned, what the
 *   other owed on it was a debt to oneself (rule B: the owner's own row
 *   creates no debt) and simply stops counting; a row split between the
 *   two alone is no longer split at all.
 * - Tags are per user and their names unique per user in any case: a tag
 *   of from's with the name of one of into's is folded into into's (its
 *   links, rule actions and saved snapshots point at into's tag).
 * - Contacts are the union, minus the two knowing each other.
 * - into keeps its identity (subject), email and name and takes from's
 *   where it has none: a placeholder merged with a signed-in account must
 *   end up as an account its person can sign in to.
 * - The trigger-kept tables follow by their triggers; check verifies them.
 *
 * It refuses (409 merge_conflict, nothing changed) where only a person can
 * decide:
 * - a budget for the same category with different amounts (which one?);
 * - payments between the two (payments to oneself: were they a mistake,
 *   or did they settle something with a third party?);
 * - a row of a third person's where both have a share and only one of the
 *   two is settled (is the sum settled?);
 * - a rule whose apply_split would name one participant twice, or name its
 *   own owner without totalling 100% or alone (what split_parse refuses on
 *   apply).
 *
 * The caller runs it inside one write transaction (ledger_begin(db, 1)) and
 * rolls back on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"

#define CONFLICTS_SHOWN 3

/* Conflicts a query can see: each result row's first column describes one.
 * ?1 is from, ?2 into. */
static const char *const SQL_CONFLICTS[] = {
    "SELECT printf('both have a budget for %s (%d.%02d and %d.%02d)', a.category,"
    "              a.amount / 100, a.amount % 100, b.amount / 100, b.amount % 100)"
    "  FROM budgets a JOIN budgets b ON b.owner_id = ?2 AND b.category = a.category"
    " WHERE a.owner_id = ?1 AND a.amount <> b.amount",
    "SELECT printf('payment %d of %s is between the two (it would be a payment to oneself)',"
    "              id, date)"
    "  FROM split_payments"
    " WHERE (from_user_id = ?1 AND to_user_id = ?2) OR (from_user_id = ?2 AND to_user_id = ?1)",
    "SELECT printf('transaction %d of user %d has a share for each, one settled and one not',"
    "              a.transaction_id, t.owner_id)"
    "  FROM splits a JOIN splits b ON b.transaction_id = a.transaction_id AND b.participant_id = ?2"
    "  JOIN transactions t ON t.id = a.transaction_id"
    " WHERE a.participant_id = ?1 AND a.settled <> b.settled AND t.owner_id NOT IN (?1, ?2)",
};

/* Tags of from's that into has by name, compared as tag names are
 * (ledger_fold: ÉTÉ is été): (from's id, into's id). */
static const char SQL_TAG_PAIRS[] =
    "SELECT a.id, b.id FROM tags a"
    "  JOIN tags b ON b.owner_id = ?2 AND ledger_fold(b.name) = ledger_fold(a.name)"
    " WHERE a.owner_id = ?1";
/* Rules that may need rewriting: any with an apply_split naming from, and
 * every rule of either user (a tag id, or a share naming the new owner). */
static const char SQL_RULES_TOUCHED[] =
    "SELECT id, owner_id, actions FROM rules"
    " WHERE owner_id IN (?1, ?2)"
    "    OR EXISTS (SELECT 1 FROM json_tree(actions) WHERE key = 'participant_id' AND atom = ?1)";
static const char SQL_RULE_SET_ACTIONS[] = "UPDATE rules SET actions = ?2 WHERE id = ?1";
/* Saved snapshots (rule runs, reconciliations) naming from in a split or
 * one of from's tags. */
#define SNAPSHOT_TOUCHED \
    " EXISTS (SELECT 1 FROM json_each(snapshot, '$.splits') WHERE json_extract(value, '$[0]') = ?1)" \
    " OR EXISTS (SELECT 1 FROM json_each(snapshot, '$.tags') WHERE atom IN" \
    "            (SELECT id FROM tags WHERE owner_id = ?1))"
/* Each with the saved row's owner, fourth. */
static const char SQL_RUN_ROWS_TOUCHED[] =
    "SELECT run_id, transaction_id, snapshot,"
    "       (SELECT owner_id FROM transactions WHERE id = transaction_id)"
    "  FROM rule_run_rows WHERE" SNAPSHOT_TOUCHED;
static const char SQL_RUN_ROW_SET[] =
    "UPDATE rule_run_rows SET snapshot = ?3 WHERE run_id = ?1 AND transaction_id = ?2";
static const char SQL_RECONCILED_TOUCHED[] =
    "SELECT manual_id, 0, snapshot, (SELECT owner_id FROM transactions WHERE id = statement_txn_id)"
    "  FROM reconciliations WHERE" SNAPSHOT_TOUCHED;
static const char SQL_RECONCILED_SET[] =
    "UPDATE reconciliations SET snapshot = ?3 WHERE manual_id = ?1 AND ?2 = 0";

/* The moves, in order; a name means its count goes into the report.  ?1 is
 * from, ?2 into.  Splits go before rows' owners so that the shared_rows
 * and visible_count triggers see each change once. */
static const struct merge_step {
    const char *name;
    const char *sql;
} steps[] = {
    { "tag_links_merged",
      "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
      " SELECT tt.transaction_id, b.id FROM tags a"
      "   JOIN tags b ON b.owner_id = ?2 AND ledger_fold(b.name) = ledger_fold(a.name)"
      "   JOIN transaction_tags tt ON tt.tag_id = a.id WHERE a.owner_id = ?1" },
    { NULL,
      "DELETE FROM tags WHERE owner_id = ?1 AND EXISTS"
      " (SELECT 1 FROM tags b WHERE b.owner_id = ?2 AND ledger_fold(b.name) = ledger_fold(tags.name))" },
    { "tags", "UPDATE tags SET owner_id = ?2 WHERE owner_id = ?1" },
    { NULL,
      "INSERT OR IGNORE INTO user_contacts (user_id, contact_id, label, email)"
      " SELECT ?2, contact_id, label, email FROM user_contacts WHERE user_id = ?1 AND contact_id <> ?2" },
    { NULL,
      "INSERT OR IGNORE INTO user_contacts (user_id, contact_id, label, email)"
      " SELECT user_id, ?2, label, email FROM user_contacts WHERE contact_id = ?1 AND user_id <> ?2" },
    { NULL, "DELETE FROM user_contacts WHERE user_id = ?1 OR contact_id = ?1" },
    { "splits_combined",
      "UPDATE splits SET share_percent = share_percent +"
      "       (SELECT a.share_percent FROM splits a"
      "         WHERE a.transaction_id = splits.transaction_id AND a.participant_id = ?1)"
      " WHERE participant_id = ?2"
      "   AND transaction_id IN (SELECT transaction_id FROM splits WHERE participant_id = ?1)" },
    { NULL,
      "DELETE FROM splits WHERE participant_id = ?1"
      "   AND transaction_id IN (SELECT transaction_id FROM splits WHERE participant_id = ?2)" },
    { "splits", "UPDATE splits SET participant_id = ?2 WHERE participant_id = ?1" },
    /* A row split only between the two is now its owner's alone: its one
     * split row (the owner's, at 100%) goes, as DELETE splits would, so it
     * is not listed as shared (has_split) with nobody. */
    { "splits_ended",
      "DELETE FROM splits WHERE transaction_id IN"
      " (SELECT s.transaction_id FROM splits s JOIN transactions t ON t.id = s.transaction_id"
      "   WHERE t.owner_id IN (?1, ?2) GROUP BY s.transaction_id"
      "  HAVING COUNT(*) = 1 AND MIN(s.participant_id) = ?2)" },
    { "statements", "UPDATE statements SET owner_id = ?2 WHERE owner_id = ?1" },
    { "transactions", "UPDATE transactions SET owner_id = ?2 WHERE owner_id = ?1" },
    { "trips", "UPDATE trips SET owner_id = ?2 WHERE owner_id = ?1" },
    { "rules", "UPDATE rules SET owner_id = ?2 WHERE owner_id = ?1" },
    { NULL, "UPDATE rule_runs SET owner_id = ?2 WHERE owner_id = ?1" },
    { NULL, "UPDATE csv_imports SET owner_id = ?2 WHERE owner_id = ?1" },
    /* Same category, same amount (a different amount was refused). */
    { NULL,
      "DELETE FROM budgets WHERE owner_id = ?1"
      "   AND category IN (SELECT category FROM budgets WHERE owner_id = ?2)" },
    { "budgets", "UPDATE budgets SET owner_id = ?2 WHERE owner_id = ?1" },
    { "payments",
      "UPDATE split_payments"
      "   SET from_user_id = CASE from_user_id WHEN ?1 THEN ?2 ELSE from_user_id END,"
      "       to_user_id = CASE to_user_id WHEN ?1 THEN ?2 ELSE to_user_id END,"
      "       created_by = CASE created_by WHEN ?1 THEN ?2 ELSE created_by END"
      " WHERE ?1 IN (from_user_id, to_user_id, created_by)" },
    /* The triggers have taken every contribution of from's out: what is
     * left are cells at zero. */
    { NULL, "DELETE FROM spend_monthly WHERE owner_id = ?1 AND cents = 0" },
    { NULL, "DELETE FROM visible_count WHERE viewer_id = ?1 AND n = 0" },
    { NULL, "DELETE FROM visible_total WHERE viewer_id = ?1 AND n = 0" },
};

/* Anything still naming from.  Deleting the user would cascade it away
 * silently, so a table this file forgot stops the merge instead. */
static const char SQL_JOBS[] = "SELECT count(*) FROM jobs WHERE owner_id IN (?1, ?2)";
static const char SQL_LEFTOVERS[] =
    "SELECT 'statements' WHERE EXISTS (SELECT 1 FROM statements WHERE owner_id = ?1)"
    " UNION ALL SELECT 'transactions' WHERE EXISTS (SELECT 1 FROM transactions WHERE owner_id = ?1)"
    " UNION ALL SELECT 'trips' WHERE EXISTS (SELECT 1 FROM trips WHERE owner_id = ?1)"
    " UNION ALL SELECT 'tags' WHERE EXISTS (SELECT 1 FROM tags WHERE owner_id = ?1)"
    " UNION ALL SELECT 'splits' WHERE EXISTS (SELECT 1 FROM splits WHERE participant_id = ?1)"
    " UNION ALL SELECT 'split_payments' WHERE EXISTS (SELECT 1 FROM split_payments"
    "           WHERE ?1 IN (from_user_id, to_user_id, created_by))"
    " UNION ALL SELECT 'rules' WHERE EXISTS (SELECT 1 FROM rules WHERE owner_id = ?1)"
    " UNION ALL SELECT 'rule_runs' WHERE EXISTS (SELECT 1 FROM rule_runs WHERE owner_id = ?1)"
    " UNION ALL SELECT 'budgets' WHERE EXISTS (SELECT 1 FROM budgets WHERE owner_id = ?1)"
    " UNION ALL SELECT 'csv_imports' WHERE EXISTS (SELECT 1 FROM csv_imports WHERE owner_id = ?1)"
    " UNION ALL SELECT 'user_contacts' WHERE EXISTS (SELECT 1 FROM user_contacts"
    "           WHERE ?1 IN (user_id, contact_id))"
    " UNION ALL SELECT 'spend_monthly' WHERE EXISTS (SELECT 1 FROM spend_monthly WHERE owner_id = ?1)"
    " UNION ALL SELECT 'visible_count' WHERE EXISTS (SELECT 1 FROM visible_count WHERE viewer_id = ?1)"
    " UNION ALL SELECT 'visible_total' WHERE EXISTS (SELECT 1 FROM visible_total WHERE viewer_id = ?1)"
    " UNION ALL SELECT 'shared_rows' WHERE EXISTS (SELECT 1 FROM shared_rows WHERE viewer_id = ?1)";

static const char SQL_USER_PROFILE[] = "SELECT subject, email, name FROM users WHERE id = ?";
static const char SQL_USER_DELETE[] = "DELETE FROM users WHERE id = ?";
/* into keeps its own identity, email and name; what it lacks it takes from
 * from: merging a signed-in account into a placeholder must leave one the
 * person can sign in to, and a participant added again by from's email
 * should find the merged user. */
static const char SQL_USER_TAKE_PROFILE[] =
    "UPDATE users SET subject = COALESCE(subject, ?2), email = COALESCE(email, ?3),"
    "                 name = COALESCE(name, ?4)"
    " WHERE id = ?1";

struct tag_pair {
    int64_t from, into;
};
struct merge {
    ledger_db *db;
    int64_t from, into;
    struct tag_pair *tags;
    size_t ntags;
    char conflicts[sizeof ((ledger_error *)0)->message];
    int nconflicts;
};

static void conflict(struct merge *m, const char *what)
{
    size_t used = strlen(m->conflicts);

    if (m->nconflicts++ < CONFLICTS_SHOWN)
        snprintf(m->conflicts + used, sizeof m->conflicts - used, "%s%s", used ? "; " : "", what);
}

static sqlite3_stmt *bound(struct merge *m, const char *sql, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(m->db, sql, err);

    if (st) {
        sqlite3_bind_int64(st, 1, m->from);
        sqlite3_bind_int64(st, 2, m->into);
    }
    return st;
}

struct profile {
    char *text[3];  /* subject, email, name; NULL for SQL NULL */
};

static void profile_free(struct profile *p)
{
    int i;

    for (i = 0; i < 3; i++)
        free(p->text[i]);
}

static int user_profile(ledger_db *db, int64_t id, struct profile *p, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_USER_PROFILE, err);
    int rc, i, oom = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    for (i = 0; i < 3 && rc == SQLITE_ROW; i++)
        if (sqlite3_column_type(st, i) != SQLITE_NULL)
            oom |= (p->text[i] = db_column_dup(st, i)) == NULL;
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no user %lld", (long long)id);
    if (oom)
        return ledger_error_oom(err);
    return rc == SQLITE_ROW ? LEDGER_OK : db_error(db, err, "user");
}

static int load_tag_pairs(struct merge *m, ledger_error *err)
{
    sqlite3_stmt *st = bound(m, SQL_TAG_PAIRS, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct tag_pair *t = realloc(m->tags, (m->ntags + 1) * sizeof *t);

        if (t == NULL) {
            db_stmt_done(st);
            return ledger_error_oom(err);
        }
        m->tags = t;
        t[m->ntags].from = sqlite3_column_int64(st, 0);
        t[m->ntags++].into = sqlite3_column_int64(st, 1);
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(m->db, err, "tags");
}

static int64_t tag_into(const struct merge *m, int64_t id)
{
    size_t i;

    for (i = 0; i < m->ntags; i++)
        if (m->tags[i].from == id)
            return m->tags[i].into;
    return id;
}

/* Replaces the number at key of obj by v (keeping a parsed literal's text
 * in step: ledger_json_parse keeps it in valuestring). */
static void set_id(cJSON *obj, const char *key, int64_t v)
{
    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateNumber((double)v));
}

/* A rule's actions with from read as into and from's folded tags as
 * into's; *changed says whether anything changed.  A share set that the
 * merge makes invalid is a conflict. */
static void rewrite_actions(struct merge *m, int64_t rule_id, int64_t owner, cJSON *actions,
                            int *changed)
{
    cJSON *a;
    char what[160];

    cJSON_ArrayForEach(a, actions) {
        cJSON *tag = cJSON_GetObjectItemCaseSensitive(a, "tag_id");
        cJSON *shares = cJSON_GetObjectItemCaseSensitive(a, "shares"), *s;
        int64_t id, total = 0;
        int from_named = 0, into_named = 0, owner_named = 0, named = 0;

        if (tag && json_id(tag, &id) == 0 && tag_into(m, id) != id) {
            set_id(a, "tag_id", tag_into(m, id));
            *changed = 1;
        }
        cJSON_ArrayForEach(s, shares) {
            cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "participant_id");
            int64_t pct = 0;
            ledger_error ignored;

            if (p == NULL || json_id(p, &id))
                continue;
            named++;
            if (ledger_percent_from_json(cJSON_GetObjectItemCaseSensitive(s, "share_percent"),
                                         "share_percent", &pct, &ignored) == 0)
                total += pct;
            if (id == m->from) {
                set_id(s, "participant_id", m->into);
                from_named = *changed = 1;
                id = m->into;
            } else if (id == m->into) {
                into_named = 1;
            }
            owner_named |= id == (owner == m->from ? m->into : owner);
        }
        if (from_named && into_named) {
            snprintf(what, sizeof what, "rule %lld splits with both users", (long long)rule_id);
            conflict(m, what);
        } else if ((from_named || owner == m->from) && owner_named && total != 10000) {
            snprintf(what, sizeof what, "rule %lld would split with its own owner short of 100%%",
                     (long long)rule_id);
            conflict(m, what);
        } else if ((from_named || owner == m->from) && owner_named && named == 1) {
            /* A split with nobody, which applying it refuses: such a
             * rule would never run. */
            snprintf(what, sizeof what, "rule %lld would split with its own owner alone",
                     (long long)rule_id);
            conflict(m, what);
        }
    }
}

/* Checks every touched rule and, when write, stores the rewritten actions. */
static int rules_pass(struct merge *m, int write, ledger_error *err)
{
    sqlite3_stmt *st = bound(m, SQL_RULES_TOUCHED, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0), owner = sqlite3_column_int64(st, 1);
        const char *text = (const char *)sqlite3_column_text(st, 2);
        cJSON *actions = NULL;
        char *printed = NULL;
        int changed = 0, bad = 0;
        ledger_error ignored;

        /* Rules are validated when saved; one that does not parse is left
         * alone (it does nothing on apply either). */
        if (text == NULL || ledger_json_parse(text, strlen(text), &actions, &ignored))
            continue;
        rewrite_actions(m, id, owner, actions, &changed);
        /* Another statement while st is open: different cache entries. */
        if (write && changed) {
            if ((printed = cJSON_PrintUnformatted(actions)) == NULL)
                bad = ledger_error_oom(err);
            else
                bad = db_exec(m->db, err, "rule", SQL_RULE_SET_ACTIONS, DB_INT(id),
                              DB_TEXT(printed));
        }
        free(printed);
        cJSON_Delete(actions);
        if (bad) {
            db_stmt_done(st);
            return LEDGER_ERR;
        }
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(m->db, err, "rules");
}

/* A saved snapshot ({tags: [ids], splits: [[participant, share, settled]]},
 * snapshot.c) of a row owned by owner, as the merge leaves it: from's
 * split entry added to into's or renamed, from's folded tags as into's
 * (once).  A row of the two's whose split is left naming its owner alone
 * is no longer split, as the merge leaves the row itself (restoring it
 * must not split it with its owner alone). */
static char *rewrite_snapshot(const struct merge *m, const char *text, int64_t owner)
{
    cJSON *doc = cJSON_Parse(text), *tags, *splits, *e, *into_entry = NULL, *from_entry = NULL;
    char *out = NULL;
    int i;

    if (doc == NULL)
        return NULL;
    splits = cJSON_GetObjectItemCaseSensitive(doc, "splits");
    cJSON_ArrayForEach(e, splits) {
        double pid = cJSON_GetNumberValue(cJSON_GetArrayItem(e, 0));

        if (pid == (double)m->from)
            from_entry = e;
        else if (pid == (double)m->into)
            into_entry = e;
    }
    if (from_entry && into_entry) {
        cJSON *share = cJSON_GetArrayItem(into_entry, 1);

        cJSON_SetNumberValue(share, share->valuedouble
                                        + cJSON_GetNumberValue(cJSON_GetArrayItem(from_entry, 1)));
        cJSON_DetachItemViaPointer(splits, from_entry);
        cJSON_Delete(from_entry);
    } else if (from_entry) {
        cJSON_ReplaceItemInArray(from_entry, 0, cJSON_CreateNumber((double)m->into));
    }
    if ((owner == m->from || owner == m->into) && cJSON_GetArraySize(splits) == 1
        && cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetArrayItem(splits, 0), 0)) == (double)m->into)
        cJSON_DeleteItemFromArray(splits, 0);
    tags = cJSON_GetObjectItemCaseSensitive(doc, "tags");
    for (i = cJSON_GetArraySize(tags) - 1; i >= 0; i--) {
        cJSON *t = cJSON_GetArrayItem(tags, i), *other;
        int64_t to = tag_into(m, (int64_t)cJSON_GetNumberValue(t));
        int dup = 0;

        if (to == (int64_t)cJSON_GetNumberValue(t))
            continue;
        cJSON_ArrayForEach(other, tags)
            dup |= (int64_t)cJSON_GetNumberValue(other) == to;
        if (dup)
            cJSON_DeleteItemFromArray(tags, i);
        else
            cJSON_ReplaceItemInArray(tags, i, cJSON_CreateNumber((double)to));
    }
    out = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return out;
}

static int snapshots_pass(struct merge *m, const char *select, const char *update,
                          ledger_error *err)
{
    sqlite3_stmt *st = bound(m, select, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char *text = rewrite_snapshot(m, (const char *)sqlite3_column_text(st, 2),
                                      sqlite3_column_int64(st, 3));
        int failed;

        if (text == NULL)
            continue;  /* written by snapshot.c, so always JSON; else left as it is */
        failed = db_exec(m->db, err, "snapshot", update, DB_INT(sqlite3_column_int64(st, 0)),
                         DB_INT(sqlite3_column_int64(st, 1)), DB_TEXT(text));
        free(text);
        if (failed) {
            db_stmt_done(st);
            return LEDGER_ERR;
        }
    }
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(m->db, err, "snapshots");
}

static int find_conflicts(struct merge *m, ledger_error *err)
{
    size_t i;
    int rc;

    for (i = 0; i < sizeof SQL_CONFLICTS / sizeof SQL_CONFLICTS[0]; i++) {
        sqlite3_stmt *st = bound(m, SQL_CONFLICTS[i], err);

        if (st == NULL)
            return LEDGER_ERR;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            conflict(m, (const char *)sqlite3_column_text(st, 0));
        db_stmt_done(st);
        if (rc != SQLITE_DONE)
            return db_error(m->db, err, "merge check");
    }
    return rules_pass(m, 0, err);
}

static int run_steps(struct merge *m, cJSON *report, ledger_error *err)
{
    size_t i;

    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (db_exec(m->db, err, steps[i].name ? steps[i].name : "merge", steps[i].sql,
                    DB_INT(m->from), DB_INT(m->into)))
            return LEDGER_ERR;
        if (steps[i].name)
            cJSON_AddNumberToObject(report, steps[i].name, sqlite3_changes(m->db->sql));
    }
    return LEDGER_OK;
}

static int leftovers(struct merge *m, ledger_error *err)
{
    sqlite3_stmt *st = bound(m, SQL_LEFTOVERS, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        ledger_error_set(err, 500, "internal", NULL, "after the merge, %s still names user %lld",
                         (const char *)sqlite3_column_text(st, 0), (long long)m->from);
    db_stmt_done(st);
    if (rc == SQLITE_ROW)
        return LEDGER_ERR;
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(m->db, err, "merge");
}

/* Removes from, then gives into what it lacks of from's profile. */
static int take_profile(struct merge *m, const struct profile *from, ledger_error *err)
{
    if (db_exec(m->db, err, "user", SQL_USER_DELETE, DB_INT(m->from)))
        return LEDGER_ERR;
    return db_exec(m->db, err, "user", SQL_USER_TAKE_PROFILE, DB_INT(m->into),
                   DB_TEXT(from->text[0]), DB_TEXT(from->text[1]), DB_TEXT(from->text[2]));
}

int ledger_user_merge(ledger_db *db, int64_t from, int64_t into, cJSON **out, ledger_error *err)
{
    struct merge m = { .db = db, .from = from, .into = into };
    struct profile from_profile = { { NULL } }, into_profile = { { NULL } };
    cJSON *report = NULL;
    int64_t jobs;
    int rc = LEDGER_ERR;

    if (from == into) {
        error_field(err, "into", "a user cannot be merged into itself");
        goto out;
    }
    if (user_profile(db, from, &from_profile, err) || user_profile(db, into, &into_profile, err))
        goto out;
    /* A job of either's (job.c) is writing their rows in transactions of
     * its own: moving them under it would split what it undoes or ends. */
    if (db_int(db, err, "merge", &jobs, 0, SQL_JOBS, DB_INT(from), DB_INT(into)))
        goto out;
    if (jobs) {
        ledger_error_set(err, 409, "merge_conflict", NULL,
                         "a CSV commit or rule run of one of the two is being written:"
                         " merge once it has ended");
        goto out;
    }
    if (load_tag_pairs(&m, err) || find_conflicts(&m, err))
        goto out;
    if (m.nconflicts) {
        ledger_error_set(err, 409, "merge_conflict", NULL, "%d conflict%s: %s%s", m.nconflicts,
                         m.nconflicts == 1 ? "" : "s", m.conflicts,
                         m.nconflicts > CONFLICTS_SHOWN ? "; ..." : "");
        goto out;
    }
    if ((report = cJSON_CreateObject()) == NULL) {
        ledger_error_oom(err);
        goto out;
    }
    cJSON_AddNumberToObject(report, "from", (double)from);
    cJSON_AddNumberToObject(report, "into", (double)into);
    /* JSON that names ids first, while from's folded tags still exist. */
    if (rules_pass(&m, 1, err)
        || snapshots_pass(&m, SQL_RUN_ROWS_TOUCHED, SQL_RUN_ROW_SET, err)
        || snapshots_pass(&m, SQL_RECONCILED_TOUCHED, SQL_RECONCILED_SET, err)
        || run_steps(&m, report, err) || leftovers(&m, err)
        || take_profile(&m, &from_profile, err))
        goto out;
    /* The sign-in identity changing hands is worth saying out loud. */
    cJSON_AddBoolToObject(report, "identity_taken",
                          into_profile.text[0] == NULL && from_profile.text[0] != NULL);
    *out = report;
    report = NULL;
    rc = LEDGER_OK;
out:
    cJSON_Delete(report);
    free(m.tags);
    profile_free(&from_profile);
    profile_free(&into_profile);
    return rc;
}
