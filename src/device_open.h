/* Opening a real device: every property of core/device.h read through the CUDA runtime, the
 * versions, the PCI bus id, a first NVML reading and the SM clock measured by a spinning kernel. */
#ifndef SMEM_DEVICE_OPEN_H
#define SMEM_DEVICE_OPEN_H

#include <stddef.h>

#include "device.h"

/* Number of CUDA devices, or a negative status with *why set when none can be used. */
int smem_device_count(char *why, size_t why_len);

/* Reads every property of device ordinal into d and makes it current. */
int smem_device_open(int ordinal, struct smem_device *d, char *why, size_t why_len);

/* Measures the SM clock with a kernel that spins for about a millisecond; MHz, or 0 on failure. */
double smem_device_measure_clock(void);

#endif
