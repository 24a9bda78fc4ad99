/* The rules engine's parts, private to libledger: the rules (rule.c), their
 * conditions (rule_match.c, rule_sql.c), their actions (rule_act.c), their
 * runs (rule_run.c) and the runs' record (rule_revert.c). */
#ifndef LEDGER_RULE_H
#define LEDGER_RULE_H

#include "db.h"

/* In the order of rule_match.c's name tables. */
enum rule_field {
    FIELD_DESCRIPTION, FIELD_MERCHANT, FIELD_MERCHANT_NORM, FIELD_CATEGORY, FIELD_AMOUNT,
    FIELD_TYPE, FIELD_METHOD, FIELD_BANK, FIELD_STATEMENT_TYPE, FIELD_DATE, FIELD_TAG,
    FIELD_COUNT
};
enum rule_op {
    OP_EQ, OP_NE, OP_CONTAINS, OP_NOT_CONTAINS, OP_STARTS, OP_ENDS, OP_MATCHES, OP_IN,
    OP_GT, OP_GTE, OP_LT, OP_LTE, OP_BETWEEN, OP_EMPTY
};

/* The names of the fields and operators, in the order of the enums above
 * (NULL-terminated), and the index of s among names (-1 for none). */
extern const char *const rule_field_names[];
extern const char *const rule_op_names[];
int rule_name_index(const char *const *names, const char *s);

/* A growing SQL text. */
struct sqlbuf {
    char *text;
    size_t len, cap;
};
int sqlbuf_put(struct sqlbuf *b, const char *s);

/* Checks conditions as saved: 400 naming conditions[i]. */
int rule_conditions_check(const cJSON *conds, ledger_error *err);
/* Appends checked conditions as one SQL condition on transactions t and
 * statements s, all (any = 0) or any (any = 1) of them; each '?' takes the
 * next item of binds, and ?1 is the caller. */
int rule_conditions_sql(const cJSON *conds, int any, struct sqlbuf *b, cJSON *binds,
                        ledger_error *err);
/* Binds binds to st from parameter number first on; returns the next. */
int rule_bind(ledger_db *db, sqlite3_stmt *st, int first, const cJSON *binds);

/* The most rows one run changes (apply, a selection, and so its revert):
 * a run holds the write lock while it snapshots and acts on every row. */
#define RULE_RUN_ROWS_MAX 100000
/* The longest rule name, in bytes. */
#define RULE_NAME_MAX 200
/* A rule's row, as rule_json reads it. */
#define RULE_COLUMNS \
    "SELECT id, owner_id, name, match_mode, conditions, actions, enabled, manual_only," \
    " created_at, updated_at FROM rules"
/* The rule of a RULE_COLUMNS row, or NULL when memory ran out: never one
 * with a part left out, which a run would take as it is (a rule read
 * without its conditions would match every row). */
cJSON *rule_json(sqlite3_stmt *st);
/* The caller's rule id as rule_json gives it: 404 when there is none, 403
 * when it is another user's.  The caller frees *out with cJSON_Delete. */
int rule_load(ledger_db *db, int64_t me, int64_t id, cJSON **out, ledger_error *err);
/* Checks actions as saved, against what exists now: 400 naming actions[i]. */
int rule_actions_check(ledger_db *db, int64_t me, const cJSON *actions, ledger_error *err);
/* The caller's run id (*reverted, when not NULL, says whether it is):
 * 404 when there is none, 403 when it is another user's. */
int rule_run_get(ledger_db *db, int64_t me, int64_t id, cJSON **out, int *reverted,
                 ledger_error *err);

/* One rule, ready to act (rule_act.c): its checked actions and completed
 * split. */
struct prepared {
    int64_t id;
    char name[RULE_NAME_MAX + 1];
    int any;
    cJSON *rule;               /* owned */
    char *shares;              /* apply_split's completed shares as JSON, or NULL */
    int shares_rows;           /* an action (apply_split, set_trip) shows rows to others */
};
/* Makes rule (which p then owns) ready to act: its actions are checked
 * again, as a tag or trip may be gone since it was saved, a 409 naming
 * the rule.  On failure the caller still owns rule. */
int rule_prepare(ledger_db *db, int64_t me, cJSON *rule, struct prepared *p, ledger_error *err);
void rule_prepared_free(struct prepared *p);
/* The ids of the rows a run's actions changed, repeats and all. */
struct changed {
    int64_t *ids;
    size_t n, cap;
};
/* Adds the id in st's first column to the struct changed ctx (a
 * db_row_fn: gathers a statement's ids). */
