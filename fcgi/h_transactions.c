/* /api/transactions, with a transaction's tags and splits */
#include "handlers.h"

/* GET /api/transactions */
int h_txn_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_txn_list_text(r->db, r->user_id, &p, &r->out, &r->err);
}

/* POST /api/transactions */
int h_txn_create(struct request *r)
{
    r->status = 201;
    return ledger_txn_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/transactions/{id} */
int h_txn_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_txn_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* PATCH /api/transactions/{id} */
int h_txn_update(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_txn_update(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/transactions/{id} */
int h_txn_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_txn_delete(r->db, r->user_id, id, &r->err);
}

/* POST /api/transactions/bulk */
int h_txn_bulk(struct request *r)
{
    return ledger_txn_bulk(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* POST /api/transactions/{id}/tags */
int h_txn_tag_add(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_txn_tag_add(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/transactions/{id}/tags
 * DELETE /api/transactions/{id}/tags/{tag_id} */
int h_txn_tag_remove(struct request *r)
{
    int64_t id, tag;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    if (r->nargs > 1) {
        if (arg_id(r, 1, &tag))
            return -1;
        return ledger_txn_tag_remove(r->db, r->user_id, id, tag, &r->err);
    }
    return ledger_txn_tag_remove_body(r->db, r->user_id, id, r->json, &r->err);
}

/* GET /api/transactions/{id}/splits */
int h_splits_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* POST /api/transactions/{id}/splits */
int h_splits_set(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_set(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/transactions/{id}/splits */
int h_splits_clear(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_split_clear(r->db, r->user_id, id, &r->err);
}

/* POST /api/transactions/{id}/splits/settle */
int h_splits_settle(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_settle(r->db, r->user_id, id, r->json, &r->out, &r->err);
}
