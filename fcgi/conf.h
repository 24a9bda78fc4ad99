/* ledger-fcgi's configuration: defaults, then the file, then the flags. */
#ifndef LEDGER_FCGI_CONF_H
#define LEDGER_FCGI_CONF_H

#include <stddef.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

#define CONFIG_STR 512

struct config {
    char db[CONFIG_STR];
    char identity_param[64];
    char email_param[64];
    char email_verified_param[64];
    char name_param[64];
    char home_currency[4];
    size_t max_body_bytes;
    enum log_level log_level;
    char log_file[CONFIG_STR];     /* empty: stderr as inherited */
    char socket_path[CONFIG_STR];  /* --socket */
    char socket_group[64];         /* group that may connect to --socket */
    char listen_addr[CONFIG_STR];  /* --listen host:port */
    int allow_remote;
    int no_jit;                    /* --no-jit */
};

void config_defaults(struct config *cfg);
/* Reads "key = value" lines; # starts a comment.  On error writes a message
 * naming the line to msg and returns -1. */
int config_load(struct config *cfg, const char *path, char *msg, size_t msglen);
/* Sets one key; returns -1 with msg for an unknown key or a bad value. */
int config_set(struct config *cfg, const char *key, const char *value,
               char *msg, size_t msglen);

#endif
