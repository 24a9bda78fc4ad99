/* Reading path captures. */
#include <errno.h>
#include <stdlib.h>

#include "handlers.h"

int arg_id(struct request *r, int i, int64_t *id)
{
    char *end;
    long long v;

    if (i >= r->nargs)
        return request_fail(r, 404, "not_found", NULL, "no such resource");
    errno = 0;
    v = strtoll(r->args[i], &end, 10);
    if (*end || errno || v <= 0)
        return request_fail(r, 404, "not_found", NULL, "no such resource");
    *id = v;
    return 0;
}
