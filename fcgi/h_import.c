/* /api/import/csv */
#include "handlers.h"

/* POST /api/import/csv/preview */
int h_csv_preview(struct request *r)
{
    struct ledger_params p = request_params(r);

    /* A JSON body is parsed into r->json; a text/csv body is the file. */
    if (r->json == NULL && r->body_len == 0)
        return request_fail(r, 400, "invalid_json", NULL,
                            "send {csv, mapping} as JSON, or the file as text/csv with the "
                            "mapping in the query string");
    return ledger_csv_preview(r->db, r->user_id, r->body, r->body_len, r->json, &p, &r->out,
                              &r->err);
}

/* POST /api/import/csv/commit: 201 with the new import, or 200 when every
 * row was already there and no import was made (import_id null). */
int h_csv_commit(struct request *r)
{
    int rc = ledger_csv_commit(r->db, r->user_id, r->json, &r->out, &r->err);

    if (rc == 0)
        r->status = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r->out, "import_id")) ? 200 : 201;
    return rc;
}
