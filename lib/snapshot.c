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
 * not update each row again. */
#define RUN_RESTORE_ALSO(column, value, also) \
    "UPDATE transactions SET " column " = " value also \
    " FROM rule_run_rows rr WHERE rr.run_id = ?1 AND rr.changed AND transactions.id = rr.transaction_id" \
    "   AND transactions." column " IS NOT " value
#define RUN_RESTORE(column, value) RUN_RESTORE_ALSO(column, value, "")
#define SNAP_CATEGORY "json_extract(rr.snapshot, '$.override_category')"
#define SNAP_MERCHANT "json_extract(rr.snapshot, '$.override_merchant_normalized')"
static const char SQL_RUN_RESTORE_CATEGORY[] =
    RUN_RESTORE_ALSO("override_category", SNAP_CATEGORY,
                     ", eff_category = COALESCE(" SNAP_CATEGORY ", transactions.category)");
static const char SQL_RUN_RESTORE_MERCHANT[] =
    RUN_RESTORE_ALSO("override_merchant_normalized", SNAP_MERCHANT,
                     ", eff_merchant = COALESCE(" SNAP_MERCHANT ", transactions.merchant_normalized,"
                     " transactions.merchant, '')");
/* A merchant run (merchant_name.c) wrote merchant_normalized and keeps its
 * pre-run value in the snapshot; a snapshot without the key (a rule run's)
 * leaves the column as it is.  Before the override's restore, which
 * reads the column for the effective value. */
#define SNAP_BASE_MERCHANT "json_extract(rr.snapshot, '$.merchant_normalized')"
static const char SQL_RUN_RESTORE_BASE_MERCHANT[] =
    "UPDATE transactions SET merchant_normalized = " SNAP_BASE_MERCHANT ","
    " eff_merchant = COALESCE(transactions.override_merchant_normalized, " SNAP_BASE_MERCHANT ","
    " transactions.merchant, '')"
    " FROM rule_run_rows rr WHERE rr.run_id = ?1 AND rr.changed AND transactions.id = rr.transaction_id"
    "   AND json_type(rr.snapshot, '$.merchant_normalized') IS NOT NULL"
    "   AND transactions.merchant_normalized IS NOT " SNAP_BASE_MERCHANT;
static const char SQL_RUN_RESTORE_SHARE[] =
    RUN_RESTORE("override_share", "json_extract(rr.snapshot, '$.override_share')");
static const char SQL_RUN_RESTORE_TRIP[] =
    RUN_RESTORE("override_trip_id",
                "(SELECT id FROM trips WHERE id = json_extract(rr.snapshot, '$.override_trip_id'))");
static const char SQL_RUN_RESTORE_METHOD[] =
    RUN_RESTORE("payment_method", "json_extract(rr.snapshot, '$.payment_method')");
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
static const char SQL_RUN_RESTORE_TAGS_DROP[] =
    "DELETE FROM transaction_tags WHERE (transaction_id, tag_id) IN ("
    " SELECT tt.transaction_id, tt.tag_id"
    "   FROM rule_run_rows rr JOIN transaction_tags tt ON tt.transaction_id = rr.transaction_id"
    "  WHERE rr.run_id = ?1 AND rr.changed AND " ROW_OWNERS_TAG("tt.tag_id", "rr.transaction_id")
    "    AND NOT EXISTS (SELECT 1 FROM json_each(rr.snapshot, '$.tags') j WHERE j.value = tt.tag_id))";
static const char SQL_RUN_RESTORE_TAGS_ADD[] =
    "INSERT OR IGNORE INTO transaction_tags (transaction_id, tag_id)"
    " SELECT rr.transaction_id, j.value FROM rule_run_rows rr, json_each(rr.snapshot, '$.tags') j"
    "  WHERE rr.run_id = ?1 AND rr.changed AND " ROW_OWNERS_TAG("j.value", "rr.transaction_id");
static const char SQL_RUN_RESTORE_SPLITS_DROP[] =
    "DELETE FROM splits"
    " WHERE transaction_id IN (SELECT transaction_id FROM rule_run_rows WHERE run_id = ?1 AND changed)";
static const char SQL_RUN_RESTORE_SPLITS_ADD[] =
    "INSERT INTO splits (transaction_id, participant_id, share_percent, settled)"
    " SELECT rr.transaction_id, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),"
    "        json_extract(j.value, '$[2]')"
    "   FROM rule_run_rows rr, json_each(rr.snapshot, '$.splits') j"
    "  WHERE rr.run_id = ?1 AND rr.changed AND json_extract(j.value, '$[0]') IN (SELECT id FROM users)";
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

int run_restore(ledger_db *db, int64_t run_id, ledger_error *err)
{
    static const char *const steps[] = {
        SQL_RUN_RESTORE_CATEGORY, SQL_RUN_RESTORE_BASE_MERCHANT, SQL_RUN_RESTORE_MERCHANT,
        SQL_RUN_RESTORE_SHARE,
        SQL_RUN_RESTORE_TRIP, SQL_RUN_RESTORE_METHOD, SQL_RUN_RESTORE_TAGS_DROP,
        SQL_RUN_RESTORE_TAGS_ADD, SQL_RUN_RESTORE_SPLITS_DROP, SQL_RUN_RESTORE_SPLITS_ADD
    };
    size_t i;

    /* It puts back merchant names, the user's included (merchant_name.c). */
    merchant_renames_forget(db);
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (db_exec(db, err, "revert", steps[i], DB_INT(run_id)))
            return LEDGER_ERR;
    return LEDGER_OK;
}
