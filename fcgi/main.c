/*
 * ledger-fcgi: the FastCGI front end of the ledger service.
 *
 * A single-threaded FCGX_Accept_r loop.  Several processes may share one
 * listening socket and one database (supervisord numprocs): SQLite's WAL and
 * busy timeout let them queue for the write lock.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fcgiapp.h>

#include <config.h>
#include "conf.h"
#include "dispatch.h"
#include "listen.h"
#include "log.h"
#include "router.h"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t reopen_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
    /* Makes an accept interrupted by this signal return instead of retrying. */
    FCGX_ShutdownPending();
}

static void on_hup(int sig)
{
    (void)sig;
    reopen_requested = 1;
}

/* Without SA_RESTART, so a process idle in accept() is woken by SIGTERM. */
static void install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

/* While a request is served, stop signals wait: a read interrupted half-way
 * through a body would fail the request in flight. */
static void block_stop_signals(int block)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ledger-fcgi [--config FILE] [--db PATH] [--log FILE] [--log-level LEVEL]\n"
            "                   [--socket PATH [--socket-group GROUP] | --listen HOST:PORT [--allow-remote]]\n"
            "                   [--check] [--no-jit] [--routes]\n"
            "Without --socket or --listen, serves the FastCGI socket inherited on fd 0\n"
            "(spawn-fcgi, supervisord fcgi-program, mod_fcgid).\n"
            "--log-level is error, warn, info (a line a request, the default) or debug.\n"
            "--check opens and migrates the database, compiles the routes and exits.\n"
            "--no-jit matches routes and cleans merchants without PCRE2's JIT (for\n"
            "valgrind, which cannot follow JIT-compiled code).\n"
            "--routes prints the route table and exits.\n");
}

static int parse_args(int argc, char **argv, struct config *cfg, int *check)
{
    char msg[512];
    int i;

    /* The config file first, so flags override it wherever they stand. */
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ledger-fcgi: --config needs a file\n");
                return -1;
            }
            if (config_load(cfg, argv[i + 1], msg, sizeof msg)) {
                fprintf(stderr, "ledger-fcgi: %s\n", msg);
                return -1;
            }
        }
    for (i = 1; i < argc; i++) {
        static const struct { const char *flag, *key; } valued[] = {
            { "--config", NULL }, { "--db", "db" }, { "--socket", "socket" },
            { "--socket-group", "socket_group" }, { "--listen", "listen" },
            { "--log", "log_file" }, { "--log-level", "log_level" },
        };
        size_t k;
        int done = 0;

        for (k = 0; k < sizeof valued / sizeof valued[0]; k++) {
            if (strcmp(argv[i], valued[k].flag) != 0)
                continue;
            if (i + 1 >= argc) {
                fprintf(stderr, "ledger-fcgi: %s needs a value\n", argv[i]);
                return -1;
            }
            if (valued[k].key && config_set(cfg, valued[k].key, argv[i + 1], msg, sizeof msg)) {
                fprintf(stderr, "ledger-fcgi: %s: %s\n", argv[i], msg);
                return -1;
            }
            i++;
            done = 1;
            break;
        }
        if (done)
            continue;
        if (strcmp(argv[i], "--allow-remote") == 0) {
            cfg->allow_remote = 1;
        } else if (strcmp(argv[i], "--check") == 0) {
            *check = 1;
        } else if (strcmp(argv[i], "--routes") == 0) {
            size_t r;

            /* The route table, for the authorization matrix test. */
            for (r = 0; r < route_count; r++)
                printf("%s %s\n", routes[r].method, routes[r].pattern);
            exit(0);
        } else if (strcmp(argv[i], "--no-jit") == 0) {
            cfg->no_jit = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "ledger-fcgi: unknown argument %s\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    if (cfg->socket_path[0] && cfg->listen_addr[0]) {
        fprintf(stderr, "ledger-fcgi: give --socket or --listen, not both\n");
        return -1;
    }
    return 0;
}

/* A database readable by others (0644, made under a supervisor's umask)
 * is made the service's alone once it has opened, with its WAL and shared
 * memory, to which SQLite gives the database file's mode.  Regular files
 * only. */
