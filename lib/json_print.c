/*
 * Compact JSON text of a cJSON tree: the bytes cJSON_PrintUnformatted
 * gives, made for the one caller that prints on every request.
 *
 * A page of transactions is many small items, and cJSON's printer is
 * slow for them: after every item it runs strlen over what it has just
 * written to find its place again, and every number goes through
 * sprintf("%1.15g") and back through sscanf to check that it reads as
 * the same double.  Here the writer keeps its length, and a number with
 * no fraction and fewer than 16 digits (every id and count a response
 * has; money is raw decimal text) is written digit by digit, which is
 * what "%1.15g" gives for it.
 * Any other number goes the way cJSON's does, so the text is the same
 * byte for byte: t/0002 compares the two over every kind of item, and
 * the json fuzz target over whatever it finds.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "json_out.h"


/* Room for n more bytes and a NUL.  On failure the text is dropped: the
 * writers may go on filling the buffer they have, and nothing reads it. */
static int room(struct json_text *o, size_t n)
{
    char *p;
    size_t cap;

    if (o->failed)
        return 0;
    if (o->len + n + 1 <= o->cap)
        return 1;
    cap = o->cap ? o->cap : 4096;
    while (cap < o->len + n + 1)
        cap *= 2;
    if ((p = realloc(o->p, cap)) == NULL) {
        o->failed = 1;
        return 0;
    }
    o->p = p;
    o->cap = cap;
    return 1;
}

/* Both test the room left before calling room(): most of what they write
 * is a byte or a few. */
static void put(struct json_text *o, const char *s, size_t n)
{
    if (o->len + n < o->cap || room(o, n)) {
        memcpy(o->p + o->len, s, n);
        o->len += n;
    }
}

static void put_char(struct json_text *o, char c)
{
    if (o->len + 1 < o->cap || room(o, 1))
        o->p[o->len++] = c;
}

/* A string as cJSON escapes it: the quote, the backslash and the control
 * characters, the five with a short form by it, the rest as \u00xx; every
 * other byte as it is.  NULL is the empty string. */
static void put_string(struct json_text *o, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : ""), *run;
    char esc[8];

    put_char(o, '"');
    while (*p) {
        for (run = p; *p >= 32 && *p != '"' && *p != '\\'; p++)
            ;
        put(o, (const char *)run, (size_t)(p - run));
        if (*p == '\0')
            break;
        switch (*p) {
        case '"': put(o, "\\\"", 2); break;
        case '\\': put(o, "\\\\", 2); break;
        case '\b': put(o, "\\b", 2); break;
        case '\f': put(o, "\\f", 2); break;
        case '\n': put(o, "\\n", 2); break;
        case '\r': put(o, "\\r", 2); break;
        case '\t': put(o, "\\t", 2); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            put(o, esc, 6);
        }
        p++;
    }
    put_char(o, '"');
}

/* cJSON's own test of a number read back. */
static int same_double(double a, double b)
{
    double most = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

    return fabs(a - b) <= most * DBL_EPSILON;
}

static void put_number(struct json_text *o, double d)
{
    char text[32], *q = text + sizeof text;
    int n;

    if (isnan(d) || isinf(d)) {
        put(o, "null", 4);
        return;
    }
    /* Below 10^15 "%1.15g" writes a whole number as its digits; -0 is
     * "-0" there, so it takes the long way. */
    if (fabs(d) < 1e15 && d == floor(d) && (d != 0 || !signbit(d))) {
        long long v = (long long)d;
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

        do
            *--q = (char)('0' + u % 10);
        while ((u /= 10) != 0);
        if (v < 0)
            *--q = '-';
        put(o, q, (size_t)(text + sizeof text - q));
        return;
    }
    n = snprintf(text, sizeof text, "%1.15g", d);
    if (!same_double(strtod(text, NULL), d))
        n = snprintf(text, sizeof text, "%1.17g", d);
    put(o, text, (size_t)n);
}

