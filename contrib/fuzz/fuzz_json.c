/* The strict JSON reader, and the readers of its leaves that every body
 * goes through: money and percentages from a number's literal text, ids,
 * category names.  A tree the reader accepts must print (cJSON) into text
 * the reader accepts again, and ledger_json_print (what ledger-fcgi answers
 * with) must print it byte for byte as cJSON does.  json_parse_lazy (a CSV
 * commit's rows a piece at a time) must give the same verdict, and the
 * same elements from its slices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "db.h"
#include "fields.h"
#include "json_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void leaves(const cJSON *item)
{
    ledger_error err;
    int64_t v;
    char slug[LEDGER_CATEGORY_MAX];

    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            ledger_money_from_json(item, "amount", &v, &err);
            ledger_percent_from_json(item, "share_percent", &v, &err);
            json_id(item, &v);
        } else if (cJSON_IsString(item)) {
            ledger_category_fold(item->valuestring, slug);
            ledger_decimal2_parse(item->valuestring, &v);
            valid_date(item->valuestring);
        }
        leaves(item->child);
    }
}

/* json_parse_lazy agrees with the whole reader's verdict r1 (and tree
 * doc) on member "rows". */
static void lazy_agrees(const uint8_t *data, size_t size, int r1, const cJSON *doc)
{
    struct json_slices sl;
    ledger_error err = { 0 };
    cJSON *lazy = NULL, *item;
    const cJSON *rows;
    size_t i = 0;

    if (json_parse_lazy((const char *)data, size, "rows", &lazy, &sl, &err) != r1) {
        fprintf(stderr, "fuzz: json_parse_lazy's verdict differs: %d\n", r1);
        abort();
    }
    cJSON_Delete(lazy);
    if (r1)
        return;
    rows = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "rows") : NULL;
    if (!cJSON_IsArray(rows))
        rows = NULL;
    if (rows && (size_t)cJSON_GetArraySize(rows) != sl.n)
        abort();
    cJSON_ArrayForEach(item, rows) {
        cJSON *one = NULL;
        char *a, *b;

        if (ledger_json_parse((const char *)data + sl.at[i], sl.len[i], &one, &err))
            abort();
        a = cJSON_PrintUnformatted(item);
        b = cJSON_PrintUnformatted(one);
        if (a == NULL || b == NULL || strcmp(a, b) != 0)
            abort();
        free(a);
        free(b);
        cJSON_Delete(one);
        i++;
    }
    json_slices_free(&sl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ledger_error err = { 0 };
    cJSON *doc = NULL, *again = NULL;
    char *text, *ours;
    size_t len = 0;

    if (ledger_json_parse((const char *)data, size, &doc, &err)) {
        fuzz_check_error("ledger_json_parse", &err);
        lazy_agrees(data, size, LEDGER_ERR, NULL);
        return 0;
    }
    lazy_agrees(data, size, LEDGER_OK, doc);
    leaves(doc);
    text = cJSON_PrintUnformatted(doc);
    if (text == NULL)
        abort();
    if (ledger_json_parse(text, strlen(text), &again, &err)) {
        fprintf(stderr, "fuzz: printed JSON not read back: %s\n%s\n", err.message, text);
        abort();
    }
    ours = ledger_json_print(doc, &len);
    if (ours == NULL || len != strlen(text) || memcmp(ours, text, len) != 0) {
        fprintf(stderr, "fuzz: ledger_json_print differs from cJSON:\n%s\n%s\n", text,
                ours ? ours : "(null)");
        abort();
    }
    free(ours);
    cJSON_Delete(again);
    free(text);
    cJSON_Delete(doc);
    return 0;
}
