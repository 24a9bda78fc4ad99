/* Reading and checking the fields of JSON request bodies.  Unknown fields
 * are ignored; a field of the wrong type is a 400 that names it. */
#include <ctype.h>
#include <string.h>

#include "internal.h"

int field_require_object(const cJSON *body, ledger_error *err)
{
    if (!cJSON_IsObject(body))
        return ledger_error_set(err, 400, "invalid_json", NULL,
                                "the body must be a JSON object");
    return LEDGER_OK;
}

int field_text(const cJSON *obj, const char *name, int required, int nullable,
               size_t maxlen, const char **out, int *present, ledger_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, name);
    const char *s;
    size_t n;

    if (present)
        *present = item != NULL;
    *out = NULL;
    if (item == NULL || cJSON_IsNull(item)) {
        if (required && (item == NULL || !nullable))
            return ledger_error_set(err, 400, "invalid_field", name, "%s is required", name);
        return LEDGER_OK;
    }
    if (!cJSON_IsString(item))
        return ledger_error_set(err, 400, "invalid_field", name, "%s must be a string", name);
    s = item->valuestring;
    /* Leading and trailing spaces are never meaningful in a name; the
     * document owns the text, so trim it in place. */
    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    ((char *)s)[n] = '\0';
    if (n == 0)
        return ledger_error_set(err, 400, "invalid_field", name, "%s must not be empty", name);
    if (n > maxlen)
        return ledger_error_set(err, 400, "invalid_field", name,
                                "%s must be at most %zu bytes", name, maxlen);
    *out = s;
    return LEDGER_OK;
}

int field_color(const cJSON *obj, const char *name, const char **out, int *present,
                ledger_error *err)
{
    size_t n, i;

    if (field_text(obj, name, 0, 1, 7, out, present, err))
        return ledger_error_set(err, 400, "invalid_field", name,
                                "%s must be a color such as \"#1e90ff\"", name);
    if (*out == NULL)
        return LEDGER_OK;
    n = strlen(*out);
    if ((*out)[0] != '#' || (n != 4 && n != 7))
        goto bad;
    for (i = 1; i < n; i++)
        if (!isxdigit((unsigned char)(*out)[i]))
            goto bad;
    return LEDGER_OK;
bad:
    return ledger_error_set(err, 400, "invalid_field", name,
                            "%s must be a color such as \"#1e90ff\"", name);
}
