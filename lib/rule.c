/*
 * Rules: saved conditions and actions that tag, categorise, rename, split
 * and assign the caller's rows in bulk.  This file keeps the rules
 * themselves (create, read, update, delete); rule_run.c applies them and
 * rule_revert.c keeps the record of their runs.  Rules act only on rows
 * the caller owns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fields.h"
#include "json_out.h"
#include "share.h"
#include "txn.h"
#include "rule.h"

#define ACTIONS_MAX 20

static const char SQL_RULE_INSERT[] =
    "INSERT INTO rules (id, owner_id, name, match_mode, conditions, actions, enabled, manual_only)"
    " VALUES (" NEXT_ID("rules") ", ?, ?, ?, ?, ?, ?, ?)";
static const char SQL_RULE_UPDATE[] =
    "UPDATE rules SET name = ?2, match_mode = ?3, conditions = ?4, actions = ?5, enabled = ?6,"
    " manual_only = ?7, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1";
static const char SQL_RULE_ONE[] = RULE_COLUMNS " WHERE id = ?";
static const char SQL_RULE_LIST[] = RULE_COLUMNS " WHERE owner_id = ? ORDER BY id";
static const char SQL_RULE_DELETE[] = "DELETE FROM rules WHERE id = ?";

#define RULE_KEYS 9
cJSON *rule_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject(), *c = NULL, *a = NULL;
    const char *ct = (const char *)sqlite3_column_text(st, 4);
    const char *at = (const char *)sqlite3_column_text(st, 5);
    ledger_error e;

    if (o && ct && at && ledger_json_parse(ct, strlen(ct), &c, &e) == LEDGER_OK
        && ledger_json_parse(at, strlen(at), &a, &e) == LEDGER_OK) {
        cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
        json_text_col(o, "name", st, 2);
        cJSON_AddBoolToObject(o, "enabled", sqlite3_column_int(st, 6));
        cJSON_AddBoolToObject(o, "manual_only", sqlite3_column_int(st, 7));
        json_text_col(o, "match", st, 3);
        if (cJSON_AddItemToObject(o, "conditions", c))
            c = NULL;
        if (cJSON_AddItemToObject(o, "actions", a))
            a = NULL;
        json_text_col(o, "created_at", st, 8);
        json_text_col(o, "updated_at", st, 9);
    }
    if (c || a || cJSON_GetArraySize(o) != RULE_KEYS) {
        cJSON_Delete(c);
        cJSON_Delete(a);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int action_error(ledger_error *err, size_t i)
{
    char f[160];

    snprintf(f, sizeof f, "actions[%zu]%s%s", i, err->field[0] ? "." : "", err->field);
    f[sizeof err->field - 1] = '\0';
    memcpy(err->field, f, sizeof err->field);
    return LEDGER_ERR;
}

int rule_actions_check(ledger_db *db, int64_t me, const cJSON *actions, ledger_error *err)
{
    static const char *const types[] = {
        "add_tag", "set_category", "set_merchant", "apply_split", "set_trip", NULL
    };
    const cJSON *a;
    size_t i = 0;

    if (!cJSON_IsArray(actions) || cJSON_GetArraySize(actions) < 1
        || cJSON_GetArraySize(actions) > ACTIONS_MAX)
        return error_field(err, "actions", "actions must be an array of 1 to %d actions",
                           ACTIONS_MAX);
    cJSON_ArrayForEach(a, actions) {
        const char *type, *text;
        char slug[LEDGER_CATEGORY_MAX];
        int64_t id;

        if (!cJSON_IsObject(a)) {
            error_field(err, "", "each action must be an object");
            return action_error(err, i);
        }
        if (field_enum(a, "type", types, 0, &type, NULL, err))
            return action_error(err, i);
        if (type == NULL) {
            error_field(err, "type", "type is required");
            return action_error(err, i);
        }
        if (strcmp(type, "add_tag") == 0) {
            if (field_id(a, "tag_id", 1, 0, &id, NULL, err))
                return action_error(err, i);
            if (tag_check_owner(db, me, id, err)) {
                error_in_body(err, "tag_id");
                return action_error(err, i);
            }
        } else if (strcmp(type, "set_category") == 0) {
            if (field_text(a, "category", 1, 0, LEDGER_CATEGORY_TEXT_MAX, &text, NULL, err))
                return action_error(err, i);
            switch (ledger_category_fold(text, slug)) {
            case LEDGER_CATEGORY_EMPTY:
                error_field(err, "category", "category must have at least one letter or digit");
                return action_error(err, i);
            case LEDGER_CATEGORY_NONE:
                error_field(err, "category", "%s", CATEGORY_NONE_MESSAGE);
                return action_error(err, i);
            default:
                break;
            }
        } else if (strcmp(type, "set_merchant") == 0) {
            if (field_text(a, "merchant_normalized", 1, 0, MERCHANT_MAX, &text, NULL, err))
                return action_error(err, i);
        } else if (strcmp(type, "set_trip") == 0) {
            if (field_id(a, "trip_id", 1, 0, &id, NULL, err) || trip_check_member(db, me, id, err))
                return action_error(err, i);
        } else {
            struct split_set ss;

            if (split_parse(db, cJSON_GetObjectItemCaseSensitive(a, "shares"), "shares", me, me, &ss, err))
                return action_error(err, i);
            split_set_free(&ss);
        }
        i++;
    }
    return LEDGER_OK;
}

/* Everything a rule body holds, checked; strings point into body or are
 * the defaults.  For a PATCH, cur supplies what the body leaves out. */
struct rule_input {
    const char *name, *match;
    char *conditions, *actions;  /* owned: JSON text */
    int enabled, manual_only;
};

