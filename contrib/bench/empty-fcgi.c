/*
 * empty-fcgi: the ceiling for the HTTP benchmark.  The same libfcgi accept
 * loop as ledger-fcgi, answering every request with a fixed JSON body and
 * doing nothing else, so "our requests/s as a share of this" is what the
 * service costs on top of the web server and FastCGI themselves.
 *
 *   empty-fcgi   (serves the listening socket inherited on fd 0)
 */
#include <stdio.h>
#include <string.h>
#include <fcgiapp.h>

int main(void)
{
    static const char reply[] =
        "Status: 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
        "{\"items\":[],\"total\":0}\n";
    FCGX_Request req;

    if (FCGX_Init() != 0 || FCGX_InitRequest(&req, 0, 0) != 0)
        return 1;
    while (FCGX_Accept_r(&req) >= 0) {
        FCGX_PutStr(reply, (int)strlen(reply), req.out);
        FCGX_Finish_r(&req);
    }
    return 0;
}
