/* NVML, loaded at run time (dlopen of libnvidia-ml.so.1, which ships with the driver): temperature,
 * power, SM clock and clock-event reasons of a device found by its PCI bus id, so NVML's numbering
 * and CUDA's are matched by the bus, never by position. Nothing is needed at build time, and
 * -Dnvml=disabled leaves the loading code out (every reading absent). */
#ifndef SMEM_NVML_H
#define SMEM_NVML_H

#include <stddef.h>

#include "device.h"   /* struct smem_nvml */

/* Reads the device with this PCI bus id ("0000:00:06.0"). */
void smem_nvml_read(const char *pci_bus_id, struct smem_nvml *out);

/* Names of the set reason bits, comma-separated, into buf ("none" when no bit is set). */
/* The NVIDIA driver's version string ("580.159.04", nvmlSystemGetDriverVersion) in buf; "" where NVML is
 * absent. The CUDA driver API number (13000) does not tell two driver releases apart. */
void smem_nvml_driver_release(char *buf, size_t len);

void smem_nvml_reason_names(unsigned long long reasons, char *buf, size_t len);

#endif
