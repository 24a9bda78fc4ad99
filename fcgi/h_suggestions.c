/* /api/suggestions: category suggestions, their runs and the threshold. */
#include "handlers.h"

/* GET /api/suggestions */
int h_suggestions_list(struct request *r)
{
    struct ledger_params p = request_params(r);

    return ledger_suggestion_list(r->db, r->user_id, &p, &r->out, &r->err);
}

/* POST /api/suggestions/apply */
int h_suggestions_apply(struct request *r)
{
    r->status = 201;
    return ledger_suggestion_apply(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/suggestions/settings */
int h_suggestions_settings_get(struct request *r)
{
    return ledger_suggestion_settings(r->db, r->user_id, NULL, &r->out, &r->err);
}

/* PUT /api/suggestions/settings */
int h_suggestions_settings_put(struct request *r)
{
    return ledger_suggestion_settings(r->db, r->user_id, r->json, &r->out, &r->err);
}
