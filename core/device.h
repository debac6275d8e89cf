/* The plain description of a GPU: the properties that bear on shared memory, read from a real
 * device (src/device.c) or taken from a built-in model (src/gpus.c), and the NVML readings taken
 * around a run. Plain C with no dependency, so predict mode and the benchmarks' plans need no CUDA. */
#ifndef SMEM_DEVICE_H
#define SMEM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One NVML reading of a device (src/nvml.c); ok is false where NVML is absent or off. */
struct smem_nvml {
    bool ok;                        /* false: NVML missing, disabled at build time, or the device not found */
    unsigned index;                 /* NVML's own number of the device */
    unsigned temperature_c;
    double power_w;
    unsigned sm_clock_mhz;
    unsigned long long reasons;     /* clock-event (throttle) reason bits */
};

#define SMEM_MAX_SMS 512
#define SMEM_MAX_GPCS 64

/* Which GPC (graphics processing cluster) each SM belongs to. Units of one model can differ here (the
 * TPCs fused off differ), and the blocks of a thread block cluster always share one GPC, so the
 * cluster benchmarks depend on it. Found by src/gpc.c: the SMs that ran blocks of one cluster are in
 * one GPC; the connected groups over many cluster launches are the GPCs. */
struct smem_gpc_map {
    int count;                      /* GPCs found; 0: not measured (see why) */
    int sms[SMEM_MAX_GPCS];         /* SMs of each GPC, GPCs numbered by their lowest SM */
    short sm_gpc[SMEM_MAX_SMS];     /* GPC of each SM id; -1: the SM never ran a block of the probe */
    int unresolved;                 /* SMs that shared no cluster with another SM (their GPC is unknown) */
    char why[128];                  /* why it was not measured, when count is 0 */
};

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
    char uuid[48];          /* "GPU-xxxxxxxx-...", as nvidia-smi writes it; "" for a model */
    char driver_release[32];        /* the NVIDIA driver's version string from NVML ("580.159.04"); "" unknown */
    struct smem_gpc_map gpc;        /* SM -> GPC, found by the cluster probe (cc 9.0+); gpc.count 0: not measured */
    double measured_clock_mhz;      /* SM clock measured with clock64 against %globaltimer, 0 if not */
    struct smem_nvml nvml_start, nvml_end;  /* NVML readings before and after the run */
};

#endif
