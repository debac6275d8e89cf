/* The SM clock as kernels record it, and the driver's clock probe (clock.cu): a kernel that spins
 * for spin_ns and records its clock. Launchers return a cudaError_t as int and never synchronize. */
#ifndef SMEM_KERNELS_CLOCK_H
#define SMEM_KERNELS_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Written by thread 0 of block 0: clock64 and %globaltimer at the kernel's two marks. */
struct smem_clock {
    unsigned long long cycles0, cycles1, ns0, ns1;
};

/* Spins one thread for spin_ns of %globaltimer, recording its clock marks in clk. */
int smem_clock_launch(unsigned long long spin_ns, struct smem_clock *clk, void *stream);

#ifdef __cplusplus
}
#endif

#endif
