/* The strict JSON reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "json_in.h"
#include "tap.h"

/* json_parse_lazy with member `member` reads json as ledger_json_parse
 * does: the same verdict (status and message), and where the whole tree
 * has that member as an array at its top, the same elements from the
 * slices, each read again alone. */
static void lazy_agrees(const char *json, size_t len, const char *member, const char *why)
{
    cJSON *whole = NULL, *lazy = NULL, *arr, *item;
    struct json_slices sl;
    ledger_error e1, e2;
    int r1, r2, same = 1;
    size_t i = 0;

    ledger_error_clear(&e1);
    ledger_error_clear(&e2);
    r1 = ledger_json_parse(json, len, &whole, &e1);
    r2 = json_parse_lazy(json, len, member, &lazy, &sl, &e2);
    if (r1 != r2 || (r1 && (e1.status != e2.status || strcmp(e1.message, e2.message) != 0)))
        same = 0;
    arr = r1 == LEDGER_OK && cJSON_IsObject(whole) ? cJSON_GetObjectItemCaseSensitive(whole, member)
                                                   : NULL;
    if (same && cJSON_IsArray(arr)) {
        same = (size_t)cJSON_GetArraySize(arr) == sl.n;
        cJSON_ArrayForEach(item, arr) {
            cJSON *one = NULL;
            ledger_error e3;
            char *a, *b;

            if (!same || ledger_json_parse(json + sl.at[i], sl.len[i], &one, &e3)) {
                same = 0;
                break;
            }
            a = cJSON_PrintUnformatted(item);
            b = cJSON_PrintUnformatted(one);
            same = a && b && strcmp(a, b) == 0;
            free(a);
            free(b);
            cJSON_Delete(one);
            i++;
        }
    }
    ok(same, "read a piece at a time (%s), %s reads the same (%s / %s)", member, why,
       r1 ? e1.message : "ok", r2 ? e2.message : "ok");
    cJSON_Delete(whole);
    cJSON_Delete(lazy);
    if (r2 == LEDGER_OK)
        json_slices_free(&sl);
}

static void good(const char *json, size_t len, const char *why)
{
    cJSON *doc = NULL;
    ledger_error err;

    ledger_error_clear(&err);
    ok(ledger_json_parse(json, len, &doc, &err) == LEDGER_OK && doc != NULL, "accepts %s", why);
    cJSON_Delete(doc);
    lazy_agrees(json, len, "a", why);
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
    lazy_agrees(json, len, "a", why);
}

/* ledger_json_print writes what cJSON_PrintUnformatted writes, byte for
 * byte; doc is freed. */
static void prints_as_cjson(cJSON *doc, const char *why)
{
    char *want = cJSON_PrintUnformatted(doc), *got;
    size_t len = 0;

    got = ledger_json_print(doc, &len);
    if (!ok(want && got && strcmp(got, want) == 0 && len == strlen(want), "printed as cJSON prints %s", why))
        printf("# cJSON: %s\n# ours:  %s\n", want ? want : "(null)", got ? got : "(null)");
    free(want);
    free(got);
    cJSON_Delete(doc);
}

/* The same for text read by the strict reader. */
static void reprints(const char *json, const char *why)
{
    cJSON *doc = NULL;
    ledger_error err;

    ledger_error_clear(&err);
    if (ledger_json_parse(json, strlen(json), &doc, &err) != LEDGER_OK) {
        ok(0, "%s parses (%s)", why, err.message);
        return;
    }
    prints_as_cjson(doc, why);
}

static void print_numbers(void)
{
    static const double v[] = {
        0, -0.0, 1, -1, 7, 1931, -42, 0.1, -0.1, 0.5, 12.5, 1.0 / 3, 2.0 / 3, 100, 1e14,
        999999999999999, -999999999999999, 1e15, -1e15, 1e15 + 1, 123456789012345678.0,
        9007199254740993.0, 1e21, 1e300, -1e300, 5e-324, 2.2250738585072014e-308, 1e-7,
        0.000001, 4503599627370495.5, 2147483647, 2147483648.0, -2147483649.0, 1e100 / 3,
    };
    size_t i;

    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        cJSON *a = cJSON_CreateArray();
        char why[64];

        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
        snprintf(why, sizeof why, "the number %.17g", v[i]);
        prints_as_cjson(a, why);
    }
    {
        cJSON *a = cJSON_CreateArray();

        cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
        cJSON_AddItemToArray(a, cJSON_CreateNumber(-INFINITY));
        prints_as_cjson(a, "NaN and the infinities (null)");
    }
}

