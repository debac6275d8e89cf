/* Probe (not part of the build): what limits distributed-shared-memory throughput on cc 9.0.
 * One block per SM (dynamic allocation over half the SM), as many clusters as fit, each pattern
 * timed by events over one launch; the SM clock from clock64 against %globaltimer in every block.
 * Patterns (MODE):
 *   0 ring      every block loads from rank + 1 (ld.shared::cluster, U independent loads per thread)
 *   1 readers   even ranks load from rank + 1, odd ranks only wait (one direction per SM pair)
 *   2 spread    load u goes to rank 1 + u % (size - 1) away (several sources at once)
 *   3 chain     a dependent pointer chase in the next block (U chains per thread)
 *   4 local     ld.shared of the own buffer
 *   5 stores    st.shared::cluster to rank + 1, U independent stores per thread
 *   6 weak      ld.shared::cluster without .volatile (addresses vary per iteration)
 *   7 bulkpush  cp.async.bulk.shared::cluster.shared::cta: 4 x 16 KiB per iteration pushed to
 *               rank + 1, completion on the receiver's mbarrier, a cluster barrier per iteration
 *   8 fanin     rank 0 alone loads, load u from rank 1 + u % (size - 1); the others only serve
 *   9 onechain  even ranks chase a dependent chain in rank + 1, odd ranks only serve
 * Build: nvcc -O3 -arch=sm_90 -o dsm_probe dsm_probe.cu; run: ./dsm_probe [1|2] (a set, or both)
 * Output: one line per configuration: mode W U threads cluster bytes_per_clk_per_SM GHz ms */
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define BUF_BYTES (64 * 1024)
#define DYN (BUF_BYTES * 2)   /* > half of 228 KiB: one block per SM */
#define CHECK(x)                                                                                      \
    do {                                                                                              \
        cudaError_t e_ = (x);                                                                         \
        if (e_ != cudaSuccess) {                                                                      \
            printf("error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);              \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

__device__ __forceinline__ uint64_t gtime()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint32_t rank_()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ uint32_t nrank_()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ uint32_t mapa_(uint32_t a, uint32_t r)
{
    uint32_t o;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(o) : "r"(a), "r"(r));
    return o;
}

__device__ __forceinline__ void csync()
{
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}

template <int W, bool VOL, bool LOCAL> __device__ __forceinline__ uint32_t ld(uint32_t a)
{
    uint32_t x, y, z, w;
    if constexpr (LOCAL) {
        if constexpr (W == 4) { asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a)); return x; }
        else { asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); return x + y + z + w; }
    } else if constexpr (VOL) {
        if constexpr (W == 4) { asm volatile("ld.volatile.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(a)); return x; }
        else { asm volatile("ld.volatile.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); return x + y + z + w; }
    } else {
        if constexpr (W == 4) { asm("ld.shared::cluster.u32 %0, [%1];" : "=r"(x) : "r"(a)); return x; }
        else { asm("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a)); return x + y + z + w; }
    }
}

template <int MODE, int W, int U>
__global__ void __launch_bounds__(1024, 1) probe(uint32_t *out, uint64_t *clk, int iters)
{
    extern __shared__ __align__(128) uint32_t buf[];
    __shared__ __align__(8) uint64_t bar;
    const uint32_t r = rank_(), n = nrank_(), T = blockDim.x;
    const uint32_t local = (uint32_t)__cvta_generic_to_shared(buf);
    const uint32_t words = BUF_BYTES / 4;
    uint32_t acc = 0;

    /* buffer: a permutation for the chase (word i -> word of next chain step), values otherwise */
    for (uint32_t i = threadIdx.x; i < words; i += T)
        buf[i] = ((i + 4 * T + 4 * 33) % words) * 4;   /* byte offset of the next element */
    if (MODE == 7 && threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"((uint32_t)__cvta_generic_to_shared(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    csync();
    uint64_t c0 = clock64(), g0 = gtime();
    if constexpr (MODE == 0 || MODE == 1 || MODE == 4 || MODE == 6) {
        const uint32_t base = MODE == 4 ? local : mapa_(local, (r + 1) % n);
        const bool idle = MODE == 1 && (r & 1);
        if (!idle) {
            uint32_t a[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                a[u] = base + (threadIdx.x * W + u * T * W) % BUF_BYTES;
            for (int i = 0; i < iters; i++) {
#pragma unroll
                for (int u = 0; u < U; u++) {
                    if constexpr (MODE == 6)
                        acc += ld<W, false, false>(base + ((a[u] - base + (uint32_t)(i & 7) * 4096) % BUF_BYTES));
                    else
                        acc += ld<W, true, MODE == 4>(a[u]);
                }
            }
        }
    } else if constexpr (MODE == 2) {
        uint32_t a[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            a[u] = mapa_(local, (r + 1 + u % (n - 1)) % n) + (threadIdx.x * W + u * T * W) % BUF_BYTES;
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int u = 0; u < U; u++)
                acc += ld<W, true, false>(a[u]);
        }
    } else if constexpr (MODE == 8) {
        if (r == 0) {
            uint32_t a[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                a[u] = mapa_(local, 1 + u % (n - 1)) + (threadIdx.x * W + u * T * W) % BUF_BYTES;
            for (int i = 0; i < iters; i++) {
#pragma unroll
                for (int u = 0; u < U; u++)
                    acc += ld<W, true, false>(a[u]);
            }
        }
    } else if constexpr (MODE == 3 || MODE == 9) {
        const uint32_t base = mapa_(local, (r + 1) % n);
        const int chains = MODE == 9 && (r & 1) ? 0 : U;   /* odd ranks of onechain only serve */
        uint32_t j[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            j[u] = ((threadIdx.x + u * T) % words) * 4;
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int u = 0; u < U; u++)
                if (u < chains)
                    j[u] = ld<4, true, false>(base + j[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            acc += j[u];
    } else if constexpr (MODE == 5) {
        const uint32_t base = mapa_(local, (r + 1) % n);
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                uint32_t a = base + (threadIdx.x * W + u * T * W) % BUF_BYTES;
                if constexpr (W == 4)
                    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(a), "r"(i + u) : "memory");
                else
                    asm volatile("st.shared::cluster.v4.u32 [%0], {%1,%1,%1,%1};" ::"r"(a), "r"(i + u) : "memory");
            }
        }
    } else if constexpr (MODE == 7) {
        const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
        const uint32_t dst = mapa_(local + BUF_BYTES, (r + 1) % n), rbar = mapa_(b, (r + 1) % n);
        for (int i = 0; i < iters; i++) {
            if (threadIdx.x == 0)
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(BUF_BYTES) : "memory");
            csync();   /* every receiver armed */
            if (threadIdx.x == 0)
                for (int k = 0; k < 4; k++)
                    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                                 ::"r"(dst + k * 16384), "r"(local + k * 16384), "r"(16384), "r"(rbar) : "memory");
            uint32_t done = 0;
            do {
                asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                             "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(b), "r"((uint32_t)(i & 1)) : "memory");
            } while (!done);
        }
        acc = buf[words + threadIdx.x];
    }
    csync();
    uint64_t c1 = clock64(), g1 = gtime();
    out[blockIdx.x * T + threadIdx.x] = acc;
    if (threadIdx.x == 0) {
        clk[blockIdx.x * 2] = c1 - c0;
        clk[blockIdx.x * 2 + 1] = g1 - g0;
    }
}

template <int MODE, int W, int U> static int run(const char *name, int threads, int cl, int iters)
{
    auto k = probe<MODE, W, U>;
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, DYN));
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = cl;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = DYN;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(cl);
    int nclusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&nclusters, (void *)k, &cfg));
    unsigned grid = nclusters * cl;
    cfg.gridDim = dim3(grid);
    uint32_t *out;
    uint64_t *clk;
    CHECK(cudaMalloc(&out, grid * threads * 4));
    CHECK(cudaMalloc(&clk, grid * 16));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    CHECK(cudaLaunchKernelEx(&cfg, k, out, clk, iters));   /* warm-up */
    CHECK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        cudaEventRecord(e0);
        CHECK(cudaLaunchKernelEx(&cfg, k, out, clk, iters));
        cudaEventRecord(e1);
        CHECK(cudaEventSynchronize(e1));
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (ms < best)
            best = ms;
    }
    uint64_t *h = (uint64_t *)malloc(grid * 16);
    CHECK(cudaMemcpy(h, clk, grid * 16, cudaMemcpyDeviceToHost));
    double ghz = (double)h[0] / (double)h[1];
    double per_block, bytes;
    int active = grid;
    if (MODE == 7)
        per_block = (double)iters * BUF_BYTES;
    else
        per_block = (double)iters * U * W * threads;
    if (MODE == 1 || MODE == 9)
        active = grid / 2;
    if (MODE == 8)
        active = grid / cl;   /* bytes are moved by the readers only; per reading SM */
    bytes = per_block * active;
    /* per SM per clock, from the in-kernel window of block 0 (clock and timer) and from events */
    double bpc_kernel = per_block / (double)h[0];
    double bpc_event = bytes / (best * 1e-3) / (ghz * 1e9) / active;
    printf("%-9s W=%2d U=%2d T=%4d cl=%2d grid=%3d  %7.2f B/clk/SM (in-kernel %7.2f)  %.3f GHz  %.3f ms\n", name, W, U,
           threads, cl, grid, bpc_event, bpc_kernel, ghz, best);
    fflush(stdout);
    cudaFree(out);
    cudaFree(clk);
    free(h);
    return 0;
}

