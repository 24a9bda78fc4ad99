/* /api/merchants */
#include "handlers.h"

/* GET /api/merchants */
int h_merchants_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_merchant_list(r->db, r->user_id, &p, &r->out, &r->err);
}
