/* Example user kernel for `smembench --kernel`: a 256-bin histogram of bytes. Each block counts
 * its grid-stride share into a private histogram in shared memory (shared-memory atomics, which
 * collide when the data is lopsided: the reference data puts half its bytes in 16 bins), then
 * merges it into the global one with one atomicAdd per non-empty bin. The bins live in dynamic
 * shared memory (the description asks for at least 1 KiB), so the dynamic sweep's extra bytes
 * only lower residency. Counts are integers: every configuration must match bit for bit. */

#define HISTOGRAM_BINS 256

/* bins[v] += the number of bytes of data[0, n) equal to v. bins must be zero before the launch
 * (the description fills it with zeros): the kernel adds to it. Needs HISTOGRAM_BINS * 4 bytes of
 * dynamic shared memory. */
extern "C" __global__ void histogram(const unsigned char *__restrict__ data, long long n, unsigned int *bins)
{
    extern __shared__ unsigned int local[];

    for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) {
        unsigned c = local[b];
        if (c != 0)
            atomicAdd(&bins[b], c);
    }
}
