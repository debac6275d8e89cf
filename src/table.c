/* A plain-text table: fixed columns for what every point has, then the benchmark's own metrics.
 * Every column is as wide as its widest cell, the header's included: the rows are formatted once to
 * measure them and once to print them. */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "model.h"
#include "smem.h"

void smem_cols_init(struct smem_cols *c, const char *align)
{
    memset(c, 0, sizeof(*c));
    c->n = strlen(align);
    if (c->n > SMEM_COLS_MAX)
        c->n = SMEM_COLS_MAX;
    memcpy(c->align, align, c->n);
}

void smem_cols_fit(struct smem_cols *c, const char *const *cells)
{
    for (size_t k = 0; k < c->n; k++) {
        size_t w = strlen(cells[k]);
        if (w > c->width[k])
            c->width[k] = w;
    }
}

static void spaces(FILE *f, size_t n)
{
    while (n--)
        fputc(' ', f);
}

size_t smem_table_width = SMEM_TABLE_WIDTH;

/* The widths a row is printed at: the fitted ones, less what a line of smem_table_width needs taken
 * off (a table that fits, c->fit): the widest text column but the first (a point's benchmark) a
 * character at a time, none below 14, then the first too, none below 6; a cell longer than its width is cut and ends in '~'.
 * A hidden column has no width and no separator. */
static void limited(const struct smem_cols *c, size_t indent, size_t *w)
{
    size_t total = indent, shown = 0;

    for (size_t k = 0; k < c->n; k++) {
        w[k] = c->hide[k] ? 0 : c->width[k];
        total += w[k];
        shown += !c->hide[k];
    }
    total += shown ? shown - 1 : 0;
    for (size_t floor = 14; floor >= 6; floor = floor > 6 ? 6 : 0)
        while (c->fit && smem_table_width && total > smem_table_width) {
            size_t widest = c->n;
            for (size_t k = floor > 6; k < c->n; k++)
                if (c->align[k] == 'l' && !c->hide[k] && w[k] > floor && (widest == c->n || w[k] > w[widest]))
                    widest = k;
            if (widest == c->n)
                break;
            w[widest]--;
            total--;
        }
}

void smem_cols_print(FILE *f, const struct smem_cols *c, const char *indent, const char *const *cells)
{
    size_t pending = 0;     /* spaces owed before the next text: none is printed at the end of a line */
    size_t width[SMEM_COLS_MAX];
    bool started = false;

    limited(c, strlen(indent), width);
    fputs(indent, f);
    for (size_t k = 0; k < c->n; k++) {
        size_t w = strlen(cells[k]), cut, pad;
        if (c->hide[k])
            continue;
        cut = w > width[k];
        if (cut)
            w = width[k];
        pad = width[k] > w ? width[k] - w : 0;
        if (started)
            pending++;
        started = true;
        if (c->align[k] == 'r')
            pending += pad;
        if (w) {
            spaces(f, pending);
            if (cut)
                fprintf(f, "%.*s~", (int)(w - 1), cells[k]);
            else
                fputs(cells[k], f);
            pending = 0;
        }
        if (c->align[k] != 'r')
            pending += pad;
    }
    fputc('\n', f);
}

void smem_table_say(FILE *f, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    const char *p = line;
    bool first = true;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* wrapped between words to smem_table_width, the lines after the first indented by two */
    while (*p) {
        size_t room = smem_table_width ? smem_table_width - (first ? 0 : 2) : strlen(p);
        size_t n = strlen(p);
        if (n > room) {
            size_t cut = room;
            while (cut && p[cut] != ' ')
                cut--;
            n = cut ? cut : room;
        }
        fprintf(f, "%s%.*s\n", first ? "" : "  ", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
        first = false;
    }
}

void smem_fmt_value(char *buf, size_t len, double v, int digits)
{
    /* below 2^53 every integer is exact in a double: 16384, never 1.638e+04 */
    if (isfinite(v) && v == trunc(v) && fabs(v) < 9007199254740992.0)
        smem_fmt(buf, len, "%.0f", v == 0 ? 0.0 : v);
    else
        smem_fmt(buf, len, "%.*g", digits, v);
}

static void occ_cell(char *buf, size_t len, int v)
{
    if (v < 0)
        smem_fmt(buf, len, "-");
    else
        smem_fmt(buf, len, "%d", v);
}

enum { T_BENCH, T_PARAMS, T_STATUS, T_MEDIAN, T_SPREAD, T_TRIALS, T_MHZ, T_OCC, T_CARVE, T_LIMITER, T_METRICS, T_N };
#define TABLE_ALIGN "lllrrrrlrll"

struct table_row {
    char params[512], median[32], spread[32], trials[32], mhz[32], occ[32], carve[16], metrics[512];
    const char *cells[T_N];
};

/* "name=value unit, ..." of the first max metrics of r. */
static void format_metrics(const struct smem_result *r, size_t max, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < r->metrics.n && k < max; k++) {
        char v[32];
        smem_fmt_value(v, sizeof(v), r->metrics.m[k].value, 4);
        smem_append(buf, len, ", ", "%s=%s %s", r->metrics.m[k].name, v, r->metrics.m[k].unit);
    }
}

