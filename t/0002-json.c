/* The strict JSON reader. */
#include "ledger.h"
#include "tap.h"

static void good(const char *json, size_t len, const char *why)
{
    cJSON *doc = NULL;
    ledger_error err;

    ledger_error_clear(&err);
    ok(ledger_json_parse(json, len, &doc, &err) == LEDGER_OK && doc != NULL, "accepts %s", why);
    cJSON_Delete(doc);
}

static void bad(const char *json, size_t len, const char *why)
{
    cJSON *doc = NULL;
    ledger_error err;
    int rc;

    ledger_error_clear(&err);
    rc = ledger_json_parse(json, len, &doc, &err);
    ok(rc == LEDGER_ERR && doc == NULL && err.status == 400
       && strcmp(err.code, "invalid_json") == 0, "refuses %s (%s)", why, err.message);
}

#define GOOD(s, why) good(s, sizeof(s) - 1, why)
#define BAD(s, why) bad(s, sizeof(s) - 1, why)

int main(void)
{
    cJSON *doc = NULL;
    ledger_error err;
    char *deep;
    int i;

    GOOD("{}", "an empty object");
    GOOD("[]", "an empty array");
    GOOD(" {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} \n", "mixed values and whitespace");
    GOOD("\"\\u00e9\\ud83d\\ude00\"", "escapes with a surrogate pair");
    GOOD("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "raw UTF-8");
    GOOD("0", "a bare zero");

    BAD("", "an empty body");
    BAD("{", "a truncated object");
    BAD("{\"a\":1,}", "a trailing comma");
    BAD("{'a':1}", "single quotes");
    BAD("{a:1}", "a bare key");
    BAD("[1 2]", "a missing comma");
    BAD("01", "a leading zero");
    BAD("1.", "a number ending in a point");
    BAD(".5", "a number starting with a point");
    BAD("+1", "a plus sign");
    BAD("NaN", "NaN");
    BAD("Infinity", "Infinity");
    BAD("-Infinity", "-Infinity");
    BAD("[1] [2]", "two values");
    BAD("\"a\x01\"", "a raw control character");
    BAD("\"\\u0000\"", "an escaped NUL");
    BAD("\"a\0b\"", "a raw NUL byte");
    BAD("{\"a\":1}\0", "a NUL after the value");
    BAD("\"\xc3\"", "a truncated UTF-8 sequence");
    BAD("\"\xc0\xaf\"", "an overlong UTF-8 sequence");
    BAD("\"\xed\xa0\x80\"", "an encoded surrogate");
    BAD("\"\xf5\x80\x80\x80\"", "a code point past U+10FFFF");
    BAD("\"\xff\"", "a byte that is never UTF-8");
    BAD("\"\\ud800\"", "a lone high surrogate escape");
    BAD("\"\\udc00\"", "a lone low surrogate escape");
    BAD("\"\\x41\"", "an unknown escape");
    BAD("\"\\u12\"", "a short \\u escape");
    BAD("tru", "a truncated literal");
    BAD("nul", "a truncated null");
    BAD("\"abc", "an unterminated string");

    /* Nesting: the limit passes, one more fails, and 100000 does not
     * exhaust the stack. */
    deep = malloc(200001);
    for (i = 0; i < LEDGER_JSON_MAX_DEPTH; i++)
        deep[i] = '[';
    for (i = 0; i < LEDGER_JSON_MAX_DEPTH; i++)
        deep[LEDGER_JSON_MAX_DEPTH + i] = ']';
    good(deep, 2 * LEDGER_JSON_MAX_DEPTH, "nesting at the depth limit");
    memset(deep, '[', LEDGER_JSON_MAX_DEPTH + 1);
    memset(deep + LEDGER_JSON_MAX_DEPTH + 1, ']', LEDGER_JSON_MAX_DEPTH + 1);
    bad(deep, 2 * (LEDGER_JSON_MAX_DEPTH + 1), "nesting past the depth limit");
    memset(deep, '[', 100000);
    bad(deep, 100000, "100000 open brackets");
    free(deep);

    /* Parses only the given length: no NUL terminator is needed. */
    good("{\"a\":1}garbage", 7, "a length-bounded buffer");

    ledger_error_clear(&err);
    {
        const char *j = "{\"n\": 12.50, \"s\": \"x\\ny\", \"n2\": 1E2}";

        ledger_json_parse(j, strlen(j), &doc, &err);
    }
    is_str(cJSON_GetObjectItem(doc, "n")->valuestring, "12.50", "a number keeps its literal text");
    is_str(cJSON_GetObjectItem(doc, "n2")->valuestring, "1E2", "an exponent literal is kept");
    ok(cJSON_GetObjectItem(doc, "n")->valuedouble == 12.5, "and its value");
    is_str(cJSON_GetObjectItem(doc, "s")->valuestring, "x\ny", "escapes are decoded");
    cJSON_Delete(doc);

    ledger_error_clear(&err);
    ledger_json_parse("{\"a\": 1, \"a\": 2}", strlen("{\"a\": 1, \"a\": 2}"), &doc, &err);
    is_int(cJSON_GetObjectItem(doc, "a")->valuedouble, 1, "the first of repeated keys wins");
    cJSON_Delete(doc);

    ledger_error_clear(&err);
    ledger_json_parse("{\"a\": tru}", strlen("{\"a\": tru}"), &doc, &err);
    ok(strstr(err.message, "byte 6") != NULL, "the error names the byte offset (%s)", err.message);
    return done_testing();
}
