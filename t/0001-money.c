/* Money and percentages: decimal text to integer hundredths and back; and
 * how a failed lookup of an id in a body is answered (error_in_body). */
#include "db.h"
#include "tap.h"

static void parses(const char *text, long long want)
{
    int64_t v = -999;

    ok(ledger_decimal2_parse(text, &v) == LEDGER_OK && v == want,
       "'%s' is %lld hundredths (got %lld)", text, want, (long long)v);
}

static void refuses(const char *text)
{
    int64_t v = 4242;

    ok(ledger_decimal2_parse(text, &v) == LEDGER_ERR && v == 4242, "'%s' is refused", text);
}

static void from_json(const char *json, int want_ok, long long want)
{
    cJSON *doc = NULL;
    ledger_error err;
    int64_t v = 0;
    int rc;

    ledger_error_clear(&err);
    if (ledger_json_parse(json, strlen(json), &doc, &err)) {
        ok(0, "parse %s: %s", json, err.message);
        return;
    }
    rc = ledger_money_from_json(cJSON_GetObjectItem(doc, "amount"), "amount", &v, &err);
    if (want_ok)
        ok(rc == LEDGER_OK && v == want, "%s gives %lld cents", json, want);
    else
        ok(rc == LEDGER_ERR && err.status == 400 && strcmp(err.code, "invalid_field") == 0
           && strcmp(err.field, "amount") == 0, "%s is a 400 naming amount (%s)", json, err.message);
    cJSON_Delete(doc);
}

