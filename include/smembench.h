/* libsmembench: smembench's sweeps for kernels of your own program. Register each kernel with its
 * launch description (the JSON file `smembench --kernel` takes; its schema is launch.schema.json,
 * installed beside this header's data), then hand the command line to smembench_main: the program
 * is then smembench for those kernels, with the same options, sweeps (carveout, dynamic, block,
 * cluster, axes), timing, occupancy three ways, verification and result file.
 *
 *     extern "C" __global__ void saxpy(float a, const float *x, float *y, int n);
 *     int main(int argc, char **argv)
 *     {
 *         if (smembench_register("saxpy.json", (const void *)saxpy, NULL, NULL))
 *             return 2;
 *         return smembench_main(argc, argv);
 *     }
 *
 * Compile with `pkg-config --cflags smembench` and link with `pkg-config --static --libs smembench`
 * (a static library: the CUDA runtime, cuBLAS and cJSON it needs are in the .pc file's private
 * fields; meson: dependency('smembench', static: true)). examples/project is such a program. */
#ifndef SMEMBENCH_H
#define SMEMBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch, as the sweep chose it, with the description's arguments already allocated, filled and
 * poisoned. A launch function launches the kernel with these (cudaLaunchKernelEx, or <<<>>>); it
 * must not synchronize. */
struct smembench_launch {
    unsigned grid, block, cluster;      /* cluster 0: not a cluster launch */
    size_t dyn_smem;                    /* bytes of dynamic shared memory */
    int carveout_pct;                   /* the preferred carveout, -1 for the driver's default (already set
                                         * on the function; pass it as a launch attribute if you like) */
    const int64_t *values;              /* every axis's value: carveout_pct, dyn_smem_bytes, block, cluster,
                                         * then the description's axes in their order */
    void *stream;                       /* cudaStream_t to launch on */
    void **args;                        /* one pointer per description argument, as cudaLaunchKernel takes them */
};

/* Returns 0, or the cudaError_t of the launch. */
typedef int (*smembench_launch_fn)(const struct smembench_launch *l, void *user);

/* Registers function (the __global__ function's address) with the launch description at
 * description_path. launch NULL: smembench launches function itself with the description's
 * arguments. Returns 0, or 2 after one line on stderr saying what is wrong: the description, a NULL
 * path or function, or a call after smembench_main. */
int smembench_register(const char *description_path, const void *function, smembench_launch_fn launch, void *user);

/* smembench's command line for the registered kernels: --kernel NAME picks one when there are
 * several (the description's "kernel" name), --list lists them. Returns the exit status
 * `smembench --help` documents; 2 after one line, running nothing, for a NULL argv (or an argv[i],
 * i < argc, that is NULL), argc < 1, no kernel registered, or a second call (it runs once per
 * program). */
int smembench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
