/* The CSV import preview.  An input is the mapping as a query string
 * (date=Date&amount=Amount&date_format=DD/MM/YYYY&has_header=1...), a
 * newline, and the file: the text/csv form of POST
 * /api/import/csv/preview, so both the mapping's readers and csv_parse
 * (quoting, delimiters, encodings, dates, amounts, the guesses) see what
 * a client can send.  The preview writes nothing; its duplicate look-ups
 * run against the fixture. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char prefix[] = "POST /api/import/csv/preview?";
    struct fuzz_env *e = fuzz_env();
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - data) : 0;
    struct ledger_params p;
    struct fuzz_req q;
    cJSON *out = NULL;
    char *line;

    if (nl == NULL)
        return 0;
    line = malloc(sizeof prefix + n);
    if (line == NULL)
        abort();
    memcpy(line, prefix, sizeof prefix - 1);
    memcpy(line + sizeof prefix - 1, data, n);
    line[sizeof prefix - 1 + n] = '\0';
    if (fuzz_req_begin(&q, line) == 0) {
        p = request_params(&q.r);
        /* The file points into the input, whose end the sanitizers know. */
        ledger_csv_preview(e->db, e->me, (const char *)nl + 1, size - n - 1, NULL, &p, &out,
                           &q.r.err);
        cJSON_Delete(out);
    }
    fuzz_check_error("the CSV preview", &q.r.err);
    fuzz_req_end(&q);
    free(line);
    return 0;
}
