/* The route table.  Patterns are anchored at both ends by the router;
 * a capture group becomes the next entry of r->args. */
#include "handlers.h"
#include "router.h"

#define ID "([0-9]+)"

const struct route routes[] = {
    { "GET", "/api/me", h_me_get, 0 },
    { "GET", "/api/categories", h_categories_list, 0 },
};

const size_t route_count = sizeof routes / sizeof routes[0];
