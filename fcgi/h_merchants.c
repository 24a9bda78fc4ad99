/* /api/merchants */
#include "handlers.h"

/* GET /api/merchants */
int h_merchants_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_merchant_list(r->db, r->user_id, &p, &r->out, &r->err);
}

/* POST /api/merchants/clean: a merchant for each of the caller's rows
 * without one, as a revertable run. */
int h_merchants_clean(struct request *r)
{
    return ledger_merchant_run(r->db, r->user_id, &r->out, &r->err);
}
