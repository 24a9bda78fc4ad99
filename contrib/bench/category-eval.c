/*
 * category-eval: how well the category suggestions (lib/suggest.c) do on
 * labeled rows, beside the baseline "merchant -> its most frequent
 * category (else the overall most frequent)".
 *
 *     category-eval FILE.csv|FILE.tsv [...]
 *
 * A .tsv file is the labeled merchant corpus (t/data/merchants/README:
 * source, raw bank text, merchant, date, category), one history per
 * source.  Any other file is one person's history in CSV: a header naming
 * at least date, description and category columns (amount optional: a
 * positive amount is money in, as bank CSVs write it).  Rows whose
 * category is empty or "N/A" are unlabeled and left out.  Each history is
 * taken by date: its first 70% are written to an in-memory ledger as one
 * user's categorised rows, and a suggestion is asked for each of the
 * rest, as a row without a category.  A row's merchant is what the
 * ledger would give it, the cleaner's name for its text
 * (lib/merchant_clean.c); the same name feeds the baseline and merchant
 * memory.  Prints, per history and overall: rows trained and tested, the
 * baseline's accuracy, ours (no suggestion counts as wrong) with each
 * source's share, and the mean time of one suggestion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "merchant_clean.h"
#include "suggest.h"

#define FIELDS_MAX 32
#define LINE_MAX_BYTES 8192

struct row {
    char date[16], *source, *description, *category, merchant[MERCHANT_CLEAN_MAX];
    int in;
    size_t seq; /* the order read, for ties of date */
};

struct rows {
    struct row *r;
    size_t n, cap;
};

/* One CSV line split in place (quotes as RFC 4180 has them, within a line). */
static int split(char *line, char **f)
{
    int n = 0;
    char *r = line, *w;

    while (n < FIELDS_MAX) {
        f[n++] = w = r;
        if (*r == '"') {
            r++;
            for (;;) {
                if (*r == '\0')
                    break;
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            while (*r && *r != ',')
                r++;
        } else {
            while (*r && *r != ',' && *r != '\r' && *r != '\n')
                *w++ = *r++;
        }
        if (*r != ',') {
            *w = '\0';
            break;
        }
        r++;
        *w = '\0';
    }
    return n;
}

/* YYYY-MM-DD from YYYY-MM-DD, MM-DD-YYYY or M/D/YYYY; 0 when none. */
static int iso_date(const char *s, char out[16])
{
    int y, m, d;

    if (sscanf(s, "%4d-%2d-%2d", &y, &m, &d) == 3 && y > 1900)
        ;
    else if (sscanf(s, "%2d-%2d-%4d", &m, &d, &y) == 3 || sscanf(s, "%d/%d/%d", &m, &d, &y) == 3)
        ;
    else
        return 0;
    if (y < 100)
        y += 2000;
    if (y > 9999 || m < 1 || m > 12 || d < 1 || d > 31)
        return 0;
    snprintf(out, 16, "%04d-%02d-%02d", y % 10000, m % 100, d % 100);
    return 1;
}

/* By source, then date; qsort is not stable, so the file's order breaks
 * ties (seq). */
static int by_source_date(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->source, y->source);

    if (c == 0)
        c = strcmp(x->date, y->date);
    if (c == 0)
        c = x->seq < y->seq ? -1 : x->seq > y->seq;
    return c;
}

static int col(char **f, int n, const char *name)
{
    int i;

    for (i = 0; i < n; i++)
        if (strcasecmp(f[i], name) == 0)
            return i;
    return -1;
}

struct tally {
    long train, test, base_ok, ours_ok, by_source[3], source_ok[3];
    double seconds;
};

/* One labeled row into rows, its merchant the cleaner's; 0, or -1 when
 * memory ran out. */
static int add_row(struct rows *rs, struct merchant_cleaner *mc, const char *source, const char *date,
                   const char *description, const char *category, int in)
{
    struct row r;
    char folded[LEDGER_CATEGORY_MAX];

    memset(&r, 0, sizeof r);
    if (!*category || strcmp(category, "N/A") == 0 || !iso_date(date, r.date))
        return 0;
    /* As every write folds it (rule C). */
    ledger_category_fold(category, folded);
    r.source = strdup(source);
    r.description = strdup(description);
    r.category = strdup(folded);
    r.in = in;
    r.seq = rs->n;
    if (merchant_clean(mc, description, r.merchant, NULL) < 0 || !r.source || !r.description || !r.category)
        goto oom;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 256;
        struct row *p = realloc(rs->r, cap * sizeof *p);

        if (p == NULL)
            goto oom;
        rs->r = p;
        rs->cap = cap;
    }
    rs->r[rs->n++] = r;
    return 0;
