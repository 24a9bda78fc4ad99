/* The one error struct every libledger function reports through. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db.h"

__attribute__((format(printf, 5, 0)))
static int error_vset(ledger_error *err, int status, const char *code, const char *field,
                      const char *fmt, va_list ap)
{
    if (err == NULL)
        return LEDGER_ERR;
    err->status = status;
    snprintf(err->code, sizeof err->code, "%s", code);
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return LEDGER_ERR;
}

int ledger_error_set(ledger_error *err, int status, const char *code,
                     const char *field, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    error_vset(err, status, code, field, fmt, ap);
    va_end(ap);
    return LEDGER_ERR;
}

int ledger_error_oom(ledger_error *err)
{
    return ledger_error_set(err, 500, "internal", NULL, "out of memory");
}

int error_field(ledger_error *err, const char *field, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    error_vset(err, 400, "invalid_field", field, fmt, ap);
    va_end(ap);
    return LEDGER_ERR;
}

void ledger_error_clear(ledger_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

int error_in_item(ledger_error *err, const char *array, size_t i)
{
    char f[160];

    snprintf(f, sizeof f, "%s[%zu]%s%s", array, i, err->field[0] ? "." : "", err->field);
    f[sizeof err->field - 1] = '\0';
    memcpy(err->field, f, sizeof err->field);
    return LEDGER_ERR;
}

int error_in_body(ledger_error *err, const char *field)
{
    if (err->status >= 500)
        return LEDGER_ERR;
    if (err->status == 404) {
        err->status = 400;
        snprintf(err->code, sizeof err->code, "invalid_field");
    }
    snprintf(err->field, sizeof err->field, "%s", field);
    return LEDGER_ERR;
}
