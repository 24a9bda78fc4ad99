/*
 * A rule's actions: the rule made ready to act (its actions checked
 * again, its split completed), and its actions run over the matched rows
 * rule_run.c puts in temp.rule_ids, a chunk at a time, each action one
 * statement over the chunk.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "share.h"
#include "txn.h"
#include "rule.h"

static const char SQL_CHUNK_CLEAR[] = "DELETE FROM temp.rule_ids";
static const char SQL_CHUNK_FILL[] =
    "INSERT INTO temp.rule_ids SELECT id FROM temp.rule_matches WHERE id BETWEEN ?1 AND ?2";
static const char SQL_CHUNK_ONE[] = "INSERT INTO temp.rule_ids (id) VALUES (?)";
/* Only rows whose value differs are written, so the triggers behind them
 * run for real changes only, and each action returns the ids it changed:
 * a run's `transactions` is how many distinct rows that is.  An override
 * writes the effective value beside it (it wins over the bank's value),
 * so the trigger that would otherwise update each row a second time has
 * nothing to do (transactions_effective_update).  Only rows whose effective value differs:
 * a row the bank already gave the rule's category is not changed, and
 * gets no override pinning it: the preview shows no change there, and a
 * row counted as the run's would have its whole snapshot restored by the
 * run's revert. */
static const char SQL_ALL_CATEGORY[] =
    "UPDATE transactions SET override_category = ?1, eff_category = ?1"
    " WHERE id IN (SELECT id FROM temp.rule_ids) AND eff_category IS NOT ?1 RETURNING id";
static const char SQL_ALL_MERCHANT[] =
    "UPDATE transactions SET override_merchant_normalized = ?1, eff_merchant = ?1"
    " WHERE id IN (SELECT id FROM temp.rule_ids) AND eff_merchant IS NOT ?1"
    " RETURNING id";
static const char SQL_ALL_TRIP[] =
    "UPDATE transactions SET override_trip_id = ?1"
    " WHERE id IN (SELECT id FROM temp.rule_ids) AND override_trip_id IS NOT ?1 RETURNING id";