/* The range of the trials' medians in %, "*" where they disagree; "-" under two trials. */
static void trials_cell(const struct smem_result *r, char *buf, size_t len)
{
    double range, within;
    bool off = smem_result_trials(r, &range, &within);

    if (r->n_trials < 2)
        smem_fmt(buf, len, "-");
    else
        smem_fmt(buf, len, "%.2f%s", 100 * range, off ? "*" : "");
}

static void table_row(const struct smem_result *r, struct table_row *row)
{
    char a[16], p[16], m[16];

    smem_point_describe(r->point, row->params, sizeof(row->params));
    occ_cell(a, sizeof(a), r->occ.api);
    occ_cell(p, sizeof(p), r->occ.predicted);
    occ_cell(m, sizeof(m), r->occ.measured);
    smem_fmt(row->occ, sizeof(row->occ), "%s/%s/%s%s", a, p, m, r->occ.hint_overridden ? "!" : "");
    if (r->carveout_requested < 0)
        smem_fmt(row->carve, sizeof(row->carve), "dflt");
    else
        smem_fmt(row->carve, sizeof(row->carve), "%d", r->carveout_requested);
    format_metrics(r, 4, row->metrics, sizeof(row->metrics));
    if (r->status != SMEM_POINT_OK && r->status != SMEM_POINT_PREDICTED && r->reason[0])
        smem_fmt(row->metrics, sizeof(row->metrics), "%s", r->reason);
    if (r->n_samples) {
        smem_fmt(row->median, sizeof(row->median), "%.2f", r->time_ns.median / 1e3);
        smem_fmt(row->spread, sizeof(row->spread), "%.2f", 100 * r->time_ns.robust_spread);
        smem_fmt(row->mhz, sizeof(row->mhz), "%.0f", r->clock_mhz);
        trials_cell(r, row->trials, sizeof(row->trials));
    } else {
        smem_fmt(row->trials, sizeof(row->trials), "-");
        smem_fmt(row->median, sizeof(row->median), "-");
        smem_fmt(row->spread, sizeof(row->spread), "-");
        smem_fmt(row->mhz, sizeof(row->mhz), "-");
    }
    row->cells[T_BENCH] = r->point->bench->name;
    row->cells[T_PARAMS] = row->params;
    row->cells[T_STATUS] = smem_point_status_name(r->status);
    row->cells[T_MEDIAN] = row->median;
    row->cells[T_SPREAD] = row->spread;
    row->cells[T_TRIALS] = row->trials;
    row->cells[T_MHZ] = row->mhz;
    row->cells[T_OCC] = row->occ;
    row->cells[T_CARVE] = row->carve;
    row->cells[T_LIMITER] = r->occ.limiter;
    row->cells[T_METRICS] = row->metrics;
}

/* Whether a and b are of one best family and group (the same best_axis value). */
static bool same_group(const struct smem_result *a, const struct smem_result *b)
{
    const struct smem_bench *x = a->point->bench, *y = b->point->bench;

    return x->best_family && y->best_family && !strcmp(x->best_family, y->best_family) &&
           smem_axis_value(a->point, x->best_axis) == smem_axis_value(b->point, y->best_axis);
}