static int read_bool(const cJSON *body, const char *k, int *out, ledger_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, k);

    if (v == NULL)
        return LEDGER_OK;
    if (!cJSON_IsBool(v))
        return error_field(err, k, "%s must be true or false", k);
    *out = cJSON_IsTrue(v);
    return LEDGER_OK;
}

static int rule_read(ledger_db *db, int64_t me, const cJSON *body, const cJSON *cur,
                     struct rule_input *in, ledger_error *err)
{
    static const char *const modes[] = { "all", "any", NULL };
    const cJSON *conds = cJSON_GetObjectItemCaseSensitive(body, "conditions");
    const cJSON *acts = cJSON_GetObjectItemCaseSensitive(body, "actions");
    const char *name, *match;

    memset(in, 0, sizeof *in);
    in->enabled = cur ? cJSON_IsTrue(json_get(cur, "enabled")) : 1;
    in->manual_only = cur ? cJSON_IsTrue(json_get(cur, "manual_only")) : 0;
    if (field_require_object(body, err)
        || field_text(body, "name", cur == NULL, 0, RULE_NAME_MAX, &name, NULL, err)
        || field_enum(body, "match", modes, 0, &match, NULL, err)
        || read_bool(body, "enabled", &in->enabled, err)
        || read_bool(body, "manual_only", &in->manual_only, err))
        return LEDGER_ERR;
    in->name = name ? name : json_get(cur, "name")->valuestring;
    in->match = match ? match : cur ? json_get(cur, "match")->valuestring : "all";
    if (conds == NULL && cur)
        conds = json_get(cur, "conditions");
    /* Actions are checked when they are written.  Stored ones kept by a
     * PATCH are not checked again: a tag or trip deleted since makes the
     * rule's runs a 409 (run time says so), and checking them here would
     * refuse even the PATCH that disables or renames the rule. */
    if (acts == NULL && cur)
        acts = json_get(cur, "actions");
    else if (rule_actions_check(db, me, acts, err))
        return LEDGER_ERR;
    if (conds == NULL)
        return error_field(err, "conditions", "conditions is required");
    if (rule_conditions_check(conds, err))
        return LEDGER_ERR;
    /* A rule that runs on its own must say what it matches; only a quick
     * action (applied to a selection) may have no conditions. */
    if (!in->manual_only && cJSON_GetArraySize(conds) == 0)
        return error_field(err, "conditions",
                           "a rule that is not manual_only needs at least one condition");
    in->conditions = cJSON_PrintUnformatted(conds);
    in->actions = cJSON_PrintUnformatted(acts);
    if (in->conditions == NULL || in->actions == NULL) {
        free(in->conditions);
        free(in->actions);
        return ledger_error_oom(err);
    }
    return LEDGER_OK;
}

int rule_load(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RULE_ONE, err);
    int rc, mine = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = NULL;
    if (rc == SQLITE_ROW && (mine = sqlite3_column_int64(st, 1) == me)
        && (*out = rule_json(st)) == NULL) {
        db_stmt_done(st);
        return ledger_error_oom(err);
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such rule");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "rule");
    return mine ? LEDGER_OK : ledger_error_set(err, 403, "forbidden", NULL, "the rule is another user's");
}

static int rule_write(ledger_db *db, int64_t me, int64_t id, const struct rule_input *in,
                      int64_t *out_id, ledger_error *err)
{
    if (db_exec(db, err, "rule write", id ? SQL_RULE_UPDATE : SQL_RULE_INSERT,
                DB_INT(id ? id : me), DB_TEXT(in->name), DB_TEXT(in->match),
                DB_TEXT(in->conditions), DB_TEXT(in->actions), DB_INT(in->enabled),
                DB_INT(in->manual_only)))
        return LEDGER_ERR;
    *out_id = id ? id : sqlite3_last_insert_rowid(db->sql);
    return LEDGER_OK;
}

int ledger_rule_create(ledger_db *db, int64_t me, const cJSON *body, cJSON **out, ledger_error *err)
{
    struct rule_input in;
    int64_t id;
    int rc;

    if (rule_read(db, me, body, NULL, &in, err))
        return LEDGER_ERR;
    rc = rule_write(db, me, 0, &in, &id, err) || rule_load(db, me, id, out, err);
    free(in.conditions);
    free(in.actions);
    return rc ? LEDGER_ERR : LEDGER_OK;
}

int ledger_rule_update(ledger_db *db, int64_t me, int64_t id, const cJSON *body, cJSON **out,
                       ledger_error *err)
{
    struct rule_input in;
    cJSON *cur = NULL;
    int64_t same;
    int rc;

    if (rule_load(db, me, id, &cur, err))
        return LEDGER_ERR;
    rc = rule_read(db, me, body, cur, &in, err);
    if (rc == LEDGER_OK) {
        rc = rule_write(db, me, id, &in, &same, err) || rule_load(db, me, id, out, err);
        free(in.conditions);
        free(in.actions);
    }
    cJSON_Delete(cur);
    return rc ? LEDGER_ERR : LEDGER_OK;
}

int ledger_rule_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    return rule_load(db, me, id, out, err);
}

int ledger_rule_list(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RULE_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, rule_json, out, err);
}

int ledger_rule_delete(ledger_db *db, int64_t me, int64_t id, ledger_error *err)
{
    cJSON *cur = NULL;

    if (rule_load(db, me, id, &cur, err))
        return LEDGER_ERR;
    cJSON_Delete(cur);
    /* Its runs stay: they carry the rule's name and can still be reverted. */
    return db_exec(db, err, "rule delete", SQL_RULE_DELETE, DB_INT(id));
}