int main(void)
{
    char buf[32];
    int64_t p;
    ledger_error err;
    cJSON *doc = NULL;

    parses("0", 0);
    parses("12", 1200);
    parses("12.3", 1230);
    parses("12.34", 1234);
    parses("-12.34", -1234);
    parses("0.01", 1);
    parses("0.10", 10);
    parses("12.300", 1230);           /* trailing zeros are not decimals */
    parses("1e2", 10000);
    parses("1.5E1", 1500);
    parses("1234e-2", 1234);
    parses("0.1", 10);                /* no binary rounding: exactly 10 cents */
    parses("10000000000000", INT64_C(1000000000000000));  /* 10^13 exactly */
    parses("-10000000000000", -INT64_C(1000000000000000));
    parses("9999999999999.99", INT64_C(999999999999999));
    parses("000012.5", 1250);
    parses("0e999999", 0);

    refuses("12.345");
    refuses("0.001");
    refuses("1e-3");
    refuses("10000000000000.01");     /* over 10^13 */
    refuses("1e14");
    refuses("99999999999999999999999");
    refuses("");
    refuses("-");
    refuses("abc");
    refuses("1.");
    refuses(".5");
    refuses("1..2");
    refuses("1e");
    refuses("NaN");
    refuses("Infinity");
    refuses("12.34 ");
    refuses("+1");
    refuses("10000000000000.001");    /* a double would round this to 10^13 */
    /* Past int64 cents: 17 nines are 9999999999999999900 cents, over
     * INT64_MAX; INT64_MAX + 1 cents.  Refused before any arithmetic could
     * wrap them into a negative (or, signed "-", a positive) amount. */
    refuses("99999999999999999");
    refuses("-99999999999999999");
    refuses("92233720368547758.08");

    from_json("{\"amount\": 12.34}", 1, 1234);
    from_json("{\"amount\": 0.3}", 1, 30);
    from_json("{\"amount\": 12.345}", 0, 0);
    from_json("{\"amount\": \"12.34\"}", 0, 0);
    from_json("{\"amount\": null}", 0, 0);
    from_json("{\"amount\": true}", 0, 0);
    from_json("{\"amount\": 1e300}", 0, 0);

    is_str(ledger_decimal2_format(1234, buf, sizeof buf), "12.34", "format 1234");
    is_str(ledger_decimal2_format(-5, buf, sizeof buf), "-0.05", "format -5");
    is_str(ledger_decimal2_format(0, buf, sizeof buf), "0.00", "format 0");
    is_str(ledger_decimal2_format(100, buf, sizeof buf), "1.00", "format 100");
    is_str(ledger_decimal2_format(-100, buf, sizeof buf), "-1.00", "format -100");
    /* Sums past 64 bits, as reports write them. */
    {
        static const struct { money_sum v; const char *text; } sums[] = {
            { 0, "0.00" }, { 7, "0.07" }, { -1234, "-12.34" },
            { (money_sum)INT64_MAX + 1, "92233720368547758.08" },
            { (money_sum)INT64_MIN - 1, "-92233720368547758.09" },
            { (money_sum)INT64_MAX * 2, "184467440737095516.14" },
            { (money_sum)UINT64_MAX + 1, "184467440737095516.16" },
            { (money_sum)UINT64_MAX * 1000 + 5, "184467440737095516150.05" },
            { (money_sum)UINT64_MAX * 100 + 5, "18446744073709551615.05" },
            { -((money_sum)UINT64_MAX * 10 + 3), "-1844674407370955161.53" },
            { (money_sum)1000000000000000000 * 100, "1000000000000000000.00" },
        };
        size_t i;

        for (i = 0; i < sizeof sums / sizeof sums[0]; i++) {
            cJSON *j = money_sum_to_json(sums[i].v);

            is_str(j ? j->valuestring : "", sums[i].text, "a sum written %s", sums[i].text);
            cJSON_Delete(j);
        }
    }
    is_str(ledger_decimal2_format(7, buf, sizeof buf), "0.07", "format 7");
    is_str(ledger_decimal2_format(1000000000, buf, sizeof buf), "10000000.00", "format 10^9");
    is_str(ledger_decimal2_format(INT64_MAX, buf, sizeof buf), "92233720368547758.07", "format INT64_MAX");
    is_str(ledger_decimal2_format(-123456, buf, 5), "-123", "a short buffer keeps the start, terminated");
    /* A buffer as long as the text, but for its NUL: all but the last
     * character, and nothing past the buffer (the text is written in
     * place only when the NUL fits too). */
    {
        char b[16];
        size_t n;

        memset(b, 'X', sizeof b);
        ledger_decimal2_format(-123456, b, 8);
        is_str(b, "-1234.5", "-1234.56 in 8 bytes keeps all but its last character");
        ok(b[8] == 'X', "and writes nothing past the 8 bytes");
        memset(b, 'X', sizeof b);
        ledger_decimal2_format(5, b, 4);
        is_str(b, "0.0", "0.05 in 4 bytes is 0.0");
        ok(b[4] == 'X', "and writes nothing past the 4 bytes");
        memset(b, 'X', sizeof b);
        n = money_sum_text((money_sum)123456, b, 7);
        ok(n == 6 && strcmp(b, "1234.5") == 0 && b[7] == 'X',
           "money_sum_text of 1234.56 in 7 bytes: 6 characters, in bounds");
        memset(b, 'X', sizeof b);
        n = money_sum_text((money_sum)123456, b, 8);
        ok(n == 7 && strcmp(b, "1234.56") == 0, "and in 8: all of it");
    }
    is_str(ledger_decimal2_format(INT64_MIN, buf, sizeof buf), "-92233720368547758.08",
           "format INT64_MIN without overflow");

    ledger_error_clear(&err);
    ledger_json_parse("[33.33, 100, 100.01, -1, 0]", strlen("[33.33, 100, 100.01, -1, 0]"), &doc, &err);
    ok(ledger_percent_from_json(cJSON_GetArrayItem(doc, 0), "share_percent", &p, &err) == 0
       && p == 3333, "33.33%% is 3333 hundredths");
    ok(ledger_percent_from_json(cJSON_GetArrayItem(doc, 1), "share_percent", &p, &err) == 0
       && p == 10000, "100%% is 10000 hundredths");
    ok(ledger_percent_from_json(cJSON_GetArrayItem(doc, 2), "share_percent", &p, &err) != 0,
       "100.01%% is refused");
    ok(ledger_percent_from_json(cJSON_GetArrayItem(doc, 3), "share_percent", &p, &err) != 0,
       "-1%% is refused");
    ok(ledger_percent_from_json(cJSON_GetArrayItem(doc, 4), "share_percent", &p, &err) == 0
       && p == 0, "0%% is 0");
    cJSON_Delete(doc);

    doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "a", ledger_money_to_json(-1234));
    {
        char *text = cJSON_PrintUnformatted(doc);

        is_str(text, "{\"a\":-12.34}", "money prints as an exact JSON number");
        free(text);
    }
    cJSON_Delete(doc);

    /* An id named in a body: a missing one is the body's fault (400 naming
     * the field), another user's 403 naming it; a server's failure while
     * looking it up is not the body's, and names nothing. */
    ledger_error_clear(&err);
    ledger_error_set(&err, 503, "busy", NULL, "the database is busy");
    ok(error_in_body(&err, "tag_id") == LEDGER_ERR && err.status == 503 && strcmp(err.code, "busy") == 0
       && err.field[0] == '\0', "a 503 while looking up a tag_id stays 503 busy, naming no field");
    ledger_error_clear(&err);
    ledger_error_set(&err, 404, "not_found", NULL, "no such tag");
    error_in_body(&err, "tag_id");
    ok(err.status == 400 && strcmp(err.code, "invalid_field") == 0 && strcmp(err.field, "tag_id") == 0,
       "a missing tag_id: 400 invalid_field naming it");
    ledger_error_clear(&err);
    ledger_error_set(&err, 403, "forbidden", NULL, "not yours");
    error_in_body(&err, "tag_id");
    ok(err.status == 403 && strcmp(err.code, "forbidden") == 0 && strcmp(err.field, "tag_id") == 0,
       "another user's tag_id: 403 forbidden naming it");
    return done_testing();
}
