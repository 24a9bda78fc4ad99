/*
 * merchant-eval: how often the merchant cleaner names the merchant a
 * public export named, beside two baselines.
 *
 *   merchant-eval [-v] FILE.tsv...
 *
 * Each line of a corpus file is "source TAB raw bank text TAB merchant"
 * ('#' lines are comments).  A guess is right when its key (case,
 * spacing and punctuation ignored: merchant_key) equals the label's.
 * Printed per source and in all, beside ours: the raw text as it is; the
 * trivial cleaner (the raw text without its digits and punctuation,
 * title-cased: what a few lines of code give, and the baseline the aim
 * "twice the trivial cleaner" means); and the prefix cleaner (the text
 * before its first digit, '*', '#' or two spaces), a stronger few lines.
 * -v prints every line ours gets wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merchant_clean.h"

#define SOURCES_MAX 32

struct score {
    char source[64];
    long n, raw, trivial, prefix, ours;
};

/* The trivial cleaner: letters and spaces kept (every byte past ASCII
 * too), digits and punctuation dropped, runs of spaces made one, each
 * word capitalised. */
static void trivial_clean(const char *raw, char *out)
{
    size_t n = 0;
    int start = 1;

    for (; *raw && n + 1 < MERCHANT_CLEAN_MAX; raw++) {
        unsigned char ch = (unsigned char)*raw;

        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch >= 0x80) {
            if (ch < 0x80)
                ch = (unsigned char)(start ? (ch & ~0x20) : (ch | 0x20));
            out[n++] = (char)ch;
            start = 0;
        } else if ((ch == ' ' || ch == '\t') && n > 0 && out[n - 1] != ' ') {
            out[n++] = ' ';
            start = 1;
        }
    }
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

/* The prefix cleaner: the text up to its first digit, '*', '#' or run of
 * two spaces. */
static void prefix_clean(const char *raw, char *out)
{
    size_t n = 0;

    for (; *raw && n + 1 < MERCHANT_CLEAN_MAX; raw++) {
        if ((*raw >= '0' && *raw <= '9') || *raw == '*' || *raw == '#' || (raw[0] == ' ' && raw[1] == ' '))
            break;
        out[n++] = *raw;
    }
    out[n] = '\0';
}

static int same(const char *guess, const char *label)
{
    char a[MERCHANT_CLEAN_MAX], b[MERCHANT_CLEAN_MAX];

    merchant_key(guess, a);
    merchant_key(label, b);
    return a[0] && strcmp(a, b) == 0;
}

static struct score *score_of(struct score *s, int *n, const char *source)
{
    int i;

    for (i = 0; i < *n; i++)
        if (strcmp(s[i].source, source) == 0)
            return &s[i];
    if (*n == SOURCES_MAX)
        return NULL;
    snprintf(s[*n].source, sizeof s[*n].source, "%.63s", source);
    return &s[(*n)++];
}

static void print_score(const struct score *s)
{
    printf("%-20s %5ld %7.1f%% %7.1f%% %7.1f%% %7.1f%%  %5.2fx\n", s->source, s->n, 100.0 * s->raw / s->n,
           100.0 * s->trivial / s->n, 100.0 * s->prefix / s->n, 100.0 * s->ours / s->n,
           s->trivial ? (double)s->ours / (double)s->trivial : 0.0);
}

int main(int argc, char **argv)
{
    struct merchant_cleaner *c = merchant_cleaner_new(0);
    struct score scores[SOURCES_MAX], all = { "all", 0, 0, 0, 0, 0 };
    int nscores = 0, verbose = 0, i, rc = 1;
    char line[1024];

    memset(scores, 0, sizeof scores);
    if (c == NULL) {
        fprintf(stderr, "merchant-eval: out of memory\n");
        return 1;
    }
    for (i = 1; i < argc; i++) {
        FILE *f;

        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
            continue;
        }
        if ((f = fopen(argv[i], "r")) == NULL) {
            perror(argv[i]);
            goto out;
        }
        while (fgets(line, sizeof line, f)) {
            char *source = line, *raw, *label, *end, name[MERCHANT_CLEAN_MAX], trivial[MERCHANT_CLEAN_MAX],
                 prefix[MERCHANT_CLEAN_MAX];
            struct score *s;
            int got;

            line[strcspn(line, "\r\n")] = '\0';
            if (line[0] == '#' || line[0] == '\0' || (raw = strchr(source, '\t')) == NULL)
                continue;
            *raw++ = '\0';
            if ((label = strchr(raw, '\t')) == NULL)
                continue;
            *label++ = '\0';
            if ((end = strchr(label, '\t')))
                *end = '\0';
            if ((s = score_of(scores, &nscores, source)) == NULL)
                continue;
            if ((got = merchant_clean(c, raw, name, NULL)) < 0) {
                fprintf(stderr, "merchant-eval: out of memory\n");
                fclose(f);
                goto out;
            }
            trivial_clean(raw, trivial);
            prefix_clean(raw, prefix);
            s->n++;
            s->raw += same(raw, label);
            s->trivial += same(trivial, label);
            s->prefix += same(prefix, label);
            s->ours += got == 1 && same(name, label);
            if (verbose && !(got == 1 && same(name, label)))
                printf("MISS\t%s\t%s\t%s\n", raw, name, label);
        }
        fclose(f);
    }
    printf("%-20s %5s %8s %8s %8s %8s  %6s\n", "source", "pairs", "raw", "trivial", "prefix", "cleaner",
           "/triv");
    for (i = 0; i < nscores; i++) {
        print_score(&scores[i]);
        all.n += scores[i].n;
        all.raw += scores[i].raw;
        all.trivial += scores[i].trivial;
        all.prefix += scores[i].prefix;
        all.ours += scores[i].ours;
    }
    if (all.n)
        print_score(&all);
    rc = 0;
out:
    merchant_cleaner_free(c);
    return rc;
}
