/*
 * category-eval: how well the category suggestions (lib/suggest.c) do on a
 * labeled export, beside the baseline "merchant -> its most frequent
 * category".
 *
 *     category-eval FILE.csv [FILE.csv...]
 *
 * Each file is one person's history: a header naming at least date,
 * description and category columns (amount optional: a positive amount is
 * money in, as bank CSVs write it).
 * Rows whose category is empty or "N/A" are unlabeled and left out.  Each
 * file is taken by date: its first 70% are written to an in-memory ledger
 * as one user's categorised rows, and a suggestion is asked for each of
 * the rest, as a row without a category.  A row's merchant is the first
 * two words suggest_cut keeps of its description (a trivial cleaner; the
 * same key feeds the baseline and merchant memory).  Prints, per file and
 * overall: rows trained and tested, the baseline's accuracy (a merchant
 * never seen counts as wrong), ours (no suggestion counts as wrong), and
 * the mean time of one suggestion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "db.h"
#include "suggest.h"

#define FIELDS_MAX 32
#define LINE_MAX_BYTES 8192

struct row {
    char date[16], *description, *category, merchant[2 * (SUGGEST_WORD_LEN + 1)];
    int in;
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

static int by_date(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->date, ((const struct row *)b)->date);
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

static int eval_file(const char *path, struct tally *t)
{
    FILE *fp = fopen(path, "r");
    char line[LINE_MAX_BYTES], *f[FIELDS_MAX];
    int n, cd, cs, cc, ca, i;
    struct row *rows = NULL;
    size_t nrows = 0, cap = 0, k, cut;
    ledger_db *db = NULL;
    ledger_error err;
    int64_t me;
    sqlite3_stmt *ins = NULL;

    if (fp == NULL || fgets(line, sizeof line, fp) == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        return -1;
    }
    n = split(line, f);
    cd = col(f, n, "date");
    cs = col(f, n, "description");
    cc = col(f, n, "category");
    ca = col(f, n, "amount");
    if (cd < 0 || cs < 0 || cc < 0) {
        fprintf(stderr, "%s: the header needs date, description and category\n", path);
        return -1;
    }
    while (fgets(line, sizeof line, fp)) {
        struct row r;
        struct suggest_words w;

        if ((n = split(line, f)) <= cd || n <= cs || n <= cc || !*f[cc] || strcmp(f[cc], "N/A") == 0
            || !iso_date(f[cd], r.date))
            continue;
        r.description = strdup(f[cs]);
        {
            /* As every write folds it (rule C). */
            char folded[LEDGER_CATEGORY_MAX];

            ledger_category_fold(f[cc], folded);
            r.category = strdup(folded);
        }
        r.in = ca >= 0 && ca < n && atof(f[ca]) > 0;
        suggest_cut(r.description, NULL, NULL, &w);
        snprintf(r.merchant, sizeof r.merchant, "%s%s%s", w.n > 0 ? w.text[0] : "",
                 w.n > 1 ? " " : "", w.n > 1 ? w.text[1] : "");
        if (nrows == cap)
            rows = realloc(rows, (cap = cap ? 2 * cap : 256) * sizeof *rows);
        rows[nrows++] = r;
    }
    fclose(fp);
    qsort(rows, nrows, sizeof *rows, by_date);
    cut = nrows * 7 / 10;
    if (ledger_open(":memory:", &db, &err) || ledger_user_resolve(db, "eval", NULL, NULL, &me, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.message);
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
        fprintf(stderr, "%s: %s\n", path, err.message);
        return -1;
    }
    t->train += (long)cut;
    ledger_begin(db, 0, &err);
    for (k = cut; k < nrows; k++) {
        struct suggestion s;
        struct timespec a, b;
        sqlite3_stmt *st;
        int found;
        const char *base = NULL;
        static const char *const sources[] = { SUGGEST_MERCHANT, SUGGEST_WORDS, SUGGEST_BUILTIN };

        /* The baseline: the merchant's most frequent category in training. */
        sqlite3_prepare_v2(db->sql, "SELECT category FROM transactions WHERE merchant = ?1"
                                    " GROUP BY category ORDER BY COUNT(*) DESC, category LIMIT 1",
                           -1, &st, NULL);
        sqlite3_bind_text(st, 1, rows[k].merchant, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            base = (const char *)sqlite3_column_text(st, 0);
        t->base_ok += base && strcmp(base, rows[k].category) == 0;
        sqlite3_finalize(st);
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
    for (k = 0; k < nrows; k++) {
        free(rows[k].description);
        free(rows[k].category);
    }
    free(rows);
    return 0;
}

static void report(const char *name, const struct tally *t)
{
    printf("%-28s train %5ld  test %5ld  baseline %5.1f%%  suggestions %5.1f%%"
           "  (merchant %ld/%ld, words %ld/%ld, builtin %ld/%ld)  %.1f us/suggestion\n",
           name, t->train, t->test, t->test ? 100.0 * t->base_ok / t->test : 0,
           t->test ? 100.0 * t->ours_ok / t->test : 0, t->source_ok[0], t->by_source[0],
           t->source_ok[1], t->by_source[1], t->source_ok[2], t->by_source[2],
           t->test ? 1e6 * t->seconds / t->test : 0);
}

int main(int argc, char **argv)
{
    struct tally all;
    int i, j;

    memset(&all, 0, sizeof all);
    if (argc < 2) {
        fprintf(stderr, "usage: category-eval FILE.csv [FILE.csv...]\n");
        return 2;
    }
    for (i = 1; i < argc; i++) {
        struct tally t;
        const char *base = strrchr(argv[i], '/');

        memset(&t, 0, sizeof t);
        if (eval_file(argv[i], &t))
            return 3;
        report(base ? base + 1 : argv[i], &t);
        all.train += t.train;
        all.test += t.test;
        all.base_ok += t.base_ok;
        all.ours_ok += t.ours_ok;
        all.seconds += t.seconds;
        for (j = 0; j < 3; j++) {
            all.by_source[j] += t.by_source[j];
            all.source_ok[j] += t.source_ok[j];
        }
    }
    if (argc > 2)
        report("all", &all);
    return 0;
}
