/* Logging to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static enum log_level threshold = LOG_INFO;
static const char *log_path;

void log_init(enum log_level level, const char *file)
{
    threshold = level;
    log_path = file && *file ? file : NULL;
}

int log_reopen(void)
{
    if (log_path == NULL)
        return 0;
    return freopen(log_path, "a", stderr) ? 0 : -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    static const char *const names[] = { "error", "warn", "info", "debug" };
    char line[2048], stamp[32];
    struct tm tm;
    time_t now;
    va_list ap;
    int n;

    if (level > threshold)
        return;
    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    n = snprintf(line, sizeof line, "%s %s ", stamp, names[level]);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so lines of processes sharing the log do not
     * interleave. */
    n = (int)strlen(line);
    if (n < (int)sizeof line - 1)
        line[n++] = '\n';
    fwrite(line, 1, (size_t)n, stderr);
    fflush(stderr);
}
