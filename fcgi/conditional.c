/* Conditional requests (RFC 9110 section 13).
 *
 * A list or a report is tagged by the state it is read from
 * (ledger_tag_now: the data version, the caller, the request, the date),
 * known before anything is read, so a repeated GET is answered 304 for
 * the cost of one row's read.  One resource (ROUTE_ONE) is tagged by a
 * hash of its representation, which moves only when that resource's
 * answer does: a write elsewhere does not fail an If-Match on it.
 *
 * If-Match is evaluated as RFC 9110 13.2.1 orders it: a request that
 * would fail without the condition (404, 403, 409...) answers that
 * failure, and only one that would succeed is refused with 412.  So the
 * handler runs, and on a failed condition its work is rolled back:
 * nothing changes, and nothing is learned about a resource that the
 * request without If-Match would not tell. */
#include <stdlib.h>
#include <string.h>

#include "conditional.h"

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
    return p;
}

/* The comparison ignores W/: weak comparison for If-None-Match (RFC 9110
 * 13.1.2), and for If-Match too, since a compressing proxy (nginx's gzip)
 * marks the strong tags it passes on weak, and the tag of a
 * representation here names its bytes before any coding, so the weak form
 * names the same content. */
int etag_listed(const char *field, const char *tag)
{
    size_t n = strlen(tag);
    const char *p = skip_space(field);

    if (*p == '*')
        return 1;
    while (*p) {
        const char *end;

        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (*p != '"')
            return 0;
        end = strchr(p + 1, '"');
        if (end == NULL)
            return 0;
        if ((size_t)(end + 1 - p) == n && memcmp(p, tag, n) == 0)
            return 1;
        p = skip_space(end + 1);
    }
    return 0;
}

static int is_read(const struct request *r)
{
    return strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
}

/* The tag of the resource the route's GET one renders, *exists 0 when it
 * renders none (a 4xx).  The request's answer so far is kept. */
static int current_tag(struct request *r, const struct route *route, char *tag, int *exists)
{
    cJSON *kept = r->out;
    int status = r->status, rc = 0;
    char *text;
    size_t len;

    r->out = NULL;
    *exists = 0;
    if (route->current(r)) {
        if (r->err.status == 0 || r->err.status >= 500)
            rc = -1;
        else
            memset(&r->err, 0, sizeof r->err);
    } else if ((text = ledger_json_print(r->out, &len)) == NULL) {
        rc = request_oom(r);
    } else {
        ledger_tag_of_bytes(text, len, tag);
        free(text);
        *exists = 1;
    }
    cJSON_Delete(r->out);
    r->out = kept;
    r->status = status;
    return rc;
}

int conditional_before(struct request *r, const struct route *route, int *holds)
{
    const char *want;
    char tag[LEDGER_TAG_SIZE];
    int exists;

    *holds = 1;
    if (is_read(r)) {
        const char *target = FCGX_GetParam("REQUEST_URI", r->fcgx->envp);

        if (route->flags & ROUTE_ONE) {
            r->content_tag = 1;
            return 0;
        }
        /* HEAD answers GET's head, tag included. */
        if (ledger_tag_now(r->db, r->user_id, "GET", target ? target : r->path, r->etag,
                           &r->err))
            return -1;
        want = FCGX_GetParam("HTTP_IF_NONE_MATCH", r->fcgx->envp);
        if (want && etag_listed(want, r->etag)) {
            r->status = 304;
            return 1;
        }
        return 0;
    }
    want = FCGX_GetParam("HTTP_IF_MATCH", r->fcgx->envp);
    if (want == NULL || route->current == NULL)
        return 0;
    if (current_tag(r, route, tag, &exists))
        return -1;
    *holds = exists && etag_listed(want, tag);
    return 0;
}

int conditional_refused(ledger_error *err)
{
    return ledger_error_set(err, 412, "precondition_failed", NULL,
                            "If-Match does not name the current version of this resource:"
                            " it was changed or deleted since it was read; nothing was written");
}

int conditional_job(void *ctx, ledger_error *err)
{
    struct request *r = ctx;
    int holds;

    if (conditional_before(r, r->route, &holds)) {
        if (err != &r->err)
            *err = r->err;
        return -1;
    }
    return holds ? 0 : conditional_refused(err);
}

int conditional_after(struct request *r, const struct route *route)
{
    int exists;

    if (route->current == NULL || is_read(r) || r->status == 204)
        return 0;
    if (current_tag(r, route, r->etag, &exists))
        return -1;
    if (!exists)
        r->etag[0] = '\0';
    return 0;
}