static void put_item(struct json_text *o, const cJSON *item)
{
    const cJSON *c;

    switch (item->type & 0xFF) {
    case cJSON_NULL: put(o, "null", 4); break;
    case cJSON_False: put(o, "false", 5); break;
    case cJSON_True: put(o, "true", 4); break;
    case cJSON_Number: put_number(o, item->valuedouble); break;
    case cJSON_String: put_string(o, item->valuestring); break;
    case cJSON_Raw:
        if (item->valuestring == NULL)
            o->failed = 1;
        else
            put(o, item->valuestring, strlen(item->valuestring));
        break;
    case cJSON_Array:
        put_char(o, '[');
        for (c = item->child; c && !o->failed; c = c->next) {
            put_item(o, c);
            if (c->next)
                put_char(o, ',');
        }
        put_char(o, ']');
        break;
    case cJSON_Object:
        put_char(o, '{');
        for (c = item->child; c && !o->failed; c = c->next) {
            put_string(o, c->string);
            put_char(o, ':');
            put_item(o, c);
            if (c->next)
                put_char(o, ',');
        }
        put_char(o, '}');
        break;
    default:  /* cJSON_Invalid: cJSON prints nothing either */
        o->failed = 1;
    }
}

char *ledger_json_print(const cJSON *item, size_t *len)
{
    struct json_text o = { NULL, 0, 0, 0 };

    if (item == NULL)
        return NULL;
    put_item(&o, item);
    if (o.failed || !room(&o, 0)) {
        free(o.p);
        return NULL;
    }
    o.p[o.len] = '\0';
    if (len)
        *len = o.len;
    return o.p;
}

/* ---- a writer, item by item ---------------------------------------------------------------- */

/* The comma before an item after the first of its container, then its
 * key when it is an object's.  Keys are the API's own names (letters and
 * _), written as they are: escaping them would cost a large part of a
 * report's time. */
static void jw_item(struct json_writer *w, const char *key)
{
    if (w->depth > 0 && !w->first[w->depth - 1])
        put_char(&w->t, ',');
    if (w->depth > 0)
        w->first[w->depth - 1] = 0;
    if (key) {
        put_char(&w->t, '"');
        put(&w->t, key, strlen(key));
        put(&w->t, "\":", 2);
    }
}

int jw_reserve(struct json_writer *w, size_t n)
{
    return room(&w->t, n) ? 0 : -1;
}

void jw_begin(struct json_writer *w, const char *key)
{
    jw_item(w, key);
}

void jw_piece(struct json_writer *w, const char *text, size_t n)
{
    put(&w->t, text, n);
}

void jw_piece_string(struct json_writer *w, const char *s)
{
    put_string(&w->t, s);
}

void jw_open(struct json_writer *w, const char *key, char bracket)
{
    jw_item(w, key);
    put_char(&w->t, bracket);
    if (w->depth == JSON_WRITER_DEPTH)
        w->t.failed = 1;
    else
        w->first[w->depth++] = 1;
}

void jw_close(struct json_writer *w, char bracket)
{
    put_char(&w->t, bracket);
    if (w->depth > 0)
        w->depth--;
}

void jw_string(struct json_writer *w, const char *key, const char *s)
{
    jw_item(w, key);
    if (s)
        put_string(&w->t, s);
    else
        put(&w->t, "null", 4);
}

void jw_number(struct json_writer *w, const char *key, double d)
{
    jw_item(w, key);
    put_number(&w->t, d);
}

void jw_raw(struct json_writer *w, const char *key, const char *text)
{
    jw_item(w, key);
    if (text)
        put(&w->t, text, strlen(text));
    else
        put(&w->t, "null", 4);
}

cJSON *jw_finish_raw(struct json_writer *w)
{
    char *text = jw_finish(w);
    cJSON *raw = text ? cJSON_CreateRaw("") : NULL;

    /* The item takes the buffer rather than a copy (ledger.h: cJSON frees
     * with free).  Copying a five-year monthly report's 80 kB doubled what
     * the call held at its end, and glibc gave the freed top of the heap
     * back to the kernel after each call, to fault it in again on the
     * next: 511 -> 439 us a report. */
    if (raw) {
        cJSON_free(raw->valuestring);
        raw->valuestring = text;
    } else {
        free(text);
    }
    memset(w, 0, sizeof *w);
    return raw;
}

char *jw_finish(struct json_writer *w)
{
    if (w->t.failed || w->depth != 0 || !room(&w->t, 0)) {
        free(w->t.p);
        return NULL;
    }
    w->t.p[w->t.len] = '\0';
    return w->t.p;
}
