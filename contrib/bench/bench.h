/* ledger-libbench's parts (contrib/bench/README): the timing of a call
 * beside SQLite's share of it (bench-measure.c), the HTTP families
 * in-process (bench-families.c) and the sections (ledger-libbench.c). */
#ifndef LEDGER_BENCH_H
#define LEDGER_BENCH_H

#include <stdio.h>

#include "db.h"

#define MAXP 8
#define EXIT_BROKEN 3

double now_ms(void);
int cmp_double(const void *a, const void *b);
/* The p-th fraction of v's n values (sorts v). */
double pct(double *v, int n, double p);
/* kv (key, value, ..., NULL) as parameters, in items[MAXP]. */
void params_of(const char *const *kv, struct ledger_param *items, struct ledger_params *p);

/* Set when a figure misses its target: the exit status says so. */
extern int g_failed;
/* The cost of one clock reading, in ms (clock_cost_ms, read at start). */
extern double g_clock_ms;
/* Where the families' "name<TAB>lib p50<TAB>sqlite p50" lines go (for
 * http.pl), when not NULL. */
extern FILE *g_tsv;
double clock_cost_ms(void);

/* One library call as a request makes it: fills *out; nonzero on failure. */
typedef int (*bench_fn)(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err);
void measure(ledger_db *db, int64_t me, const char *name, bench_fn fn, const void *arg,
             int iterations, int write, double target_ms);
/* The list as ledger-fcgi asks for it; arg is its ledger_params. */
int call_list(ledger_db *db, int64_t me, const void *arg, cJSON **out, ledger_error *err);
/* A call that takes query parameters, timed with those of kv. */
void run_call(ledger_db *db, int64_t me, const char *name, const char *const *kv,
              int (*call)(ledger_db *, int64_t, const struct ledger_params *, cJSON **,
                          ledger_error *),
              int iterations, double target_ms);
/* A list page with the parameters of kv (target 5 ms). */
void run(ledger_db *db, int64_t me, const char *name, const char *const *kv, int iterations);
/* Prints a figure with its target (0: none, shown for information). */
void figure(const char *name, double ms, double rows, double target);

/* Every family once, as http.pl names them (bench-families.c). */
int families(ledger_db *db, int64_t me, int iterations, const char *dir, char *cursor);

#endif /* LEDGER_BENCH_H */
