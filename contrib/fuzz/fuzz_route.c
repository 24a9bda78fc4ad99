/* The router and the query-string parser.  An input is one request line,
 * "METHOD URI" (no space: a GET of the whole input), read by the real
 * request_parse_uri and router_match.  A route that matches runs its
 * handler against the fixture, without a body, in a transaction that is
 * rolled back: so the query parameters reach the library's readers
 * (filters, sort, cursors, months, basis) and a JSON route sees the empty
 * body dispatch() leaves it. */
#include <stdlib.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_env *e = fuzz_env();
    char *line = fuzz_strndup(data, size);
    const struct route *route;
    struct fuzz_req q;

    if (fuzz_req_begin(&q, line) == 0 && (route = router_match(e->router, &q.r)) != NULL) {
        /* Every decoded key and value must be a C string the accessors
         * can find again. */
        size_t i;

        for (i = 0; i < q.r.nquery; i++)
            if (query_get(&q.r, q.r.query[i].key) == NULL)
                abort();
        if (ledger_begin(e->db, (route->flags & ROUTE_WRITE) != 0, &q.r.err) == 0) {
            if (route->handler(&q.r) && q.r.err.status == 0)
                abort();  /* dispatch() would answer 500 */
            ledger_rollback(e->db);
        }
    }
    fuzz_check_error(q.r.path ? q.r.path : "the request line", &q.r.err);
    fuzz_req_end(&q);
    free(line);
    return 0;
}
