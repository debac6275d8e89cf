/* The carveout axis's values (bench/carveout_axis.h). */
#include "carveout_axis.h"

#include "arch.h"

const int64_t smem_carveout_pcts[11] = { 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
const int64_t smem_carveout_pcts_quick[3] = { 0, 50, 100 };

/* The capacity (KiB) a preference of pct percent rounds up to on a, or -1 above the largest. */
static int carveout_step(const struct smem_arch *a, const struct smem_device *dev, int pct)
{
    int64_t want = (int64_t)pct * dev->smem_per_sm / 100;

    for (int i = 0; i < a->n_carveouts; i++)
        if ((int64_t)a->carveout_kib[i] * 1024 >= want)
            return a->carveout_kib[i];
    return -1;
}

size_t smem_carveout_device_pcts(const struct smem_device *dev, bool quick, int64_t *out, size_t max)
{
    const struct smem_arch *a = smem_arch_find(dev->cc_major, dev->cc_minor);
    bool reached[SMEM_ARCH_MAX_CARVEOUTS] = { false };
    size_t n = 0;

    if (quick) {
        for (; n < SMEM_ARRAY_LEN(smem_carveout_pcts_quick) && n < max; n++)
            out[n] = smem_carveout_pcts_quick[n];
        return n;
    }
    for (; n < SMEM_ARRAY_LEN(smem_carveout_pcts) && n < max; n++)
        out[n] = smem_carveout_pcts[n];
    if (!a)   /* steps not published for this cc: the steps of 10 alone */
        return n;
    for (size_t i = 0; i < SMEM_ARRAY_LEN(smem_carveout_pcts); i++)
        for (int k = 0; k < a->n_carveouts; k++)
            reached[k] |= carveout_step(a, dev, (int)smem_carveout_pcts[i]) == a->carveout_kib[k];
    for (int k = 0; k < a->n_carveouts; k++)
        for (int pct = 0; pct <= 100 && !reached[k] && n < max; pct++)
            if (carveout_step(a, dev, pct) == a->carveout_kib[k]) {
                reached[k] = true;
                out[n++] = pct;
            }
    /* ascending: insertion sort of a dozen values */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}
