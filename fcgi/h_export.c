/* /api/export */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "handlers.h"

/* The answer's head goes out with the first bytes of the export, so an
 * export that fails before then is answered with its error as any
 * request is.  Its tag is the state's (conditional.c), known before the
 * first byte is read, so a client holding the file can ask with
 * If-None-Match; but no-store, unlike every other read: the whole ledger
 * is not to be kept in a browser's cache on disk. */
struct export_stream {
    struct request *r;
    enum ledger_export_format format;
    int head_only;  /* HEAD: the head alone */
};

static int put_head(struct export_stream *s)
{
    char head[640], day[16];
    time_t now = time(NULL);
    struct tm tm;
    int n;

    gmtime_r(&now, &tm);
    strftime(day, sizeof day, "%Y-%m-%d", &tm);
    /* Written with snprintf and FCGX_PutStr (DESIGN.md). */
    n = snprintf(head, sizeof head,
                 "Status: 200 OK\r\n"
                 "X-Request-Id: %s\r\n"
                 "ETag: %s\r\n"
                 "Cache-Control: no-store\r\n"
                 "X-Content-Type-Options: nosniff\r\n"
                 "Content-Type: %s\r\n"
                 "Content-Disposition: attachment; filename=\"ledger-export-%s.%s\"\r\n"
                 "\r\n",
                 s->r->id, s->r->etag, ledger_export_media_type(s->format), day,
                 ledger_export_extension(s->format));
    s->r->streamed = 1;
    return FCGX_PutStr(head, n, s->r->fcgx->out) == n ? 0 : -1;
}

static int export_write(void *ctx, const char *buf, size_t len)
{
    struct export_stream *s = ctx;

    if (!s->r->streamed && put_head(s))
        return -1;
    if (s->head_only)
        return 0;
    return FCGX_PutStr(buf, (int)len, s->r->fcgx->out) == (int)len ? 0 : -1;
}

/* GET /api/export */
int h_export(struct request *r)
{
    struct export_stream s = { r, LEDGER_EXPORT_CSV, strcmp(r->method, "HEAD") == 0 };

    const char *format = query_get(r, "format");

    /* JSON, the whole ledger, when the query names no format. */
    if (ledger_export_format(format ? format : "json", &s.format, &r->err))
        return -1;
    if (ledger_export(r->db, r->user_id, s.format, export_write, &s, NULL, NULL, &r->err))
        return -1;
    /* Every export writes something (a CSV its header line at least), so
     * the head has gone out by now. */
    return 0;
}
