/* The kernels test_cubin.c reads back from the cubin (sm_90), fatbin (sm_80 + sm_90) and PTX (sm_90) the
 * build compiles this file to. Each has a shape whose resources are known from the source: static
 * __shared__ arrays of given sizes, __launch_bounds__, extern "C" and C++ (mangled) names, parameters
 * of 4, 8 and 16 bytes, a local array, none at all; and a device function that is not a kernel. */

/* a 16-byte parameter (aligned to 16: it sits at offset 16 after two 8-byte ones) */
struct quad {
    float x, y, z, w;
};

/* never inlined, so the code has a function of its own that is not a kernel */
__device__ __noinline__ float twice(float v)
{
    return 2.0f * v;
}

/* 1 KiB of static shared memory (256 floats), at most 128 threads per block; params 8, 8, 4 bytes */
extern "C" __global__ void __launch_bounds__(128) tile_sum(const float *x, float *y, int n)
{
    __shared__ float tile[256];

    tile[threadIdx.x] = x[blockIdx.x * n + threadIdx.x];
    tile[threadIdx.x + 128] = x[blockIdx.x * n + threadIdx.x + 128];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < 256; i++)
            s += tile[i];
        y[blockIdx.x] = twice(s);
    }
}

/* a C++ name (_Z5scalePdd4quadx); 768 bytes of static shared memory (96 doubles); params 8, 8, 16, 8
 * bytes at offsets 0, 8, 16, 32 */
__global__ void scale(double *p, double f, quad q, long long n)
{
    __shared__ double buf[96];

    buf[threadIdx.x % 96] = p[threadIdx.x] * f + q.x;
    __syncthreads();
    if (threadIdx.x < n)
        p[threadIdx.x] = buf[(threadIdx.x + 1) % 96] + q.w;
}

/* a 64-float local array indexed at run time: it lives in local memory (a 256-byte stack frame) */
extern "C" __global__ void local_array(float *y, int k)
{
    volatile float a[64];

    for (int i = 0; i < 64; i++)
        a[(i * k) & 63] = y[i];
    y[threadIdx.x] = a[k & 63];
}

/* no parameters, no shared memory */
extern "C" __global__ void empty_kernel(void)
{
}
