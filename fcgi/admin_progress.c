/* ledger-admin's progress reports on stderr. */
#include <stdio.h>
#include <unistd.h>

#include "admin.h"

#define BAR_WIDTH 30

void progress_init(struct progress *p, const char *label)
{
    p->label = label;
    p->tty = isatty(STDERR_FILENO);
    p->shown = 0;
    p->last_step = -1;
}

void progress_update(struct progress *p, int64_t done, int64_t total, const char *note)
{
    int pct = total > 0 ? (int)(done * 100 / total) : 100, fill, i;
    char bar[BAR_WIDTH + 1];

    if (pct > 100)
        pct = 100;
    if (!p->tty) {
        if (pct / 25 == p->last_step)
            return;
        p->last_step = pct / 25;
        fprintf(stderr, "%s: %d%%%s%s\n", p->label, pct, note ? " " : "", note ? note : "");
        return;
    }
    if (pct == p->last_step && p->shown)
        return;
    p->last_step = pct;
    fill = pct * BAR_WIDTH / 100;
    for (i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    /* \033[K: erase what a longer note left on the line. */
    fprintf(stderr, "\r%s [%s] %3d%%%s%s\033[K", p->label, bar, pct, note ? " " : "",
            note ? note : "");
    fflush(stderr);
    p->shown = 1;
}

void progress_clear(struct progress *p)
{
    if (p->tty && p->shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        p->shown = 0;
        p->last_step = -1;
    }
}

void progress_finish(struct progress *p)
{
    if (p->tty && p->shown) {
        fputc('\n', stderr);
        p->shown = 0;
    }
}
