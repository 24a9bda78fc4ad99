/* /api/participants */
#include "handlers.h"

/* GET /api/participants */
int h_participants_list(struct request *r)
{
    return ledger_participant_list(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/participants: 201 whether the address had an account or not
 * (the caller's participant entry is what is made), so the status tells
 * nothing of the address. */
int h_participants_add(struct request *r)
{
    r->status = 201;
    return ledger_participant_add(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/participants/{id}/balance */
int h_balance_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_balance_get(r->db, r->user_id, id, &r->out, &r->err);
}
