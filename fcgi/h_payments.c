/* /api/payments */
#include "handlers.h"

/* GET /api/payments */
int h_payments_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_payment_list(r->db, r->user_id, &p, &r->out, &r->err);
}

/* POST /api/payments */
int h_payments_create(struct request *r)
{
    r->status = 201;
    return ledger_payment_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/payments/{id} */
int h_payments_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_payment_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* DELETE /api/payments/{id} */
int h_payments_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_payment_delete(r->db, r->user_id, id, &r->err);
}
