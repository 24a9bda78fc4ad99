/* One FastCGI request: what came in, and what goes out. */
#ifndef LEDGER_FCGI_REQUEST_H
#define LEDGER_FCGI_REQUEST_H

#include <stdint.h>
#include <fcgiapp.h>

#include "conf.h"
#include "ledger.h"

#define ROUTE_MAX_ARGS 4

struct route;

/* Everything here lives for one request; request_end frees it.  Pointers
 * into the FastCGI environment (method) die at the next accept. */
struct request {
    FCGX_Request *fcgx;
    const struct config *cfg;
    ledger_db *db;
    char id[17];
    const char *method;
    char *path;                 /* raw path, no query string */
    struct ledger_param *query;   /* decoded; a trailing "[]" removed from keys */
    size_t nquery;
    char *body;                 /* exactly body_len bytes, not NUL-terminated */
    size_t body_len;
    int body_read;              /* request_read_body has run */
    cJSON *json;                /* parsed body of a JSON route */
    int64_t user_id;
    char *args[ROUTE_MAX_ARGS]; /* decoded path captures */
    int nargs;
    const struct route *route;  /* the route matched */

    int status;                 /* response */
    cJSON *out;
    ledger_error err;
    const char *allow;          /* Allow header of a 405 */
    char etag[LEDGER_TAG_SIZE]; /* the answer's ETag; "" for none (conditional.c) */
    int content_tag;            /* response_send tags a 200 by its bytes and answers If-None-Match */
    /* The handler has written the head and some of the body itself, as it
     * read them (an export): response_send writes nothing more, and on an
     * error breaks the connection so the reader sees the body unfinished
     * rather than a whole-looking one cut short. */
    int streamed;
};

void request_begin(struct request *r, FCGX_Request *fcgx, const struct config *cfg,
                   ledger_db *db, uint64_t seq);
void request_end(struct request *r);

/* Decodes %XX (and '+' as a space when plus_is_space) in s[0..n), a
 * query key or value or a path segment, into a new string.  NULL when out
 * of memory, for a '%' without two hex digits, a NUL byte or invalid
 * UTF-8: every value ends up in a C string, the database or an answer. */
char *percent_decode(const char *s, size_t n, int plus_is_space);

/* Splits the URI into path and query; a malformed query is a 400. */
int request_parse_uri(struct request *r);
/* Validates CONTENT_LENGTH: all digits (else 400) and within the limit
 * (else 413), without reading anything.  No header gives
 * REQUEST_LENGTH_UNKNOWN: no body, or one sent in chunks that the web
 * server passes on as it comes (Apache's mod_proxy_fcgi does so past
 * its buffer). */
#define REQUEST_LENGTH_UNKNOWN SIZE_MAX
int request_body_length(struct request *r, size_t *len);
/* Reads the body once: with a length, exactly that many bytes (one that
 * ends early is a 400, never processed truncated); without, to its end,
 * a 413 past the limit. */
int request_read_body(struct request *r);
/* The first value of key in the query string, or NULL. */
const char *query_get(const struct request *r, const char *key);
/* Whether key appears at all (an explicit empty value counts). */
int query_has(const struct request *r, const char *key);
/* The query as libledger's named parameters. */
struct ledger_params request_params(const struct request *r);

/* Sets r->err and returns -1, for handlers: `return request_fail(r, 400, ...)`. */
int request_fail(struct request *r, int status, const char *code,
                 const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* request_fail's 500 for an allocation that failed. */
int request_oom(struct request *r);

/* The charset parameter of Content-Type value ct: its length, and *v set
 * to it (quotes dropped); 0 when ct has none. */
size_t content_type_charset(const char *ct, const char **v);

/* Writes the response: r->out with r->status, or the error body from r->err. */
void response_send(struct request *r);

#endif
