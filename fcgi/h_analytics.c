/* /api/budgets and /api/analytics */
#include "handlers.h"

int h_budgets_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_budget_list(r->db, r->user_id, &p, &r->out, &r->err);
}

int h_budgets_put(struct request *r)
{
    return ledger_budget_put(r->db, r->user_id, r->args[0], r->json, &r->out, &r->err);
}

int h_budgets_delete(struct request *r)
{
    r->status = 204;
    return ledger_budget_delete(r->db, r->user_id, r->args[0], &r->err);
}

int h_analytics_monthly(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_monthly_text(r->db, r->user_id, &p, &r->out, &r->err);
}

int h_analytics_drilldown(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_drilldown(r->db, r->user_id, r->args[0], r->args[1], &p, &r->out,
                                      &r->err);
}

int h_analytics_merchants(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_merchants(r->db, r->user_id, &p, &r->out, &r->err);
}

int h_analytics_merchant(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_merchant(r->db, r->user_id, r->args[0], &p, &r->out, &r->err);
}

int h_analytics_fees(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_fees(r->db, r->user_id, &p, &r->out, &r->err);
}

int h_analytics_subscriptions(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_subscriptions(r->db, r->user_id, &p, &r->out, &r->err);
}
