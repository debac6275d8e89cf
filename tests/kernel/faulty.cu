// Kernels that misbehave, for the --kernel tests on a GPU: one that never finishes (the watchdog
// must stop the run, keep the points before it, and exit), one that writes through a null pointer
// (a sticky error the point records), and one that leaves part of its output unwritten (the
// poisoned outputs catch it against the first configuration only if the unwritten part moves).
extern "C" __global__ void spin_forever(int *flag, int *out)
{
    // flag is zero and nothing sets it: a spin on a condition that never comes
    while (atomicAdd(flag, 0) == 0)
        __nanosleep(1000);
    out[blockIdx.x] = 1;
}

extern "C" __global__ void write_null(int *out, int n, long long address)
{
    // address is a scalar argument (8: the null page), so the compiler cannot see the store is
    // undefined and drop it
    int *p = (int *)address;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = out[i];
}

// Correct for any block size: a baseline the failing ones are compared with.
extern "C" __global__ void scale(const float *x, float *y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i];
}
