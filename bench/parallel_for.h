/* A host reference's work over a large index range, split across host threads. */
#ifndef SMEM_PARALLEL_FOR_H
#define SMEM_PARALLEL_FOR_H

#include <stddef.h>

/* fn(arg, begin, end, why, why_len) over [0, n) split into contiguous ranges on up to 16 host
 * threads (for work of milliseconds and more: a thread costs tens of microseconds); fn returns 0 or
 * a negative code with why filled. The first failing range's code and reason, in index order, so a
 * report does not depend on timing. */
int smem_parallel_for(size_t n, int (*fn)(void *arg, size_t begin, size_t end, char *why, size_t why_len),
                      void *arg, char *why, size_t why_len);

#endif
