/* Example user kernel for `smembench --kernel`, with a PLANTED BUG: a grid barrier without a
 * cooperative launch. Each block sums its slice of the input, adds the sum to a global total,
 * arrives at a hand-rolled grid barrier (an atomic arrival counter) and, once every block has
 * arrived, writes the grand total to out[blockIdx.x].
 *
 * Why it is wrong: a block waiting at the barrier holds its SM slot, so the barrier can only
 * complete if every block of the grid is resident at once. Nothing promises that: a plain <<<>>>
 * launch may run the grid in waves, and then the first wave waits for blocks that cannot start
 * until it leaves. (cudaLaunchCooperativeKernel + cg::this_grid().sync() is the correct tool: it
 * refuses a grid that cannot be co-resident instead of racing.) The grid is sm_count * 4 blocks,
 * so the answer is right when 4 or more blocks fit per SM and wrong when the dynamic shared memory
 * (this kernel asks for dyn_smem_bytes and never touches it, standing for the tile a real kernel
 * would stage), the carveout or the block size lets fewer fit. A real deadlock would hang the GPU,
 * so the spin is bounded: a block gives up after BARRIER_TIMEOUT_NS of %globaltimer (or
 * BARRIER_MAX_SPINS polls), and reads the total as it stands: a partial sum. That is the race
 * smembench's verification must catch (outputs differ from the first configuration). */

#define BARRIER_TIMEOUT_NS 20000000ull   /* 20 ms: far beyond any real arrival skew */
#define BARRIER_MAX_SPINS (1u << 22)     /* a second bound, should %globaltimer stand still */

__device__ __forceinline__ unsigned long long globaltimer_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* state[0] is the grand total, state[1] the arrival count: both zero before the launch (the
 * description fills them with zeros). in holds gridDim.x * per_block values; out gridDim.x. */
extern "C" __global__ void coresident_race(const unsigned int *__restrict__ in, int per_block,
                                           unsigned int *state, unsigned int *out)
{
    __shared__ unsigned int block_sum;
    const unsigned int *slice = in + (size_t)blockIdx.x * per_block;

    if (threadIdx.x == 0)
        block_sum = 0;
    __syncthreads();
    unsigned int s = 0;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x)
        s += slice[i];
    atomicAdd(&block_sum, s);   /* unsigned addition wraps the same in any order: exact */
    __syncthreads();

    if (threadIdx.x == 0) {
        volatile unsigned int *total = &state[0], *arrived = &state[1];

        atomicAdd(&state[0], block_sum);
        __threadfence();   /* the sum reaches memory before the arrival that announces it */
        atomicAdd(&state[1], 1u);

        /* THE BUG: this wait only ends on time when every block of the grid is resident */
        const unsigned long long t0 = globaltimer_ns();
        for (unsigned spins = 0; *arrived < gridDim.x && spins < BARRIER_MAX_SPINS; spins++) {
            if (globaltimer_ns() - t0 > BARRIER_TIMEOUT_NS)
                break;
            __nanosleep(100);   /* poll gently: hundreds of blocks hammer one word */
        }
        __threadfence();
        out[blockIdx.x] = *total;
    }
}
