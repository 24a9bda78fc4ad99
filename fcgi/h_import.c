/* /api/import/csv */
#include <stdlib.h>
#include <string.h>

#include "handlers.h"

/* POST /api/import/csv/preview
 *
 * A text/csv body's charset parameter says what its bytes are, as the
 * query's encoding does; the query's wins when both are given. */
int h_csv_preview(struct request *r)
{
    struct ledger_params p = request_params(r);
    struct ledger_param *items = NULL;
    const char *ct = FCGX_GetParam("CONTENT_TYPE", r->fcgx->envp), *cs;
    size_t i, n = content_type_charset(ct, &cs);
    char name[32];
    int rc;

    /* A JSON body is parsed into r->json; a text/csv body is the file. */
    if (r->json == NULL && r->body_len == 0)
        return request_fail(r, 400, "invalid_json", NULL,
                            "send {csv, mapping} as JSON, or the file as text/csv with the "
                            "mapping in the query string");
    for (i = 0; i < p.count && n > 0; i++)
        if (strcmp(p.items[i].key, "encoding") == 0)
            n = 0;
    if (r->json == NULL && n > 0) {
        if (n >= sizeof name || !ledger_charset_known(cs, n))
            return request_fail(r, 415, "unsupported_media_type", NULL,
                                "text/csv; charset=%.*s is not a character set read here: send "
                                "the file as UTF-8, or name its encoding in the query "
                                "(encoding=windows-1250)", (int)(n < 40 ? n : 40), cs);
        memcpy(name, cs, n);
        name[n] = '\0';
        if ((items = malloc((p.count + 1) * sizeof *items)) == NULL)
            return request_oom(r);
        memcpy(items, p.items, p.count * sizeof *items);
        items[p.count].key = (char *)"encoding";
        items[p.count].value = name;
        p.items = items;
        p.count++;
    }
    rc = ledger_csv_preview(r->db, r->user_id, r->body, r->body_len, r->json, &p, &r->out,
                            &r->err);
    free(items);
    return rc;
}

/* POST /api/import/csv/commit: 201 with the new import, or 200 when every
 * row was already there and no import was made (import_id null). */
int h_csv_commit(struct request *r)
{
    int rc = ledger_csv_commit_text(r->db, r->user_id, r->body ? r->body : "", r->body_len,
                                    &r->out, &r->err);

    if (rc == 0)
        r->status = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r->out, "import_id")) ? 200 : 201;
    return rc;
}
