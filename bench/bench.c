/* Look-ups in the registry, the axes and the metric list, shared by every benchmark, the driver's
 * side of a case's setup and teardown (the only code that allocates and frees c->priv), and the
 * check of what the descriptors say of each other (run by the unit tests). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "smem.h"

const struct smem_bench *smem_bench_find(const char *name)
{
    for (size_t i = 0; i < smem_n_benches; i++)
        if (!strcmp(smem_benches[i]->name, name))
            return smem_benches[i];
    return NULL;
}

int smem_bench_axis(const struct smem_bench *b, const char *name)
{
    for (size_t i = 0; i < b->n_axes; i++)
        if (!strcmp(b->axes[i].name, name))
            return (int)i;
    return -1;
}

int64_t smem_axis_get(const struct smem_bench *b, const int64_t *values, const char *name)
{
    int a = smem_bench_axis(b, name);

    if (a < 0) {
        smem_error("internal error: benchmark %s has no axis %s", b->name, name);
        abort();
    }
    return values[a];
}

void smem_metrics_add(struct smem_metrics *m, const char *name, const char *unit, double value, double ceiling,
                      enum smem_better better)
{
    if (m->n >= SMEM_MAX_METRICS)
        return;
    m->m[m->n++] = (struct smem_metric){ name, unit, value, ceiling, better };
}

void smem_metrics_keep_verified(struct smem_metrics *pooled, const struct smem_metrics *first,
                                 const struct smem_metrics *again)
{
    for (size_t i = 0; i < pooled->n && i < first->n && i < again->n; i++) {
        const struct smem_metric *f = &first->m[i], *a = &again->m[i];
        bool same = a->value == f->value || (isnan(a->value) && isnan(f->value));
        if (strcmp(f->name, pooled->m[i].name) || strcmp(a->name, f->name) || same)
            continue;
        pooled->m[i] = *f;
    }
}

int smem_case_open(struct smem_case *c)
{
    c->priv = NULL;
    if (c->bench->priv_size && !(c->priv = calloc(1, c->bench->priv_size)))
        return SMEM_ENOMEM;
    return c->bench->setup ? c->bench->setup(c) : SMEM_OK;
}

void smem_case_close(struct smem_case *c)
{
    /* without its state, setup never ran: there is nothing for teardown to give back */
    if (c->bench->teardown && (c->priv || !c->bench->priv_size))
        c->bench->teardown(c);
    free(c->priv);
    c->priv = NULL;
}

static const struct smem_bench *find_in(const struct smem_bench *const *benches, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(benches[i]->name, name))
            return benches[i];
    return NULL;
}

/* The metrics b reports for its first default point (axis = value where axis is set) on dev, from
 * a made-up timing: which names it produces, not what they are worth. */
static int sample_metrics(const struct smem_bench *b, const char *axis, int64_t value, const struct smem_device *dev,
                          struct smem_metrics *m)
{
    static const struct smem_timing t = { .seconds = 1e-3, .clock_hz = 1.5e9, .kernel_cycles = 1e6 };
    struct smem_point pt = { .bench = b };
    struct smem_plan p = { .carveout_pct = -1 };
    struct smem_case c = { .bench = b, .values = pt.values, .dev = dev, .plan = &p, .seed = 1 };
    char why[SMEM_REASON_LEN];

    for (size_t a = 0; a < b->n_axes; a++)
        pt.values[a] = axis && !strcmp(b->axes[a].name, axis) ? value : b->axes[a].defaults[0];
    if (b->plan(&pt, dev, &p, why, sizeof(why)))
        return SMEM_ESKIP;
    c.grid = p.grid ? p.grid : (unsigned)dev->sm_count;
    memset(m, 0, sizeof(*m));
    b->metrics(&c, &t, m);
    return SMEM_OK;
}

static bool has_metric(const struct smem_metrics *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->m[i].name, name))
            return true;
    return false;
}

static bool is_direction(enum smem_better b)
{
    return b == SMEM_HIGHER_IS_BETTER || b == SMEM_LOWER_IS_BETTER;
}

