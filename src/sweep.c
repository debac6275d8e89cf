/* Named sweeps, axis lists and their expansion. Every message names the option and what would be
 * accepted; nothing here touches the GPU, so the whole plan is checked before anything runs. */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "smem.h"

/* Name and summary only: the benchmarks say which sweeps they belong to (bench/<name>.c, .sweeps). */
const struct smem_sweep smem_sweeps[] = {
    { "all", "every benchmark", true },
    { "bandwidth", "peak shared-memory load throughput, bytes/clock/SM against 128", false },
    { "bank", "stride 1..33 at 4/8/16-byte accesses: slowdown against the bank model's conflict degree", false },
    { "carveout", "preferred carveout 0..100 %: a shared-memory footprint kernel against an L1-reliant gather", false },
    { "cluster", "cc 9.0: distributed shared memory in a thread block cluster (size 1..16): remote latency, bandwidth "
      "and atomics beside local, cluster.sync(), cluster occupancy API vs measured (predict mode skips every point: "
      "the calculator has no clusters)", false },
    { "dynamic", "dynamic shared memory 0 .. opt-in maximum: the occupancy staircase, the 48 KiB opt-in, static vs dynamic", false },
    { "latency", "shared-memory load-to-use latency in cycles (pointer chase)", false },
    { "reduction", "shared memory as a channel: tree vs shuffles vs atomics, GB/s against a copy", false },
    { "staging", "global -> shared by loads/stores, cp.async (cc 8.0) and cp.async.bulk + mbarrier (cc 9.0), tiles of "
      "1 KiB to the opt-in maximum: GB/s against the measured global read bandwidth", false },
    { "swizzle", "shared memory as the tensor cores see it: ldmatrix/stmatrix on row-major, padded and 32/64/128-byte "
      "XOR-swizzled tiles against the bank model, TMA tensor copies per swizzle mode (cc 9.0), wgmma fed from shared "
      "memory per swizzle mode (sm_90a)", false },
    { "tile", "tiled matmul (tile 8..64, register-blocked, >48 KiB opt-in) vs global-only and cuBLAS; row-major, padded and XOR-swizzled transpose tiles vs copy and the tile copy (their ceiling)", false },
    { "uninit", "uninitialized contents: how much of a new block's shared memory still holds the last kernel's data", false },
};
const size_t smem_n_sweeps = SMEM_ARRAY_LEN(smem_sweeps);

const struct smem_sweep *smem_sweep_find(const char *name)
{
    for (size_t i = 0; i < smem_n_sweeps; i++)
        if (!strcmp(smem_sweeps[i].name, name))
            return &smem_sweeps[i];
    return NULL;
}

static bool names_sweep(const struct smem_bench *b, const char *name)
{
    for (size_t k = 0; k < SMEM_MAX_BENCH_SWEEPS && b->sweeps[k]; k++)
        if (!strcmp(b->sweeps[k], name))
            return true;
    return false;
}

bool smem_sweep_has(const struct smem_sweep *sw, const struct smem_bench *b)
{
    return sw->every || names_sweep(b, sw->name);
}

bool smem_sweep_predictable(const struct smem_sweep *sw)
{
    size_t n = 0;

    for (size_t i = 0; i < smem_n_benches; i++) {
        if (!smem_sweep_has(sw, smem_benches[i]))
            continue;
        if (!smem_benches[i]->predictable)
            return false;
        n++;
    }
    return n > 0;
}

bool smem_sweep_predicts(const struct smem_sweep *sw)
{
    if (!smem_sweep_predictable(sw))
        return false;
    for (size_t i = 0; i < smem_n_benches; i++)
        if (smem_sweep_has(sw, smem_benches[i]) && !smem_benches[i]->predict_skips)
            return true;
    return false;
}

int smem_sweep_check(const struct smem_sweep *sweeps, size_t n_sweeps, const struct smem_bench *const *benches,
                     size_t n_benches, char *why, size_t why_len)
{
    for (size_t s = 0; s < n_sweeps; s++) {
        bool named = sweeps[s].every;
        for (size_t i = 0; i < n_benches && !named; i++)
            named = names_sweep(benches[i], sweeps[s].name);
        if (!named) {
            smem_fmt(why, why_len, "sweep \"%s\" has no benchmark: no descriptor names it", sweeps[s].name);
            return SMEM_EINVAL;
        }
    }
    for (size_t i = 0; i < n_benches; i++)
        for (size_t k = 0; k < SMEM_MAX_BENCH_SWEEPS && benches[i]->sweeps[k]; k++) {
            bool found = false;
            for (size_t s = 0; s < n_sweeps && !found; s++)
                found = !sweeps[s].every && !strcmp(sweeps[s].name, benches[i]->sweeps[k]);
            if (!found) {
                smem_fmt(why, why_len, "benchmark %s names sweep \"%s\", which does not exist", benches[i]->name,
                         benches[i]->sweeps[k]);
                return SMEM_EINVAL;
            }
        }
    return SMEM_OK;
}

