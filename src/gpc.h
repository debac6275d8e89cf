/* The SM -> GPC map of a cc 9.0+ device, measured with thread block clusters (src/gpc.c). */
#ifndef SMEM_GPC_H
#define SMEM_GPC_H

#include "device.h"

/* Fills map for dev (the current device); SMEM_ESKIP with map->why where it cannot be measured (below
 * cc 9.0, cluster code not built for the device), SMEM_ESTICKY on a sticky CUDA error. */
int smem_gpc_probe(const struct smem_device *dev, struct smem_gpc_map *map);

#endif