/* A line per family and group: its best measured point, the metrics, shared memory and residency. */
static void best_lines(FILE *f, const struct smem_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct smem_bench *b = res[i].point->bench;
        const struct smem_result *best = NULL;
        bool first = true;
        if (!b->best_family)
            continue;
        for (size_t j = 0; j < n && first; j++)
            first = j >= i || !same_group(&res[j], &res[i]);
        if (!first)
            continue;   /* the group was reported at its first point */
        for (size_t j = i; j < n; j++) {
            const struct smem_metric *m = smem_result_metric(&res[j], b->best_metric), *bm;
            if (res[j].status != SMEM_POINT_OK || !res[j].verified || !same_group(&res[j], &res[i]) || !m)
                continue;
            bm = best ? smem_result_metric(best, b->best_metric) : NULL;
            if (!bm || (m->better == SMEM_LOWER_IS_BETTER ? m->value < bm->value : m->value > bm->value))
                best = &res[j];
        }
        if (best) {
            char params[256], metrics[512];
            smem_point_describe(best->point, params, sizeof(params));
            format_metrics(best, best->metrics.n, metrics, sizeof(metrics));
            smem_table_say(f, "best %s at %s=%lld: %s %s: %s; %zu B shared/block, %d/%d/%d blocks/SM a/p/m", b->best_family,
                    b->best_axis, (long long)smem_axis_value(best->point, b->best_axis), best->point->bench->name,
                    params, metrics, best->static_smem + best->dyn_smem, best->occ.api, best->occ.predicted,
                    best->occ.measured);
        }
    }
}

void smem_table_print(FILE *f, const struct smem_device *dev, const struct smem_result *res, size_t n)
{
    static const char *const header[T_N] = { "bench", "params", "status", "median_us", "spread%", "trials%",
                                             "MHz", "blk/SM a/p/m", "carve", "limiter", "metrics" };
    struct smem_cols cols;
    struct table_row row;
    bool any_override = false;
    size_t disagree = 0;
    double range, within;

    smem_table_say(f, "%s (cc %d.%d, %d SMs, %lld KiB shared/SM, %lld KiB opt-in/block)%s", dev->name, dev->cc_major,
            dev->cc_minor, dev->sm_count, (long long)(dev->smem_per_sm / 1024),
            (long long)(dev->smem_per_block_optin / 1024), dev->is_model ? " [model: predicted occupancy only]" : "");
    smem_cols_init(&cols, TABLE_ALIGN);
    cols.fit = true;
    smem_cols_fit(&cols, header);
    for (size_t k = 0; k < T_N; k++)
        cols.hide[k] = n > 0 && k >= T_MEDIAN && k <= T_MHZ;    /* shown below where a point has a value */
    for (size_t i = 0; i < n; i++) {
        table_row(&res[i], &row);
        smem_cols_fit(&cols, row.cells);
        for (size_t k = T_MEDIAN; k <= T_MHZ; k++)
            cols.hide[k] &= !strcmp(row.cells[k], "-") || !row.cells[k][0];
    }
    smem_cols_print(f, &cols, "", header);
    for (size_t i = 0; i < n; i++) {
        table_row(&res[i], &row);
        smem_cols_print(f, &cols, "", row.cells);
        any_override |= res[i].occ.hint_overridden;
        disagree += res[i].n_samples && smem_result_trials(&res[i], &range, &within);
    }
    if (disagree)
        smem_table_say(f, "* %zu point%s whose trials disagree: their medians lie further apart than their own noise "
                       "explains (each trial is a fresh setup; the file's trials list them)", disagree,
                       disagree == 1 ? "" : "s");
    if (any_override)
        smem_table_say(f, "! a carveout hint was set and the measured residency differs from the occupancy API: "
                       "the driver did not follow the hint");
    best_lines(f, res, n);
    smem_table_published(f, dev, res, n);
}

static void published_row(const struct smem_published *p, char *value, size_t len, const char **cells)
{
    value[0] = '\0';
    if (p->list)
        for (size_t k = 0; k < p->n_list; k++)
            smem_append(value, len, ",", "%d", p->list[k]);
    else
        smem_fmt_value(value, len, p->value, 6);
    smem_append(value, len, " ", "%s", p->unit);
    cells[0] = p->name;
    cells[1] = value;
    cells[2] = p->source;
}

/* Which benchmark's measurement each published value is read beside (core/arch.c's names): the
 * published block lists a value only where that benchmark ran on a GPU in this run. */
static const struct { const char *value, *bench; } compares[] = {
    { "smem_load_latency_cycles", "latency" },
    { "smem_bytes_per_clock_per_sm", "bandwidth" },
    { "banks", "bank" },
    { "bank_width_bytes", "bank" },
    { "smem_per_sm_bytes", "dynamic" },
    { "smem_per_block_optin_bytes", "dynamic" },
    { "unified_l1_smem_bytes", "gather" },
    { "carveout_steps_kib", "footprint" },
    { "bf16_dense_flop_per_clk_sm", "swizzle_wgmma" },
};

