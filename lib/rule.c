/*
 * Rules: saved conditions and actions that tag, categorise, rename, split
 * and assign the caller's rows in bulk, and the runs that apply them.
 *
 * Every run is recorded (rule_runs) with the rule's name copied, so the
 * record outlives edits and deletion of the rule, and with a snapshot of
 * each row it changed (rule_run_rows), so it can be reverted: reverting
 * puts those rows back as they were before the run, which discards later
 * edits to them, as the specification says.  Rules act only on rows the
 * caller owns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define NAME_MAX_LEN 200
#define ACTIONS_MAX 20

static const char SQL_RULE_INSERT[] =
    "INSERT INTO rules (owner_id, name, match_mode, conditions, actions, enabled, manual_only)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)";
static const char SQL_RULE_UPDATE[] =
    "UPDATE rules SET name = ?2, match_mode = ?3, conditions = ?4, actions = ?5, enabled = ?6,"
    " manual_only = ?7, updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1";
#define RULE_COLUMNS \
    "SELECT id, owner_id, name, match_mode, conditions, actions, enabled, manual_only," \
    " created_at, updated_at FROM rules"
static const char SQL_RULE_ONE[] = RULE_COLUMNS " WHERE id = ?";
static const char SQL_RULE_LIST[] = RULE_COLUMNS " WHERE owner_id = ? ORDER BY id";
static const char SQL_RULE_AUTO[] =
    RULE_COLUMNS " WHERE owner_id = ? AND enabled AND NOT manual_only ORDER BY id";
static const char SQL_RULE_DELETE[] = "DELETE FROM rules WHERE id = ?";
static const char SQL_RUN_INSERT[] =
    "INSERT INTO rule_runs (owner_id, rule_id, rule_name, source, matches) VALUES (?, ?, ?, ?, ?)";
static const char SQL_RUN_FINISH[] = "UPDATE rule_runs SET transactions = ? WHERE id = ?";
static const char SQL_RUN_ROW[] =
    "INSERT INTO rule_run_rows (run_id, transaction_id, snapshot) VALUES (?, ?, ?)";
#define RUN_COLUMNS \
    "SELECT id, rule_id, rule_name, source, matches, transactions, created_at, reverted_at," \
    " owner_id FROM rule_runs"
static const char SQL_RUN_ONE[] = RUN_COLUMNS " WHERE id = ?";
static const char SQL_RUN_LIST[] = RUN_COLUMNS " WHERE owner_id = ? ORDER BY id DESC";
static const char SQL_RUN_ROWS[] =
    "SELECT transaction_id, snapshot FROM rule_run_rows WHERE run_id = ? ORDER BY transaction_id";
static const char SQL_RUN_REVERTED[] =
    "UPDATE rule_runs SET reverted_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?";
/* Rows a still-applied run of the rule matched: apply-all leaves them be. */
static const char SQL_TOUCHED[] =
    "SELECT rr.transaction_id FROM rule_run_rows rr JOIN rule_runs r ON r.id = rr.run_id"
    " WHERE r.owner_id = ?1 AND r.rule_id = ?2 AND r.reverted_at IS NULL";
/* The caller's rows as conditions see them; ?2 (a JSON array) narrows to
 * a selection. */
static const char SQL_ROWS[] =
    "SELECT t.id, t.amount, t.date, t.description, t.merchant,"
    "       COALESCE(t.override_merchant_normalized, t.merchant_normalized), t.eff_category,"
    "       t.transaction_type, t.payment_method,"
    "       CASE WHEN t.statement_id IS NULL THEN 'Manual' ELSE s.bank_name END, s.statement_type,"
    "       (SELECT group_concat(g.name, char(31)) FROM transaction_tags tt"
    "          JOIN tags g ON g.id = tt.tag_id WHERE tt.transaction_id = t.id AND g.owner_id = ?1)"
    "  FROM transactions t LEFT JOIN statements s ON s.id = t.statement_id"
    " WHERE t.owner_id = ?1 AND t.reconciled_with_id IS NULL"
    "   AND (?2 IS NULL OR t.id IN (SELECT value FROM json_each(?2)))"
    " ORDER BY t.id";