static void print_trees(void)
{
    cJSON *o;
    char ctl[40];
    int i;

    reprints("{}", "an empty object");
    reprints("[]", "an empty array");
    reprints("[[],{},[[{}]],{\"a\":{}}]", "nested empties");
    reprints(" {\"a\" : [1, -2.5e3, true, false, null, \"x\"], \"b\": {\"c\": 1.10}} ",
             "mixed values, and a literal written longer than its value");
    reprints("\"\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0001\\u001f \\u007f\"",
             "every escape cJSON writes, and one it does not");
    reprints("\"\\u00e9t\\u00e9 \\ud83d\\ude00 caf\u00c3\u00a9\"", "UTF-8, as it is");
    reprints("{\"\\n key \\\"q\\\"\": 1, \"\": 2}", "keys with escapes, and an empty key");
    reprints("[0.01, 12.345, 1e2, 1E-2, -0, 123456789012345678901234567890]", "number literals");

    for (i = 0; i < 31; i++)
        ctl[i] = (char)(i + 1);
    ctl[31] = '\0';
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, ctl, ctl);
    prints_as_cjson(o, "every control character, in a key and a value");

    o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "money", cJSON_CreateRaw("12.50"));
    cJSON_AddItemToObject(o, "pct", ledger_money_to_json(-3333));
    cJSON_AddItemToObjectCS(o, "const", cJSON_CreateString("key not copied"));
    cJSON_AddItemReferenceToObject(o, "ref", cJSON_GetObjectItem(o, "money"));
    prints_as_cjson(o, "raw text, constant keys and references");

    o = cJSON_CreateArray();
    cJSON_AddItemToArray(o, cJSON_CreateString("x"));
    free(cJSON_GetArrayItem(o, 0)->valuestring);
    cJSON_GetArrayItem(o, 0)->valuestring = NULL;
    prints_as_cjson(o, "a string item without text (\"\")");

    o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "r", cJSON_CreateRaw("1"));
    free(cJSON_GetObjectItem(o, "r")->valuestring);
    cJSON_GetObjectItem(o, "r")->valuestring = NULL;
    ok(ledger_json_print(o, NULL) == NULL, "a raw item without text prints nothing, as in cJSON");
    cJSON_Delete(o);
    o = cJSON_CreateArray();
    cJSON_AddItemToArray(o, cJSON_CreateNull());
    cJSON_GetArrayItem(o, 0)->type = cJSON_Invalid;
    ok(ledger_json_print(o, NULL) == NULL && cJSON_PrintUnformatted(o) == NULL,
       "nor does an invalid item");
    cJSON_Delete(o);
    ok(ledger_json_print(NULL, NULL) == NULL, "nor NULL");

    /* Long enough to grow the buffer several times. */
    o = cJSON_CreateArray();
    for (i = 0; i < 20000; i++)
        cJSON_AddItemToArray(o, i % 2 ? cJSON_CreateNumber(i * 7.25) : cJSON_CreateString("row"));
    prints_as_cjson(o, "20,000 items");
}

#define GOOD(s, why) good(s, sizeof(s) - 1, why)
#define LAZY(s, member, why) lazy_agrees(s, sizeof(s) - 1, member, why)
#define BAD(s, why) bad(s, sizeof(s) - 1, why)

/* cJSON's allocator, failing its k-th allocation once armed. */
static long fail_at, allocations;

static void *failing_malloc(size_t n)
{
    return fail_at && ++allocations == fail_at ? NULL : malloc(n);
}

/* Out of memory at each of cJSON's allocations in turn, a body parses
 * whole or not at all: a member cJSON had no memory to add was left out
 * and the body taken without it (a PATCH would have dropped a field). */
