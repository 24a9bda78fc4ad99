/* /api/categories */
#include "handlers.h"

/* GET /api/categories */
int h_categories_list(struct request *r)
{
    return ledger_categories_list(r->db, r->user_id, &r->out, &r->err);
}
