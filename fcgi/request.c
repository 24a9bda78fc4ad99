/* Reading a FastCGI request and writing its response. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/socket.h>
#endif

#include "conditional.h"
#include "request.h"

/* A body after which the memory its tree took is given back (request_end). */
#define BIG_BODY_BYTES (1u << 20)

void request_begin(struct request *r, FCGX_Request *fcgx, const struct config *cfg,
                   ledger_db *db, uint64_t id)
{
    memset(r, 0, sizeof *r);
    r->fcgx = fcgx;
    r->cfg = cfg;
    r->db = db;
    snprintf(r->id, sizeof r->id, "%016" PRIx64, id);
    r->method = FCGX_GetParam("REQUEST_METHOD", fcgx->envp);
    if (r->method == NULL)
        r->method = "";
    r->status = 200;
}

void request_end(struct request *r)
{
    size_t i;
    int j;

    for (i = 0; i < r->nquery; i++) {
        free(r->query[i].key);
        free(r->query[i].value);
    }
    free(r->query);
    for (j = 0; j < r->nargs; j++)
        free(r->args[j]);
    free(r->path);
    free(r->body);
    cJSON_Delete(r->json);
    cJSON_Delete(r->out);
#ifdef __GLIBC__
    /* A large body's tree is many small blocks, which the C library
     * keeps once freed: a process that read one stays many times the
     * body's size for good.  Give them back after such a request. */
    if (r->body_len > BIG_BODY_BYTES)
        malloc_trim(0);
#endif
    memset(r, 0, sizeof *r);
}

int request_fail(struct request *r, int status, const char *code,
                 const char *field, const char *fmt, ...)
{
    char msg[sizeof r->err.message];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ledger_error_set(&r->err, status, code, field, "%s", msg);
}

int request_oom(struct request *r)
{
    return request_fail(r, 500, "internal", NULL, "out of memory");
}