static void parse_out_of_memory(void)
{
    static const char body[] = "{\"date\": \"2026-03-01\", \"amount\": 12.5,"
                               " \"tags\": [1, 2, {\"x\": null}], \"note\": \"n\"}";
    cJSON_Hooks hooks = { failing_malloc, free };
    cJSON *want = NULL, *doc;
    ledger_error err;
    long partial = 0, not_500 = 0, swept;

    ledger_json_parse(body, strlen(body), &want, &err);
    cJSON_InitHooks(&hooks);
    for (fail_at = 1;; fail_at++) {
        allocations = 0;
        doc = NULL;
        ledger_error_clear(&err);
        if (ledger_json_parse(body, strlen(body), &doc, &err) == LEDGER_OK) {
            partial += !cJSON_Compare(doc, want, 1);
        } else {
            not_500 += err.status != 500;
        }
        cJSON_Delete(doc);
        if (allocations < fail_at)
            break;
    }
    swept = fail_at - 1;
    fail_at = 0;
    cJSON_InitHooks(NULL);
    ok(want && partial == 0 && not_500 == 0,
       "out of memory at each of %ld allocations, a body parses whole or fails with a 500"
       " (%ld partial, %ld other statuses)", swept, partial, not_500);
    cJSON_Delete(want);
}

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

    /* The pieces of a CSV commit's rows, where they lie and what is wrong
     * inside one (json_parse_lazy). */
    GOOD("{\"rows\": [{\"a\": 1}, [2, {\"b\": \"x\"}], \"s\", 3.5e1, null], \"a\": [true]}",
         "rows of every kind");
    LAZY("{\"rows\": [{\"a\": 1}, [2, {\"b\": \"x\"}], \"s\", 3.5e1, null]}", "rows",
                "rows of every kind");
    LAZY("{\"x\": {\"rows\": [1]}, \"rows\": [ 1 , {\"d\":\"\\u00e9\"} ] }", "rows",
                "a nested member of that name, and spaces");
    LAZY("{\"rows\": [1, 2], \"rows\": [3]}", "rows", "the member twice");
    LAZY("{\"rows\": [{\"a\": 1, \"a\": 2}]}", "rows", "a repeated name in a row");
    LAZY("{\"rows\": [1, 01]}", "rows", "a bad number in a row");
    LAZY("{\"rows\": [1, 2,]}", "rows", "a trailing comma in the rows");
    LAZY("{\"rows\": [1, 2}", "rows", "the rows unclosed");
    LAZY("{\"rows\": \"no\"}", "rows", "rows that are no array");
    LAZY("[{\"rows\": [1]}]", "rows", "no object at the top");
    LAZY("{\"rows\": []}", "rows", "no rows");
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

    /* Values: the limit passes, one more is a 413. */
    {
        size_t n = 2 * (size_t)LEDGER_JSON_MAX_VALUES + 2, k;
        char *many = malloc(n + 2);

        /* An array of LEDGER_JSON_MAX_VALUES - 1 zeros: that many values. */
        many[0] = '[';
        for (k = 1; k < 2 * (size_t)LEDGER_JSON_MAX_VALUES - 2; k += 2) {
            many[k] = '0';
            many[k + 1] = ',';
        }
        many[k - 1] = ']';
        good(many, k, "as many values as the limit (the array is one)");
        many[k - 1] = ',';
        many[k] = '0';
        many[k + 1] = ']';
        ledger_error_clear(&err);
        ok(ledger_json_parse(many, k + 2, &doc, &err) == LEDGER_ERR && doc == NULL
           && err.status == 413 && strcmp(err.code, "payload_too_large") == 0,
           "one value more is a 413 (%d %s)", err.status, err.message);
        free(many);
    }

    /* Members of one object are bounded before any item is made; the
     * count is of members, not of colons and commas inside strings or of
     * another object's members. */
    {
        size_t cap = 16 * (LEDGER_JSON_MAX_MEMBERS + 2), len = 0;
        char *o = malloc(cap);
        int k;

        len += (size_t)snprintf(o + len, cap - len, "{\"nested\": {\"a\": 1}");
        for (k = 1; k < LEDGER_JSON_MAX_MEMBERS; k++)
            len += (size_t)snprintf(o + len, cap - len, ",\"k%d\":[%d]", k, k);
        good(o, len + (size_t)snprintf(o + len, cap - len, "}"), "an object of as many members as the limit");
        len += (size_t)snprintf(o + len, cap - len, ",\"one more\":0}");
        ledger_error_clear(&err);
        ok(ledger_json_parse(o, len, &doc, &err) == LEDGER_ERR && doc == NULL && err.status == 413
           && strcmp(err.code, "payload_too_large") == 0 && strstr(err.message, "members") != NULL,
           "one member more is a 413 (%s)", err.message);
        len = (size_t)snprintf(o, cap, "[{\"s\": \"");
        for (k = 0; k < LEDGER_JSON_MAX_MEMBERS + 2; k++)
            len += (size_t)snprintf(o + len, cap - len, "k:1,\\\"");
        len += (size_t)snprintf(o + len, cap - len, "\"}, {\"a\": 1}]");
        good(o, len, "colons and commas inside a string, escaped quotes among them");
        free(o);
    }

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

    /* Repeated member names (RFC 7493): refused, in any object, few or
     * many members; names differing in case or only in an escape's
     * spelling are told apart or found alike as their text is. */
    bad("{\"a\": 1, \"a\": 2}", strlen("{\"a\": 1, \"a\": 2}"), "a repeated member name");
    bad("{\"x\": [{\"b\": 1, \"c\": 2, \"b\": 3}]}", strlen("{\"x\": [{\"b\": 1, \"c\": 2, \"b\": 3}]}"), "a repeated name in a nested object");
    bad("{\"amount\": 1, \"\\u0061mount\": 2}", strlen("{\"amount\": 1, \"\\u0061mount\": 2}"), "a repeated name spelt with an escape");
    good("{\"a\": 1, \"A\": 2}", strlen("{\"a\": 1, \"A\": 2}"), "names differing in case");
    good("[{\"a\": 1}, {\"a\": 2}]", strlen("[{\"a\": 1}, {\"a\": 2}]"), "one name in two objects");
    {
        char many[256];
        size_t len = 0;
        int k;

        len += (size_t)snprintf(many + len, sizeof many - len, "{");
        for (k = 0; k < 20; k++)
            len += (size_t)snprintf(many + len, sizeof many - len, "%s\"k%d\":%d", k ? "," : "", k, k);
        good(many, len + (size_t)snprintf(many + len, sizeof many - len, "}"), "20 distinct names");
        len += (size_t)snprintf(many + len, sizeof many - len, ",\"k7\":0}");
        bad(many, len, "20 names and one repeated");
    }

    ledger_error_clear(&err);
    ledger_json_parse("{\"a\": tru}", strlen("{\"a\": tru}"), &doc, &err);
    ok(strstr(err.message, "byte 6") != NULL, "the error names the byte offset (%s)", err.message);

    print_numbers();
    print_trees();
    parse_out_of_memory();
    return done_testing();
}
