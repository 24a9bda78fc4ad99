/* The listening socket: a unix socket we create, a loopback TCP port, or
 * the socket inherited on fd 0. */
#ifndef LEDGER_FCGI_LISTEN_H
#define LEDGER_FCGI_LISTEN_H

#include <stddef.h>

/* Each returns the listening fd, or -1 with a message. */
int listen_unix(const char *path, const char *group, char *msg, size_t msglen);
int listen_tcp(const char *hostport, int allow_remote, char *msg, size_t msglen);
int listen_inherited(char *msg, size_t msglen);

#endif