char *percent_decode(const char *s, size_t n, int plus_is_space)
{
    char *out = malloc(n + 1), *o = out;
    size_t i;

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        int hi, lo;

        if (s[i] == '%') {
            /* "%" without two hex digits is no escape: the text is
             * malformed, not a search for "%zz". */
            if (i + 2 >= n || (hi = ledger_hex_digit((unsigned char)s[i + 1])) < 0
                || (lo = ledger_hex_digit((unsigned char)s[i + 2])) < 0) {
                free(out);
                return NULL;
            }
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        } else if (s[i] == '+' && plus_is_space) {
            *o++ = ' ';
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    if (memchr(out, '\0', (size_t)(o - out)) || !ledger_utf8_valid(out, (size_t)(o - out))) {
        free(out);
        return NULL;
    }
    return out;
}

static int add_param(struct request *r, const char *s, size_t n)
{
    const char *eq = memchr(s, '=', n);
    size_t klen = eq ? (size_t)(eq - s) : n;
    struct ledger_param *q;
    char *key, *value;

    if (n == 0)
        return 0;
    key = percent_decode(s, klen, 1);
    value = eq ? percent_decode(eq + 1, n - klen - 1, 1) : strdup("");
    if (key == NULL || value == NULL) {
        free(key);
        free(value);
        return request_fail(r, 400, "invalid_field", NULL,
                            "the query string is not valid percent-encoded UTF-8");
    }
    klen = strlen(key);
    if (klen > 2 && strcmp(key + klen - 2, "[]") == 0)
        key[klen - 2] = '\0';
    q = realloc(r->query, (r->nquery + 1) * sizeof *q);
    if (q == NULL) {
        free(key);
        free(value);
        return request_oom(r);
    }
    r->query = q;
    q[r->nquery].key = key;
    q[r->nquery].value = value;
    r->nquery++;
    return 0;
}

#define MAX_QUERY_PARAMS 256

/* A percent-escape of a character RFC 3986 leaves unreserved (letters,
 * digits, - . _ ~) is the character itself (its 6.2.2.2): decoded before
 * the routes see the path, so /api/transactions/%31 is transaction 1.
 * Every other escape stays for the segment's own decoding (%2F is a slash
 * in a name, not a separator).  -1 for a malformed escape. */
static int path_normalize(char *path)
{
    char *in = path, *out = path;

    while (*in) {
        int hi = in[0] == '%' ? ledger_hex_digit((unsigned char)in[1]) : -1;
        int lo = hi >= 0 ? ledger_hex_digit((unsigned char)in[2]) : -1;
        int c = hi * 16 + lo;

        /* A '%' that starts no escape is malformed: kept, it would make
         * one with what follows once that is decoded ("%%341" would be
         * "%41"), for the router to decode again. */
        if (in[0] == '%' && (hi < 0 || lo < 0))
            return -1;
        if (hi >= 0 && lo >= 0 && c < 128
            && (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')) {
            *out++ = (char)c;
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return 0;
}

/* A key other than a list filter's given twice is refused: limit=1&
 * limit=abc would be a page of one, the second value unread. */
static int repeated_key(struct request *r)
{
    size_t i, j;

    for (i = 0; i < r->nquery; i++) {
        if (ledger_param_is_list(r->query[i].key))
            continue;
        for (j = i + 1; j < r->nquery; j++)
            if (strcmp(r->query[i].key, r->query[j].key) == 0)
                return request_fail(r, 400, "invalid_field", r->query[i].key,
                                    "%s is given more than once", r->query[i].key);
    }
    return 0;
}

int request_parse_uri(struct request *r)
{
    const char *uri = FCGX_GetParam("REQUEST_URI", r->fcgx->envp);
    const char *q, *s;

    if (uri == NULL || uri[0] != '/')
        return request_fail(r, 400, "invalid_request", NULL, "no request URI");
    q = strchr(uri, '?');
    r->path = q ? strndup(uri, (size_t)(q - uri)) : strdup(uri);
    if (r->path == NULL)
        return request_oom(r);
    if (path_normalize(r->path))
        return request_fail(r, 400, "invalid_request", NULL,
                            "the path has a '%%' that is not followed by two hex digits");
    if (q == NULL)
        return 0;
    for (s = q + 1;;) {
        const char *amp = strchr(s, '&');
        size_t n = amp ? (size_t)(amp - s) : strlen(s);

        if (r->nquery >= MAX_QUERY_PARAMS)
            return request_fail(r, 400, "invalid_field", NULL,
                                "more than %d query parameters", MAX_QUERY_PARAMS);
        if (add_param(r, s, n))
            return -1;
        if (amp == NULL)
            break;
        s = amp + 1;
    }
    return repeated_key(r);
}

const char *query_get(const struct request *r, const char *key)
{
    size_t i;

    for (i = 0; i < r->nquery; i++)
        if (strcmp(r->query[i].key, key) == 0)
            return r->query[i].value;
    return NULL;
}

int query_has(const struct request *r, const char *key)
{
    return query_get(r, key) != NULL;
}

struct ledger_params request_params(const struct request *r)
{
    struct ledger_params p = { r->query, r->nquery };

    return p;
}

int request_body_length(struct request *r, size_t *out)
{
    const char *cl = FCGX_GetParam("CONTENT_LENGTH", r->fcgx->envp);
    unsigned long long len = 0;
    const char *p;

    *out = REQUEST_LENGTH_UNKNOWN;
    if (cl == NULL || cl[0] == '\0')
        return 0;
    for (p = cl; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return request_fail(r, 400, "invalid_request", NULL,
                                "Content-Length is not a number");
        /* Stop accumulating once past the limit: the value only has to be
         * known to be too large, and this cannot overflow. */
        if (len <= r->cfg->max_body_bytes)
            len = len * 10 + (unsigned)(*p - '0');
    }
    if (len > r->cfg->max_body_bytes)
        return request_fail(r, 413, "payload_too_large", NULL,
                            "the body is larger than %zu bytes", r->cfg->max_body_bytes);
    *out = (size_t)len;
    return 0;
}

/* A body without a length: read as it comes, in a buffer that doubles,
 * until the stream ends or passes the limit.  Most such requests (every
 * GET) have none, found by the first read, before anything is allocated. */
static int read_body_to_end(struct request *r)
{
    char first[4096];
    size_t cap, got, max = r->cfg->max_body_bytes;
    int n = FCGX_GetStr(first, (int)sizeof first, r->fcgx->in);

    if (n <= 0)
        return 0;
    cap = max + 1 < 65536 ? max + 1 : 65536;
    if ((size_t)n > max)
        return request_fail(r, 413, "payload_too_large", NULL,
                            "the body is larger than %zu bytes", max);
    if ((r->body = malloc(cap)) == NULL)
        return request_oom(r);
    memcpy(r->body, first, (size_t)n);
    got = (size_t)n;
    for (;;) {
        if (got == cap) {
            size_t want = 2 * cap > max + 1 ? max + 1 : 2 * cap;
            char *p;

            if (want <= cap)
                return request_fail(r, 413, "payload_too_large", NULL,
                                    "the body is larger than %zu bytes", max);
            if ((p = realloc(r->body, want)) == NULL)
                return request_oom(r);
            r->body = p;
            cap = want;
        }
        n = FCGX_GetStr(r->body + got, (int)(cap - got > (1u << 30) ? (1u << 30) : cap - got),
                        r->fcgx->in);
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got > max)
            return request_fail(r, 413, "payload_too_large", NULL,
                                "the body is larger than %zu bytes", max);
    }
    r->body_len = got;
    return 0;
}

int request_read_body(struct request *r)
{
    size_t len, got = 0;

    if (r->body_read)
        return 0;
    r->body_read = 1;
    if (request_body_length(r, &len))
        return -1;
    if (len == REQUEST_LENGTH_UNKNOWN)
        return read_body_to_end(r);
    if (len == 0)
        return 0;
    r->body = malloc((size_t)len);
    if (r->body == NULL)
        return request_oom(r);
    /* FCGX_GetStr returns what has arrived in the current records; loop
     * until every byte is here or the stream ends. */
    while (got < len) {
        size_t want = len - got > (1u << 30) ? (1u << 30) : len - got;
        int n = FCGX_GetStr(r->body + got, (int)want, r->fcgx->in);

        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got != len)
        return request_fail(r, 400, "invalid_request", NULL,
                            "the body ended after %zu of %zu bytes", got, len);
    r->body_len = got;
    return 0;
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 503: return "Service Unavailable";
    case 507: return "Insufficient Storage";
    default: return status >= 500 ? "Internal Server Error" : "Error";
    }
}

static cJSON *error_body(const struct request *r)
{
    cJSON *doc = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(doc, "error");
    /* 503 and 507 say what the client can do (try again); other 5xx are
     * bugs, whose detail is for the log. */
    int internal = r->err.status >= 500 && r->err.status != 503 && r->err.status != 507;

    cJSON_AddNumberToObject(e, "status", r->err.status);
    cJSON_AddStringToObject(e, "code", internal ? "internal" : r->err.code);
    if (r->err.field[0] && !internal)
        cJSON_AddStringToObject(e, "field", r->err.field);
    if (internal) {
        /* The log has the detail under this id; the client gets no internals. */
        char msg[64];

        snprintf(msg, sizeof msg, "internal error (request %s)", r->id);
        cJSON_AddStringToObject(e, "message", msg);
    } else {
        cJSON_AddStringToObject(e, "message", r->err.message);
    }
    return doc;
}

void response_send(struct request *r)
{
    char head[512];
    char *text = NULL;
    cJSON *errdoc = NULL;
    int status = r->err.status ? r->err.status : r->status, n, tagged;
    int is_read = strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0;
    char tag_head[64], length_head[48] = "";
    size_t len = 0;

    if (r->streamed) {
        if (r->err.status) {
            r->status = r->err.status;
            /* No END_REQUEST after the bytes sent: the web server sees
             * the upstream close early and ends the client's answer
             * unfinished. */
            if (r->fcgx->ipcFd >= 0)
                shutdown(r->fcgx->ipcFd, SHUT_RDWR);
        }
        return;
    }
    if (r->err.status)
        errdoc = error_body(r);
    if (status != 204 && status != 304) {
        text = ledger_json_print(errdoc ? errdoc : r->out, &len);
        if (text == NULL) {
            status = 500;
            text = strdup("{\"error\":{\"status\":500,\"code\":\"internal\",\"message\":\"out of memory\"}}");
            len = text ? strlen(text) : 0;
        } else if (r->content_tag && status == 200 && !errdoc) {
            const char *want = FCGX_GetParam("HTTP_IF_NONE_MATCH", r->fcgx->envp);

            /* One resource's tag is its bytes' (conditional.c). */
            ledger_tag_of_bytes(text, len, r->etag);
            if (want && etag_listed(want, r->etag)) {
                status = 304;
                free(text);
                text = NULL;
            }
        }
    }
    /* A tag goes with a successful answer only; a read's may be kept and
     * must be asked about again (no-cache) by this user alone (private). */
    tagged = r->etag[0] && !errdoc && (status == 304 || (status >= 200 && status < 300));
    if (tagged)
        snprintf(tag_head, sizeof tag_head, "ETag: %s\r\n", r->etag);
    /* The length, body and its newline (a HEAD's too, as its GET's): the
     * web server sees an answer's size only there, and its compression
     * leaves small answers alone by it (etc/: gzip_min_length, the
     * Apache filter's Content-Length test). */
    if (text)
        snprintf(length_head, sizeof length_head, "Content-Length: %zu\r\n", len + 1);
    /* Responses are formatted with the C library's snprintf and written as
     * bytes: libfcgi's own printf does not know %zu. */
    n = snprintf(head, sizeof head,
                 "Status: %d %s\r\n"
                 "X-Request-Id: %s\r\n"
                 "%s"
                 "Cache-Control: %s\r\n"
                 "X-Content-Type-Options: nosniff\r\n"
                 "%s%s%s"
                 "%s"
                 "%s"
                 "%s"
                 "\r\n",
                 status, reason(status), r->id, tagged ? tag_head : "",
                 tagged && (status == 200 || status == 304) && is_read ? "private, no-cache" : "no-store",
                 r->allow ? "Allow: " : "", r->allow ? r->allow : "", r->allow ? "\r\n" : "",
                 /* busy, restarting, or a job of the caller's being written: soon */
                 status == 503 || (status == 409 && strcmp(r->err.code, "job_running") == 0)
                     ? "Retry-After: 1\r\n" : "",
                 text ? "Content-Type: application/json; charset=utf-8\r\n" : "", length_head);
    FCGX_PutStr(head, n, r->fcgx->out);
    if (text && strcmp(r->method, "HEAD") != 0) {
        FCGX_PutStr(text, (int)len, r->fcgx->out);
        FCGX_PutStr("\n", 1, r->fcgx->out);
    }
    r->status = status;
    free(text);
    cJSON_Delete(errdoc);
}

size_t content_type_charset(const char *ct, const char **v)
{
    const char *p = ct ? strchr(ct, ';') : NULL;

    while (p) {
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncasecmp(p, "charset=", 8) == 0) {
            *v = p + 8;
            if (**v == '"')
                (*v)++;
            return strcspn(*v, "\"; \t");
        }
        p = strchr(p, ';');
    }
    return 0;
}
