/* What the fuzz targets share: one in-memory ledger with a small fixture,
 * and a request as the FastCGI front end would build it. */
#ifndef LEDGER_FUZZ_HARNESS_H
#define LEDGER_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "request.h"
#include "router.h"

/* Ids of the fixture, for the seeds: user 1 (the caller) owns tag 1,
 * manual transaction 1, statement 1 with transaction 2 (split half and
 * half with user 2), trip 1 and rule 1; user 2 is a participant of the
 * caller.  Everything an input changes is rolled back, so every input
 * sees exactly this. */
struct fuzz_env {
    ledger_db *db;
    int64_t me;
    struct router *router;
    struct config cfg;
};

/* Opens the ledger and compiles the routes on first use; aborts when that
 * fails (nothing can be fuzzed without them). */
struct fuzz_env *fuzz_env(void);

/* A copy of data[0..len) with a NUL after it; the caller frees it. */
char *fuzz_strndup(const uint8_t *data, size_t len);

/* A request and the FastCGI parameters it points into. */
struct fuzz_req {
    struct request r;
    FCGX_Request fcgx;
    /* Where a handler that writes its own answer (the export) writes:
     * bytes dropped as the buffer fills. */
    FCGX_Stream out;
    unsigned char out_buf[4096];
    char *env[3];
    char method[48];  /* "REQUEST_METHOD=..." */
    char *uri;        /* "REQUEST_URI=...", owned */
};

/* Starts a request for line, "METHOD URI" (no space: a GET of line), as
 * dispatch() does: request_begin, then request_parse_uri, whose result it
 * returns.  The caller user 1.  fuzz_req_end frees it all. */
int fuzz_req_begin(struct fuzz_req *q, const char *line);
void fuzz_req_end(struct fuzz_req *q);

/* A 500 answered to any input is a bug the fuzzer should stop at, like a
 * crash: user input must never reach an internal error.  Aborts with the
 * message when err says so. */
void fuzz_check_error(const char *what, const ledger_error *err);

#endif
