/* Reading a real device: every property that bears on shared memory, the versions, the PCI bus id
 * and the SM clock measured with clock64 against %globaltimer. */
#include "device_open.h"

#include <stdio.h>
#include <string.h>

#include "clock_launch.h"
#include "cuda_status.h"
#include "gpc.h"
#include "nvml.h"

int smem_device_count(char *why, size_t why_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e != cudaSuccess) {
        smem_fmt(why, why_len, "no usable CUDA device (%s: %s)", cudaGetErrorName(e), cudaGetErrorString(e));
        return SMEM_ENODEV;
    }
    if (n == 0) {
        smem_fmt(why, why_len, "no CUDA device found");
        return SMEM_ENODEV;
    }
    return n;
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;

    return cudaDeviceGetAttribute(&v, a, dev) == cudaSuccess ? v : 0;
}

int smem_device_open(int ordinal, struct smem_device *d, char *why, size_t why_len)
{
    struct cudaDeviceProp p;
    int n = smem_device_count(why, why_len);
    cudaError_t e;

    memset(d, 0, sizeof(*d));
    if (n < 0)
        return n;
    if (ordinal >= n) {
        smem_fmt(why, why_len, "invalid value \"%d\" for --device; expected 0..%d (this machine has %d CUDA device%s)",
                 ordinal, n - 1, n, n == 1 ? "" : "s");
        return SMEM_EINVAL;
    }
    if ((e = cudaSetDevice(ordinal)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, ordinal)) != cudaSuccess) {
        smem_fmt(why, why_len, "cannot open CUDA device %d: %s", ordinal, cudaGetErrorString(e));
        return SMEM_ENODEV;
    }
    smem_fmt(d->name, sizeof(d->name), "%s", p.name);
    d->ordinal = ordinal;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->clock_khz = attr(cudaDevAttrClockRate, ordinal);
    d->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, ordinal);
    d->mem_bus_width_bits = p.memoryBusWidth;
    d->l2_bytes = p.l2CacheSize;
    d->smem_per_block = (int64_t)p.sharedMemPerBlock;
    d->smem_per_block_optin = (int64_t)p.sharedMemPerBlockOptin;
    d->smem_per_sm = (int64_t)p.sharedMemPerMultiprocessor;
    d->reserved_smem_per_block = (int64_t)p.reservedSharedMemPerBlock;
    d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->regs_per_block = p.regsPerBlock;
    d->warp_size = p.warpSize;
    cudaDriverGetVersion(&d->driver_version);
    cudaRuntimeGetVersion(&d->runtime_version);
    if (cudaDeviceGetPCIBusId(d->pci_bus_id, sizeof(d->pci_bus_id), ordinal) != cudaSuccess)
        d->pci_bus_id[0] = '\0';
    {
        /* the unit itself: a pool's machines can present the same PCI address for different GPUs */
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        snprintf(d->uuid, sizeof(d->uuid), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    }
    smem_nvml_read(d->pci_bus_id, &d->nvml_start);
    smem_nvml_driver_release(d->driver_release, sizeof(d->driver_release));
    d->measured_clock_mhz = smem_device_measure_clock();
    if (smem_gpc_probe(d, &d->gpc) == SMEM_ESTICKY) {
        smem_fmt(why, why_len, "the GPC probe on CUDA device %d failed: %s", ordinal, smem_cuda_last_error());
        return SMEM_ESTICKY;
    }
    return SMEM_OK;
}

double smem_device_measure_clock(void)
{
    struct smem_clock *clk = NULL, h;
    double mhz = 0;

    if (cudaMalloc((void **)&clk, sizeof(*clk)) != cudaSuccess)
        return 0;
    /* a first spin lets an idle GPU raise its clock; the second is the reading */
    if (smem_clock_launch(20 * 1000 * 1000ull, clk, NULL) == 0 &&
        smem_clock_launch(10 * 1000 * 1000ull, clk, NULL) == 0 &&
        cudaMemcpy(&h, clk, sizeof(h), cudaMemcpyDeviceToHost) == cudaSuccess && h.ns1 > h.ns0)
        mhz = (double)(h.cycles1 - h.cycles0) * 1e3 / (double)(h.ns1 - h.ns0);
    cudaFree(clk);
    return mhz;
}
