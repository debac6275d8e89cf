/* The properties of a GPU that bear on shared memory, read from a real device or taken from a
 * built-in model (src/gpus.c). The struct is plain C so predict mode needs no CUDA. */
#ifndef SMEM_DEVICE_H
#define SMEM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvml.h"

struct smem_device {
    char name[256];
    int ordinal;                    /* CUDA device number, -1 for a model */
    bool is_model;                  /* true: a built-in model, nothing was measured */
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;                  /* reported maximum SM clock */
    int mem_clock_khz, mem_bus_width_bits;
    int64_t l2_bytes;
    int64_t smem_per_block;         /* default per-block limit (48 KiB) */
    int64_t smem_per_block_optin;   /* ceiling after cudaFuncSetAttribute */
    int64_t smem_per_sm;
    int64_t reserved_smem_per_block;
    int max_blocks_per_sm, max_threads_per_sm, max_threads_per_block;
    int regs_per_sm, regs_per_block, warp_size;
    int driver_version, runtime_version;
    char pci_bus_id[32];
    double measured_clock_mhz;      /* SM clock measured with clock64 against %globaltimer, 0 if not */
    struct smem_nvml nvml_start, nvml_end;  /* NVML readings before and after the run */
};

/* Number of CUDA devices, or a negative status with *why set when none can be used. */
int smem_device_count(char *why, size_t why_len);

/* Reads every property of device ordinal into d and makes it current. */
int smem_device_open(int ordinal, struct smem_device *d, char *why, size_t why_len);

/* Measures the SM clock with a kernel that spins for about a millisecond; MHz, or 0 on failure. */
double smem_device_measure_clock(void);

#endif
