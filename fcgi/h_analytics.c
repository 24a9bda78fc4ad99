/* /api/analytics */
#include "handlers.h"

/* GET /api/analytics/monthly */
int h_analytics_monthly(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_monthly_text(r->db, r->user_id, &p, &r->out, &r->err);
}

/* GET /api/analytics/monthly/{month}/{category} */
int h_analytics_drilldown(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_drilldown(r->db, r->user_id, r->args[0], r->args[1], &p, &r->out,
                                      &r->err);
}

/* GET /api/analytics/merchants */
int h_analytics_merchants(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_merchants(r->db, r->user_id, &p, &r->out, &r->err);
}

/* GET /api/analytics/merchants/{merchant} */
int h_analytics_merchant(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_merchant(r->db, r->user_id, r->args[0], &p, &r->out, &r->err);
}

/* GET /api/analytics/fees */
int h_analytics_fees(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_fees(r->db, r->user_id, &p, &r->out, &r->err);
}

/* GET /api/analytics/subscriptions */
int h_analytics_subscriptions(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_analytics_subscriptions(r->db, r->user_id, &p, &r->out, &r->err);
}
