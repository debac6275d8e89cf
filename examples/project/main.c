/* saxpy-bench: smembench for this program's own kernels. Each is registered with its launch
 * description, then smembench's command line takes over: --list, --kernel NAME, --sweep,
 * --predict MODEL, -o FILE, as `smembench --help` documents. saxpy is launched by smembench from
 * its description; saxpy_stride by launch_stride, the program's own launch. */
#include <smembench.h>

#include "saxpy.h"

#ifndef SAXPY_DESCRIPTIONS
#error "SAXPY_DESCRIPTIONS (the folder of saxpy.json) comes from meson.build"
#endif

/* The description's arguments in its order (a, x, y, n), each behind a pointer as cudaLaunchKernel
 * takes them, handed to saxpy.cu's <<<>>>. */
static int launch_stride(const struct smembench_launch *l, void *user)
{
    (void)user;
    return saxpy_stride_launch(l->grid, l->block, l->cluster, l->dyn_smem, l->stream, *(const float *)l->args[0],
                               *(const float *const *)l->args[1], *(float *const *)l->args[2],
                               *(const int *)l->args[3]);
}

int main(int argc, char **argv)
{
    if (smembench_register(SAXPY_DESCRIPTIONS "/saxpy.json", saxpy_function(), NULL, NULL) ||
        smembench_register(SAXPY_DESCRIPTIONS "/saxpy_stride.json", saxpy_stride_function(), launch_stride, NULL))
        return 2;
    return smembench_main(argc, argv);
}
