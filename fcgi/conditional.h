/* Conditional requests (RFC 9110 section 13): ETag, If-None-Match and
 * If-Match. */
#ifndef LEDGER_FCGI_CONDITIONAL_H
#define LEDGER_FCGI_CONDITIONAL_H

#include "router.h"

/* Whether the value of an If-None-Match or If-Match field lists tag: "*",
 * or a tag whose opaque part is tag's, with or without W/. */
int etag_listed(const char *field, const char *tag);

/* In the request's transaction, before its handler.  A GET of a list or a
 * report gets its state tag, and 1 when If-None-Match names it (the
 * answer is 304, the handler is not run).  A write to one resource with
 * If-Match renders the resource as its GET one does: *holds is 0 when it
 * does not exist or its tag is not listed.  -1 with r->err set on a
 * failure. */
int conditional_before(struct request *r, const struct route *route, int *holds);

/* The 412 of a write whose If-Match fails: -1, with err set. */
int conditional_refused(ledger_error *err);

/* The If-Match of a write to one resource that may run as a job, which
 * begins its own transactions (a ledger_cond_fn, ctx the request): the
 * library calls it in the write's own snapshot, once the write would
 * succeed; as conditional_before checks it, -1 with err set (412) when it
 * fails. */
int conditional_job(void *ctx, ledger_error *err);

/* After a write to one resource succeeded: its new representation's tag,
 * for the answer's ETag.  -1 with r->err set on a failure. */
int conditional_after(struct request *r, const struct route *route);

#endif
