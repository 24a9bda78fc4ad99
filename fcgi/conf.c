/* Configuration file and values. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

void config_defaults(struct config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->db, sizeof cfg->db, "ledger.db");
    snprintf(cfg->identity_param, sizeof cfg->identity_param, "REMOTE_USER");
    snprintf(cfg->email_param, sizeof cfg->email_param, "OIDC_CLAIM_email");
    snprintf(cfg->email_verified_param, sizeof cfg->email_verified_param,
             "OIDC_CLAIM_email_verified");
    snprintf(cfg->name_param, sizeof cfg->name_param, "OIDC_CLAIM_name");
    snprintf(cfg->home_currency, sizeof cfg->home_currency, "AUD");
    cfg->max_body_bytes = 16u * 1024 * 1024;
    cfg->log_level = LOG_INFO;
}

static int copy(char *dst, size_t len, const char *key, const char *value,
                char *msg, size_t msglen)
{
    if (strlen(value) >= len) {
        snprintf(msg, msglen, "%s is too long", key);
        return -1;
    }
    memcpy(dst, value, strlen(value) + 1);
    return 0;
}

/* A FastCGI param name for identity: never an HTTP header (HTTP_*), which
 * any client can set, and nothing but letters, digits and '_'. */
static int param_name(char *dst, size_t len, const char *key, const char *value,
                      char *msg, size_t msglen)
{
    const char *p;

    if (*value == '\0') {
        snprintf(msg, msglen, "%s must not be empty", key);
        return -1;
    }
    for (p = value; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') {
            snprintf(msg, msglen, "%s must be a FastCGI parameter name", key);
            return -1;
        }
    if (strncasecmp(value, "HTTP_", 5) == 0) {
        snprintf(msg, msglen, "%s must not be an HTTP header (%s): clients can set "
                 "those, so they never carry identity", key, value);
        return -1;
    }
    return copy(dst, len, key, value, msg, msglen);
}

int config_set(struct config *cfg, const char *key, const char *value,
               char *msg, size_t msglen)
{
    if (strcmp(key, "db") == 0) {
        /* To SQLite an empty name, or ":memory:", is a private database
         * that vanishes when the process exits: every process would keep
         * its own, and every write acknowledged would be lost (an unset
         * variable in --db $LEDGER_DB gives the empty name, silently). */
        if (*value == '\0' || strcmp(value, ":memory:") == 0) {
            snprintf(msg, msglen, "db must name a database file (%s would be a private database"
                     " that is gone when the process exits)", *value ? value : "an empty name");
            return -1;
        }
        /* A "file:" name is a URI to SQLite, which can name a database in
         * memory too ("file:", "file:x?mode=memory"); a file whose name
         * starts so is ./file:... */
        if (strncmp(value, "file:", 5) == 0) {
            snprintf(msg, msglen, "db must be a file's path, not a URI (%s); for a file named so,"
                     " write ./%s", value, value);
            return -1;
        }
        return copy(cfg->db, sizeof cfg->db, key, value, msg, msglen);
    }
    if (strcmp(key, "identity_param") == 0)
        return param_name(cfg->identity_param, sizeof cfg->identity_param, key, value, msg, msglen);
    if (strcmp(key, "email_param") == 0)
        return param_name(cfg->email_param, sizeof cfg->email_param, key, value, msg, msglen);
    if (strcmp(key, "email_verified_param") == 0)
        return param_name(cfg->email_verified_param, sizeof cfg->email_verified_param, key, value,
                          msg, msglen);
    if (strcmp(key, "name_param") == 0)
        return param_name(cfg->name_param, sizeof cfg->name_param, key, value, msg, msglen);
    if (strcmp(key, "home_currency") == 0) {
        if (strlen(value) != 3 || !isupper((unsigned char)value[0])
            || !isupper((unsigned char)value[1]) || !isupper((unsigned char)value[2])) {
            snprintf(msg, msglen, "home_currency must be three upper-case letters");
            return -1;
        }
        return copy(cfg->home_currency, sizeof cfg->home_currency, key, value, msg, msglen);
    }
    if (strcmp(key, "max_body_bytes") == 0) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(value, &end, 10);
        if (!isdigit((unsigned char)*value) || *end || errno || v == 0 || v > (1ull << 31)) {
            snprintf(msg, msglen, "max_body_bytes must be a whole number from 1 to 2147483648");
            return -1;
        }
        cfg->max_body_bytes = (size_t)v;
        return 0;
    }
    if (strcmp(key, "log_level") == 0) {
        static const char *const names[] = { "error", "warn", "info", "debug" };
        int i;

        for (i = 0; i < 4; i++)
            if (strcmp(value, names[i]) == 0) {
                cfg->log_level = (enum log_level)i;
                return 0;
            }
        snprintf(msg, msglen, "log_level must be error, warn, info or debug");
        return -1;
    }
    if (strcmp(key, "log_file") == 0)
        return copy(cfg->log_file, sizeof cfg->log_file, key, value, msg, msglen);
    if (strcmp(key, "socket") == 0)
        return copy(cfg->socket_path, sizeof cfg->socket_path, key, value, msg, msglen);
    if (strcmp(key, "socket_group") == 0)
        return copy(cfg->socket_group, sizeof cfg->socket_group, key, value, msg, msglen);
    if (strcmp(key, "listen") == 0)
        return copy(cfg->listen_addr, sizeof cfg->listen_addr, key, value, msg, msglen);
    snprintf(msg, msglen, "unknown setting '%s'", key);
    return -1;
}

static char *trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int config_load(struct config *cfg, const char *path, char *msg, size_t msglen)
{
    FILE *f = NULL;
    char line[1024], why[256];
    int lineno = 0, rc = 0, fd;
    struct stat sb;

    /* A regular file only: a FIFO would hold the open (or the first read)
     * for ever, and /dev/null or a directory reads as an empty file, whose
     * defaults put the database at ./ledger.db.  Opened without blocking,
     * to look before reading. */
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &sb) != 0) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(msg, msglen, "%s: %s", path, S_ISDIR(sb.st_mode) ? strerror(EISDIR) : "not a regular file");
        close(fd);
        return -1;
    }
    if ((f = fdopen(fd, "r")) == NULL) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *s, *eq, *hash;

        lineno++;
        if ((hash = strchr(line, '#')) != NULL)
            *hash = '\0';
        s = trim(line);
        if (*s == '\0')
            continue;
        eq = strchr(s, '=');
        if (eq == NULL) {
            snprintf(msg, msglen, "%s:%d: expected key = value", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        if (config_set(cfg, trim(s), trim(eq + 1), why, sizeof why)) {
            snprintf(msg, msglen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    fclose(f);
    return rc;
}
