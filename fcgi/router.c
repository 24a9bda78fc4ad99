/* Matching a request path against the compiled route table. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "router.h"

struct router {
    pcre2_code **code;
    pcre2_match_data **match;
    char allow[128];
};

int router_new(struct router **out, int jit, char *msg, size_t msglen)
{
    struct router *rt = calloc(1, sizeof *rt);
    size_t i;

    if (rt == NULL || (rt->code = calloc(route_count, sizeof *rt->code)) == NULL
        || (rt->match = calloc(route_count, sizeof *rt->match)) == NULL)
        goto nomem;
    for (i = 0; i < route_count; i++) {
        int errcode;
        PCRE2_SIZE erroff;
        PCRE2_UCHAR why[160];

        rt->code[i] = pcre2_compile((PCRE2_SPTR)routes[i].pattern, PCRE2_ZERO_TERMINATED,
                                    PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOLLAR_ENDONLY,
                                    &errcode, &erroff, NULL);
        if (rt->code[i] == NULL) {
            pcre2_get_error_message(errcode, why, sizeof why);
            snprintf(msg, msglen, "route %s %s: %s at offset %zu", routes[i].method,
                     routes[i].pattern, (char *)why, (size_t)erroff);
            goto fail;
        }
        /* JIT is an optimisation: where the platform has none, the
         * interpreter answers the same.  Memory checkers cannot follow
         * JIT code, so they run with --no-jit. */
        if (jit)
            pcre2_jit_compile(rt->code[i], PCRE2_JIT_COMPLETE);
        rt->match[i] = pcre2_match_data_create_from_pattern(rt->code[i], NULL);
        if (rt->match[i] == NULL)
            goto nomem;
    }
    *out = rt;
    return 0;
nomem:
    snprintf(msg, msglen, "out of memory");
fail:
    router_free(rt);
    return -1;
}

void router_free(struct router *rt)
{
    size_t i;

    if (rt == NULL)
        return;
    for (i = 0; i < route_count; i++) {
        if (rt->code)
            pcre2_code_free(rt->code[i]);
        if (rt->match)
            pcre2_match_data_free(rt->match[i]);
    }
    free(rt->code);
    free(rt->match);
    free(rt);
}

static int matches(struct router *rt, size_t i, const char *path)
{
    return pcre2_match(rt->code[i], (PCRE2_SPTR)path, strlen(path), 0, 0,
                       rt->match[i], NULL) > 0;
}

const struct route *router_match(struct router *rt, struct request *r)
{
    size_t i, used = 0;
    int path_known = 0;

    /* HEAD is GET without the body (RFC 9110 9.3.2): the GET routes answer
     * it, and response_send leaves the body out. */
    const char *method = strcmp(r->method, "HEAD") == 0 ? "GET" : r->method;

    rt->allow[0] = '\0';
    for (i = 0; i < route_count; i++) {
        PCRE2_SIZE *ov;
        uint32_t k, n;

        if (!matches(rt, i, r->path))
            continue;
        path_known = 1;
        if (strcmp(routes[i].method, method) != 0) {
            if (!strstr(rt->allow, routes[i].method)) {
                /* A GET route answers HEAD too, so Allow says so. */
                int w = snprintf(rt->allow + used, sizeof rt->allow - used, "%s%s%s",
                                 used ? ", " : "", routes[i].method,
                                 strcmp(routes[i].method, "GET") == 0 ? ", HEAD" : "");
                if (w > 0 && (size_t)w < sizeof rt->allow - used)
                    used += (size_t)w;
            }
            continue;
        }
        ov = pcre2_get_ovector_pointer(rt->match[i]);
        n = pcre2_get_ovector_count(rt->match[i]);
        for (k = 1; k < n && r->nargs < ROUTE_MAX_ARGS; k++) {
            char *arg = percent_decode(r->path + ov[2 * k], ov[2 * k + 1] - ov[2 * k], 0);

            if (arg == NULL) {
                request_fail(r, 400, "invalid_request", NULL,
                             "the path has a bad percent-escape or is not UTF-8");
                return NULL;
            }
            r->args[r->nargs++] = arg;
        }
        return &routes[i];
    }
    if (path_known) {
        r->allow = rt->allow;
        request_fail(r, 405, "method_not_allowed", NULL,
                     "%s is not allowed here; allowed: %s", r->method, rt->allow);
    } else {
        request_fail(r, 404, "not_found", NULL, "no such route");
    }
    return NULL;
}