static const char SQL_SET_CATEGORY[] = "UPDATE transactions SET override_category = ?2 WHERE id = ?1";
static const char SQL_SET_MERCHANT[] =
    "UPDATE transactions SET override_merchant_normalized = ?2 WHERE id = ?1";
static const char SQL_SET_TRIP[] = "UPDATE transactions SET override_trip_id = ?2 WHERE id = ?1";
static const char SQL_ADD_TAG[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id) VALUES (?1, ?2)";
static const char SQL_EFF_MERCHANT[] = "SELECT eff_merchant FROM transactions WHERE id = ?";

/* ---- rules as JSON, checked -------------------------------------------------------- */

static cJSON *rule_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject(), *c = NULL, *a = NULL;
    const char *ct = (const char *)sqlite3_column_text(st, 4);
    const char *at = (const char *)sqlite3_column_text(st, 5);
    ledger_error e;

    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    json_text_col(o, "name", st, 2);
    cJSON_AddBoolToObject(o, "enabled", sqlite3_column_int(st, 6));
    cJSON_AddBoolToObject(o, "manual_only", sqlite3_column_int(st, 7));
    json_text_col(o, "match", st, 3);
    ledger_json_parse(ct, strlen(ct), &c, &e);
    ledger_json_parse(at, strlen(at), &a, &e);
    cJSON_AddItemToObject(o, "conditions", c ? c : cJSON_CreateArray());
    cJSON_AddItemToObject(o, "actions", a ? a : cJSON_CreateArray());
    json_text_col(o, "created_at", st, 8);
    json_text_col(o, "updated_at", st, 9);
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

