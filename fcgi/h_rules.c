/* /api/rules */
#include "handlers.h"

/* GET /api/rules */
int h_rules_list(struct request *r)
{
    return ledger_rule_list(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/rules */
int h_rules_create(struct request *r)
{
    r->status = 201;
    return ledger_rule_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/rules/runs */
int h_rules_runs(struct request *r)
{
    return ledger_rule_runs(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/rules/apply */
int h_rules_apply_all(struct request *r)
{
    return ledger_rule_apply_all(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/rules/apply/{id} */
int h_rules_apply(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_apply(r->db, r->user_id, id, &r->out, &r->err);
}

/* DELETE /api/rules/apply/{id} */
int h_rules_revert(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_revert(r->db, r->user_id, id, &r->out, &r->err);
}

/* GET /api/rules/{id} */
int h_rules_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* PATCH /api/rules/{id} */
int h_rules_update(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_update(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/rules/{id} */
int h_rules_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_rule_delete(r->db, r->user_id, id, &r->err);
}

/* POST /api/rules/{id}/preview */
int h_rules_preview(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_preview(r->db, r->user_id, id, &r->out, &r->err);
}

/* POST /api/rules/{id}/run */
int h_rules_run(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_rule_run_selection(r->db, r->user_id, id, r->json, &r->out, &r->err);
}