static bool measured_beside(const struct smem_published *p, const struct smem_result *res, size_t n)
{
    for (size_t k = 0; k < SMEM_ARRAY_LEN(compares); k++)
        if (!strcmp(compares[k].value, p->name))
            for (size_t i = 0; i < n; i++)
                if (res[i].status == SMEM_POINT_OK && !strcmp(res[i].point->bench->name, compares[k].bench))
                    return true;
    return false;
}

void smem_table_published(FILE *f, const struct smem_device *dev, const struct smem_result *res, size_t n_res)
{
    struct smem_published all[SMEM_ARCH_MAX_PUBLISHED], p[SMEM_ARCH_MAX_PUBLISHED];
    size_t n_all = smem_arch_published(dev->cc_major, dev->cc_minor, all, SMEM_ARCH_MAX_PUBLISHED), n = 0;
    const struct smem_arch *a = smem_arch_find(dev->cc_major, dev->cc_minor);
    struct smem_cols cols;
    const char *cells[3];
    char value[128];

    if (dev->is_model)
        return;         /* predict mode measured nothing to compare with */
    for (size_t i = 0; i < n_all; i++)
        if (measured_beside(&all[i], res, n_res))
            p[n++] = all[i];
    if (!n)
        return;
    fprintf(f, "published for cc %d.%d (%s), beside what this run measured:\n", dev->cc_major, dev->cc_minor,
            a->generation);
    smem_cols_init(&cols, "lll");
    cols.fit = true;
    for (size_t i = 0; i < n; i++) {
        published_row(&p[i], value, sizeof(value), cells);
        smem_cols_fit(&cols, cells);
    }
    for (size_t i = 0; i < n; i++) {
        published_row(&p[i], value, sizeof(value), cells);
        smem_cols_print(f, &cols, "  ", cells);
    }
}

struct spread_row {
    char name[640], times[SMEM_COLS_MAX][32], pct[32];
    const char *cells[SMEM_COLS_MAX];
};

/* The point's name, each device's median, the spread and its mark: n_runs + 3 cells. */
static void spread_row(const struct smem_device_run *runs, int n_runs, const struct smem_point *pt,
                       const struct smem_spread *sp, size_t i, struct spread_row *row)
{
    char params[512];

    smem_point_describe(pt, params, sizeof(params));
    smem_fmt(row->name, sizeof(row->name), "%s %s", pt->bench->name, params);
    row->cells[0] = row->name;
    for (int d = 0; d < n_runs; d++) {
        const struct smem_result *r = &runs[d].results[i];
        if (i >= runs[d].out.done || r->status != SMEM_POINT_OK)
            smem_fmt(row->times[d], sizeof(row->times[d]), "-");
        else
            smem_fmt(row->times[d], sizeof(row->times[d]), "%.2f", r->time_ns.median / 1e3);
        row->cells[1 + d] = row->times[d];
    }
    if (sp->devices > 1)
        smem_fmt(row->pct, sizeof(row->pct), "%.2f%%", sp->pct);
    else
        smem_fmt(row->pct, sizeof(row->pct), "-");
    row->cells[1 + n_runs] = row->pct;
    row->cells[2 + n_runs] = sp->devices > 1 && sp->slowest_ns / sp->fastest_ns > 1.05 ? "!" : "";
}

void smem_table_spread(FILE *f, const struct smem_device_run *runs, int n_runs, const struct smem_point *points,
                       const struct smem_spread *spread, size_t n)
{
    char align[SMEM_COLS_MAX + 1], devs[SMEM_COLS_MAX][16];
    const char *header[SMEM_COLS_MAX];
    struct spread_row *row = malloc(sizeof(*row));
    struct smem_cols cols;

    if (n_runs > SMEM_COLS_MAX - 3)
        n_runs = SMEM_COLS_MAX - 3;
    if (!row)
        return;
    memset(align, 'r', (size_t)n_runs + 2);
    align[0] = 'l';
    align[n_runs + 2] = 'l';
    align[n_runs + 3] = '\0';
    header[0] = "point";
    for (int d = 0; d < n_runs; d++) {
        smem_fmt(devs[d], sizeof(devs[d]), "dev%d", runs[d].dev.ordinal);
        header[1 + d] = devs[d];
    }
    header[1 + n_runs] = "spread";
    header[2 + n_runs] = "";
    smem_cols_init(&cols, align);
    cols.fit = true;
    smem_cols_fit(&cols, header);
    for (size_t i = 0; i < n; i++) {
        spread_row(runs, n_runs, &points[i], &spread[i], i, row);
        smem_cols_fit(&cols, row->cells);
    }
    fprintf(f, "\nspread between devices (median time, us):\n");
    smem_cols_print(f, &cols, "", header);
    for (size_t i = 0; i < n; i++) {
        spread_row(runs, n_runs, &points[i], &spread[i], i, row);
        smem_cols_print(f, &cols, "", row->cells);
    }
    free(row);
}

