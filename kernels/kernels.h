/* The launchers of the CUDA kernels, callable from C. Each returns a cudaError_t as int (0 on
 * success) and never synchronizes; each *_fn returns the __global__ function for attribute and
 * occupancy calls. Pointers are device pointers. */
#ifndef SMEM_KERNELS_H
#define SMEM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Written by thread 0 of block 0: clock64 and %globaltimer at the kernel's two marks. */
struct smem_clock {
    unsigned long long cycles0, cycles1, ns0, ns1;
};

/* load.cu: shared-memory loads of width 4, 8 or 16 bytes, lane l reading element l * stride. */
#define SMEM_LOAD_WORDS 12288     /* 48 KiB of static shared memory */
#define SMEM_LOAD_UNROLL 8
#define SMEM_LOAD_ROW_BYTES 128   /* unrolled loads step by one full bank row: same banks */
#define SMEM_LOAD_BLOCK 1024
const void *smem_load_fn(int width);
int smem_load_launch(int width, unsigned grid, unsigned block, const uint32_t *in, uint32_t *out,
                     int stride, int iters, struct smem_clock *clk, void *stream);

/* latency.cu: one thread chasing a cycle of shared-memory addresses (index_chase 0) or of
 * indices, j = s[j] (index_chase 1). */
#define SMEM_LATENCY_SLOTS 4096
#define SMEM_LATENCY_UNROLL 32
const void *smem_latency_fn(int index_chase);
int smem_latency_launch(int index_chase, const uint32_t *next, uint32_t steps, uint32_t *out,
                        struct smem_clock *clk, void *stream);

/* carveout.cu: a fixed shared-memory footprint tile kernel and an L1-reliant gather. */
#define SMEM_FOOTPRINT_BLOCK 256
#define SMEM_GATHER_BLOCK 256
#define SMEM_GATHER_UNROLL 8
const void *smem_footprint_fn(void);
int smem_footprint_launch(unsigned grid, size_t tile_bytes, const float *in, float *out,
                          struct smem_clock *clk, void *stream);
const void *smem_gather_fn(void);
int smem_gather_launch(unsigned grid, const float *table, uint32_t table_len, uint32_t gathers,
                       float *out, struct smem_clock *clk, void *stream);

/* dynamic.cu: the same streaming kernel with a dynamic or a static shared allocation. */
#define SMEM_DYNAMIC_BLOCK 256
#define SMEM_DYNAMIC_CHUNK 4096   /* floats each block streams */
const void *smem_dynamic_fn(void);
int smem_dynamic_launch(unsigned grid, size_t dyn_bytes, const float *in, float *out,
                        struct smem_clock *clk, void *stream);
/* The static __shared__ sizes compiled as kernels, in bytes. A static array cannot exceed 48 KiB:
 * the compiler refuses (ptxas "uses too much shared data"), which is why larger allocations must
 * be dynamic and opted in. */
#define SMEM_STATIC_SIZES(X) X(1024) X(2048) X(4096) X(8192) X(16384) X(24576) X(32768) X(40960) X(49152)
const void *smem_static_fn(size_t bytes);
int smem_static_launch(size_t bytes, unsigned grid, const float *in, float *out,
                       struct smem_clock *clk, void *stream);

/* matmul.cu: C = A B, fp32, n x n row-major. tile 0 is the global-only baseline, 8/16/32/64 the
 * shared-memory tiled kernels; the register-blocked kernel takes BK = 8, 16, 32 or 64. */
#define SMEM_MATMUL_RB_TILE 128   /* the register-blocked kernel's block tile edge */
const void *smem_matmul_fn(int tile);
int smem_matmul_launch(int tile, int n, const float *a, const float *b, float *c, struct smem_clock *clk,
                       void *stream);
const void *smem_matmul_rb_fn(int bk);
int smem_matmul_rb_launch(int bk, int n, const float *a, const float *b, float *c, struct smem_clock *clk,
                          void *stream);

/* transpose.cu: n x n fp32, n a multiple of 32. */
enum { SMEM_TRANSPOSE_NAIVE, SMEM_TRANSPOSE_TILED, SMEM_TRANSPOSE_PADDED };
const void *smem_transpose_fn(int variant);
int smem_transpose_launch(int variant, int n, const float *in, float *out, struct smem_clock *clk, void *stream);

/* reduction.cu: *out = sum of n floats (n a multiple of 4); the launcher zeroes *out first. */
#define SMEM_REDUCTION_BLOCK 256
enum { SMEM_REDUCE_TREE, SMEM_REDUCE_SHUFFLE, SMEM_REDUCE_ATOMIC };
const void *smem_reduction_fn(int method);
int smem_reduction_launch(int method, unsigned grid, const float *in, size_t n, float *out, struct smem_clock *clk,
                          void *stream);

/* uninit.cu: fill marks every word of each block's dynamic shared memory, then peek reads its
 * own before writing: stale[b] counts the marked words block b found, dump holds what it read. */
#define SMEM_UNINIT_BLOCK 256
#define SMEM_UNINIT_MARK 0xC0DEu
const void *smem_uninit_fill_fn(void);
const void *smem_uninit_peek_fn(void);
int smem_uninit_launch(unsigned grid, size_t bytes, uint32_t *dump, uint32_t *stale, struct smem_clock *clk,
                       void *stream);

/* residency.cu: each block records %smid and %globaltimer at its start and end. The variants
 * 0 .. smem_residency_variants()-1 use more and more registers per thread. */
int smem_residency_variants(void);
const void *smem_residency_fn(int variant);
int smem_residency_launch(int variant, unsigned grid, unsigned block, size_t dyn_bytes, unsigned long long spin_ns,
                          uint32_t *smid, unsigned long long *start, unsigned long long *end, void *stream);

/* clock.cu: a kernel that spins for spin_ns and records its clock. */
int smem_clock_launch(unsigned long long spin_ns, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
