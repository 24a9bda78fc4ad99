/*
 * A strict JSON reader that builds cJSON trees.
 *
 * cJSON_Parse is lenient where a money service cannot be: it accepts invalid
 * UTF-8 and numbers such as "1." or "+1", and it keeps only a double for a
 * number, so "0.1" cannot be told from "0.1000000000000000055".  This reader
 * follows RFC 8259 exactly, refuses NUL characters inside strings (they
 * would silently cut C strings short), bounds nesting depth, and stores each
 * number's literal text in valuestring (cJSON_Delete frees it), from which
 * money.c reads cents without passing through a double.
 */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "json_in.h"
#include "text.h"

struct reader {
    const unsigned char *p, *start, *end;
    ledger_error *err;
    int depth;
    long values;
    const char *lazy;             /* json_parse_lazy's member, or NULL */
    struct json_slices *slices;   /* and where its elements are */
};

static int fail(struct reader *r, const char *why)
{
    return ledger_error_set(r->err, 400, "invalid_json", NULL,
                            "invalid JSON at byte %zu: %s",
                            (size_t)(r->p - r->start), why);
}

static void skip_ws(struct reader *r)
{
    while (r->p < r->end && ascii_space(*r->p))
        r->p++;
}

static int parse_value(struct reader *r, cJSON **out);

static int hex4(struct reader *r, unsigned *cp)
{
    unsigned v = 0;
    int i;

    if (r->end - r->p < 4)
        return fail(r, "truncated \\u escape");
    for (i = 0; i < 4; i++) {
        unsigned char c = r->p[i];

        v <<= 4;
        if (ascii_digit(c))
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return fail(r, "bad \\u escape");
    }
    r->p += 4;
    *cp = v;
    return LEDGER_OK;
}


/* Reads a string at r->p (on the opening quote) into a malloc'd buffer. */
static int parse_string(struct reader *r, char **out)
{
    const unsigned char *q;
    unsigned char *buf, *o;

    r->p++;
    /* The decoded text is never longer than the escaped text. */
    for (q = r->p; q < r->end && *q != '"'; q++)
        if (*q == '\\' && q + 1 < r->end)
            q++;
    if (q >= r->end)
        return fail(r, "unterminated string");
    buf = malloc((size_t)(q - r->p) + 1);
    if (buf == NULL)
        return ledger_error_oom(r->err);
    o = buf;
    while (*r->p != '"') {
        unsigned char c = *r->p;

        if (c < 0x20) {
            fail(r, c == 0 ? "NUL character in string" : "control character in string");
            goto bad;
        }
        if (c == '\\') {
            unsigned cp;

            r->p++;
            switch (*r->p++) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u':
                if (hex4(r, &cp))
                    goto bad;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;

                    if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u') {
                        fail(r, "unpaired surrogate in \\u escape");
                        goto bad;
                    }
                    r->p += 2;
                    if (hex4(r, &lo))
                        goto bad;
                    if (lo < 0xDC00 || lo > 0xDFFF) {
                        fail(r, "unpaired surrogate in \\u escape");
                        goto bad;
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail(r, "unpaired surrogate in \\u escape");
                    goto bad;
                } else if (cp == 0) {
                    fail(r, "NUL character in string");
                    goto bad;
                }
                o += put_utf8(o, cp);
                break;
            default:
                r->p--;
                fail(r, "bad escape");
                goto bad;
            }
            continue;
        }
        {
            size_t n = utf8_len(r->p, r->end);

            if (n == 0) {
                fail(r, "invalid UTF-8");
                goto bad;
            }
            memcpy(o, r->p, n);
            o += n;
            r->p += n;
        }
    }
    r->p++;
    *o = '\0';
    *out = (char *)buf;
    return LEDGER_OK;
bad:
    free(buf);
    return LEDGER_ERR;
}

static int digits(struct reader *r)
{
    const unsigned char *s = r->p;

    while (r->p < r->end && ascii_digit(*r->p))
        r->p++;
    return r->p > s;
}

