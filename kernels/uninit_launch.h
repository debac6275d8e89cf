/* uninit.cu: fill marks every word of each block's dynamic shared memory, then peek reads its own
 * before writing: stale[b] counts the marked words block b found, dump holds what it read. */
#ifndef SMEM_KERNELS_UNINIT_H
#define SMEM_KERNELS_UNINIT_H

#include <stddef.h>
#include <stdint.h>

#include "clock_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMEM_UNINIT_BLOCK 256
#define SMEM_UNINIT_MARK 0xC0DEu

/* The fill and the peek kernel, for attribute and occupancy calls. */
const void *smem_uninit_fill_fn(void);
const void *smem_uninit_peek_fn(void);

/* fill then peek, both with bytes of dynamic shared memory per block. */
int smem_uninit_launch(unsigned grid, size_t bytes, uint32_t *dump, uint32_t *stale, struct smem_clock *clk,
                       void *stream);

#ifdef __cplusplus
}
#endif

#endif
