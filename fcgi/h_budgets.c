/* /api/budgets */
#include "handlers.h"

/* GET /api/budgets */
int h_budgets_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_budget_list(r->db, r->user_id, &p, &r->out, &r->err);
}

/* GET /api/budgets/{category} */
int h_budgets_get(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_budget_get(r->db, r->user_id, r->args[0], &p, &r->out, &r->err);
}

/* PUT /api/budgets/{category} */
int h_budgets_put(struct request *r)
{
    return ledger_budget_put(r->db, r->user_id, r->args[0], r->json, &r->out, &r->err);
}

/* DELETE /api/budgets/{category} */
int h_budgets_delete(struct request *r)
{
    r->status = 204;
    return ledger_budget_delete(r->db, r->user_id, r->args[0], &r->err);
}
