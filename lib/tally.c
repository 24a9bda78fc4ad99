/*
 * Named sums of cents (per category, per merchant), kept as integers: a
 * cJSON number is a double, exact only to 2^53 cents, which the sum of a
 * few of the largest rows the API takes (10^15 cents each) passes.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct tally_item *tally_get(struct tally *t, const char *name)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        struct tally_item *v = realloc(t->v, cap * sizeof *v);

        if (v == NULL)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
    if ((t->v[t->n].name = strdup(name)) == NULL)
        return NULL;
    t->v[t->n].cents = 0;
    t->v[t->n].count = 0;
    return &t->v[t->n++];
}

int tally_add(struct tally *t, const char *name, int64_t cents)
{
    struct tally_item *it = tally_get(t, name);

    if (it == NULL)
        return -1;
    it->cents += cents;
    it->count++;
    return 0;
}

const struct tally_item *tally_find(const struct tally *t, const char *name)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strcmp(t->v[i].name, name) == 0)
            return &t->v[i];
    return NULL;
}

static int by_cents(const void *a, const void *b)
{
    const struct tally_item *x = a, *y = b;

    if (x->cents != y->cents)
        return x->cents > y->cents ? -1 : 1;
    return strcmp(x->name, y->name);
}

void tally_sort(struct tally *t)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, by_cents);
}

void tally_free(struct tally *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}