static int parse_number(struct reader *r, cJSON **out)
{
    const unsigned char *s = r->p;
    size_t n;
    char *text;
    cJSON *item;

    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0')
        r->p++;
    else if (!digits(r))
        return fail(r, "bad number");
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (!digits(r))
            return fail(r, "bad number");
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (!digits(r))
            return fail(r, "bad number");
    }
    n = (size_t)(r->p - s);
    text = malloc(n + 1);
    if (text == NULL)
        return ledger_error_oom(r->err);
    memcpy(text, s, n);
    text[n] = '\0';
    item = cJSON_CreateNumber(strtod(text, NULL));
    if (item == NULL) {
        free(text);
        return ledger_error_oom(r->err);
    }
    item->valuestring = text;
    *out = item;
    return LEDGER_OK;
}

static int literal(struct reader *r, const char *word, cJSON *(*make)(void), cJSON **out)
{
    size_t n = strlen(word);

    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return fail(r, "unexpected character");
    r->p += n;
    *out = make();
    return *out ? LEDGER_OK : ledger_error_oom(r->err);
}

static cJSON *make_true(void) { return cJSON_CreateTrue(); }
static cJSON *make_false(void) { return cJSON_CreateFalse(); }

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A 400 when two members of object o have the same name (RFC 7493, I-JSON):
 * a proxy or client keeping the last of them would read another body than
 * the service, which reads the first.  A few members are compared in
 * pairs, more sorted by name. */
static int duplicate_member(struct reader *r, const cJSON *o)
{
    const char **names = NULL, *dup = NULL;
    const cJSON *a, *b;
    size_t n = 0, i;

    for (a = o->child; a; a = a->next)
        n++;
    if (n <= 8) {
        for (a = o->child; a && dup == NULL; a = a->next)
            for (b = a->next; b && dup == NULL; b = b->next)
                if (strcmp(a->string, b->string) == 0)
                    dup = a->string;
    } else {
        if ((names = malloc(n * sizeof *names)) == NULL)
            return ledger_error_oom(r->err);
        for (a = o->child, i = 0; a; a = a->next)
            names[i++] = a->string;
        qsort(names, n, sizeof *names, cmp_name);
        for (i = 1; i < n && dup == NULL; i++)
            if (strcmp(names[i - 1], names[i]) == 0)
                dup = names[i];
    }
    if (dup)
        ledger_error_set(r->err, 400, "invalid_json", NULL,
                         "invalid JSON at byte %zu: the member name \"%.64s\" appears twice in one object",
                         (size_t)(r->p - r->start), dup);
    free(names);
    return dup ? LEDGER_ERR : LEDGER_OK;
}

/* The lazy member's array (json_parse_lazy): each element read into a
 * tree and dropped at once, its place noted; *out an empty array. */
static int lazy_array(struct reader *r, cJSON **out)
{
    struct json_slices *s = r->slices;

    if (++r->depth > LEDGER_JSON_MAX_DEPTH)
        return fail(r, "nested too deeply");
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == ']')
        r->p++;
    else
        for (;;) {
            const unsigned char *at;
            cJSON *v = NULL;

            skip_ws(r);
            at = r->p;
            if (parse_value(r, &v))
                return LEDGER_ERR;
            cJSON_Delete(v);
            if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 1024;
                size_t *nat = realloc(s->at, cap * sizeof *nat), *nlen;

                if (nat == NULL)
                    return ledger_error_oom(r->err);
                s->at = nat;
                if ((nlen = realloc(s->len, cap * sizeof *nlen)) == NULL)
                    return ledger_error_oom(r->err);
                s->len = nlen;
                s->cap = cap;
            }
            s->at[s->n] = (size_t)(at - r->start);
            s->len[s->n++] = (size_t)(r->p - at);
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == ']') {
                r->p++;
                break;
            }
            return fail(r, "expected ',' or ']'");
        }
    r->depth--;
    if ((*out = cJSON_CreateArray()) == NULL)
        return ledger_error_oom(r->err);
    return LEDGER_OK;
}