static void list_error(const char *text, const struct smem_axis *axis, const char *what)
{
    smem_error("invalid value \"%s\" for --axis %s: %s; expected %lld..%lld as a list (1,2,4), a range "
               "(0:100:10) or powers (1:1024:*2)", text, axis->name, what, (long long)axis->min,
               (long long)axis->max);
}

/* One number with an optional K or M suffix (x1024, x1024^2); the whole of [s, end) must be used. */
static int parse_number(const char *s, const char *end, int64_t *out)
{
    char buf[64];
    size_t len = (size_t)(end - s);
    char *stop;
    long long v, mult = 1;

    if (len == 0 || len >= sizeof(buf))
        return SMEM_EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (len > 1 && (buf[len - 1] == 'K' || buf[len - 1] == 'k')) {
        mult = (long long)SMEM_KIB;
        buf[--len] = '\0';
    } else if (len > 1 && (buf[len - 1] == 'M' || buf[len - 1] == 'm')) {
        mult = (long long)(SMEM_KIB * SMEM_KIB);
        buf[--len] = '\0';
    }
    if (!isdigit((unsigned char)buf[0]) && !((buf[0] == '-' || buf[0] == '+') && isdigit((unsigned char)buf[1])))
        return SMEM_EINVAL;
    errno = 0;
    v = strtoll(buf, &stop, 10);
    if (errno == ERANGE || *stop != '\0')
        return SMEM_EINVAL;
    if ((v > 0 && v > LLONG_MAX / mult) || (v < 0 && v < LLONG_MIN / mult))
        return SMEM_EINVAL;
    *out = (int64_t)(v * mult);
    return SMEM_OK;
}

static int push(int64_t v, const struct smem_axis *axis, const char *text, int64_t *values,
                size_t max, size_t *n)
{
    char what[96];

    if (v < axis->min || v > axis->max) {
        smem_fmt(what, sizeof(what), "%lld is out of range", (long long)v);
        list_error(text, axis, what);
        return SMEM_EINVAL;
    }
    if (axis->defaults_only) {
        bool ok = false;
        for (size_t i = 0; i < axis->n_defaults; i++)
            ok = ok || axis->defaults[i] == v;
        if (!ok) {
            char choices[96] = "";
            for (size_t i = 0; i < axis->n_defaults; i++)
                smem_append(choices, sizeof(choices), ", ", "%lld", (long long)axis->defaults[i]);
            smem_error("invalid value \"%s\" for --axis %s: %lld is not possible; expected one of %s",
                       text, axis->name, (long long)v, choices);
            return SMEM_EINVAL;
        }
    }
    if (*n >= max) {
        smem_fmt(what, sizeof(what), "more than %zu values", max);
        list_error(text, axis, what);
        return SMEM_EINVAL;
    }
    values[(*n)++] = v;
    return SMEM_OK;
}

/* One comma-separated item: a number, lo:hi, lo:hi:step or lo:hi:*factor. */
static int parse_item(const char *s, const char *end, const struct smem_axis *axis, const char *text,
                      int64_t *values, size_t max, size_t *n)
{
    const char *c1 = memchr(s, ':', (size_t)(end - s));
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
    int64_t lo, hi, step = 1;
    bool geometric = false;

    if (!c1) {
        if (parse_number(s, end, &lo)) {
            list_error(text, axis, "not a number");
            return SMEM_EINVAL;
        }
        return push(lo, axis, text, values, max, n);
    }
    if (c2 && memchr(c2 + 1, ':', (size_t)(end - c2 - 1))) {
        list_error(text, axis, "a range has at most three parts");
        return SMEM_EINVAL;
    }
    if (parse_number(s, c1, &lo) || parse_number(c1 + 1, c2 ? c2 : end, &hi)) {
        list_error(text, axis, "a range bound is not a number");
        return SMEM_EINVAL;
    }
    if (c2) {
        const char *st = c2 + 1;
        if (st < end && *st == '*') {
            geometric = true;
            st++;
        }
        if (parse_number(st, end, &step) || step < (geometric ? 2 : 1)) {
            list_error(text, axis, geometric ? "the factor must be 2 or more" : "the step must be 1 or more");
            return SMEM_EINVAL;
        }
    }
    if (lo > hi) {
        list_error(text, axis, "the range is empty (start above end)");
        return SMEM_EINVAL;
    }
    if (geometric && lo <= 0) {
        list_error(text, axis, "a geometric range must start above 0");
        return SMEM_EINVAL;
    }
    for (int64_t v = lo;;) {
        if (push(v, axis, text, values, max, n))
            return SMEM_EINVAL;
        if (geometric ? v > hi / step : v > hi - step)
            break;
        v = geometric ? v * step : v + step;
        if (v > hi)
            break;
    }
    return SMEM_OK;
}

