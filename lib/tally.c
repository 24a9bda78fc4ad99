/*
 * Named sums of cents (per category, per merchant), kept as integers: a
 * cJSON number is a double, exact only to 2^53 cents, which the sum of a
 * few of the largest rows the API takes (10^15 cents each) passes.
 */
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "spend.h"

/* The slot of name in the index: where it is, or the empty one where it
 * would go. */
static size_t *slot_of(const struct tally *t, const char *name)
{
    size_t mask = t->nslots - 1, k = (size_t)hash_text(name) & mask;

    while (t->slots[k] && strcmp(t->v[t->slots[k] - 1].name, name) != 0)
        k = (k + 1) & mask;
    return &t->slots[k];
}

/* An index of every item in 4 slots an item (at least 16); -1 when memory
 * ran out, and then there is none. */
static int index_build(struct tally *t)
{
    size_t nslots = 16, i;

    while (nslots < 4 * (t->n + 1))
        nslots *= 2;
    free(t->slots);
    t->nslots = 0;
    if ((t->slots = calloc(nslots, sizeof *t->slots)) == NULL)
        return -1;
    t->nslots = nslots;
    for (i = 0; i < t->n; i++)
        *slot_of(t, t->v[i].name) = i + 1;
    return 0;
}

/* Found by a hash index rather than compared with every name: a monthly
 * report over a sparse ledger, or the mine basis's merchants, looked each
 * row's name up among all of them (a seventh of the time, and growing
 * with rows times names). */
struct tally_item *tally_get(struct tally *t, const char *name)
{
    size_t *slot;

    if ((t->nslots == 0 || 2 * (t->n + 1) > t->nslots) && index_build(t))
        return NULL;
    slot = slot_of(t, name);
    if (*slot)
        return &t->v[*slot - 1];
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
    *slot = t->n + 1;
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

    if (t->nslots) {
        const size_t *slot = slot_of(t, name);

        return *slot ? &t->v[*slot - 1] : NULL;
    }
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

/* The index no longer matches once the items move: it is dropped, and
 * made again by the next tally_get. */
void tally_sort(struct tally *t)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, by_cents);
    free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
}

void tally_free(struct tally *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    free(t->slots);
    t->v = NULL;
    t->slots = NULL;
    t->n = t->cap = t->nslots = 0;
}
