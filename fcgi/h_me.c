/* /api/me */
#include "handlers.h"

/* GET /api/me */
int h_me_get(struct request *r)
{
    return ledger_user_get(r->db, r->user_id, &r->out, &r->err);
}