/* set 1: how the ring moves with loads in flight and threads, and the other patterns at sizes 2/4;
 * set 2: one-way and fan-in in detail. No argument: both. */
static void set1(int it)
{
    for (int cl : { 2, 4 }) {
        run<0, 4, 1>("ring", 1024, cl, it);
        run<0, 4, 8>("ring", 1024, cl, it);
        run<0, 16, 8>("ring", 1024, cl, it);
        run<0, 16, 1>("ring", 256, cl, it * 4);
        run<0, 16, 4>("ring", 256, cl, it);
        run<0, 16, 16>("ring", 256, cl, it);
        run<0, 16, 16>("ring", 128, cl, it);
        run<0, 16, 16>("ring", 64, cl, it);
        run<1, 4, 8>("readers", 1024, cl, it);
        run<1, 16, 8>("readers", 1024, cl, it);
        run<3, 4, 1>("chain", 1024, cl, it);
        run<3, 4, 1>("chain", 256, cl, it);
        run<3, 4, 4>("chain", 1024, cl, it);
        run<5, 4, 8>("stores", 1024, cl, it);
        run<5, 16, 8>("stores", 1024, cl, it);
        run<6, 16, 8>("weak", 1024, cl, it);
        run<7, 16, 1>("bulkpush", 32, cl, 256);
        run<4, 16, 8>("local", 1024, cl, it);
    }
    for (int cl : { 4, 8, 16 }) {
        run<2, 4, 8>("spread", 1024, cl, it);
        run<2, 16, 8>("spread", 1024, cl, it);
        run<2, 16, 16>("spread", 1024, cl, it);
    }
    run<0, 16, 8>("ring", 1024, 8, it);
    run<0, 16, 8>("ring", 1024, 16, it);
    run<7, 16, 1>("bulkpush", 32, 8, 256);
}

static void set2(int it)
{
    for (int cl : { 2, 4 }) {
        run<1, 16, 8>("readers", 1024, cl, it);
        run<1, 16, 16>("readers", 256, cl, it);
        run<1, 16, 4>("readers", 512, cl, it);
        run<1, 4, 16>("readers", 1024, cl, it);
        run<9, 4, 1>("onechain", 1024, cl, it);
        run<9, 4, 4>("onechain", 1024, cl, it);
        run<3, 4, 1>("chain", 1024, cl, it);
        run<0, 16, 8>("ring", 1024, cl, it);
    }
    for (int cl : { 2, 3, 4, 8, 16 }) {
        run<8, 16, 8>("fanin", 1024, cl, it);
        run<8, 4, 16>("fanin", 1024, cl, it);
    }
}

int main(int argc, char **argv)
{
    const int set = argc > 1 ? atoi(argv[1]) : 0;

    if (set != 2)
        set1(2048);
    if (set != 1)
        set2(2048);
    return 0;
}
