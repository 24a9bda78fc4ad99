/* /api/statements */
#include <stdio.h>
#include <string.h>

#include "conditional.h"
#include "handlers.h"

/* GET /api/statements */
int h_statements_list(struct request *r)
{
    return ledger_statement_list(r->db, r->user_id, &r->out, &r->err);
}

/* POST /api/statements */
int h_statements_create(struct request *r)
{
    r->status = 201;
    return ledger_statement_create_text(r->db, r->user_id, r->body ? r->body : "", r->body_len,
                                        &r->out, &r->err);
}

/* POST /api/statements/import */
int h_statements_import(struct request *r)
{
    struct ledger_params p = request_params(r);
    const char *type = FCGX_GetParam("CONTENT_TYPE", r->fcgx->envp);
    char media[64];
    int created = 0, rc;

    /* the media type without its parameters ("; charset=...") */
    snprintf(media, sizeof media, "%.*s", type ? (int)strcspn(type, "; ") : 0, type ? type : "");
    rc = ledger_statement_import_file(r->db, r->user_id, r->body, r->body_len, &p, media,
                                      &r->out, &created, &r->err);
    r->status = created ? 201 : 200;
    return rc;
}

/* GET /api/statements/{id} */
int h_statements_get(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    return ledger_statement_get(r->db, r->user_id, id, &r->out, &r->err);
}

/* DELETE /api/statements/{id} */
int h_statements_delete(struct request *r)
{
    int64_t id;

    if (arg_id(r, 0, &id))
        return -1;
    r->status = 204;
    return ledger_statement_delete(r->db, r->user_id, id, conditional_job, r, &r->err);
}
