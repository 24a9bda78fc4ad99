/* One line per request to stderr (or the log file), plus start-up and
 * error lines.  Never money or descriptions at info level. */
#ifndef LEDGER_FCGI_LOG_H
#define LEDGER_FCGI_LOG_H

#include "conf.h"

void log_init(enum log_level level, const char *file);
/* Reopens the log file (after SIGHUP, for logrotate); a no-op on stderr. */
int log_reopen(void);
void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
