/* The terminal table of a run's results. */
#ifndef SMEM_TABLE_H
#define SMEM_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "device.h"
#include "model.h"

/* Columns as wide as their widest cell: fit every row (the header's too), then print each. Cells
 * are separated by one space; 'l' columns are padded on the right, 'r' columns on the left, and no
 * line ends in spaces. The spread table is the widest: a point, 64 devices, the spread, its mark. */
#define SMEM_COLS_MAX 72
struct smem_cols {
    size_t n;
    char align[SMEM_COLS_MAX];
    size_t width[SMEM_COLS_MAX];
    bool hide[SMEM_COLS_MAX];       /* not printed (a column with nothing to say: predict mode's times) */
    bool fit;                       /* a run's table: lines cut to smem_table_width (--list's are not) */
};

/* One column per letter of align ('l' or 'r'), every width 0. */
void smem_cols_init(struct smem_cols *c, const char *align);

/* Widens the columns to the row's cells (c->n of them). */
void smem_cols_fit(struct smem_cols *c, const char *const *cells);

/* The longest line the tables print by default; smem_table_width is it, or 0 (--wide): no limit. */
#define SMEM_TABLE_WIDTH 100
extern size_t smem_table_width;

/* Prints the row after indent, padded to the fitted widths; where the row would pass
 * smem_table_width, the widest text columns are narrowed and a cut cell ends in '~'. */
void smem_cols_print(FILE *f, const struct smem_cols *c, const char *indent, const char *const *cells);

/* Prints one formatted line, wrapped between words to smem_table_width (the rest indented by two). */
void smem_table_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value for a reader: an integer as one (16384, never 1.638e+04), anything else with that many
 * significant digits (%g). The JSON files keep their own numbers. */
void smem_fmt_value(char *buf, size_t len, double v, int digits);

/* Prints one row per result; occupancy as api/predicted/measured, a '!' where the driver did not
 * follow the carveout hint (measured differs from the API). */
void smem_table_print(FILE *f, const struct smem_device *dev, const struct smem_result *r, size_t n);

/* What is published for dev's compute capability (core/arch.c), each value with its source: only
 * the values a benchmark of res measured beside (none in predict mode, nothing where none ran). */
void smem_table_published(FILE *f, const struct smem_device *dev, const struct smem_result *res, size_t n);

/* --counters: a table of the run's counters (the default set as per-instruction figures, hit rates,
 * DRAM traffic, occupancy and the top stall; other metrics as they are), or why there are none. */
void smem_table_counters(FILE *f, const struct smem_device_run *run);

/* Per point run on several devices: each device's median and the spread, slowest over fastest;
 * a spread over 5 % is marked, since one slow or misconfigured GPU in a node should stand out. */
void smem_table_spread(FILE *f, const struct smem_device_run *runs, int n_runs, const struct smem_point *points,
                       const struct smem_spread *spread, size_t n);

#endif
