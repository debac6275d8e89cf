/* Example user kernel for `smembench --kernel`: a 5-point stencil (the discrete Laplacian
 * 4c - n - s - e - w) on a width x height image of integers, zero outside the image. Each block
 * loads a 32 x 32 tile plus a one-cell halo into static shared memory, then computes the tile from
 * it, so each input is read from global memory about once rather than five times. The grid is
 * 1-D (one block per tile, row-major) and the block any 1-D size: its threads walk the tile's
 * cells in strides of blockDim.x, so the block sweep changes only how many cells each thread does.
 * Deliberately not extern "C": its name in the file is the C++ mangled one (_Z9stencil2dPKiPiii),
 * which the launch description names. Integer outputs: every configuration must match bit for bit. */

#define TILE 32
#define HALO (TILE + 2)

/* out[y][x] = 4 in[y][x] - in[y-1][x] - in[y+1][x] - in[y][x-1] - in[y][x+1] for the tile
 * blockIdx.x of an image tiled ceil(width / 32) tiles across. */
__global__ void stencil2d(const int *__restrict__ in, int *__restrict__ out, int width, int height)
{
    /* no padding: the load walk's flat index is the array's own layout, so a warp stores 32
     * consecutive words, and with a block size that is a multiple of 32 each warp of the compute
     * walk reads one tile row (32 consecutive words) per neighbour: no bank conflicts either way */
    __shared__ int tile[HALO][HALO];
    const int tiles_x = (width + TILE - 1) / TILE;
    const int x0 = (blockIdx.x % tiles_x) * TILE, y0 = (blockIdx.x / tiles_x) * TILE;

    /* the tile and its halo: cell (hy, hx) is image cell (y0 + hy - 1, x0 + hx - 1) */
    for (int i = threadIdx.x; i < HALO * HALO; i += blockDim.x) {
        int hy = i / HALO, hx = i % HALO;
        int y = y0 + hy - 1, x = x0 + hx - 1;
        tile[hy][hx] = (x >= 0 && x < width && y >= 0 && y < height) ? in[(size_t)y * width + x] : 0;
    }
    __syncthreads();

    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x) {
        int ty = i / TILE, tx = i % TILE;
        int y = y0 + ty, x = x0 + tx;
        if (x < width && y < height) {
            int c = tile[ty + 1][tx + 1];
            out[(size_t)y * width + x] =
                4 * c - tile[ty][tx + 1] - tile[ty + 2][tx + 1] - tile[ty + 1][tx] - tile[ty + 1][tx + 2];
        }
    }
}
