/* /api/tags */
#include "handlers.h"

/* GET /api/tags */
int h_tags_list(struct request *r)
{
    return ledger_tag_list(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/tags */
int h_tags_create(struct request *r)
{
    r->status = 201;
    return ledger_tag_create(r->db, r->user_id, r->json, &r->out, &r->err);
}

/* GET /api/tags/{id} */
int h_tags_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_tag_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* PATCH /api/tags/{id} */
int h_tags_update(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_tag_update(r->db, r->user_id, id, r->json, &r->out, &r->err);
}

/* DELETE /api/tags/{id} */
int h_tags_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_tag_delete(r->db, r->user_id, id, &r->err);
}
