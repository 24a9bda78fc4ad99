/* A tiny TAP producer for the C unit tests (automake's tap-driver reads it). */
#ifndef LEDGER_TAP_H
#define LEDGER_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((unused)) static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
    tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 4, 5)))
__attribute__((unused)) static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    if (tap_n == 0)
        setvbuf(stdout, NULL, _IOLBF, 0);  /* a crash keeps what was printed */
    printf("%s %d - ", pass ? "ok" : "not ok", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!pass) {
        tap_failed++;
        printf("#   failed at %s:%d\n", file, line);
    }
    return pass;
}

#define TAP_MSG(buf, fmt) do { va_list ap; va_start(ap, fmt); vsnprintf(buf, sizeof buf, fmt, ap); va_end(ap); } while (0)

__attribute__((format(printf, 5, 6)))
__attribute__((unused)) static int tap_is_int(long long got, long long want, const char *file, int line,
                      const char *fmt, ...)
{
    char msg[512];

    TAP_MSG(msg, fmt);
    if (!tap_ok(got == want, file, line, "%s", msg))
        printf("#   got %lld, want %lld\n", got, want);
    return got == want;
}

__attribute__((format(printf, 5, 6)))
__attribute__((unused)) static int tap_is_str(const char *got, const char *want, const char *file, int line,
                      const char *fmt, ...)
{
    char msg[512];
    int pass = got && want ? strcmp(got, want) == 0 : got == want;

    TAP_MSG(msg, fmt);
    if (!tap_ok(pass, file, line, "%s", msg))
        printf("#   got '%s', want '%s'\n", got ? got : "(null)", want ? want : "(null)");
    return pass;
}

/* n checks that cannot run here, each passed as TAP's SKIP with why. */
__attribute__((unused)) static void skip(int n, const char *why)
{
    while (n-- > 0)
        printf("ok %d # SKIP %s\n", ++tap_n, why);
}

__attribute__((unused)) static int done_testing(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

#endif
