/* Serving one request: identity, route, body, transaction, handler, answer. */
#ifndef LEDGER_FCGI_DISPATCH_H
#define LEDGER_FCGI_DISPATCH_H

#include <stdint.h>
#include <fcgiapp.h>

#include "conf.h"
#include "ledger.h"
#include "router.h"

/* Returns 1 when the process must stop after this request: its database
 * is no longer the file at its path, or a newer release migrated it
 * (ledger_db_current); the request has been answered 503. */
int dispatch(FCGX_Request *fcgx, const struct config *cfg, ledger_db *db,
             struct router *rt, uint64_t request_id);

#endif
