/* Routes as data: one table of {method, pattern, handler, flags, current}, each
 * pattern compiled (and JIT-compiled) once at start-up. */
#ifndef LEDGER_FCGI_ROUTER_H
#define LEDGER_FCGI_ROUTER_H

#include <stddef.h>

#include "request.h"

typedef int (*handler_fn)(struct request *r);

enum route_flags {
    ROUTE_WRITE = 1,  /* runs in one write transaction */
    ROUTE_JSON = 2,   /* takes a JSON body */
    ROUTE_CSV = 4,    /* also takes a text/csv body */
    ROUTE_RAW = 8,    /* takes a file as bytes, of any type (the library checks it) */
    ROUTE_ONE = 16,   /* GET of one resource: its ETag is a hash of its bytes (conditional.c) */
    ROUTE_JOB = 32,   /* a write whose transactions the library begins (a large one runs as a job, lib/job.c) */
    ROUTE_JSON_TEXT = 64 /* its JSON body is handed over as text, for the library to read */
};

struct route {
    const char *method;
    const char *pattern;  /* anchored by the router; captures become r->args */
    handler_fn handler;
    unsigned flags;
    /* A write to one resource: the GET one route's handler, which renders
     * the resource for If-Match and for the answer's ETag (conditional.c). */
    handler_fn current;
};

extern const struct route routes[];
extern const size_t route_count;

struct router;

/* Compiles every pattern, JIT-compiled unless jit is 0; a bad one stops
 * start-up with pcre2's message. */
int router_new(struct router **out, int jit, char *msg, size_t msglen);
void router_free(struct router *rt);
/* Finds the route for r->method and r->path and fills r->args.  Returns the
 * route, or NULL with r->err set to 404, or to 405 with r->allow. */
const struct route *router_match(struct router *rt, struct request *r);

#endif
