/* /api/participants, /api/balances, splits, /api/payments */
#include "handlers.h"

int h_participants_list(struct request *r)
{
    return ledger_participant_list(r->db, r->user_id, &r->out, &r->err);
}

int h_participants_add(struct request *r)
{
    int created = 0, rc;

    rc = ledger_participant_add(r->db, r->user_id, r->json, &r->out, &created, &r->err);
    r->status = created ? 201 : 200;
    return rc;
}

int h_balance_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_balance_get(r->db, r->user_id, id, &r->out, &r->err);
}

int h_balances_list(struct request *r)
{
    return ledger_balance_list(r->db, r->user_id, &r->out, &r->err);
}

int h_splits_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_get(r->db, r->user_id, id, &r->out, &r->err);
}

int h_splits_set(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_set(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

int h_splits_clear(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_split_clear(r->db, r->user_id, id, &r->err);
}

int h_splits_settle(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_split_settle(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

int h_payments_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_payment_list(r->db, r->user_id, &p, &r->out, &r->err);
}

int h_payments_create(struct request *r)
{
    r->status = 201;
    return ledger_payment_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

int h_payments_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_payment_delete(r->db, r->user_id, id, &r->err);
}
