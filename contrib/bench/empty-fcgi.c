/*
 * empty-fcgi: the ceiling for the HTTP benchmark.  The same libfcgi accept
 * loop as ledger-fcgi, answering every request with a fixed JSON body and
 * doing nothing else, so "our requests/s as a share of this" is what the
 * service costs on top of the web server and FastCGI themselves.
 *
 *   empty-fcgi [BODY-FILE]   (serves the listening socket inherited on fd 0)
 *
 * With a file, its bytes are the body: a page's own JSON, so that the
 * share of this ceiling is what the service costs beyond carrying that
 * many bytes through FastCGI and the web server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcgiapp.h>

#define HEAD "Status: 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
static const char head[] = HEAD;

/* The file's bytes after head, in one buffer; NULL when it cannot be read. */
static char *reply_of_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0
        || (buf = malloc(sizeof head - 1 + (size_t)size)) == NULL
        || fread(buf + sizeof head - 1, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    } else {
        memcpy(buf, head, sizeof head - 1);
        *len = sizeof head - 1 + (size_t)size;
    }
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    static const char fixed[] = HEAD "{\"items\":[],\"total\":0}\n";
    const char *reply = fixed;
    char *file_reply = NULL;
    size_t len = sizeof fixed - 1;
    FCGX_Request req;

    if (argc > 1 && (reply = file_reply = reply_of_file(argv[1], &len)) == NULL) {
        fprintf(stderr, "empty-fcgi: cannot read %s\n", argv[1]);
        return 1;
    }
    if (FCGX_Init() != 0 || FCGX_InitRequest(&req, 0, 0) != 0)
        return 1;
    while (FCGX_Accept_r(&req) >= 0) {
        FCGX_PutStr(reply, (int)len, req.out);
        FCGX_Finish_r(&req);
    }
    free(file_reply);
    return 0;
}