/* RETURNING reports the rows inserted, not those ignored. */
static const char SQL_ALL_TAG[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT id, ?1 FROM temp.rule_ids WHERE 1 RETURNING transaction_id";
/* apply_split (Behaviour rule 5): upsert each share, then remove only the
 * participants no longer named, so settled flags survive; ?1 is the
 * completed set as [[participant_id, share], ...]. */
static const char SQL_ALL_SPLIT_UPSERT[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent)"
    " SELECT r.id, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]')"
    "   FROM temp.rule_ids r, json_each(?1) j WHERE 1"
    " ON CONFLICT (transaction_id, participant_id) DO UPDATE SET share_percent = excluded.share_percent"
    "  WHERE share_percent IS NOT excluded.share_percent"
    " RETURNING transaction_id";
static const char SQL_ALL_SPLIT_PRUNE[] =
    "DELETE FROM splits WHERE transaction_id IN (SELECT id FROM temp.rule_ids)"
    "   AND participant_id NOT IN (SELECT json_extract(value, '$[0]') FROM json_each(?1))"
    " RETURNING transaction_id";
/* One row's, as SQL_ALL_CATEGORY: a row already showing the category is
 * not changed.  The effective category is compared, not the override: a
 * row pinned and counted though left as it was would have its later
 * edits put back by the run's revert. */
static const char SQL_ROW_CATEGORY[] =
    "UPDATE transactions SET override_category = ?2, eff_category = ?2"
    " WHERE id = ?1 AND eff_category IS NOT ?2 RETURNING id";

void rule_prepared_free(struct prepared *p)
{
    free(p->shares);
    cJSON_Delete(p->rule);
    memset(p, 0, sizeof *p);
}

/* The shares as the JSON text the split statements read, [[participant,
 * share], ...], written whole or not at all: a split with a pair left out
 * would prune that participant from every matched row.  NULL when memory
 * runs out. */
static char *shares_text(const struct split_set *ss)
{
    size_t cap = 3 + ss->n * 44, len = 1, i;  /* ",[" 20 digits "," 20 digits "]" */
    char *s = malloc(cap);

    if (s == NULL)
        return NULL;
    s[0] = '[';
    for (i = 0; i < ss->n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s[%" PRId64 ",%" PRId64 "]", i ? "," : "",
                                ss->v[i].participant_id, ss->v[i].share);
    snprintf(s + len, cap - len, "]");
    return s;
}

/* A run must not half-apply: what the actions name is checked before any
 * of them runs. */
int rule_prepare(ledger_db *db, int64_t me, cJSON *rule, struct prepared *p, ledger_error *err)
{
    const cJSON *a;

    memset(p, 0, sizeof *p);
    p->rule = rule;
    p->id = (int64_t)json_get(rule, "id")->valuedouble;
    snprintf(p->name, sizeof p->name, "%s", json_get(rule, "name")->valuestring);
    p->any = strcmp(json_get(rule, "match")->valuestring, "any") == 0;
    if (rule_actions_check(db, me, json_get(rule, "actions"), err)) {
        /* Valid when saved: what it names has changed since (a tag or
         * trip deleted, a trip the caller no longer takes part in).  Say
         * which rule, as apply-all runs many. */
        if (err->status == 400 || err->status == 403) {
            char why[sizeof err->message], field[sizeof err->field];

            snprintf(why, sizeof why, "%s", err->message);
            snprintf(field, sizeof field, "%s", err->field);
            ledger_error_set(err, 409, "conflict", field, "rule %lld (%s) can no longer run: %s",
                             (long long)p->id, p->name, why);
        }
        goto fail;
    }
    cJSON_ArrayForEach(a, json_get(rule, "actions")) {
        struct split_set ss;

        if (strcmp(json_get(a, "type")->valuestring, "set_trip") == 0)
            p->shares_rows = 1;
        if (strcmp(json_get(a, "type")->valuestring, "apply_split") != 0)
            continue;
        p->shares_rows = 1;
        if (split_parse(db, json_get(a, "shares"), "shares", me, me, &ss, err))
            goto fail;
        free(p->shares);
        p->shares = shares_text(&ss);
        split_set_free(&ss);
        if (p->shares == NULL) {
            ledger_error_oom(err);
            goto fail;
        }
    }
    return LEDGER_OK;
fail:
    p->rule = NULL;  /* the caller still owns it */
    rule_prepared_free(p);
    return LEDGER_ERR;
}

int rule_ids_add(void *ctx, sqlite3_stmt *st)
{
    struct changed *c = ctx;

    if (c->n == c->cap) {
        void *nv = realloc(c->ids, (c->cap = c->cap ? 2 * c->cap : 256) * sizeof *c->ids);

        if (nv == NULL)
            return LEDGER_ERR;
        c->ids = nv;
    }
    c->ids[c->n++] = sqlite3_column_int64(st, 0);
    return LEDGER_OK;
}

int64_t rule_changed_count(struct changed *c)
{
    size_t i, distinct = 0;

    if (c->n > 1)  /* c->ids is NULL when nothing changed */
        qsort(c->ids, c->n, sizeof *c->ids, cmp_int64);
    for (i = 0; i < c->n; i++)
        distinct += i == 0 || c->ids[i] != c->ids[i - 1];
    return (int64_t)distinct;
}

/* db_exec for an action's statement (sql and its DB_ARGV), adding the ids
 * it returns to *changed (when not NULL).  A row changed but not listed
 * would be marked unchanged and its revert skipped: out of memory is the
 * run's end. */
static int exec_action(ledger_db *db, struct changed *changed, ledger_error *err, const char *sql,
                       const struct db_arg *args, int n)
{
    return db_each_args(db, err, "rule action", sql, args, n, changed ? rule_ids_add : NULL,
                        changed);
}

int rule_chunk_fill(ledger_db *db, const int64_t *ids, size_t n, ledger_error *err)
{
    if (db_exec(db, err, "rule action", SQL_CHUNK_CLEAR))
        return LEDGER_ERR;
    if (n == 0)
        return LEDGER_OK;
    return db_exec(db, err, "rule run", SQL_CHUNK_FILL, DB_INT(ids[0]), DB_INT(ids[n - 1]));
}

int rule_chunk_fill_list(ledger_db *db, const int64_t *ids, size_t n, ledger_error *err)
{
    size_t i;

    if (db_exec(db, err, "rule action", SQL_CHUNK_CLEAR))
        return LEDGER_ERR;
    for (i = 0; i < n; i++)
        if (db_exec(db, err, "rule run", SQL_CHUNK_ONE, DB_INT(ids[i])))
            return LEDGER_ERR;
    return LEDGER_OK;
}

int rule_act(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids, size_t n,
             struct changed *changed, ledger_error *err)
{
    const cJSON *a;

    cJSON_ArrayForEach(a, json_get(p->rule, "actions")) {
        const char *type = json_get(a, "type")->valuestring;
        int rc = LEDGER_OK;

        if (strcmp(type, "add_tag") == 0) {
            rc = exec_action(db, changed, err, SQL_ALL_TAG,
                             DB_ARGV(DB_INT(json_get(a, "tag_id")->valuedouble)));
        } else if (strcmp(type, "set_category") == 0) {
            const char *category = json_get(a, "category")->valuestring;
            char folded[LEDGER_CATEGORY_MAX];
            size_t i;

            if (ledger_category_fold(category, folded) != LEDGER_CATEGORY_REFUND) {
                if (exec_action(db, changed, err, SQL_ALL_CATEGORY, DB_ARGV(DB_TEXT(folded))))
                    return LEDGER_ERR;
                continue;
            }
            /* A refund takes each row's merchant's usual category. */
            for (i = 0; i < n && rc == LEDGER_OK; i++) {
                char merchant[512];

                rc = txn_eff_merchant(db, ids[i], merchant, sizeof merchant, err)
                     || category_resolve(db, me, merchant, category, folded, err)
                     || exec_action(db, changed, err, SQL_ROW_CATEGORY,
                                    DB_ARGV(DB_INT(ids[i]), DB_TEXT(folded)));
            }
        } else if (strcmp(type, "set_merchant") == 0) {
            merchant_renames_forget(db);  /* the names later rows take (merchant_name.c) */
            rc = exec_action(db, changed, err, SQL_ALL_MERCHANT,
                             DB_ARGV(DB_TEXT(json_get(a, "merchant_normalized")->valuestring)));
        } else if (strcmp(type, "set_trip") == 0) {
            rc = exec_action(db, changed, err, SQL_ALL_TRIP,
                             DB_ARGV(DB_INT(json_get(a, "trip_id")->valuedouble)));
        } else {
            rc = exec_action(db, changed, err, SQL_ALL_SPLIT_UPSERT, DB_ARGV(DB_TEXT(p->shares)))
                 || exec_action(db, changed, err, SQL_ALL_SPLIT_PRUNE, DB_ARGV(DB_TEXT(p->shares)));
        }
        if (rc)
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}