oom:
    free(r.source);
    free(r.description);
    free(r.category);
    return -1;
}

/* A CSV history: its source is the file's name. */
static int read_csv(const char *path, FILE *fp, struct rows *rs, struct merchant_cleaner *mc)
{
    char line[LINE_MAX_BYTES], *f[FIELDS_MAX];
    const char *base = strrchr(path, '/');
    int n, cd, cs, cc, ca;

    if (fgets(line, sizeof line, fp) == NULL)
        return -1;
    n = split(line, f);
    cd = col(f, n, "date");
    cs = col(f, n, "description");
    cc = col(f, n, "category");
    ca = col(f, n, "amount");
    if (cd < 0 || cs < 0 || cc < 0) {
        fprintf(stderr, "%s: the header needs date, description and category\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, fp))
        if ((n = split(line, f)) > cd && n > cs && n > cc
            && add_row(rs, mc, base ? base + 1 : path, f[cd], f[cs], f[cc], ca >= 0 && ca < n && atof(f[ca]) > 0))
            return -1;
    return 0;
}

/* The merchant corpus: source TAB raw TAB merchant TAB date TAB category. */
static int read_tsv(FILE *fp, struct rows *rs, struct merchant_cleaner *mc)
{
    char line[LINE_MAX_BYTES];

    while (fgets(line, sizeof line, fp)) {
        char *f[5];
        int n = 0;
        char *p = line;

        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#')
            continue;
        while (n < 5) {
            f[n++] = p;
            if ((p = strchr(p, '\t')) == NULL)
                break;
            *p++ = '\0';
        }
        if (n == 5 && add_row(rs, mc, f[0], f[3], f[1], f[4], 0))
            return -1;
    }
    return 0;
}

/* The training part's most frequent category for merchant, else its most
 * frequent of all; NULL when it has none. */
static char *baseline(ledger_db *db, const char *merchant)
{
    static const char *const sql[] = {
        "SELECT category FROM transactions WHERE merchant = ?1"
        " GROUP BY category ORDER BY COUNT(*) DESC, category LIMIT 1",
        "SELECT category FROM transactions GROUP BY category ORDER BY COUNT(*) DESC, category LIMIT 1",
    };
    char *out = NULL;
    int i;

    for (i = 0; i < 2 && out == NULL; i++) {
        sqlite3_stmt *st;

        if (sqlite3_prepare_v2(db->sql, sql[i], -1, &st, NULL) != SQLITE_OK)
            return NULL;
        if (i == 0)
            sqlite3_bind_text(st, 1, merchant, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            out = strdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    return out;
}

/* One history (rows of one source, in date order): train on its first
 * 70%, suggest for the rest. */
static int eval_history(const struct row *rows, size_t nrows, struct tally *t)
{
    size_t k, cut = nrows * 7 / 10;
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me;
    sqlite3_stmt *ins = NULL;
    int i;

    if (ledger_open(":memory:", &db, &err) || ledger_user_resolve(db, "eval", NULL, NULL, &me, &err)) {
        fprintf(stderr, "%s: %s\n", nrows ? rows[0].source : "", err.message);
        ledger_close(db);
        return -1;
    }
    ledger_begin(db, 1, &err);
    sqlite3_prepare_v2(db->sql, "INSERT INTO transactions (owner_id, date, description, merchant,"
                                " transaction_type, amount, category) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)",
                       -1, &ins, NULL);
    for (k = 0; k < cut; k++) {
        sqlite3_bind_int64(ins, 1, me);
        sqlite3_bind_text(ins, 2, rows[k].date, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, rows[k].description, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 4, rows[k].merchant, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, rows[k].in ? "credit" : "debit", -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 6, rows[k].category, -1, SQLITE_STATIC);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    if (ledger_commit(db, &err)) {
        fprintf(stderr, "%s: %s\n", rows[0].source, err.message);
        ledger_close(db);
        return -1;
    }
    t->train += (long)cut;
    ledger_begin(db, 0, &err);
    for (k = cut; k < nrows; k++) {
        struct suggestion s;
        struct timespec a, b;
        int found;
        char *base = baseline(db, rows[k].merchant);
        static const char *const sources[] = { SUGGEST_MERCHANT, SUGGEST_WORDS, SUGGEST_BUILTIN };

        t->base_ok += base && strcmp(base, rows[k].category) == 0;
        free(base);
        clock_gettime(CLOCK_MONOTONIC, &a);
        suggest_row(db, me, rows[k].description, rows[k].merchant, rows[k].in ? "credit" : "debit",
                    &s, &found, &err);
        clock_gettime(CLOCK_MONOTONIC, &b);
        t->seconds += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        t->test++;
        if (!found)
            continue;
        t->ours_ok += strcmp(s.category, rows[k].category) == 0;
        for (i = 0; i < 3; i++)
            if (strcmp(s.source, sources[i]) == 0) {
                t->by_source[i]++;
                t->source_ok[i] += strcmp(s.category, rows[k].category) == 0;
            }
    }
    ledger_rollback(db);
    ledger_close(db);
    return 0;
}

static void report(const char *name, const struct tally *t)
{
    char by[64];

    snprintf(by, sizeof by, "merchant %ld/%ld, words %ld/%ld, builtin %ld/%ld", t->source_ok[0], t->by_source[0],
             t->source_ok[1], t->by_source[1], t->source_ok[2], t->by_source[2]);
    printf("%-20s %5ld %5ld %8.1f%% %8.1f%%   %-36s %.1f\n", name, t->train, t->test,
           t->test ? 100.0 * t->base_ok / t->test : 0, t->test ? 100.0 * t->ours_ok / t->test : 0, by,
           t->test ? 1e6 * t->seconds / t->test : 0);
}

static void add_tally(struct tally *all, const struct tally *t)
{
    int j;

    all->train += t->train;
    all->test += t->test;
    all->base_ok += t->base_ok;
    all->ours_ok += t->ours_ok;
    all->seconds += t->seconds;
    for (j = 0; j < 3; j++) {
        all->by_source[j] += t->by_source[j];
        all->source_ok[j] += t->source_ok[j];
    }
}

int main(int argc, char **argv)
{
    struct tally all;
    struct rows rs = { NULL, 0, 0 };
    struct merchant_cleaner *mc = merchant_cleaner_new(0);
    size_t k, first;
    int i, histories = 0, rc = 3;

    memset(&all, 0, sizeof all);
    if (argc < 2) {
        fprintf(stderr, "usage: category-eval FILE.csv|FILE.tsv [...]\n");
        merchant_cleaner_free(mc);
        return 2;
    }
    if (mc == NULL)
        return 3;
    for (i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "r");
        size_t len = strlen(argv[i]);
        int bad;

        if (fp == NULL) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            goto out;
        }
        bad = len > 4 && strcmp(argv[i] + len - 4, ".tsv") == 0 ? read_tsv(fp, &rs, mc)
                                                                 : read_csv(argv[i], fp, &rs, mc);
        fclose(fp);
        if (bad)
            goto out;
    }
    qsort(rs.r, rs.n, sizeof *rs.r, by_source_date);
    printf("%-20s %5s %5s %9s %9s   %-36s %s\n", "history", "train", "test", "baseline", "ours",
           "ours by source (right/asked)", "us/suggestion");
    for (first = 0; first < rs.n; first = k) {
        struct tally t;

        for (k = first; k < rs.n && strcmp(rs.r[k].source, rs.r[first].source) == 0; k++)
            ;
        memset(&t, 0, sizeof t);
        if (eval_history(rs.r + first, k - first, &t))
            goto out;
        report(rs.r[first].source, &t);
        add_tally(&all, &t);
        histories++;
    }
    if (histories > 1)
        report("all", &all);
    rc = 0;
out:
    for (k = 0; k < rs.n; k++) {
        free(rs.r[k].source);
        free(rs.r[k].description);
        free(rs.r[k].category);
    }
    free(rs.r);
    merchant_cleaner_free(mc);
    return rc;
}