static void make_private(const char *db)
{
    static const char *const suffix[] = { "", "-wal", "-shm" };
    char path[4200];
    struct stat st;
    size_t i;

    for (i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(path, sizeof path, "%s%s", db, suffix[i]);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077) == 0)
            continue;
        if (chmod(path, st.st_mode & 07700) == 0)
            log_msg(LOG_WARN, "%s was readable by other accounts (mode %04o): now %04o", path,
                    (unsigned)(st.st_mode & 07777), (unsigned)(st.st_mode & 07700));
        else
            log_msg(LOG_WARN, "%s is readable by other accounts (mode %04o) and cannot be"
                    " made private: %s", path, (unsigned)(st.st_mode & 07777), strerror(errno));
    }
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct router *rt = NULL;
    ledger_db *db = NULL;
    ledger_error err;
    FCGX_Request req;
    char msg[512];
    uint64_t seed = 0, seq = 0;
    struct stat own_socket, now;
    int check = 0, stale = 0, fd, rc = 1;

    config_defaults(&cfg);
    if (parse_args(argc, argv, &cfg, &check))
        return 2;
    /* What this process creates (the database, its WAL and shared memory,
     * the log) is for the service's account alone: it holds everyone's
     * money, and the umask a supervisor starts us with (022) lets every
     * local account of a shared host read it. */
    umask(umask(0) | 077);
    log_init(cfg.log_level, cfg.log_file);
    if (log_reopen()) {
        fprintf(stderr, "ledger-fcgi: cannot open log %s: %s\n", cfg.log_file, strerror(errno));
        return 1;
    }
    if (router_new(&rt, !cfg.no_jit, msg, sizeof msg)) {
        log_msg(LOG_ERROR, "route table: %s", msg);
        goto out;
    }
    /* make_private runs once the path has opened as a database, so that
     * --db naming a directory or any other file (--db /tmp) is refused
     * with its mode untouched. */
    if (ledger_open(cfg.db, &db, &err) || ledger_set_home_currency(db, cfg.home_currency, &err)) {
        log_msg(LOG_ERROR, "database %s: %s", cfg.db, err.message);
        goto out;
    }
    make_private(cfg.db);
    ledger_set_jit(db, !cfg.no_jit);
    if (check) {
        printf("ok: %s at schema version %d, %zu routes\n", cfg.db,
               ledger_schema_version(db), route_count);
        rc = 0;
        goto out;
    }
    /* The write-ahead log is copied into the database after a response
     * has gone (ledger_idle below), not by the commit of the request that
     * made it long, whose client would otherwise wait for the copy. */
    ledger_defer_checkpoints(db);
#ifdef __GLIBC__
    /* One request at a time, each much like the last: keep the heap a
     * request has used for the next (up to 8 MiB past what is in use),
     * and take blocks up to 1 MiB from it rather than from mmap.  glibc's
     * defaults hand the top of the heap back after each response and map
     * each block from 128 kB up afresh, so a large answer (a monthly
     * report over years, printed into such a buffer) faults its pages in
     * again on every request.  A larger request's memory still goes back
     * to the kernel (request_end's malloc_trim, and mmap above 1 MiB). */
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    if (cfg.socket_path[0])
        fd = listen_unix(cfg.socket_path, cfg.socket_group, msg, sizeof msg);
    else if (cfg.listen_addr[0])
        fd = listen_tcp(cfg.listen_addr, cfg.allow_remote, msg, sizeof msg);
    else
        fd = listen_inherited(msg, sizeof msg);
    if (fd < 0) {
        log_msg(LOG_ERROR, "%s", msg);
        goto out;
    }
    if (cfg.socket_path[0] && lstat(cfg.socket_path, &own_socket) != 0)
        memset(&own_socket, 0, sizeof own_socket);
    if (FCGX_Init() != 0 || FCGX_InitRequest(&req, fd, 0) != 0) {
        log_msg(LOG_ERROR, "FastCGI initialisation failed");
        goto out;
    }
    /* Request ids: a random per-process base, mixed with a counter. */
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
        seed = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
    install_signals();
    log_msg(LOG_INFO, "ledger-fcgi %s serving %s (schema %d, pid %d)", PACKAGE_VERSION,
            cfg.socket_path[0] ? cfg.socket_path : cfg.listen_addr[0] ? cfg.listen_addr : "fd 0",
            ledger_schema_version(db), (int)getpid());
    while (!stop_requested && !stale) {
        block_stop_signals(0);
        if (FCGX_Accept_r(&req) < 0)
            break;
        block_stop_signals(1);
        if (reopen_requested) {
            reopen_requested = 0;
            log_reopen();
        }
        stale = dispatch(&req, &cfg, db, rt, mix64(seed + ++seq));
        FCGX_Finish_r(&req);
        ledger_idle(db);
    }
    FCGX_Free(&req, 1);
    /* A database changed under us: exit 1, to be started again on the file
     * now at the path (supervisord's autorestart). */
    if (stale)
        log_msg(LOG_ERROR, "ledger-fcgi stopping: the database changed under it (pid %d)",
                (int)getpid());
    else
        log_msg(LOG_INFO, "ledger-fcgi stopping (pid %d)", (int)getpid());
    /* The socket made at start, unless something else is at its path now. */
    if (cfg.socket_path[0] && lstat(cfg.socket_path, &now) == 0 && now.st_ino == own_socket.st_ino
        && now.st_dev == own_socket.st_dev)
        unlink(cfg.socket_path);
    rc = stale;
out:
    ledger_close(db);
    router_free(rt);
    return rc;
}