int smem_bench_check(const struct smem_bench *const *benches, size_t n, const struct smem_device *dev, char *why,
                     size_t why_len)
{
    for (size_t i = 0; i < n; i++) {
        const struct smem_bench *b = benches[i], *base;
        const struct smem_baseline *bl = b->baseline;
        struct smem_metrics mine, theirs;

        if (b->min_cc && (!b->min_cc_feature || !b->min_cc_feature[0] || b->min_cc < 10)) {
            smem_fmt(why, why_len, "benchmark %s needs compute capability %d but names no feature (min_cc is "
                     "major x 10 + minor, with min_cc_feature)", b->name, b->min_cc);
            return SMEM_EINVAL;
        }
        if (!(b->variation.run_pct > 0) || b->variation.unit_pct < b->variation.run_pct ||
            (b->variation.layout_pct != 0 && b->variation.layout_pct < b->variation.unit_pct) || !b->variation.source ||
            !b->variation.source[0]) {
            smem_fmt(why, why_len, "benchmark %s declares no measured variation between runs (variation: run_pct > 0, "
                     "unit_pct >= run_pct, layout_pct 0 or >= unit_pct, and its source, bench/bench.h)", b->name);
            return SMEM_EINVAL;
        }
        if ((b->time_not_gated && (!b->time_not_gated[0] || b->time_not_gated[strlen(b->time_not_gated) - 1] == '.')) ||
            (b->gate_metric && !b->time_not_gated)) {
            smem_fmt(why, why_len, "benchmark %s: a time not gated needs its reason (time_not_gated: one line, no "
                     "trailing period), and a gate_metric a time not gated", b->name);
            return SMEM_EINVAL;
        }
        if (b->gate_metric && !sample_metrics(b, NULL, 0, dev, &mine) && !has_metric(&mine, b->gate_metric)) {
            smem_fmt(why, why_len, "benchmark %s gates on metric \"%s\", which it does not report", b->name,
                     b->gate_metric);
            return SMEM_EINVAL;
        }
        if (!b->kernel_file && b->kernel) {
            smem_fmt(why, why_len, "benchmark %s has a kernel but names no kernel file", b->name);
            return SMEM_EINVAL;
        }
#if SMEM_HAVE_CUDA
        if (b->kernel_file && !b->kernel) {
            smem_fmt(why, why_len, "benchmark %s names kernels/%s.cu but has no kernel", b->name, b->kernel_file);
            return SMEM_EINVAL;
        }
#endif
        if (!sample_metrics(b, NULL, 0, dev, &mine))
            for (size_t k = 0; k < mine.n; k++)
                if (!is_direction(mine.m[k].better)) {
                    smem_fmt(why, why_len, "metric %s of %s declares no direction", mine.m[k].name, b->name);
                    return SMEM_EINVAL;
                }
        if (b->best_family && (!b->best_metric || !b->best_axis || smem_bench_axis(b, b->best_axis) < 0)) {
            smem_fmt(why, why_len, "benchmark %s names best family %s without a metric or with axis \"%s\", which it "
                     "does not have", b->name, b->best_family, b->best_axis ? b->best_axis : "(none)");
            return SMEM_EINVAL;
        }
        if (!bl)
            continue;
        if (!is_direction(bl->better)) {
            smem_fmt(why, why_len, "the baseline of %s: metric %s declares no direction", b->name, bl->derived);
            return SMEM_EINVAL;
        }
        base = bl->bench ? find_in(benches, n, bl->bench) : b;
        if (!base) {
            smem_fmt(why, why_len, "the baseline of %s names benchmark \"%s\", which does not exist", b->name,
                     bl->bench);
            return SMEM_EINVAL;
        }
        if (bl->axis && smem_bench_axis(base, bl->axis) < 0) {
            smem_fmt(why, why_len, "the baseline of %s names axis \"%s\", which %s does not have", b->name, bl->axis,
                     base->name);
            return SMEM_EINVAL;
        }
        if (sample_metrics(b, NULL, 0, dev, &mine) || sample_metrics(base, bl->axis, bl->value, dev, &theirs)) {
            smem_fmt(why, why_len, "the baseline of %s: a default point of %s or %s cannot be planned on %s", b->name,
                     b->name, base->name, dev->name);
            return SMEM_EINVAL;
        }
        if (!has_metric(&mine, bl->metric) || !has_metric(&theirs, bl->metric)) {
            smem_fmt(why, why_len, "the baseline of %s names metric \"%s\", which %s does not report", b->name,
                     bl->metric, has_metric(&mine, bl->metric) ? base->name : b->name);
            return SMEM_EINVAL;
        }
    }
    return SMEM_OK;
}
