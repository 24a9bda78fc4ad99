/* The CSV import preview.  An input is the mapping as a query string
 * (date=Date&amount=Amount&date_format=DD/MM/YYYY&has_header=1...), a
 * newline, and the file: the text/csv form of POST
 * /api/import/csv/preview, so both the mapping's readers and csv_parse
 * (quoting, delimiters, encodings, dates, amounts, the guesses) see what
 * a client can send.  The preview writes nothing; its duplicate look-ups
 * run against the fixture.  Then the rows it showed without an error are
 * committed, as a client sends them back: the commit must take them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The preview promises that what the commit would refuse is an error in
 * the preview already (csv_import.c).  The body goes through cJSON's
 * printer and ledger_json_parse, as over HTTP. */
static void commit_what_preview_took(struct fuzz_env *e, const cJSON *preview)
{
    static const char *const keys[] = { "date", "description", "amount", "transaction_type" };
    cJSON *body = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(body, "rows");
    cJSON *sent = NULL, *out = NULL;
    const cJSON *row;
    ledger_error err = { 0 };
    char *text = NULL;
    size_t i;

    cJSON_AddTrueToObject(body, "allow_duplicates");
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(preview, "rows")) {
        cJSON *o;

        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(row, "errors")) > 0)
            continue;
        o = cJSON_CreateObject();
        for (i = 0; i < sizeof keys / sizeof *keys; i++)
            cJSON_AddItemToObject(o, keys[i],
                                  cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(row, keys[i]), 1));
        cJSON_AddItemToArray(rows, o);
    }
    if (cJSON_GetArraySize(rows) == 0)
        goto out;
    if ((text = cJSON_PrintUnformatted(body)) == NULL)
        abort();
    if (ledger_json_parse(text, strlen(text), &sent, &err)) {
        fprintf(stderr, "fuzz: the preview's rows are not JSON we read: %s\n%s\n", err.message, text);
        abort();
    }
    if (ledger_begin(e->db, 1, &err) == 0) {
        if (ledger_csv_commit(e->db, e->me, sent, &out, &err)) {
            fprintf(stderr, "fuzz: the commit refuses what the preview showed without an error:"
                    " %d %s: %s\n%s\n", err.status, err.field, err.message, text);
            abort();
        }
        ledger_rollback(e->db);
    }
out:
    cJSON_Delete(out);
    cJSON_Delete(sent);
    cJSON_Delete(body);
    free(text);
}

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
        if (ledger_csv_preview(e->db, e->me, (const char *)nl + 1, size - n - 1, NULL, &p, &out,
                               &q.r.err) == 0)
            commit_what_preview_took(e, out);
        cJSON_Delete(out);
    }
    fuzz_check_error("the CSV preview", &q.r.err);
    fuzz_req_end(&q);
    free(line);
    return 0;
}
