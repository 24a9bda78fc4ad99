/* /api/balances */
#include "handlers.h"

/* GET /api/balances */
int h_balances_list(struct request *r)
{
    return ledger_balance_list(r->db, r->user_id, &r->out, &r->err);
}