int smem_sweep_parse_list(const char *text, const struct smem_axis *axis, int64_t *values,
                          size_t max, size_t *n)
{
    const char *s = text;

    *n = 0;
    if (!*text) {
        list_error(text, axis, "the list is empty");
        return SMEM_EINVAL;
    }
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        if (end == s) {
            list_error(text, axis, "an empty item");
            return SMEM_EINVAL;
        }
        if (parse_item(s, end, axis, text, values, max, n))
            return SMEM_EINVAL;
        if (!comma)
            break;
        s = comma + 1;
    }
    /* a value given twice (0:64K:16K,48K) runs once, where it first appears */
    for (size_t i = 0, kept = 0; i < *n; i++) {
        bool seen = false;
        for (size_t k = 0; k < kept && !seen; k++)
            seen = values[k] == values[i];
        if (!seen)
            values[kept++] = values[i];
        if (i + 1 == *n)
            *n = kept;
    }
    return SMEM_OK;
}

static bool bench_listed(const struct smem_bench *const *list, size_t n, const struct smem_bench *b)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == b)
            return true;
    return false;
}

void smem_sweep_names(char *buf, size_t len, bool predictable_only)
{
    buf[0] = '\0';
    for (size_t i = 0; i < smem_n_sweeps; i++)
        if (!predictable_only || smem_sweep_predicts(&smem_sweeps[i]))
            smem_append(buf, len, ", ", "%s", smem_sweeps[i].name);
}

/* Adds the benchmarks of a named sweep to the list, without repeats. */
static int add_sweep(const char *name, bool predict, const struct smem_bench **benches,
                     const char **owner, size_t *nb)
{
    const struct smem_sweep *sw = smem_sweep_find(name);
    char names[256];

    if (!sw) {
        smem_sweep_names(names, sizeof(names), false);
        smem_error("unknown sweep \"%s\"; known sweeps: %s", name, names);
        return SMEM_EINVAL;
    }
    if (predict && !sw->every && !smem_sweep_predictable(sw)) {
        smem_sweep_names(names, sizeof(names), true);
        smem_error("sweep \"%s\" needs a GPU and cannot run in predict mode; predictable sweeps: %s", name, names);
        return SMEM_EINVAL;
    }
    for (size_t i = 0; i < smem_n_benches; i++) {
        const struct smem_bench *b = smem_benches[i];
        bool in = smem_sweep_has(sw, b);
        if (in && predict && sw->every)   /* "all" in predict mode: the predictable ones */
            in = b->predictable;
        if (in && !bench_listed(benches, *nb, b)) {
            owner[*nb] = sw->name;
            benches[(*nb)++] = b;
        }
    }
    return SMEM_OK;
}

/* The plan of a request: with points, its points (allocated); without, only its checks (the
 * benchmarks, the axis names, every value list and the point count), nothing built. */