int rule_ids_add(void *ctx, sqlite3_stmt *st);
/* How many distinct rows c holds (c is sorted by it). */
int64_t rule_changed_count(struct changed *c);
/* Puts the matched rows ids[0..n) (a run of them in id order) into
 * temp.rule_ids for the snapshot and the actions. */
int rule_chunk_fill(ledger_db *db, const int64_t *ids, size_t n, ledger_error *err);
/* The same for rows that are no range of the matches (a job's chunk,
 * whose shared rows come last; a revert's), one by one. */
int rule_chunk_fill_list(ledger_db *db, const int64_t *ids, size_t n, ledger_error *err);
/* Marks run_id reverted (its rows put back). */
int rule_run_reverted(ledger_db *db, int64_t run_id, ledger_error *err);
/* Snapshots every row of temp.rule_ids into run_id's rule_run_rows (as a
 * rule run does before it acts; suggest_apply.c's runs too). */
int rule_run_snapshot(ledger_db *db, int64_t run_id, ledger_error *err);
/* p's actions over every row of temp.rule_ids (ids[0..n)); the ids of the
 * rows they change go to *changed (when not NULL). */
int rule_act(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids, size_t n,
             struct changed *changed, ledger_error *err);

/* ---- runs (rule_run.c) ------------------------------------------------------------ */
struct job;
/* Row t is one another user sees: shared by a split or in a trip.  A job
 * changes such rows in its last transaction (job.c). */
#define SQL_SHARED_ROW(t) "(" t ".has_split OR " t ".override_trip_id IS NOT NULL)"
/* The order of rule_match_ids' ids: by id; a job's, the rows shared with
 * someone (by a split or a trip) last; or those rows alone, named by the
 * selection (which then adds to the conditions, not stands for them). */
enum match_order { MATCH_BY_ID, MATCH_SHARED_LAST, MATCH_SHARED_ONLY };
/* The ids of the caller's rows the rule matches, in id order and in
 * temp.rule_matches: by its conditions (one query built by rule_sql.c) or,
 * for the quick action, a selection (a JSON array) with the conditions
 * ignored; apply-all (skip_seen) leaves out rows a still-applied run of
 * the rule has seen. */
int rule_match_ids(ledger_db *db, int64_t me, const struct prepared *p, const char *selection,
                   int skip_seen, enum match_order order, int64_t **ids, size_t *n,
                   ledger_error *err);
/* How many of the rows in temp.rule_matches are shared with someone. */
int rule_matches_shared(ledger_db *db, int64_t *n, ledger_error *err);
/* 400 (status given: apply-all passes over such a rule with a 409) when
 * a run would match more than RULE_RUN_ROWS_MAX rows. */
int rule_run_size(size_t n, int status, ledger_error *err);
/* Writes run_id of p over the rows ids[0..n), which nobody else sees,
 * JOB_CHUNK_ROWS to a transaction of job's: each chunk snapshotted and
 * acted on (its changes into c), committed, and the next write
 * transaction begun, the job's last after the last chunk when last is
 * set (job_yield). */
int rule_run_chunks(ledger_db *db, int64_t me, const struct prepared *p, int64_t run_id,
                    const int64_t *ids, size_t n, struct job *job, int last, struct changed *c,
                    ledger_error *err);
/* A run's record, of p over n matched rows (source: "conditions" or
 * "selection"), its id in *run_id. */
int rule_run_begin(ledger_db *db, int64_t me, const struct prepared *p, const char *source,
                   size_t n, int64_t *run_id, ledger_error *err);
/* Finishes run_id over the rows ids[0..n) it matched, of which c changed:
 * the others marked unchanged, its counts written. */
int rule_run_end(ledger_db *db, int64_t run_id, const int64_t *ids, size_t n, struct changed *c,
                 ledger_error *err);
/* Applies p to the rows ids[0..n) (they matched): one run record with a
 * snapshot of every matched row; transactions counts those the actions
 * changed.  *out is the run (rule_run_get). */
int rule_run_write(ledger_db *db, int64_t me, const struct prepared *p, const int64_t *ids,
                   size_t n, const char *source, struct job *job, cJSON **out,
                   ledger_error *err);

#endif