/* --counters: a counters table after the timing table, one row per point that ran. The default
 * set's counters become what a shared-memory question asks (wavefronts and conflicts per shared
 * instruction, the hit rates, DRAM traffic, achieved occupancy, the top stall); any other metric
 * asked for is a column of its own, headed by its name. */
enum { C_WF_LD, C_WF_ST, C_CF_LD, C_CF_ST, C_IN_LD, C_IN_ST, C_L1, C_L2, C_DR, C_DW, C_OCC, C_KNOWN };
static const char *const known_counter[C_KNOWN] = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum", "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
};
#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define COUNTER_COLS 16

static int counter_index(const struct smem_counters_run *run, const char *name)
{
    for (size_t i = 0; i < run->n; i++)
        if (!strcmp(run->name[i], name))
            return (int)i;
    return -1;
}

static double counter_value(const struct smem_result *r, int i)
{
    return i >= 0 && r->counters.values ? r->counters.values[i] : NAN;
}

/* "a/b" of two values per instruction, "-" where either is missing or there were no instructions. */
static void per_inst_cell(char *buf, size_t len, double a, double ia, double b, double ib)
{
    char x[16] = "-", y[16] = "-";

    if (isfinite(a) && isfinite(ia) && ia > 0)
        smem_fmt(x, sizeof(x), "%.2f", a / ia);
    if (isfinite(b) && isfinite(ib) && ib > 0)
        smem_fmt(y, sizeof(y), "%.2f", b / ib);
    smem_fmt(buf, len, "%s/%s", x, y);
}

static void pair_cell(char *buf, size_t len, double a, double b, double scale, int digits)
{
    char x[16] = "-", y[16] = "-";

    if (isfinite(a))
        smem_fmt(x, sizeof(x), "%.*f", digits, a * scale);
    if (isfinite(b))
        smem_fmt(y, sizeof(y), "%.*f", digits, b * scale);
    smem_fmt(buf, len, "%s/%s", x, y);
}

