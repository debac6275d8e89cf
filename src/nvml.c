/* NVML through dlopen: the driver's libnvidia-ml.so.1 is present wherever a GPU is, and absent on
 * build and CI machines, so linking against it would stop smembench from starting there. The few
 * entry points used are declared here by their documented C signatures (NVML API reference);
 * nvmlDevice_t is an opaque pointer and every call returns 0 on success. Built with -Dnvml=disabled
 * there is no loading code at all and every reading is absent. */
#define _GNU_SOURCE
#include "nvml.h"

#include <string.h>

#include "smem.h"

#if SMEM_HAVE_NVML
#include <dlfcn.h>
#include <pthread.h>

typedef void *nvml_device;
enum { NVML_TEMPERATURE_GPU = 0, NVML_CLOCK_SM = 1 };

static struct {
    int (*init)(void);
    int (*by_bus_id)(const char *, nvml_device *);
    int (*index)(nvml_device, unsigned *);
    int (*temperature)(nvml_device, int, unsigned *);
    int (*power)(nvml_device, unsigned *);
    int (*clock)(nvml_device, int, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
    int (*driver)(char *, unsigned);
    bool ready;
} nvml;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);

    if (!h)
        return;
    *(void **)&nvml.init = dlsym(h, "nvmlInit_v2");
    *(void **)&nvml.by_bus_id = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.index = dlsym(h, "nvmlDeviceGetIndex");
    *(void **)&nvml.temperature = dlsym(h, "nvmlDeviceGetTemperature");
    *(void **)&nvml.power = dlsym(h, "nvmlDeviceGetPowerUsage");
    *(void **)&nvml.clock = dlsym(h, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    *(void **)&nvml.driver = dlsym(h, "nvmlSystemGetDriverVersion");
    if (!nvml.reasons)   /* the name before NVML 12.2 */
        *(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    nvml.ready = nvml.init && nvml.by_bus_id && nvml.init() == 0;
}

void smem_nvml_read(const char *pci_bus_id, struct smem_nvml *out)
{
    nvml_device d;
    unsigned mw = 0;

    memset(out, 0, sizeof(*out));
    pthread_once(&once, load);
    if (!nvml.ready || !pci_bus_id[0] || nvml.by_bus_id(pci_bus_id, &d) != 0)
        return;
    out->ok = true;
    if (nvml.index)
        nvml.index(d, &out->index);
    if (nvml.temperature)
        nvml.temperature(d, NVML_TEMPERATURE_GPU, &out->temperature_c);
    if (nvml.power && nvml.power(d, &mw) == 0)
        out->power_w = mw / 1000.0;
    if (nvml.clock)
        nvml.clock(d, NVML_CLOCK_SM, &out->sm_clock_mhz);
    if (nvml.reasons)
        nvml.reasons(d, &out->reasons);
}

void smem_nvml_driver_release(char *buf, size_t len)
{
    char v[96];     /* NVML_SYSTEM_DRIVER_VERSION_V2_BUFFER_SIZE is 80 */

    buf[0] = '\0';
    pthread_once(&once, load);
    if (nvml.ready && nvml.driver && nvml.driver(v, sizeof(v)) == 0)
        smem_fmt(buf, len, "%s", v);
}

#else

void smem_nvml_driver_release(char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
}

void smem_nvml_read(const char *pci_bus_id, struct smem_nvml *out)
{
    (void)pci_bus_id;
    memset(out, 0, sizeof(*out));   /* not built: absent, as on a machine without the driver */
}

#endif

void smem_nvml_reason_names(unsigned long long reasons, char *buf, size_t len)
{
    /* the bit values of NVML's nvmlClocksEventReason* constants */
    static const struct { unsigned long long bit; const char *name; } names[] = {
        { 0x1, "gpu_idle" }, { 0x2, "applications_clocks_setting" }, { 0x4, "sw_power_cap" },
        { 0x8, "hw_slowdown" }, { 0x10, "sync_boost" }, { 0x20, "sw_thermal_slowdown" },
        { 0x40, "hw_thermal_slowdown" }, { 0x80, "hw_power_brake_slowdown" }, { 0x100, "display_clock_setting" },
    };
    buf[0] = '\0';
    for (size_t i = 0; i < SMEM_ARRAY_LEN(names); i++)
        if (reasons & names[i].bit)
            smem_append(buf, len, ",", "%s", names[i].name);
    if (!buf[0])
        smem_fmt(buf, len, "none");
}
