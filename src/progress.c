/* Progress on stderr: carriage return and erase-to-end-of-line, so the table on stdout stays clean. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "smem.h"

#define BAR_WIDTH 24

bool smem_progress_wanted(bool quiet)
{
    return !quiet && isatty(STDERR_FILENO);
}

void smem_progress_update(size_t done, size_t total, const struct smem_point *p)
{
    char bar[BAR_WIDTH + 1], params[160];
    size_t fill = total ? done * BAR_WIDTH / total : 0;

    memset(bar, ' ', BAR_WIDTH);
    memset(bar, '#', fill);
    bar[BAR_WIDTH] = '\0';
    smem_point_describe(p, params, sizeof(params));
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %s %s", bar, done + 1, total, p->bench->name, params);
    fflush(stderr);
}

void smem_progress_done(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