/* Checks actions as saved, against what exists now. */
static int actions_check(ledger_db *db, int64_t me, const cJSON *actions, ledger_error *err)
{
    static const char *const types[] = {
        "add_tag", "set_category", "set_merchant", "apply_split", "set_trip", NULL
    };
    const cJSON *a;
    size_t i = 0;

    if (!cJSON_IsArray(actions) || cJSON_GetArraySize(actions) < 1
        || cJSON_GetArraySize(actions) > ACTIONS_MAX)
        return ledger_error_set(err, 400, "invalid_field", "actions",
                                "actions must be an array of 1 to %d actions", ACTIONS_MAX);
    cJSON_ArrayForEach(a, actions) {
        const char *type, *text;
        char slug[LEDGER_CATEGORY_MAX];
        int64_t id;

        if (!cJSON_IsObject(a)) {
            ledger_error_set(err, 400, "invalid_field", "", "each action must be an object");
            return action_error(err, i);
        }
        if (field_enum(a, "type", types, 0, &type, NULL, err))
            return action_error(err, i);
        if (type == NULL) {
            ledger_error_set(err, 400, "invalid_field", "type", "type is required");
            return action_error(err, i);
        }
        if (strcmp(type, "add_tag") == 0) {
            if (field_id(a, "tag_id", 1, 0, &id, NULL, err))
                return action_error(err, i);
            /* Another user's tag or a missing one is a bad field here. */
            if (tag_check_owner(db, me, id, err)) {
                if (err->status < 500)
                    error_as_field(err, "tag_id");
                return action_error(err, i);
            }
        } else if (strcmp(type, "set_category") == 0) {
            if (field_text(a, "category", 1, 0, 100, &text, NULL, err))
                return action_error(err, i);
            if (ledger_category_fold(text, slug) == LEDGER_CATEGORY_EMPTY) {
                ledger_error_set(err, 400, "invalid_field", "category",
                                 "category must have at least one letter or digit");
                return action_error(err, i);
            }
        } else if (strcmp(type, "set_merchant") == 0) {
            if (field_text(a, "merchant_normalized", 1, 0, 200, &text, NULL, err))
                return action_error(err, i);
        } else if (strcmp(type, "set_trip") == 0) {
            if (field_id(a, "trip_id", 1, 0, &id, NULL, err) || trip_check_member(db, me, id, err))
                return action_error(err, i);
        } else {
            struct split_set ss;

            if (split_parse(db, cJSON_GetObjectItemCaseSensitive(a, "shares"), "shares", me, &ss, err))
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
        return ledger_error_set(err, 400, "invalid_field", k, "%s must be true or false", k);
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
    in->enabled = cur ? cJSON_IsTrue(cJSON_GetObjectItem(cur, "enabled")) : 1;
    in->manual_only = cur ? cJSON_IsTrue(cJSON_GetObjectItem(cur, "manual_only")) : 0;
    if (field_require_object(body, err)
        || field_text(body, "name", cur == NULL, 0, NAME_MAX_LEN, &name, NULL, err)
        || field_enum(body, "match", modes, 0, &match, NULL, err)
        || read_bool(body, "enabled", &in->enabled, err)
        || read_bool(body, "manual_only", &in->manual_only, err))
        return LEDGER_ERR;
    in->name = name ? name : cJSON_GetObjectItem(cur, "name")->valuestring;
    in->match = match ? match : cur ? cJSON_GetObjectItem(cur, "match")->valuestring : "all";
    if (conds == NULL && cur)
        conds = cJSON_GetObjectItem(cur, "conditions");
    if (acts == NULL && cur)
        acts = cJSON_GetObjectItem(cur, "actions");
    if (conds == NULL)
        return ledger_error_set(err, 400, "invalid_field", "conditions", "conditions is required");
    if (rule_conditions_check(conds, err) || actions_check(db, me, acts, err))
        return LEDGER_ERR;
    /* A rule that runs on its own must say what it matches; only a quick
     * action (applied to a selection) may have no conditions. */
    if (!in->manual_only && cJSON_GetArraySize(conds) == 0)
        return ledger_error_set(err, 400, "invalid_field", "conditions",
                                "a rule that is not manual_only needs at least one condition");
    in->conditions = cJSON_PrintUnformatted(conds);
    in->actions = cJSON_PrintUnformatted(acts);
    if (in->conditions == NULL || in->actions == NULL) {
        free(in->conditions);
        free(in->actions);
        return ledger_error_set(err, 500, "internal", NULL, "out of memory");
    }
    return LEDGER_OK;
}

static int rule_load(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RULE_ONE, err);
    int rc, mine = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = NULL;
    if (rc == SQLITE_ROW && (mine = sqlite3_column_int64(st, 1) == me))
        *out = rule_json(st);
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
    sqlite3_stmt *st = db_stmt(db, id ? SQL_RULE_UPDATE : SQL_RULE_INSERT, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id ? id : me);
    db_bind_text(st, 2, in->name);
    db_bind_text(st, 3, in->match);
    db_bind_text(st, 4, in->conditions);
    db_bind_text(st, 5, in->actions);
    sqlite3_bind_int(st, 6, in->enabled);
    sqlite3_bind_int(st, 7, in->manual_only);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "rule write");
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
    sqlite3_stmt *st;
    int rc;

    if (rule_load(db, me, id, &cur, err))
        return LEDGER_ERR;
    cJSON_Delete(cur);
    /* Its runs stay: they carry the rule's name and can still be reverted. */
    if ((st = db_stmt(db, SQL_RULE_DELETE, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "rule delete");
}

/* ---- rows -------------------------------------------------------------------------------- */

struct row_set {
    struct rule_row *v;
    size_t n;
};

static void rows_free(struct row_set *rs)
{
    size_t i;
    int k;

    for (i = 0; i < rs->n; i++) {
        for (k = 0; k < FIELD_COUNT; k++)
            free((char *)rs->v[i].text[k]);
        free((char *)rs->v[i].tags);
    }
    free(rs->v);
    rs->v = NULL;
    rs->n = 0;
}

static char *dup_col(sqlite3_stmt *st, int col)
{
    const char *s = (const char *)sqlite3_column_text(st, col);

    return s ? strdup(s) : NULL;
}

/* The caller's rows, all or (selection, a JSON array of ids) some. */
static int rows_load(ledger_db *db, int64_t me, const char *selection, struct row_set *rs,
                     ledger_error *err)
{
    static const int cols[] = { FIELD_DESCRIPTION, FIELD_MERCHANT, FIELD_MERCHANT_NORM,
                                FIELD_CATEGORY, FIELD_TYPE, FIELD_METHOD, FIELD_BANK,
                                FIELD_STATEMENT_TYPE };
    sqlite3_stmt *st = db_stmt(db, SQL_ROWS, err);
    size_t cap = 0, k;
    int rc;

    memset(rs, 0, sizeof *rs);
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    db_bind_text(st, 2, selection);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct rule_row *r;

        if (rs->n == cap) {
            void *nv = realloc(rs->v, (cap = cap ? 2 * cap : 256) * sizeof *rs->v);

            if (nv == NULL)
                break;
            rs->v = nv;
        }
        r = &rs->v[rs->n++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->amount = sqlite3_column_int64(st, 1);
        snprintf(r->date, sizeof r->date, "%s", (const char *)sqlite3_column_text(st, 2));
        for (k = 0; k < sizeof cols / sizeof cols[0]; k++)
            r->text[cols[k]] = dup_col(st, 3 + (int)k);
        r->tags = dup_col(st, 11);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE) {
        rows_free(rs);
        return rc == SQLITE_ROW ? ledger_error_set(err, 500, "internal", NULL, "out of memory")
                                : db_error(db, err, "rule rows");
    }
    return LEDGER_OK;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* Ids of rows a still-applied run of rule_id changed, sorted. */
static int touched_load(ledger_db *db, int64_t me, int64_t rule_id, int64_t **ids, size_t *n,
                        ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_TOUCHED, err);
    size_t cap = 0;
    int rc;

    *ids = NULL;
    *n = 0;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, rule_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            void *nv = realloc(*ids, (cap = cap ? 2 * cap : 64) * sizeof **ids);

            if (nv == NULL)
                break;
            *ids = nv;
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "rule runs");
    if (*n)
        qsort(*ids, *n, sizeof **ids, cmp_id);
    return LEDGER_OK;
}

/* ---- runs ----------------------------------------------------------------------------------- */

/* One rule, ready to act: its compiled conditions and checked actions. */
struct prepared {
    int64_t id;
    char name[NAME_MAX_LEN + 1];
    int any, manual_only;
    cJSON *rule;               /* owned */
    struct rule_cond *conds;
    size_t nconds;
    struct split_set split;    /* apply_split's shares, completed */
};

static void prepared_free(struct prepared *p)
{
    rule_conds_free(p->conds, p->nconds);
    split_set_free(&p->split);
    cJSON_Delete(p->rule);
    memset(p, 0, sizeof *p);
}

/* The actions are checked again: a tag or trip may be gone since the rule
 * was saved, and a run must not half-apply. */
static int prepare(ledger_db *db, int64_t me, cJSON *rule, struct prepared *p, ledger_error *err)
{
    const cJSON *a;

    memset(p, 0, sizeof *p);
    p->rule = rule;
    p->id = (int64_t)cJSON_GetObjectItem(rule, "id")->valuedouble;
    snprintf(p->name, sizeof p->name, "%s", cJSON_GetObjectItem(rule, "name")->valuestring);
    p->any = strcmp(cJSON_GetObjectItem(rule, "match")->valuestring, "any") == 0;
    p->manual_only = cJSON_IsTrue(cJSON_GetObjectItem(rule, "manual_only"));
    if (actions_check(db, me, cJSON_GetObjectItem(rule, "actions"), err)) {
        /* Valid when saved: what it names has changed since.  Say which
         * rule, as apply-all runs many. */
        if (err->status == 400) {
            char why[sizeof err->message], field[sizeof err->field];

            snprintf(why, sizeof why, "%s", err->message);
            snprintf(field, sizeof field, "%s", err->field);
            ledger_error_set(err, 409, "conflict", field, "rule %lld (%s) can no longer run: %s",
                             (long long)p->id, p->name, why);
        }
        goto fail;
    }
    if (rule_conds_compile(cJSON_GetObjectItem(rule, "conditions"), &p->conds, &p->nconds, err))
        goto fail;
    cJSON_ArrayForEach(a, cJSON_GetObjectItem(rule, "actions"))
        if (strcmp(cJSON_GetObjectItem(a, "type")->valuestring, "apply_split") == 0
            && split_parse(db, cJSON_GetObjectItem(a, "shares"), "shares", me, &p->split, err))
            goto fail;
    return LEDGER_OK;
fail:
    p->rule = NULL;  /* the caller still owns it */
    prepared_free(p);
    return LEDGER_ERR;
}

static int exec_id_text(ledger_db *db, const char *sql, int64_t id, const char *text, int64_t num,
                        ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, sql, err);
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    if (text)
        sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(st, 2, num);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    return rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "rule action");
}

