/* Creating or adopting the FastCGI listening socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "listen.h"

/* Connections the kernel queues while every process is busy: a burst
 * waits for a process rather than failing (with 128, nginx answered 502 to
 * all past it; supervisord's own sockets use SOMAXCONN too).  The kernel
 * caps it at net.core.somaxconn. */
#define BACKLOG SOMAXCONN

/* Whether a process is accepting connections on the unix socket at path. */
static int socket_in_use(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), live;

    if (fd < 0)
        return 0;
    live = connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0;
    close(fd);
    return live;
}

int listen_unix(const char *path, const char *group, char *msg, size_t msglen)
{
    struct sockaddr_un sa;
    struct stat stb;
    struct group *gr = NULL;
    mode_t old;
    int fd;

    /* Looked up first: it may load NSS modules, which takes a while. */
    if (group && *group && (gr = getgrnam(group)) == NULL) {
        snprintf(msg, msglen, "cannot give %s to group %s: no such group", path, group);
        return -1;
    }

    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(msg, msglen, "socket path too long: %s", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    /* A stale socket from a previous run is replaced; one a running process
     * listens on is not (taking it over leaves that process unreachable,
     * and the socket gone once this one stops); nor is any other file. */
    if (lstat(path, &stb) == 0) {
        if (!S_ISSOCK(stb.st_mode)) {
            snprintf(msg, msglen, "%s exists and is not a socket", path);
            return -1;
        }
        if (socket_in_use(&sa)) {
            snprintf(msg, msglen, "%s is in use: another process is listening on it", path);
            return -1;
        }
        unlink(path);
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(msg, msglen, "socket: %s", strerror(errno));
        return -1;
    }
    /* Created 0660 from the start (not chmod'ed afterwards), so there is no
     * moment at which others may connect. */
    old = umask(0117);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        umask(old);
        snprintf(msg, msglen, "bind %s: %s", path, strerror(errno));
        goto fail;
    }
    umask(old);
    if (gr && chown(path, (uid_t)-1, gr->gr_gid) < 0) {
        snprintf(msg, msglen, "cannot give %s to group %s: %s", path, group, strerror(errno));
        goto fail;
    }
    /* The socket file exists from bind() on, but connections are refused
     * until listen(): keep that window as short as it can be. */
    if (listen(fd, BACKLOG) < 0) {
        snprintf(msg, msglen, "listen %s: %s", path, strerror(errno));
        goto fail;
    }
    return fd;
fail:
    close(fd);
    return -1;
}

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

        return IN6_IS_ADDR_LOOPBACK(a)
               || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 0;
}

int listen_tcp(const char *hostport, int allow_remote, char *msg, size_t msglen)
{
    char host[256];
    const char *colon = strrchr(hostport, ':'), *port;
    struct addrinfo hints, *ai = NULL;
    size_t hlen;
    int fd = -1, one = 1, rc;

    if (colon == NULL || colon == hostport || colon[1] == '\0') {
        snprintf(msg, msglen, "--listen wants HOST:PORT, such as 127.0.0.1:9000");
        return -1;
    }
    port = colon + 1;
    hlen = (size_t)(colon - hostport);
    if (hostport[0] == '[' && hlen > 2 && hostport[hlen - 1] == ']') {
        hostport++;
        hlen -= 2;
    }
    if (hlen >= sizeof host) {
        snprintf(msg, msglen, "--listen host too long");
        return -1;
    }
    memcpy(host, hostport, hlen);
    host[hlen] = '\0';
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (strcmp(host, "localhost") ? AI_NUMERICHOST : 0);
    rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0) {
        snprintf(msg, msglen, "--listen %s: %s", hostport, gai_strerror(rc));
        return -1;
    }
    /* The service trusts the identity the proxy passes, so only the proxy
     * may reach it: a non-loopback address needs an explicit override. */
    if (!is_loopback(ai->ai_addr) && !allow_remote) {
        snprintf(msg, msglen, "--listen %s is not a loopback address; the service must "
                 "only be reachable through the authenticating proxy (use "
                 "--allow-remote to override)", host);
        goto out;
    }
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(msg, msglen, "socket: %s", strerror(errno));
        goto out;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, BACKLOG) < 0) {
        snprintf(msg, msglen, "bind %s: %s", hostport, strerror(errno));
        close(fd);
        fd = -1;
    }
out:
    freeaddrinfo(ai);
    return fd;
}

int listen_inherited(char *msg, size_t msglen)
{
    struct stat stb;
    int type;
    socklen_t len = sizeof type;

    /* spawn-fcgi, supervisord's fcgi-program and mod_fcgid hand over the
     * listening socket as fd 0. */
    if (fstat(0, &stb) < 0 || !S_ISSOCK(stb.st_mode)
        || getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM) {
        snprintf(msg, msglen, "standard input is not a listening socket: give --socket "
                 "PATH or --listen 127.0.0.1:PORT, or start under spawn-fcgi or "
                 "supervisord's fcgi-program");
        return -1;
    }
    return 0;
}
