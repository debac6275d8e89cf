/* Built only for the tests: a kernel that writes far outside its buffer when told to, so the
 * driver meets a sticky CUDA error (an illegal address) in the middle of a sweep. */
#include <cstdint>

__global__ void fault_kernel(int *out, int fault)
{
    /* 2^36 ints past the buffer: no allocation is there, the write faults */
    size_t i = fault ? (size_t)1 << 36 : threadIdx.x;
    ((volatile int *)out)[i] = 1;
}

extern "C" const void *smem_fault_fn(void)
{
    return (const void *)fault_kernel;
}

extern "C" int smem_fault_launch(int *out, int fault, void *stream)
{
    fault_kernel<<<1, 32, 0, (cudaStream_t)stream>>>(out, fault);
    return (int)cudaGetLastError();
}