static int act_on(ledger_db *db, int64_t me, const struct prepared *p, int64_t id, ledger_error *err)
{
    const cJSON *a;

    cJSON_ArrayForEach(a, cJSON_GetObjectItem(p->rule, "actions")) {
        const char *type = cJSON_GetObjectItem(a, "type")->valuestring;
        int rc = LEDGER_OK;

        if (strcmp(type, "add_tag") == 0) {
            rc = exec_id_text(db, SQL_ADD_TAG, id, NULL,
                              (int64_t)cJSON_GetObjectItem(a, "tag_id")->valuedouble, err);
        } else if (strcmp(type, "set_category") == 0) {
            char folded[LEDGER_CATEGORY_MAX], merchant[512] = "";
            sqlite3_stmt *st = db_stmt(db, SQL_EFF_MERCHANT, err);

            if (st == NULL)
                return LEDGER_ERR;
            sqlite3_bind_int64(st, 1, id);
            if (sqlite3_step(st) == SQLITE_ROW)
                snprintf(merchant, sizeof merchant, "%s", (const char *)sqlite3_column_text(st, 0));
            db_stmt_done(st);
            rc = category_resolve(db, me, merchant, cJSON_GetObjectItem(a, "category")->valuestring,
                                  folded, err)
                 || exec_id_text(db, SQL_SET_CATEGORY, id, folded, 0, err);
        } else if (strcmp(type, "set_merchant") == 0) {
            rc = exec_id_text(db, SQL_SET_MERCHANT, id,
                              cJSON_GetObjectItem(a, "merchant_normalized")->valuestring, 0, err);
        } else if (strcmp(type, "set_trip") == 0) {
            rc = exec_id_text(db, SQL_SET_TRIP, id, NULL,
                              (int64_t)cJSON_GetObjectItem(a, "trip_id")->valuedouble, err);
        } else {
            /* Upsert the shares, remove only participants no longer named
             * (settled flags survive), and complete for the owner. */
            rc = split_write(db, id, &p->split, err);
        }
        if (rc)
            return LEDGER_ERR;
    }
    return LEDGER_OK;
}