static int parse_container(struct reader *r, int object, cJSON **out)
{
    cJSON *c = object ? cJSON_CreateObject() : cJSON_CreateArray();
    char close = object ? '}' : ']';

    if (c == NULL)
        return ledger_error_oom(r->err);
    if (++r->depth > LEDGER_JSON_MAX_DEPTH) {
        fail(r, "nested too deeply");
        goto bad;
    }
    r->p++;
    skip_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        goto done;
    }
    for (;;) {
        char *key = NULL;
        cJSON *v = NULL;

        skip_ws(r);
        if (object) {
            if (r->p >= r->end || *r->p != '"') {
                fail(r, "expected a string key");
                goto bad;
            }
            if (parse_string(r, &key))
                goto bad;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                fail(r, "expected ':'");
                goto bad;
            }
            r->p++;
            skip_ws(r);
        }
        /* The top-level object's lazy member, once: a second of that name
         * is read whole, and refused as a repeat. */
        if (object && r->depth == 1 && r->lazy && key && strcmp(key, r->lazy) == 0
            && r->p < r->end && *r->p == '[' && r->slices->n == 0 && r->slices->at == NULL) {
            if (lazy_array(r, &v)) {
                free(key);
                goto bad;
            }
        } else if (parse_value(r, &v)) {
            free(key);
            goto bad;
        }
        /* An item cJSON has no memory to add is an error, not a member
         * left out of the body.  Repeated names are refused once the
         * object is whole (duplicate_member). */
        if (object ? !cJSON_AddItemToObject(c, key, v) : !cJSON_AddItemToArray(c, v)) {
            free(key);
            cJSON_Delete(v);
            ledger_error_oom(r->err);
            goto bad;
        }
        free(key);
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            if (object && duplicate_member(r, c))
                goto bad;
            break;
        }
        fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
        goto bad;
    }
done:
    r->depth--;
    *out = c;
    return LEDGER_OK;
bad:
    cJSON_Delete(c);
    return LEDGER_ERR;
}

static int parse_value(struct reader *r, cJSON **out)
{
    char *s;

    /* Each value is an item of some hundred bytes, so a body of short
     * values takes dozens of times its size: their number is bounded.
     * The largest bodies the API takes, 100,000 rows of a statement or a
     * CSV file, hold under 2 million. */
    if (++r->values > LEDGER_JSON_MAX_VALUES)
        return ledger_error_set(r->err, 413, "payload_too_large", NULL,
                                "the body holds more than %d JSON values", LEDGER_JSON_MAX_VALUES);
    skip_ws(r);
    if (r->p >= r->end)
        return fail(r, "unexpected end of input");
    switch (*r->p) {
    case '{':
        return parse_container(r, 1, out);
    case '[':
        return parse_container(r, 0, out);
    case '"':
        if (parse_string(r, &s))
            return LEDGER_ERR;
        *out = cJSON_CreateNull();
        if (*out == NULL) {
            free(s);
            return ledger_error_oom(r->err);
        }
        (*out)->type = cJSON_String;
        (*out)->valuestring = s;
        return LEDGER_OK;
    case 't':
        return literal(r, "true", make_true, out);
    case 'f':
        return literal(r, "false", make_false, out);
    case 'n':
        return literal(r, "null", cJSON_CreateNull, out);
    default:
        if (*r->p == '-' || ascii_digit(*r->p))
            return parse_number(r, out);
        return fail(r, "unexpected character");
    }
}

/* The bounds on values and members (LEDGER_JSON_MAX_VALUES,
 * LEDGER_JSON_MAX_MEMBERS), checked by a pass over the text before any
 * item is made: a body of small values takes some hundred bytes an item,
 * dozens of times its size, and is refused before a byte of that is
 * spent.  The pass counts what the reader would make of a well-formed
 * text and does not judge the text: where it is broken (or nested past
 * LEDGER_JSON_MAX_DEPTH) the pass stops and the reader says why. */
