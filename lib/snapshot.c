/*
 * A row's user-made state, saved and put back: its overrides, payment
 * method, tags and splits (and, for one row, its transaction type).
 * Reconciliation keeps one to undo a match; a rule run keeps one per row
 * it changes, to revert the run.  Putting a snapshot back restores
 * exactly what was saved, discarding later edits to those fields (as the
 * specification says a revert does); a tag, trip or participant deleted
 * since is left out rather than recreated.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "txn.h"

/* One row's, for a reconciliation, which may also change the row's
 * transaction type (reconcile.c); a rule run's rows never have theirs
 * changed, so their snapshots leave it out.  A snapshot saved before the
 * type was kept (no transaction_type) leaves the type as it is. */
static const char SQL_SNAPSHOT[] =
    "SELECT json_set(" SNAPSHOT_JSON("t") ", '$.transaction_type', t.transaction_type)"
    "  FROM transactions t WHERE t.id = ?1";
static const char SQL_RESTORE_ROW[] =
    "UPDATE transactions SET"
    " transaction_type = COALESCE(json_extract(?2, '$.transaction_type'), transaction_type),"
    " override_category = json_extract(?2, '$.override_category'),"
    " override_merchant_normalized = json_extract(?2, '$.override_merchant_normalized'),"
    " override_share = json_extract(?2, '$.override_share'),"
    " override_trip_id = (SELECT id FROM trips WHERE id = json_extract(?2, '$.override_trip_id')),"
    " payment_method = json_extract(?2, '$.payment_method')"
    " WHERE id = ?1";

/* The same for every row a rule run (?1) changed (rule_run_rows.changed) at once:
 * a column at a time, and only where it differs, so the triggers that
 * keep effective values and the spend summary fire for the rows that
 * really change.  The two overrides write their effective value too
 * (`also`), so transactions_effective_update finds nothing to fix and does
 * not update each row again.  Each statement is made twice: for all of the
 * run's rows (RUN_ALL) and for those of temp.rule_ids only (RUN_CHUNK, a
 * revert run as a job, a chunk at a time: rule_revert.c). */
#define RUN_ALL ""
#define RUN_CHUNK " AND rr.transaction_id IN (SELECT id FROM temp.rule_ids)"
#define RUN_ROWS(scope) "rr.run_id = ?1 AND rr.changed" scope
#define RUN_RESTORE_ALSO(column, value, also, scope) \
    "UPDATE transactions SET " column " = " value also \
    " FROM rule_run_rows rr WHERE " RUN_ROWS(scope) " AND transactions.id = rr.transaction_id" \
    "   AND transactions." column " IS NOT " value
#define RUN_RESTORE(column, value, scope) RUN_RESTORE_ALSO(column, value, "", scope)
#define SNAP_CATEGORY "json_extract(rr.snapshot, '$.override_category')"
#define SNAP_MERCHANT "json_extract(rr.snapshot, '$.override_merchant_normalized')"
#define RUN_RESTORE_CATEGORY(scope) \
    RUN_RESTORE_ALSO("override_category", SNAP_CATEGORY, \
                     ", eff_category = COALESCE(" SNAP_CATEGORY ", transactions.category)", scope)
#define RUN_RESTORE_MERCHANT(scope) \
    RUN_RESTORE_ALSO("override_merchant_normalized", SNAP_MERCHANT, \
                     ", eff_merchant = COALESCE(" SNAP_MERCHANT ", transactions.merchant_normalized," \
                     " transactions.merchant, '')", scope)
/* A merchant run (merchant_name.c) wrote merchant_normalized and keeps its
 * pre-run value in the snapshot; a snapshot without the key (a rule run's)
 * leaves the column as it is.  Before the override's restore, which
 * reads the column for the effective value. */
#define SNAP_BASE_MERCHANT "json_extract(rr.snapshot, '$.merchant_normalized')"
#define RUN_RESTORE_BASE_MERCHANT(scope) \
    "UPDATE transactions SET merchant_normalized = " SNAP_BASE_MERCHANT "," \
    " eff_merchant = COALESCE(transactions.override_merchant_normalized, " SNAP_BASE_MERCHANT "," \
    " transactions.merchant, '')" \
    " FROM rule_run_rows rr WHERE " RUN_ROWS(scope) " AND transactions.id = rr.transaction_id" \
    "   AND json_type(rr.snapshot, '$.merchant_normalized') IS NOT NULL" \
    "   AND transactions.merchant_normalized IS NOT " SNAP_BASE_MERCHANT
#define RUN_RESTORE_SHARE(scope) \
    RUN_RESTORE("override_share", "json_extract(rr.snapshot, '$.override_share')", scope)
#define RUN_RESTORE_TRIP(scope) \
    RUN_RESTORE("override_trip_id", \
                "(SELECT id FROM trips WHERE id = json_extract(rr.snapshot, '$.override_trip_id'))", \
                scope)
#define RUN_RESTORE_METHOD(scope) \
    RUN_RESTORE("payment_method", "json_extract(rr.snapshot, '$.payment_method')", scope)
/* Tags are private: a run (of the row owner's rule) puts back the owner's
 * tags only; a split participant's own tags on the row are theirs, which
 * the run could neither see nor change, so its revert leaves them be.
 * Whether a tag is the row owner's is two lookups by key, so a revert
 * costs the run's rows and the tags on them, never the tags their owner
 * has. */