static cJSON *run_json(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
    /* The apply answers name it run_id (API.md 6); both are the same. */
    cJSON_AddNumberToObject(o, "run_id", (double)sqlite3_column_int64(st, 0));
    json_id_col(o, "rule_id", st, 1);
    json_text_col(o, "rule_name", st, 2);
    cJSON_AddBoolToObject(o, "rule_unknown", sqlite3_column_type(st, 2) == SQLITE_NULL);
    json_text_col(o, "source", st, 3);
    cJSON_AddNumberToObject(o, "matches", (double)sqlite3_column_int64(st, 4));
    cJSON_AddNumberToObject(o, "transactions", (double)sqlite3_column_int64(st, 5));
    json_text_col(o, "created_at", st, 6);
    json_text_col(o, "reverted_at", st, 7);
    return o;
}

static int run_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, int *reverted,
                   ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RUN_ONE, err);
    int rc, mine = 0;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    *out = NULL;
    if (rc == SQLITE_ROW && (mine = sqlite3_column_int64(st, 8) == me)) {
        *out = run_json(st);
        if (reverted)
            *reverted = sqlite3_column_type(st, 7) != SQLITE_NULL;
    }
    db_stmt_done(st);
    if (rc == SQLITE_DONE)
        return ledger_error_set(err, 404, "not_found", NULL, "no such run");
    if (rc != SQLITE_ROW)
        return db_error(db, err, "run");
    return mine ? LEDGER_OK : ledger_error_set(err, 403, "forbidden", NULL, "the run is another user's");
}