static int expand(const struct smem_plan_request *r, struct smem_point **points, size_t *n,
                  const struct smem_device *dev)
{
    const struct smem_bench *benches[64];
    const char *owner[64];
    size_t nb = 0, total = 0, cap = 0;
    struct smem_point *out = NULL;
    int64_t (*vals)[SMEM_MAX_AXIS_VALUES] = NULL;
    size_t counts[SMEM_MAX_AXES];
    int rc = SMEM_EINVAL;

    if (points)
        *points = NULL;
    *n = 0;
    if (r->bench) {
        const struct smem_bench *b = smem_bench_find(r->bench);
        if (!b) {
            char names[512] = "";
            for (size_t i = 0; i < smem_n_benches; i++)
                smem_append(names, sizeof(names), ", ", "%s", smem_benches[i]->name);
            smem_error("unknown benchmark \"%s\"; known benchmarks: %s", r->bench, names);
            return SMEM_EINVAL;
        }
        if (r->predict && !b->predictable) {
            char names[256];
            smem_sweep_names(names, sizeof(names), true);
            smem_error("benchmark \"%s\" needs a GPU and cannot run in predict mode; the benchmarks of these "
                       "sweeps can: %s", r->bench, names);
            return SMEM_EINVAL;
        }
        benches[nb] = b;
        owner[nb++] = b->name;
    }
    for (size_t i = 0; i < r->n_sweeps; i++)
        if (add_sweep(r->sweeps[i], r->predict, benches, owner, &nb))
            return SMEM_EINVAL;
    if (!nb) {
        smem_error("nothing to run; give --sweep NAME or --bench NAME (--list shows them)");
        return SMEM_EINVAL;
    }
    for (size_t o = 0; o < r->n_overrides; o++) {
        bool found = false;
        for (size_t i = 0; i < nb && !found; i++)
            found = smem_bench_axis(benches[i], r->overrides[o].name) >= 0;
        if (!found) {
            char names[512] = "";
            for (size_t i = 0; i < nb; i++)
                for (size_t a = 0; a < benches[i]->n_axes; a++)
                    if (!strstr(names, benches[i]->axes[a].name))
                        smem_append(names, sizeof(names), ", ", "%s", benches[i]->axes[a].name);
            smem_error("unknown axis \"%s\" for this run; its axes: %s", r->overrides[o].name, names);
            return SMEM_EINVAL;
        }
    }

    vals = malloc(SMEM_MAX_AXES * sizeof(*vals));
    if (!vals)
        return SMEM_ENOMEM;
    for (size_t i = 0; i < nb; i++) {
        const struct smem_bench *b = benches[i];
        size_t combos = 1;
        for (size_t a = 0; a < b->n_axes; a++) {
            const struct smem_axis *ax = &b->axes[a];
            const char *list = NULL;
            for (size_t o = 0; o < r->n_overrides; o++)
                if (!strcmp(r->overrides[o].name, ax->name))
                    list = r->overrides[o].list;
            if (list) {
                if (smem_sweep_parse_list(list, ax, vals[a], SMEM_MAX_AXIS_VALUES, &counts[a]))
                    goto fail;
            } else if (dev && b->device_defaults && ax->from_device &&
                       (counts[a] = b->device_defaults(dev, ax->name, r->quick, smem_occupancy_blocks_per_sm, vals[a],
                                                       SMEM_MAX_AXIS_VALUES)) > 0) {
                /* the device's own values: its cliffs, its carveout steps, sizes from its limits */
            } else {
                const int64_t *d = r->quick && ax->quick ? ax->quick : ax->defaults;
                counts[a] = r->quick && ax->quick ? ax->n_quick : ax->n_defaults;
                memcpy(vals[a], d, counts[a] * sizeof(*d));
            }
            combos *= counts[a];
            if (combos > SMEM_MAX_POINTS) {
                smem_error("the plan has more than %d points; narrow it with --axis", SMEM_MAX_POINTS);
                goto fail;
            }
        }
        if (total + combos > SMEM_MAX_POINTS) {
            smem_error("the plan has more than %d points; narrow it with --axis", SMEM_MAX_POINTS);
            goto fail;
        }
        if (!points) {
            total += combos;
            continue;
        }
        if (total + combos > cap) {
            struct smem_point *grown;
            cap = (total + combos) * 2;
            grown = realloc(out, cap * sizeof(*out));
            if (!grown) {
                rc = SMEM_ENOMEM;
                goto fail;
            }
            out = grown;
        }
        for (size_t k = 0; k < combos; k++) {
            struct smem_point *p = &out[total++];
            size_t rest = k;
            memset(p, 0, sizeof(*p));
            p->bench = b;
            p->sweep = owner[i];
            /* the last axis varies fastest */
            for (size_t a = b->n_axes; a-- > 0;) {
                p->values[a] = vals[a][rest % counts[a]];
                rest /= counts[a];
            }
        }
    }
    free(vals);
    if (points)
        *points = out;
    *n = total;
    return SMEM_OK;
fail:
    free(vals);
    free(out);
    return rc;
}

int smem_plan_check(const struct smem_plan_request *r, size_t *n)
{
    return expand(r, NULL, n, NULL);
}

int smem_sweep_expand(const struct smem_plan_request *r, struct smem_point **points, size_t *n,
                      const struct smem_device *dev)
{
    return expand(r, points, n, dev);
}
