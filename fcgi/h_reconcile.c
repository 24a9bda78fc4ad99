/* /api/reconcile */
#include "handlers.h"

/* GET /api/reconcile */
int h_reconcile_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_reconcile_list(r->db, r->user_id, &p, &r->out, &r->err);
}

/* POST /api/reconcile */
int h_reconcile_apply(struct request *r)
{
    return ledger_reconcile_apply(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* DELETE /api/reconcile/{manual_id} */
int h_reconcile_undo(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_reconcile_undo(r->db, r->user_id, id, &r->err);
}
