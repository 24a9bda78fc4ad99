/* The strict JSON reader, and the readers of its leaves that every body
 * goes through: money and percentages from a number's literal text, ids,
 * category names.  A tree the reader accepts must print (cJSON) into text
 * the reader accepts again, and ledger_json_print (what ledger-fcgi answers
 * with) must print it byte for byte as cJSON does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "db.h"
#include "fields.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ledger_error err = { 0 };
    cJSON *doc = NULL, *again = NULL;
    char *text, *ours;
    size_t len = 0;

    if (ledger_json_parse((const char *)data, size, &doc, &err)) {
        fuzz_check_error("ledger_json_parse", &err);
        return 0;
    }
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
