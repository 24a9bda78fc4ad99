/* Serving one request.  The order matters: the identity is checked before
 * anything else is looked at, the body's size before a byte of it is read,
 * and the handler runs inside one transaction that an error rolls back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "conditional.h"
#include "dispatch.h"
#include "log.h"

/* Whether the Content-Type header names mime (parameters such as charset
 * may follow after ';'). */
static int content_type_is(const char *ct, const char *mime)
{
    size_t n = strlen(mime);

    if (ct == NULL || strncasecmp(ct, mime, n) != 0)
        return 0;
    ct += n;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return *ct == '\0' || *ct == ';';
}

/* Whether the charset parameter of ct, if any, is UTF-8 (RFC 8259 8.1:
 * JSON is UTF-8; a body labelled latin-1 is refused, not read as if it
 * were). */
static int charset_is_utf8(const char *ct)
{
    const char *v;
    size_t n = content_type_charset(ct, &v);

    return n == 0 || (n == 5 && strncasecmp(v, "utf-8", 5) == 0)
           || (n == 4 && strncasecmp(v, "utf8", 4) == 0);
}

/* Whether ct is a type a page on another site can have a browser send
 * without asking this site first (no type at all counts). */
static int cross_site_type(const char *ct)
{
    return ct == NULL || *ct == '\0' || content_type_is(ct, "text/plain")
           || content_type_is(ct, "application/x-www-form-urlencoded")
           || content_type_is(ct, "multipart/form-data");
}

/* Reads and checks the body: 413 and 415 before a byte is read, then JSON
 * parsed strictly.  An empty body leaves r->json NULL: the handler decides
 * whether it needs one.  A route that takes no body still refuses a broken
 * one (a client sending "{}" is fine; one sending garbage hears so, rather
 * than having the action run as if it had sent nothing). */
static int take_body(struct request *r, const struct route *route)
{
    const char *ct = FCGX_GetParam("CONTENT_TYPE", r->fcgx->envp), *enc;
    int is_json = content_type_is(ct, "application/json");
    int is_csv = content_type_is(ct, "text/csv");
    size_t len;

    /* A page on another site can make the user's browser POST here (a
     * form, or fetch without CORS) only with no body type or text/plain,
     * form-urlencoded or multipart, and with the identity in a session
     * cookie (mod_auth_openidc) that would write as the user.  So a write
     * by POST needs a type such a page cannot send, even with no body:
     * JSON ("{}" will do), or for the file import a file's type. */
    if (strcmp(r->method, "POST") == 0 && (route->flags & ROUTE_WRITE)) {
        if ((route->flags & ROUTE_RAW) && cross_site_type(ct))
            return request_fail(r, 415, "unsupported_media_type", NULL,
                                "the body must be the file with its type, e.g. application/x-ofx");
        if (!(route->flags & ROUTE_RAW) && !is_json)
            return request_fail(r, 415, "unsupported_media_type", NULL,
                                "a write must be application/json (\"{}\" when it takes no body)");
    }
    if (request_body_length(r, &len))
        return -1;
    if (len == REQUEST_LENGTH_UNKNOWN) {
        /* A body sent in chunks (or none): read it to learn which. */
        if (request_read_body(r))
            return -1;
        len = r->body_len;
    }
    if (len == 0)
        return 0;
    /* Nothing here decodes a coded body (gzip and the like): one is
     * refused for its encoding, not parsed as it comes and refused as
     * broken JSON. */
    enc = FCGX_GetParam("HTTP_CONTENT_ENCODING", r->fcgx->envp);
    if (enc && *enc && strcasecmp(enc, "identity") != 0)
        return request_fail(r, 415, "unsupported_media_type", NULL,
                            "a body with a Content-Encoding is not taken: send it as it is");
    if (route->flags & ROUTE_RAW)
        return request_read_body(r);
    if (is_json && !charset_is_utf8(ct))
        return request_fail(r, 415, "unsupported_media_type", NULL,
                            "a JSON body is UTF-8 (charset=utf-8, or no charset)");
    if (!is_json && !(is_csv && (route->flags & ROUTE_CSV)))
        return request_fail(r, 415, "unsupported_media_type", NULL, "the body must be %s",
                            (route->flags & ROUTE_CSV) ? "application/json or text/csv"
                                                       : "application/json");
    if (request_read_body(r))
        return -1;
    /* A body the library reads a piece at a time (a CSV commit's rows)
     * stays text. */
    if (route->flags & ROUTE_JSON_TEXT)
        return 0;
    if (is_json && r->body_len > 0
        && ledger_json_parse(r->body, r->body_len, &r->json, &r->err))
        return -1;
    /* The tree holds all a JSON body says: its text goes now, not at the
     * request's end, so the handler's work never has both. */
    if (r->json) {
        free(r->body);
        r->body = NULL;
    }
    return 0;
}

