/* Built only for the tests: the shared-memory tree reduction of kernels/reduction.cu with the
 * barrier between steps left out. Each step reads partial sums that threads of other warps wrote
 * in the step before, so racecheck must report a hazard; the test fails if it stays silent. */
#include <cstdio>

#define BLOCK 256

__global__ void racy_tree(const float *in, float *out)
{
    __shared__ float part[BLOCK];
    const unsigned t = threadIdx.x;

    part[t] = in[blockIdx.x * BLOCK + t];
    __syncthreads();
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half)
            part[t] += part[t + half];
        /* missing: __syncthreads(); */
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

int main()
{
    const int blocks = 4;
    float *in, *out;

    if (cudaMalloc(&in, blocks * BLOCK * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, blocks * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "racy_reduction: no device\n");
        return 77;
    }
    cudaMemset(in, 0, blocks * BLOCK * sizeof(float));
    racy_tree<<<blocks, BLOCK>>>(in, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("racy_reduction: ran, %s\n", cudaGetErrorString(e));
    cudaFree(in);
    cudaFree(out);
    return e == cudaSuccess ? 0 : 1;
}
