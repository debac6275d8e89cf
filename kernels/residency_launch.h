/* residency.cu, the driver's residency probe: each block records %smid and %globaltimer at its
 * start and end. The variants 0 .. smem_residency_variants()-1 use more and more registers per
 * thread. The launcher returns a cudaError_t as int and never synchronizes. */
#ifndef SMEM_KERNELS_RESIDENCY_H
#define SMEM_KERNELS_RESIDENCY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How many register variants the probe has. */
int smem_residency_variants(void);

/* The probe kernel of one variant. */
const void *smem_residency_fn(int variant);

/* Launches the probe: each block spins spin_ns and records smid, start and end at its index. */
int smem_residency_launch(int variant, unsigned grid, unsigned block, size_t dyn_bytes, unsigned long long spin_ns,
                          uint32_t *smid, unsigned long long *start, unsigned long long *end, void *stream);

#ifdef __cplusplus
}
#endif

#endif
