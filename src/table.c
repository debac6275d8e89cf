/* A plain-text table: fixed columns for what every point has, then the benchmark's own metrics. */
#include "table.h"

#include <string.h>

#include "arch.h"
#include "smem.h"

static void occ_cell(char *buf, size_t len, int v)
{
    if (v < 0)
        smem_fmt(buf, len, "-");
    else
        smem_fmt(buf, len, "%d", v);
}

void smem_table_print(FILE *f, const struct smem_device *dev, const struct smem_result *res, size_t n)
{
    bool any_override = false;

    fprintf(f, "%s (cc %d.%d, %d SMs, %lld KiB shared/SM, %lld KiB opt-in/block)%s\n", dev->name, dev->cc_major,
            dev->cc_minor, dev->sm_count, (long long)(dev->smem_per_sm / 1024),
            (long long)(dev->smem_per_block_optin / 1024), dev->is_model ? " [model: predicted occupancy only]" : "");
    fprintf(f, "%-10s %-34s %-9s %11s %7s %6s %-15s %5s %-14s %s\n", "bench", "params", "status", "median_us",
            "spread%", "MHz", "blk/SM a/p/m", "carve", "limiter", "metrics");
    for (size_t i = 0; i < n; i++) {
        const struct smem_result *r = &res[i];
        const struct smem_bench *b = r->point->bench;
        char params[128], occ[32], a[8], p[8], m[8], metrics[256] = "", carve[16];

        smem_point_describe(r->point, params, sizeof(params));
        occ_cell(a, sizeof(a), r->occ.api);
        occ_cell(p, sizeof(p), r->occ.predicted);
        occ_cell(m, sizeof(m), r->occ.measured);
        smem_fmt(occ, sizeof(occ), "%s/%s/%s%s", a, p, m, r->occ.hint_overridden ? "!" : "");
        any_override |= r->occ.hint_overridden;
        if (r->carveout_requested < 0)
            smem_fmt(carve, sizeof(carve), "dflt");
        else
            smem_fmt(carve, sizeof(carve), "%d", r->carveout_requested);
        for (size_t k = 0; k < r->metrics.n && k < 4; k++)
            smem_append(metrics, sizeof(metrics), ", ", "%s=%.4g %s", r->metrics.m[k].name, r->metrics.m[k].value,
                        r->metrics.m[k].unit);
        if (r->status != SMEM_POINT_OK && r->status != SMEM_POINT_PREDICTED && r->reason[0])
            smem_fmt(metrics, sizeof(metrics), "%s", r->reason);
        if (r->n_samples)
            fprintf(f, "%-10s %-34s %-9s %11.2f %7.2f %6.0f %-15s %5s %-14s %s\n", b->name, params,
                    smem_point_status_name(r->status), r->time_ns.median / 1e3, 100 * r->time_ns.robust_spread,
                    r->clock_mhz, occ, carve, r->occ.limiter, metrics);
        else
            fprintf(f, "%-10s %-34s %-9s %11s %7s %6s %-15s %5s %-14s %s\n", b->name, params,
                    smem_point_status_name(r->status), "-", "-", "-", occ, carve, r->occ.limiter, metrics);
    }
    if (any_override)
        fputs("! measured residency differs from the occupancy API: the driver did not follow the carveout hint\n", f);
    smem_table_published(f, dev);
}

void smem_table_published(FILE *f, const struct smem_device *dev)
{
    struct smem_published p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n = smem_arch_published(dev->cc_major, dev->cc_minor, p, SMEM_ARCH_MAX_PUBLISHED);
    const struct smem_arch *a = smem_arch_find(dev->cc_major, dev->cc_minor);

    if (!n) {
        fprintf(f, "published for cc %d.%d: nothing in smembench's table (core/arch.c)\n", dev->cc_major,
                dev->cc_minor);
        return;
    }
    fprintf(f, "published for cc %d.%d (%s):\n", dev->cc_major, dev->cc_minor, a->generation);
    for (size_t i = 0; i < n; i++) {
        char value[96] = "";
        if (p[i].list)
            for (size_t k = 0; k < p[i].n_list; k++)
                smem_append(value, sizeof(value), ",", "%d", p[i].list[k]);
        else
            smem_fmt(value, sizeof(value), "%.6g", p[i].value);
        smem_append(value, sizeof(value), " ", "%s", p[i].unit);
        fprintf(f, "  %-28s %-34s %s\n", p[i].name, value, p[i].source);
    }
}

void smem_table_spread(FILE *f, const struct smem_device_run *runs, int n_runs, const struct smem_point *points,
                       const struct smem_spread *spread, size_t n)
{
    fprintf(f, "\nspread between devices (median time, us):\n%-44s", "point");
    for (int d = 0; d < n_runs; d++)
        fprintf(f, " %9s%-3d", "dev", runs[d].dev.ordinal);
    fprintf(f, " %8s\n", "spread");
    for (size_t i = 0; i < n; i++) {
        const struct smem_spread *sp = &spread[i];
        char params[128], name[160];

        smem_point_describe(&points[i], params, sizeof(params));
        smem_fmt(name, sizeof(name), "%s %s", points[i].bench->name, params);
        fprintf(f, "%-44s", name);
        for (int d = 0; d < n_runs; d++) {
            const struct smem_result *r = &runs[d].results[i];
            if (i >= runs[d].out.done || r->status != SMEM_POINT_OK)
                fprintf(f, " %12s", "-");
            else
                fprintf(f, " %12.2f", r->time_ns.median / 1e3);
        }
        if (sp->devices > 1)
            fprintf(f, " %7.2f%%%s\n", sp->pct, sp->slowest_ns / sp->fastest_ns > 1.05 ? " !" : "");
        else
            fprintf(f, " %8s\n", "-");
    }
}