#define ROW_OWNERS_TAG(tag, row) \
    "EXISTS (SELECT 1 FROM tags g, transactions o" \
    "         WHERE g.id = " tag " AND o.id = " row " AND g.owner_id = o.owner_id)"
/* Each tag now on a changed row of the run that its snapshot does not
 * list, walked from the run's rows (the primary keys of rule_run_rows and
 * transaction_tags), then deleted by its key. */
#define RUN_RESTORE_TAGS_DROP(scope) \
    "DELETE FROM transaction_tags WHERE (transaction_id, tag_id) IN (" \
    " SELECT tt.transaction_id, tt.tag_id" \
    "   FROM rule_run_rows rr JOIN transaction_tags tt ON tt.transaction_id = rr.transaction_id" \
    "  WHERE " RUN_ROWS(scope) " AND " ROW_OWNERS_TAG("tt.tag_id", "rr.transaction_id") \
    "    AND NOT EXISTS (SELECT 1 FROM json_each(rr.snapshot, '$.tags') j WHERE j.value = tt.tag_id))"
#define RUN_RESTORE_TAGS_ADD(scope) \
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)" \
    " SELECT rr.transaction_id, j.value FROM rule_run_rows rr, json_each(rr.snapshot, '$.tags') j" \
    "  WHERE " RUN_ROWS(scope) " AND " ROW_OWNERS_TAG("j.value", "rr.transaction_id")
#define RUN_RESTORE_SPLITS_DROP(scope) \
    "DELETE FROM splits" \
    " WHERE transaction_id IN" \
    "       (SELECT rr.transaction_id FROM rule_run_rows rr WHERE " RUN_ROWS(scope) ")"
#define RUN_RESTORE_SPLITS_ADD(scope) \
    "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)" \
    " SELECT rr.transaction_id, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]')," \
    "        json_extract(j.value, '$[2]')" \
    "   FROM rule_run_rows rr, json_each(rr.snapshot, '$.splits') j" \
    "  WHERE " RUN_ROWS(scope) " AND json_extract(j.value, '$[0]') IN (SELECT id FROM users)"
#define RUN_RESTORE_STEPS(scope) { \
    RUN_RESTORE_CATEGORY(scope), RUN_RESTORE_BASE_MERCHANT(scope), RUN_RESTORE_MERCHANT(scope), \
    RUN_RESTORE_SHARE(scope), RUN_RESTORE_TRIP(scope), RUN_RESTORE_METHOD(scope), \
    RUN_RESTORE_TAGS_DROP(scope), RUN_RESTORE_TAGS_ADD(scope), RUN_RESTORE_SPLITS_DROP(scope), \
    RUN_RESTORE_SPLITS_ADD(scope) }
static const char *const run_steps[2][10] = {
    RUN_RESTORE_STEPS(RUN_ALL), RUN_RESTORE_STEPS(RUN_CHUNK)
};
/* One row (undoing a reconciliation, the owner's act): its owner's tags
 * only, as above. */
static const char SQL_RESTORE_TAGS_DROP[] =
    "DELETE FROM transaction_tags WHERE transaction_id = ?1"
    "   AND " ROW_OWNERS_TAG("tag_id", "?1")
    "   AND tag_id NOT IN (SELECT value FROM json_each(?2, '$.tags'))";
static const char SQL_RESTORE_TAGS_ADD[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT ?1, value FROM json_each(?2, '$.tags') WHERE " ROW_OWNERS_TAG("value", "?1");
static const char SQL_RESTORE_SPLITS_DROP[] = "DELETE FROM splits WHERE transaction_id = ?1";
static const char SQL_RESTORE_SPLITS_ADD[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
    " SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]')"
    "   FROM json_each(?2, '$.splits')"
    "  WHERE json_extract(value, '$[0]') IN (SELECT id FROM users)";

int row_snapshot(ledger_db *db, int64_t id, char **out, ledger_error *err)
{
    sqlite3_stmt *st = db_stmt(db, SQL_SNAPSHOT, err);
    int rc;

    *out = NULL;
    if (st == NULL)
        return LEDGER_ERR;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = db_column_dup(st, 0);
    db_stmt_done(st);
    if (rc != SQLITE_ROW)
        return db_error(db, err, "snapshot");
    return *out ? LEDGER_OK : ledger_error_oom(err);
}

int row_restore(ledger_db *db, int64_t id, const char *snapshot, ledger_error *err)
{
    static const char *const steps[] = {
        SQL_RESTORE_ROW, SQL_RESTORE_TAGS_DROP, SQL_RESTORE_TAGS_ADD,
        SQL_RESTORE_SPLITS_DROP, SQL_RESTORE_SPLITS_ADD
    };
    size_t i;

    for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (db_exec(db, err, "restore", steps[i], DB_INT(id), DB_TEXT(snapshot)))
            return LEDGER_ERR;
    return LEDGER_OK;
}

int run_restore(ledger_db *db, int64_t run_id, int chunk, ledger_error *err)
{
    const char *const *steps = run_steps[chunk != 0];
    size_t i;

    /* It puts back merchant names, the user's included (merchant_name.c). */
    merchant_renames_forget(db);
    for (i = 0; i < sizeof run_steps[0] / sizeof run_steps[0][0]; i++)
        if (db_exec(db, err, "revert", steps[i], DB_INT(run_id)))
            return LEDGER_ERR;
    return LEDGER_OK;
}
