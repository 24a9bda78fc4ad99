/* Tags on one transaction: the caller's own tags, on a row they may access. */
#include "db.h"
#include "fields.h"
#include "share.h"
#include "txn.h"

static const char SQL_UNLINK[] =
    "DELETE FROM transaction_tags WHERE transaction_id = ? AND tag_id = ?";

int ledger_txn_tag_add(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                       cJSON **out, ledger_error *err)
{
    struct txn_access a;
    const char *name;
    int64_t tag_id;
    int has_id, has_name;
    cJSON *ids;
    int rc;

    if (access_txn(db, me, txn_id, &a, err)
        || field_require_object(body, err)
        || field_id(body, "tag_id", 0, 0, &tag_id, &has_id, err)
        || field_text(body, "name", 0, 0, TAG_NAME_MAX, &name, &has_name, err))
        return LEDGER_ERR;
    if (has_id == has_name)
        return error_field(err, "tag_id", "give either tag_id or name");
    if (has_name && tag_find_or_create(db, me, name, &tag_id, err))
        return LEDGER_ERR;
    if ((ids = cJSON_CreateArray()) == NULL)
        return ledger_error_oom(err);
    cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)tag_id));
    rc = txn_link_tags(db, me, txn_id, ids, err);
    cJSON_Delete(ids);
    if (rc)
        return err->field[0] ? error_in_body(err, has_name ? "name" : "tag_id") : LEDGER_ERR;
    return txn_get(db, me, txn_id, out, err);
}

/* The link between a row and a tag, gone (nothing when there was none). */
static int tag_unlink(ledger_db *db, int64_t txn_id, int64_t tag_id, ledger_error *err)
{
    return db_exec(db, err, "tag unlink", SQL_UNLINK, DB_INT(txn_id), DB_INT(tag_id));
}

int ledger_txn_tag_remove(ledger_db *db, int64_t me, int64_t txn_id, int64_t tag_id,
                          ledger_error *err)
{
    struct txn_access a;

    if (access_txn(db, me, txn_id, &a, err) || tag_check_owner(db, me, tag_id, err))
        return LEDGER_ERR;
    return tag_unlink(db, txn_id, tag_id, err);
}

int ledger_txn_tag_remove_body(ledger_db *db, int64_t me, int64_t txn_id, const cJSON *body,
                               ledger_error *err)
{
    struct txn_access a;
    int64_t tag_id;

    /* The row is the path's (403/404); the tag is named in the body: a
     * missing one is a bad field, another user's 403 naming it, as on every
     * route that takes an id in its body. */
    if (access_txn(db, me, txn_id, &a, err)
        || field_require_object(body, err) || field_id(body, "tag_id", 1, 0, &tag_id, NULL, err))
        return LEDGER_ERR;
    if (tag_check_owner(db, me, tag_id, err))
        return error_in_body(err, "tag_id");
    return tag_unlink(db, txn_id, tag_id, err);
}