static int count_values(struct reader *r)
{
    long members[LEDGER_JSON_MAX_DEPTH + 1];
    char object[LEDGER_JSON_MAX_DEPTH + 1];
    const unsigned char *p = r->p;
    long values = 1;
    int depth = 0, first = 0;  /* first: just inside an array, its first value not seen */

    for (; p < r->end; p++) {
        unsigned char c = *p;

        if (ascii_space(c))
            continue;
        if (first && c != ']')
            values++;
        first = 0;
        switch (c) {
        case '"':
            for (p++; p < r->end && *p != '"'; p++)
                if (*p == '\\' && p + 1 < r->end)
                    p++;
            if (p == r->end)
                return LEDGER_OK;
            break;
        case '{':
        case '[':
            if (depth == LEDGER_JSON_MAX_DEPTH)
                return LEDGER_OK;
            depth++;
            object[depth] = c == '{';
            members[depth] = 0;
            first = c == '[';
            break;
        case '}':
        case ']':
            if (depth == 0)
                return LEDGER_OK;
            depth--;
            break;
        case ':':
            if (depth == 0 || !object[depth])
                return LEDGER_OK;
            values++;
            if (++members[depth] > LEDGER_JSON_MAX_MEMBERS)
                return ledger_error_set(r->err, 413, "payload_too_large", NULL,
                                        "an object of the body has more than %d members,"
                                        " more than any request reads", LEDGER_JSON_MAX_MEMBERS);
            break;
        case ',':
            if (depth > 0 && !object[depth])
                values++;
            break;
        default:
            break;
        }
        if (values > LEDGER_JSON_MAX_VALUES)
            return ledger_error_set(r->err, 413, "payload_too_large", NULL,
                                    "the body holds more than %d JSON values", LEDGER_JSON_MAX_VALUES);
    }
    return LEDGER_OK;
}

static int parse_text(const char *buf, size_t len, const char *lazy, struct json_slices *slices,
                      cJSON **out, ledger_error *err)
{
    struct reader r;
    cJSON *root = NULL;

    r.start = r.p = (const unsigned char *)buf;
    r.end = r.p + len;
    r.err = err;
    r.depth = 0;
    r.values = 0;
    r.lazy = lazy;
    r.slices = slices;
    if (len == 0)
        return fail(&r, "empty body");
    if (count_values(&r) || parse_value(&r, &root))
        return LEDGER_ERR;
    skip_ws(&r);
    if (r.p != r.end) {
        cJSON_Delete(root);
        return fail(&r, "trailing characters after the JSON value");
    }
    *out = root;
    return LEDGER_OK;
}

int ledger_json_parse(const char *buf, size_t len, cJSON **out, ledger_error *err)
{
    return parse_text(buf, len, NULL, NULL, out, err);
}

int json_parse_lazy(const char *buf, size_t len, const char *member, cJSON **out,
                    struct json_slices *slices, ledger_error *err)
{
    memset(slices, 0, sizeof *slices);
    if (parse_text(buf, len, member, slices, out, err) == LEDGER_OK)
        return LEDGER_OK;
    json_slices_free(slices);
    return LEDGER_ERR;
}

void json_slices_free(struct json_slices *s)
{
    free(s->at);
    free(s->len);
    memset(s, 0, sizeof *s);
}

const cJSON *json_item(struct json_items *it, size_t i, ledger_error *err)
{
    if (it->array) {
        if (it->item == NULL || i < it->at) {
            it->item = it->array->child;
            it->at = 0;
        }
        for (; it->item && it->at < i; it->at++)
            it->item = it->item->next;
        return it->item;
    }
    cJSON_Delete(it->parsed);
    it->parsed = NULL;
    if (ledger_json_parse(it->text + it->slices->at[i], it->slices->len[i], &it->parsed, err))
        return NULL;
    return it->parsed;
}

void json_items_end(struct json_items *it)
{
    cJSON_Delete(it->parsed);
    it->parsed = NULL;
}

int json_lazy_parse(const char *text, size_t len, const char *member, struct json_lazy *l,
                    ledger_error *err)
{
    memset(l, 0, sizeof *l);
    if (json_parse_lazy(text, len, member, &l->body, &l->slices, err))
        return LEDGER_ERR;
    l->items.text = text;
    l->items.slices = &l->slices;
    l->n = l->slices.n;
    return LEDGER_OK;
}

void json_lazy_end(struct json_lazy *l)
{
    json_items_end(&l->items);
    cJSON_Delete(l->body);
    l->body = NULL;
    json_slices_free(&l->slices);
}

int ledger_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;

    while (p < end) {
        size_t n = utf8_len(p, end);

        if (n == 0)
            return 0;
        p += n;
    }
    return 1;
}
