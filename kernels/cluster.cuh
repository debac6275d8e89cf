/* Device helpers of the thread-block-cluster kernels (cc 9.0): the cluster special registers, the
 * mapping of a block's shared address into another block of the cluster (mapa), loads, stores and
 * reductions through the shared::cluster window, and the cluster barrier. Everything here is inline
 * PTX behind __CUDA_ARCH__ >= 900, so a kernel that uses it still compiles (to its fallback body)
 * for every older architecture; SMEM_CLUSTER_DEVICE says which of the two a pass compiles.
 * Also the host side of a cluster launch: cudaLaunchKernelEx with the cluster dimension. */
#ifndef SMEM_CLUSTER_CUH
#define SMEM_CLUSTER_CUH

#include <cstdint>

#include <cuda_runtime.h>

#include "portable.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SMEM_CLUSTER_DEVICE 1
#else
#define SMEM_CLUSTER_DEVICE 0
#endif


#if SMEM_CLUSTER_DEVICE

__device__ __forceinline__ uint32_t smem_cluster_rank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ uint32_t smem_cluster_size(void)
{
    uint32_t n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}

__device__ __forceinline__ uint32_t smem_cluster_id(void)
{
    uint32_t id;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    return id;
}

/* The shared::cluster address of the same variable in the block of rank `rank`. */
__device__ __forceinline__ uint32_t smem_mapa(uint32_t shared_addr, uint32_t rank)
{
    uint32_t a;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(shared_addr), "r"(rank));
    return a;
}

/* cluster.sync(): every thread of every block of the cluster arrives (release) and waits (acquire),
 * the instruction pair cooperative_groups' cluster_group::sync() issues. */
__device__ __forceinline__ void smem_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}

__device__ __forceinline__ void smem_st_cluster(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t smem_ld_cluster(uint32_t addr)
{
    uint32_t v;
    asm volatile("ld.volatile.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr));
    return v;
}

#endif

/* Launches kernel on grid blocks of block threads in clusters of `cluster` blocks (grid a multiple
 * of it) with dyn bytes of dynamic shared memory. */
template <typename... Params, typename... Args>
static cudaError_t smem_cluster_launch(void (*kernel)(Params...), unsigned grid, unsigned block, unsigned cluster,
                                       size_t dyn, void *stream, Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];

    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = dyn;
    cfg.stream = (cudaStream_t)stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, args...);
}

#endif
