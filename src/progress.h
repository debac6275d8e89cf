/* A one-line progress bar on stderr, drawn only when stderr is a terminal. */
#ifndef SMEM_PROGRESS_H
#define SMEM_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

/* Whether a bar should be drawn: stderr is a terminal and --quiet was not given. */
bool smem_progress_wanted(bool quiet);

/* Draws "[####    ] 12/99 bank stride_words=3 width_bytes=4" over the previous line. */
void smem_progress_update(size_t done, size_t total, const struct smem_point *p);

/* Clears the bar. */
void smem_progress_done(void);

#endif
