/* The OFX/QFX reader.  An input is a statement file, as the body of POST
 * /api/statements/import.  ofx_parse reads it; a file it accepts is then
 * imported for real (accounts to statements, FITIDs, currencies, balances)
 * in a transaction that is rolled back. */
#include <stdlib.h>

#include "harness.h"
#include "ofx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_env *e = fuzz_env();
    const char *buf = (const char *)data;
    ledger_error err = { 0 };
    struct ofx_doc doc;
    cJSON *out = NULL;
    int created = 0;

    if (ofx_parse(buf, size, &doc, &err)) {
        fuzz_check_error("ofx_parse", &err);
        return 0;
    }
    if (doc.naccounts == 0)
        abort();  /* the contract: a success holds at least one account */
    ofx_doc_free(&doc);
    if (ledger_begin(e->db, 1, &err) == 0) {
        ledger_statement_import(e->db, e->me, buf, size, &out, &created, &err);
        cJSON_Delete(out);
        ledger_rollback(e->db);
    }
    fuzz_check_error("the statement import", &err);
    return 0;
}
