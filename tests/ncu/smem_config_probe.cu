/* Exploration probe for the driver's choice of the per-SM shared-memory configuration: one tiny
 * kernel launched over a grid of block sizes, dynamic allocations, carveout hints and
 * max-dynamic-size attributes. Run it under Nsight Compute, which reports the configuration the
 * driver really chose for every launch (launch__shared_mem_config_size); this program prints, one
 * CSV line per launch in launch order, what it asked for and what the occupancy API answered.
 *   ncu --clock-control none --csv --metrics launch__shared_mem_config_size ./smem_config_probe */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void probe_kernel(float *out, int dyn_bytes)
{
    extern __shared__ float s[];
    /* touch the allocation (when there is one) so it is not optimized away */
    if (dyn_bytes >= 4 && threadIdx.x == 0)
        s[0] = (float)blockIdx.x;
    __syncthreads();
    if (dyn_bytes >= 4 && threadIdx.x == 0 && blockIdx.x == 0)
        out[0] = s[0];
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

int main(int argc, char **argv)
{
    int dev = 0, optin = 0, sms = 0;
    float *out;
    const int blocks[] = { 32, 64, 128, 256, 512, 1024 };
    const int carve[] = { -1, 0, 10, 25, 50, 75, 100 };
    int dyn[64], nd = 0;
    bool fine = argc > 1;

    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaMalloc(&out, 4));
    const int kib[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 72, 80,
                        96, 112, 128, 144, 160, 176, 192, 208, 227 };
    for (int i = 0; i < (int)(sizeof(kib) / sizeof(kib[0])); i++)
        dyn[nd++] = kib[i] * 1024 > optin ? optin : kib[i] * 1024;
    printf("idx,block,dyn_bytes,carveout,maxdyn_attr,grid,api_blocks\n");
    int idx = 0;
    for (int bi = 0; bi < 6; bi++)
        for (int ci = 0; ci < 7; ci++) {
            if (!fine && blocks[bi] != 256 && carve[ci] != -1 && carve[ci] != 50)
                continue;
            for (int di = 0; di < nd; di++)
                for (int attr = 0; attr < 2; attr++) {
                    /* attr 0: the attribute raised only as far as needed (unset at or below 48 KiB);
                     * attr 1: raised to the device's opt-in ceiling */
                    int maxdyn = attr ? optin : (dyn[di] > 48 * 1024 ? dyn[di] : 48 * 1024);
                    if (attr == 1 && dyn[di] > 48 * 1024 && maxdyn == dyn[di])
                        continue;
                    CK(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, maxdyn));
                    CK(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carve[ci]));
                    int api = 0;
                    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, probe_kernel, blocks[bi], dyn[di]));
                    int grid = sms * (api > 0 ? api : 1);
                    probe_kernel<<<grid, blocks[bi], dyn[di]>>>(out, dyn[di]);
                    CK(cudaGetLastError());
                    CK(cudaDeviceSynchronize());
                    printf("%d,%d,%d,%d,%d,%d,%d\n", idx++, blocks[bi], dyn[di], carve[ci], maxdyn, grid, api);
                }
        }
    return 0;
}
