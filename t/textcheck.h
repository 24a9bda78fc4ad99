/*
 * What the parser tests (t/0007 OFX, t/0009 CSV) share: the checks they
 * apply to whatever a parse returns, and the exact-size buffers they parse
 * from.  Written apart from lib/text.c on purpose: a test that
 * judged the library's output with the library's own decoder could not
 * catch a bug in it.
 */
#ifndef LEDGER_T_TEXTCHECK_H
#define LEDGER_T_TEXTCHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* malloc, or the test stops: an input the test cannot build checks
 * nothing. */
__attribute__((unused)) static char *alloc(size_t len)
{
    char *buf = malloc(len ? len : 1);

    if (buf == NULL) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    return buf;
}

/* A copy in a buffer of exactly len bytes, no NUL after it: the sanitizers
 * and valgrind then catch any read past the end. */
__attribute__((unused)) static char *exact(const char *buf, size_t len)
{
    char *copy = alloc(len);

    if (len)
        memcpy(copy, buf, len);
    return copy;
}

/* Well-formed UTF-8: no stray continuation bytes, no overlong two-byte
 * leads, nothing past U+10FFFF's lead bytes. */
__attribute__((unused)) static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        int n = *p < 0x80 ? 1 : *p >= 0xC2 && *p <= 0xDF ? 2 : *p >= 0xE0 && *p <= 0xEF ? 3
                : *p >= 0xF0 && *p <= 0xF4 ? 4 : 0;
        int i;

        if (n == 0)
            return 0;
        for (i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

/* The shape YYYY-MM-DD, digits and dashes. */
__attribute__((unused)) static int is_ymd(const char *d)
{
    int i;

    for (i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? d[i] != '-' : d[i] < '0' || d[i] > '9')
            return 0;
    return d[10] == '\0';
}

#endif