static void run_handler(struct request *r, const struct route *route)
{
    int write = (route->flags & ROUTE_WRITE) != 0, holds, answered;
    ledger_error failed;

    /* A job begins and ends its own transactions, and refuses to start
     * beside another of the caller's itself; one to one resource checks
     * its If-Match in its own snapshot (conditional_job). */
    if (route->flags & ROUTE_JOB) {
        if (route->handler(r) && r->err.status == 0)
            request_fail(r, 500, "internal", NULL, "handler failed without an error");
        return;
    }
    /* Reads get a transaction too, so a page and its total come from one
     * snapshot, and its tag (conditional.c) from the same one. */
    if (ledger_begin_as(r->db, r->user_id, write, &r->err))
        return;
    answered = conditional_before(r, route, &holds);
    if (answered < 0)
        goto fail;
    if (answered == 0) {
        if (route->handler(r))
            goto fail;
        /* Only a write that would succeed is refused for its condition
         * (RFC 9110 13.2.1): its work is rolled back. */
        if (!holds) {
            conditional_refused(&r->err);
            goto fail;
        }
        if (conditional_after(r, route))
            goto fail;
    }
    if (ledger_commit(r->db, &r->err)) {
        cJSON_Delete(r->out);
        r->out = NULL;
    }
    return;
fail:
    /* A 404 or 409 decided on what a failed statement gave (see
     * ledger_txn_failed) is that failure's 500. */
    if (ledger_txn_failed(r->db, &failed))
        r->err = failed;
    ledger_rollback(r->db);
    cJSON_Delete(r->out);
    r->out = NULL;
    if (r->err.status == 0)
        request_fail(r, 500, "internal", NULL, "handler failed without an error");
}

static long elapsed_us(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000000L + (t1.tv_nsec - t0->tv_nsec) / 1000L;
}

/* Whether the n bytes at seg are a word of some route's pattern (a
 * segment of it with no regular-expression character: "api", "budgets"). */
static int route_word(const char *seg, size_t n)
{
    size_t i;

    for (i = 0; i < route_count; i++) {
        const char *p = routes[i].pattern;

        while (*p) {
            size_t len;

            p += *p == '/';
            len = strcspn(p, "/");
            if (len == n && strncmp(p, seg, n) == 0 && strcspn(p, "([\\.^$*+?{|") >= len)
                return 1;
            p += len;
        }
    }
    return 0;
}

/* The path as the log shows it: each segment that is neither a word of a
 * route, nor a number (an id), nor a month, as * (DESIGN.md: never
 * descriptions at info level).  Merchant and category names travel in
 * paths, also in requests no route answers and in paths nginx passes
 * unnormalised (//api/budgets/NAME): so nothing but what the routes
 * themselves spell is shown. */
static void log_path(const struct request *r, char *out, size_t len)
{
    const char *p = r->path;
    size_t used = 0;

    if (p == NULL) {
        snprintf(out, len, "-");
        return;
    }
    out[0] = '\0';
    while (*p && used + 2 < len) {
        size_t n, k;
        int shown;

        if (*p == '/') {
            out[used++] = '/';
            p++;
            continue;
        }
        n = strcspn(p, "/");
        for (k = 0; k < n && p[k] >= '0' && p[k] <= '9'; k++)
            ;
        shown = k == n || (n == 7 && k == 4 && p[4] == '-' && p[5] >= '0' && p[5] <= '9'
                           && p[6] >= '0' && p[6] <= '9')
                || route_word(p, n);
        if (shown && used + n + 1 < len) {
            memcpy(out + used, p, n);
            used += n;
        } else {
            out[used++] = '*';
        }
        p += n;
    }
    out[used] = '\0';
}

/* The email claim, only when the provider says it verified the address
 * (email_verified_param: "1", as mod_auth_openidc passes a JSON true, or
 * "true", as some providers send it as text); otherwise NULL, as if there
 * were no claim.  An email finds a person: a placeholder someone added by
 * that address is claimed by it, and POST /api/participants finds its
 * holder, so an address nobody proved is never stored or matched. */
static const char *verified_email(const struct config *cfg, FCGX_ParamArray envp)
{
    const char *verified = FCGX_GetParam(cfg->email_verified_param, envp);

    if (verified == NULL || (strcmp(verified, "1") != 0 && strcasecmp(verified, "true") != 0))
        return NULL;
    return FCGX_GetParam(cfg->email_param, envp);
}

int dispatch(FCGX_Request *fcgx, const struct config *cfg, ledger_db *db,
             struct router *rt, uint64_t request_id)
{
    struct request r;
    char shown[512];
    struct timespec t0;
    const struct route *route = NULL;
    const char *subject;
    int stale = 0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    request_begin(&r, fcgx, cfg, db, request_id);
    /* A stat and a read of the schema version: a few microseconds against
     * serving a restored backup's writes into the file it replaced.  Any
     * other failure of the check is this request's alone. */
    if (ledger_db_current(db, &r.err) != LEDGER_OK) {
        stale = strcmp(r.err.code, "unavailable") == 0;
        goto answer;
    }
    /* Identity comes from the FastCGI parameter the web server sets after
     * authenticating, never from an HTTP_* header a client can send.  It
     * is checked first: a request without one learns nothing else, not
     * even that its query string is bad (401, never 400).  The path is
     * still read, for the log. */
    subject = FCGX_GetParam(cfg->identity_param, fcgx->envp);
    if (subject == NULL || ledger_identity_blank(subject)) {
        request_parse_uri(&r);
        request_fail(&r, 401, "unauthenticated", NULL, "no authenticated identity");
        goto answer;
    }
    if (request_parse_uri(&r))
        goto answer;
    r.route = route = router_match(rt, &r);
    if (route == NULL)
        goto answer;
    if (ledger_user_resolve(db, subject, verified_email(cfg, fcgx->envp),
                            FCGX_GetParam(cfg->name_param, fcgx->envp), &r.user_id, &r.err))
        goto answer;
    if (take_body(&r, route))
        goto answer;
    run_handler(&r, route);
answer:
    response_send(&r);
    log_path(&r, shown, sizeof shown);
    if (r.err.status >= 500)
        log_msg(LOG_ERROR, "req=%s %s %s: %s", r.id, r.method, shown, r.err.message);
    log_msg(LOG_INFO, "req=%s user=%lld %s %s %d %ldus", r.id, (long long)r.user_id,
            r.method, shown, r.status, elapsed_us(&t0));
    request_end(&r);
    return stale;
}