/* Applies p to the rows ids[0..n) (they matched): one run record, and a
 * snapshot of every matched row, changed or not, so apply-all knows the
 * rule has seen it (restoring an unchanged row's snapshot changes nothing);
 * transactions counts the rows the actions changed. */
static int run_rule(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids,
                    size_t n, const char *source, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RUN_INSERT, err);
    int64_t run_id, changed = 0;
    size_t i;
    int rc;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    sqlite3_bind_int64(st, 2, p->id);
    db_bind_text(st, 3, p->name);
    db_bind_text(st, 4, source);
    sqlite3_bind_int64(st, 5, (int64_t)n);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "run");
    run_id = sqlite3_last_insert_rowid(db->sql);
    for (i = 0; i < n; i++) {
        char *before = NULL, *after = NULL;

        rc = row_snapshot(db, ids[i], &before, err) || act_on(db, me, p, ids[i], err)
             || row_snapshot(db, ids[i], &after, err);
        if (rc == LEDGER_OK) {
            changed += strcmp(before, after) != 0;
            if ((st = db_stmt(db, SQL_RUN_ROW, err)) == NULL) {
                rc = LEDGER_ERR;
            } else {
                sqlite3_bind_int64(st, 1, run_id);
                sqlite3_bind_int64(st, 2, ids[i]);
                db_bind_text(st, 3, before);
                if (sqlite3_step(st) != SQLITE_DONE)
                    rc = db_error(db, err, "run row");
                db_stmt_done(st);
            }
        }
        free(before);
        free(after);
        if (rc)
            return LEDGER_ERR;
    }
    if ((st = db_stmt(db, SQL_RUN_FINISH, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, changed);
    sqlite3_bind_int64(st, 2, run_id);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "run");
    return run_get(db, me, run_id, out, NULL, err);
}

/* The ids among rs that p matches, leaving out skip (sorted) if given. */
static int64_t *matching(const struct prepared *p, const struct row_set *rs, const int64_t *skip,
                         size_t nskip, int conditions, size_t *n)
{
    int64_t *ids = malloc((rs->n ? rs->n : 1) * sizeof *ids);
    size_t i;

    *n = 0;
    for (i = 0; ids && i < rs->n; i++) {
        if (skip && bsearch(&rs->v[i].id, skip, nskip, sizeof *skip, cmp_id))
            continue;
        if (!conditions || rule_row_matches(p->conds, p->nconds, p->any, &rs->v[i]))
            ids[(*n)++] = rs->v[i].id;
    }
    return ids;
}