void smem_table_counters(FILE *f, const struct smem_device_run *dr)
{
    const struct smem_counters_run *run = &dr->counters;
    const char *header[4 + 5 + COUNTER_COLS], *cells[4 + 5 + COUNTER_COLS];
    char buf[5 + COUNTER_COLS][40], params[256], passes[16], align[4 + 5 + COUNTER_COLS + 1];
    int idx[C_KNOWN], other[COUNTER_COLS], stalls[SMEM_COUNTERS_MAX];
    size_t n_other = 0, n_stalls = 0, ncol = 0, more = 0;
    bool wf, hit, dram, occ;
    struct smem_cols cols;

    if (!run->req || !run->req->on)
        return;
    if (run->status != SMEM_COUNTERS_OK) {
        smem_table_say(f, "counters: none (%s)", run->reason);
        return;
    }
    for (int k = 0; k < C_KNOWN; k++)
        idx[k] = counter_index(run, known_counter[k]);
    for (size_t i = 0; i < run->n; i++) {
        bool known = false;
        for (int k = 0; k < C_KNOWN; k++)
            known |= idx[k] == (int)i;
        if (!strncmp(run->name[i], STALL_PREFIX, strlen(STALL_PREFIX)))
            stalls[n_stalls++] = (int)i;
        else if (!known && n_other < COUNTER_COLS)
            other[n_other++] = (int)i;
        else if (!known)
            more++;
    }
    wf = idx[C_IN_LD] >= 0 || idx[C_IN_ST] >= 0;
    hit = idx[C_L1] >= 0 || idx[C_L2] >= 0;
    dram = idx[C_DR] >= 0 || idx[C_DW] >= 0;
    occ = idx[C_OCC] >= 0;
    header[ncol++] = "bench";
    header[ncol++] = "params";
    header[ncol++] = "passes";
    if (wf) {
        header[ncol++] = "wavefronts/inst ld/st";
        header[ncol++] = "conflicts/inst ld/st";
    }
    if (hit)
        header[ncol++] = "hit% L1/L2";
    if (dram)
        header[ncol++] = "DRAM MB r/w";
    if (occ)
        header[ncol++] = "occ%";
    if (n_stalls)
        header[ncol++] = "top stall (warps/issue)";
    for (size_t k = 0; k < n_other; k++)
        header[ncol++] = run->name[other[k]];
    memset(align, 'r', ncol);
    align[0] = align[1] = 'l';
    if (n_stalls)
        align[ncol - n_other - 1] = 'l';
    align[ncol] = '\0';
    smem_cols_init(&cols, align);
    cols.fit = true;   /* lines to smem_table_width, as the timing table's (--wide: whole) */
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            smem_cols_print(f, &cols, "", header);
        else
            smem_cols_fit(&cols, header);
        for (size_t i = 0; i < dr->out.done; i++) {
            const struct smem_result *r = &dr->results[i];
            size_t c = 0, b = 0;
            if (r->status != SMEM_POINT_OK || r->counters.status == SMEM_COUNTERS_NONE)
                continue;
            smem_point_describe(r->point, params, sizeof(params));
            cells[c++] = r->point->bench->name;
            cells[c++] = params;
            smem_fmt(passes, sizeof(passes), "%d", r->counters.passes);
            cells[c++] = r->counters.status == SMEM_COUNTERS_OK ? passes : "failed";
            if (r->counters.status != SMEM_COUNTERS_OK) {
                smem_fmt(buf[b], sizeof(buf[b]), "%.39s", r->counters.reason);
                for (; c < ncol; c++)
                    cells[c] = c == 3 ? buf[b] : "";
            } else {
                if (wf) {
                    per_inst_cell(buf[b], sizeof(buf[b]), counter_value(r, idx[C_WF_LD]), counter_value(r, idx[C_IN_LD]),
                                  counter_value(r, idx[C_WF_ST]), counter_value(r, idx[C_IN_ST]));
                    cells[c++] = buf[b++];
                    per_inst_cell(buf[b], sizeof(buf[b]), counter_value(r, idx[C_CF_LD]), counter_value(r, idx[C_IN_LD]),
                                  counter_value(r, idx[C_CF_ST]), counter_value(r, idx[C_IN_ST]));
                    cells[c++] = buf[b++];
                }
                if (hit) {
                    pair_cell(buf[b], sizeof(buf[b]), counter_value(r, idx[C_L1]), counter_value(r, idx[C_L2]), 1, 1);
                    cells[c++] = buf[b++];
                }
                if (dram) {
                    pair_cell(buf[b], sizeof(buf[b]), counter_value(r, idx[C_DR]), counter_value(r, idx[C_DW]), 1e-6, 2);
                    cells[c++] = buf[b++];
                }
                if (occ) {
                    smem_fmt_value(buf[b], sizeof(buf[b]), counter_value(r, idx[C_OCC]), 3);
                    cells[c++] = buf[b++];
                }
                if (n_stalls) {
                    int top = -1;
                    for (size_t k = 0; k < n_stalls; k++)
                        if (isfinite(counter_value(r, stalls[k])) &&
                            (top < 0 || counter_value(r, stalls[k]) > counter_value(r, top)))
                            top = stalls[k];
                    if (top < 0)
                        smem_fmt(buf[b], sizeof(buf[b]), "-");
                    else {
                        const char *name = run->name[top] + strlen(STALL_PREFIX);
                        const char *end = strstr(name, "_per_issue_active");
                        smem_fmt(buf[b], sizeof(buf[b]), "%.*s %.2f", end ? (int)(end - name) : (int)strlen(name),
                                 name, counter_value(r, top));
                    }
                    cells[c++] = buf[b++];
                }
                for (size_t k = 0; k < n_other; k++) {
                    smem_fmt_value(buf[b], sizeof(buf[b]), counter_value(r, other[k]), 4);
                    cells[c++] = buf[b++];
                }
            }
            if (pass)
                smem_cols_print(f, &cols, "", cells);
            else
                smem_cols_fit(&cols, cells);
        }
    }
    if (more)
        smem_table_say(f, "(%zu more metrics asked for are in the file only)", more);
    smem_table_say(f, "counters: one launch per pass, after every point was timed; %.1f s of counter passes",
                   run->wall_s);
}