int ledger_rule_apply_all(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RULE_AUTO, err);
    struct row_set rs = { NULL, 0 };
    cJSON *rules = NULL, *rule, *doc = NULL, *runs;
    int64_t total_matches = 0, total_changed = 0;
    int rc = LEDGER_ERR;

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    if (db_list(db, st, rule_json, &rules, err))
        return LEDGER_ERR;
    doc = cJSON_CreateObject();
    runs = cJSON_AddArrayToObject(doc, "runs");
    cJSON_ArrayForEach(rule, cJSON_GetObjectItem(rules, "items")) {
        struct prepared p;
        int64_t *skip = NULL, *ids;
        size_t nskip = 0, n;
        cJSON *run = NULL;

        /* Rows are read again for each rule: the rules before it may have
         * changed them, and a rule sees the rows as they now are. */
        rows_free(&rs);
        if (rows_load(db, me, NULL, &rs, err))
            goto out;
        cJSON *copy = cJSON_Duplicate(rule, 1);

        if (prepare(db, me, copy, &p, err)) {
            cJSON_Delete(copy);
            goto out;
        }
        if (touched_load(db, me, p.id, &skip, &nskip, err)) {
            prepared_free(&p);
            goto out;
        }
        ids = matching(&p, &rs, skip, nskip, 1, &n);
        free(skip);
        if (n && run_rule(db, me, &p, ids, n, "conditions", &run, err)) {
            free(ids);
            prepared_free(&p);
            goto out;
        }
        free(ids);
        prepared_free(&p);
        if (run) {
            total_matches += (int64_t)cJSON_GetObjectItem(run, "matches")->valuedouble;
            total_changed += (int64_t)cJSON_GetObjectItem(run, "transactions")->valuedouble;
            cJSON_AddItemToArray(runs, run);
        }
    }
    cJSON_AddNumberToObject(doc, "matches", (double)total_matches);
    cJSON_AddNumberToObject(doc, "transactions", (double)total_changed);
    *out = doc;
    doc = NULL;
    rc = LEDGER_OK;
out:
    rows_free(&rs);
    cJSON_Delete(rules);
    cJSON_Delete(doc);
    return rc;
}

/* One rule: over every matching row (apply), or over a selection with its
 * conditions ignored (the quick action), or as a dry run (preview). */
enum rule_mode { MODE_APPLY, MODE_SELECTION, MODE_PREVIEW };

static cJSON *preview_view(cJSON *row)
{
    static const char *const keys[] = { "category", "merchant_normalized", "trip_id", "tags", "splits" };
    cJSON *o = cJSON_CreateObject();
    size_t i;

    for (i = 0; row && i < sizeof keys / sizeof keys[0]; i++)
        cJSON_AddItemToObject(o, keys[i], cJSON_Duplicate(cJSON_GetObjectItem(row, keys[i]), 1));
    return o;
}

static int rule_one(ledger_db *db, int64_t me, int64_t rule_id, const cJSON *body,
                    enum rule_mode mode, cJSON **out, ledger_error *err)
{
    struct prepared p;
    struct row_set rs = { NULL, 0 };
    cJSON *rule = NULL, *sel = NULL;
    char *sel_text = NULL;
    int64_t *ids = NULL;
    size_t n = 0, i;
    int rc = LEDGER_ERR;

    if (rule_load(db, me, rule_id, &rule, err))
        return LEDGER_ERR;
    if (mode == MODE_SELECTION) {
        if (field_require_object(body, err) || field_id_array(body, "transaction_ids", 5000, &sel, err)
            || access_txn_set(db, me, sel, err))
            goto out;
        sel_text = cJSON_PrintUnformatted(sel);
    } else if (cJSON_IsTrue(cJSON_GetObjectItem(rule, "manual_only")) && mode == MODE_APPLY) {
        ledger_error_set(err, 409, "conflict", NULL,
                         "a manual_only rule runs only on a selection: POST /api/rules/%lld/run",
                         (long long)rule_id);
        goto out;
    }
    if (prepare(db, me, rule, &p, err))
        goto out;
    rule = NULL;  /* p owns it now */
    if (rows_load(db, me, sel_text, &rs, err))
        goto done;
    /* Rules act on rows the caller owns: a selection naming a row only
     * shared with them is refused. */
    if (sel && rs.n != (size_t)cJSON_GetArraySize(sel)) {
        ledger_error_set(err, 403, "forbidden", "transaction_ids",
                         "rules act only on your own transactions");
        goto done;
    }
    ids = matching(&p, &rs, NULL, 0, mode != MODE_SELECTION, &n);
    if (mode == MODE_PREVIEW) {
        cJSON *doc = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(doc, "items");

        /* The actions run for real inside a savepoint, are read back, and
         * are rolled back: the preview shows exactly what a run would do. */
        sqlite3_exec(db->sql, "SAVEPOINT preview", NULL, NULL, NULL);
        for (i = 0; i < n; i++) {
            cJSON *before = NULL, *after = NULL, *o;

            if (txn_get(db, me, ids[i], &before, err) || act_on(db, me, &p, ids[i], err)
                || txn_get(db, me, ids[i], &after, err)) {
                cJSON_Delete(before);
                cJSON_Delete(doc);
                sqlite3_exec(db->sql, "ROLLBACK TO preview; RELEASE preview", NULL, NULL, NULL);
                goto done;
            }
            o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "transaction_id", (double)ids[i]);
            cJSON_AddItemToObject(o, "before", preview_view(before));
            cJSON_AddItemToObject(o, "after", preview_view(after));
            cJSON_AddItemToArray(items, o);
            cJSON_Delete(before);
            cJSON_Delete(after);
        }
        sqlite3_exec(db->sql, "ROLLBACK TO preview; RELEASE preview", NULL, NULL, NULL);
        cJSON_AddNumberToObject(doc, "matches", (double)n);
        *out = doc;
        rc = LEDGER_OK;
    } else {
        rc = run_rule(db, me, &p, ids, n, mode == MODE_SELECTION ? "selection" : "conditions", out, err);
    }
done:
    prepared_free(&p);
out:
    free(ids);
    free(sel_text);
    rows_free(&rs);
    cJSON_Delete(sel);
    cJSON_Delete(rule);
    return rc;
}

int ledger_rule_apply(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err)
{
    return rule_one(db, me, rule_id, NULL, MODE_APPLY, out, err);
}

int ledger_rule_run_selection(ledger_db *db, int64_t me, int64_t rule_id, const cJSON *body,
                              cJSON **out, ledger_error *err)
{
    return rule_one(db, me, rule_id, body, MODE_SELECTION, out, err);
}

int ledger_rule_preview(ledger_db *db, int64_t me, int64_t rule_id, cJSON **out, ledger_error *err)
{
    return rule_one(db, me, rule_id, NULL, MODE_PREVIEW, out, err);
}

int ledger_rule_runs(ledger_db *db, int64_t me, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_RUN_LIST, err);

    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, me);
    return db_list(db, st, run_json, out, err);
}

int ledger_rule_revert(ledger_db *db, int64_t me, int64_t run_id, cJSON **out, ledger_error *err)
{
    sqlite3_stmt *st;
    cJSON *run = NULL;
    int reverted = 0, rc;
    int64_t *ids = NULL;
    char **snaps = NULL;
    size_t n = 0, cap = 0, i;

    if (run_get(db, me, run_id, &run, &reverted, err))
        return LEDGER_ERR;
    cJSON_Delete(run);
    if (reverted)
        return ledger_error_set(err, 409, "conflict", NULL, "the run was already reverted");
    if ((st = db_stmt(db, SQL_RUN_ROWS, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            void *ni = realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof *ids), *ns;

            if (ni == NULL)
                break;
            ids = ni;
            if ((ns = realloc(snaps, cap * sizeof *snaps)) == NULL)
                break;
            snaps = ns;
        }
        ids[n] = sqlite3_column_int64(st, 0);
        snaps[n++] = strdup((const char *)sqlite3_column_text(st, 1));
    }
    db_stmt_done(st);
    rc = rc == SQLITE_DONE ? LEDGER_OK : db_error(db, err, "revert");
    for (i = 0; rc == LEDGER_OK && i < n; i++)
        rc = row_restore(db, ids[i], snaps[i], err);
    for (i = 0; i < n; i++)
        free(snaps[i]);
    free(snaps);
    free(ids);
    if (rc)
        return LEDGER_ERR;
    if ((st = db_stmt(db, SQL_RUN_REVERTED, err)) == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    rc = sqlite3_step(st);
    db_stmt_done(st);
    if (rc != SQLITE_DONE)
        return db_error(db, err, "revert");
    return run_get(db, me, run_id, out, NULL, err);
}
