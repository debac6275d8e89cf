"""One figure per question, from smembench result files, as PNG and SVG (or --format png,svg,pdf).

  smembench-plot FILES... -o DIR [--format png|svg|pdf] [--dpi N]
                                        (from the source tree: python3 scripts/plot.py ...)

carveout.*   footprint and gather kernel time against the preferred carveout; the footprint kernel's
             blocks per SM (API, predicted, measured); the shared memory per SM each carveout gives
occupancy.*  blocks per SM (API, predicted, measured) against dynamic shared memory, and the time of
             the dynamic and static-array kernels
bank.*       measured slowdown against stride for each access width, with the bank model
bandwidth.*  shared-memory bytes per clock per SM against the 128 ceiling, and latency in cycles
tile.*       matrix-multiply TFLOP/s: with sgemm_cp_async/sgemm_tma points, a panel per series and n
             against shared memory per block (a line per copy and bm x bn x bk over its stages, rings
             for the measured blocks per SM, the tiled and register-blocked kernels below, cuBLAS as
             the line to reach, the fp32 peak, the best point starred and named); without them,
             against n for every tile and the register-blocked kernel, with cuBLAS and the fp32 peak,
             a panel per series
memory.*     transposes and reductions in GB/s beside a device-to-device copy of the same bytes
cluster.*    distributed shared memory by cluster size (cc 9.0): remote, own-block-through-the-cluster
             and ld.shared latency with the published H800 anchors, load bandwidth against the 128
             ceiling, atomics, cluster.sync() and the clusters resident at once (API and measured)
staging.*    global -> shared staging (loads, cp.async, cp.async.bulk) in % of the same run's global
             read bandwidth by transfer size, with the 90 % line and the smallest transfer reaching it
swizzle.*    ldmatrix/stmatrix slowdown by tile layout (row-major, padded, 32/64/128 B swizzle) per
             row width beside the bank model's, and TMA copies (% of global read) and wgmma (% of the
             dense BF16 peak) per swizzle mode
generations.*
             where the files hold two or more GPU models: measured, predicted (--predict) and published
             values of every GPU in one figure per question, a colour per GPU and a style per method:
             blocks per SM against the KiB of shared memory the carveout gives and against the dynamic
             allocation (the 48 KiB default, each model's opt-in ceiling), bytes per clock per SM
             against the 128 ceiling and latency in cycles beside device.published with its source
bench_<name>.*
             every benchmark none of the figures above draws (broadcast, uninit, one added in C), made from
             its points alone: a panel per metric (its unit, which way is better, a ceiling the points
             share) against the axis it varies most, a line per value of the others it varies (past six
             lines, the axes with most values folded into a median)
kernel_<function>.*
             a user kernel (smembench --kernel, a file with a kernel record), one figure per function:
             its time (log axis) against the preferred carveout and against dynamic shared memory,
             the blocks per SM measured and by the API on a second axis, the carveout the driver gave
             where it is not the hint, the 48 KiB default limit, a line per value of the kernel's own
             axes, the fastest setting named, failed points (a race) a red x

Each figure written is a line on stderr naming the benchmarks it draws (carveout.png: footprint,
gather), and a benchmark of the input drawn in none is named on one more line.

Each figure lays out what it is given by one rule (smembench.layout): one run as it is; the runs of
one GPU unit as their median with their range as a band; two or three units a line each (named by
uuid, and by build and commit where those differ) or, where a figure draws a panel or bar per
series, their median, with a panel of each unit against the units' median; four or more units their
pooled median with its range, and that panel. A file that varies an axis a figure does not plot
(--axis tile_bytes=8192,49152) gives a series per value. Series are labelled by device,
then by what tells them apart: the split axis, the sweep, the settings (--quick...), the commit, the
date, and only then the start time or the file name. Every panel has a title and its own legend; no
two lines of a panel share a colour. Files of one GPU model overlay in absolute values; only where
models differ are times shown relative to each series' fastest point (the axis says so). Model and
API step lines are drawn over the measured x values only: where a value changes between two points
that are not neighbours, the line breaks. Predict-mode files (smembench --predict MODEL) draw their
predicted occupancy. A file with points a figure cannot show (staging without its global_read) gets
one line naming it and what it lacks, and no figure is written for it. FILES may be folders; every
argument is taken by the rules of smembench.inputs (each file once; JSON that is not a result file,
results/schema.json, skipped with one line; a FIFO or a link to nothing refused). The same input gives the same bytes; each
image is written whole or not at all.

Each image is written as smembench-export writes its file: a hidden temporary file renamed over the
name (mode 0666 less the umask), never over an input, a smembench result file (unless --force) or
anything but a regular file; a signal leaves no temporary file behind.

Exit status: 0 at least one figure written, 1 nothing to plot (no figure drawn), 2 unusable input
(out of memory included) or output directory, 3 a Python module is missing (the message names the
Debian package), 128+N a signal (SIGINT 130, SIGHUP 129, SIGTERM 143), 70 an internal error (a bug).
"""
import argparse
import os
import sys

from smembench import figures as figures_pkg
from smembench import canvas
from smembench import cli
from smembench import reader
from smembench import series
from smembench import tool

FORMATS = ("png", "svg", "pdf")

# drawing and reading for every command that draws: smembench.canvas
MissingModule, pyplot, load, svg_text, texts, check_outdir = (canvas.MissingModule, canvas.pyplot, canvas.load,
                                                           canvas.svg_text, canvas.texts, canvas.check_outdir)


# the output directory cannot take the figures, or a file in it must not be replaced
OutputError = tool.OutputError


# ---------------------------------------------------------------------------------------------
# inputs

def make_series(loaded):
    """One series per device of each file (smembench.series): never one for two files."""
    return series.make_series(loaded)


def relabel(items, benches=None):
    """The series labelled by device plus what tells apart those that read the same."""
    if benches is not None:
        items = [s for s in items if any(s.points(b) for b in benches)]
    return series.relabel(items)


def figures(plt, items, note=None, drew=None):
    """[(name, figure)] of every figure the series have points for (smembench.figures); drew, a
    dict, is given each figure's name -> the benchmarks it draws."""
    return figures_pkg.figures(plt, items, note, drew, across=True)


# ---------------------------------------------------------------------------------------------
# writing

def _umask():
    return tool._umask()


def write_atomically(path, render, inputs=(), force=False):
    """Calls render(file) on a hidden temporary file beside path, then renames it over path: the
    image is whole or absent, never half-written, and never replaces an input, a result file (without
    force) or anything but a regular file (tool); OutputError otherwise."""
    return tool.write_file(path, render, inputs=inputs, force=force)


def save(plt, fig, outdir, name, inputs=(), force=False, formats=("png", "svg"), dpi=None):
    """Writes the figure in each format; the same input gives the same bytes (no dates; the PNG's
    Description is its texts)."""
    made = []
    try:
        for ext in formats:
            path = os.path.join(outdir, f"{name}.{ext}")
            meta = {"png": lambda: {"Description": texts(fig)}, "svg": lambda: {"Date": None},
                    "pdf": lambda: {"CreationDate": None, "ModDate": None}}[ext]()
            kw = {"dpi": dpi} if dpi else {}
            write_atomically(path, lambda f: fig.savefig(f, format=ext, metadata=meta, **kw), inputs, force)
            made.append(path)
    finally:
        plt.close(fig)
    return made


def save_all(plt, figs, outdir, inputs=(), force=False, formats=("png", "svg"), dpi=None):
    """[(name, paths)] of the figures saved (save), in their order; drawing them is most of plot's
    time, so half are saved by a forked copy where two CPUs are free (tool.in_two: the same bytes)."""
    made = tool.in_two(lambda nf: save(plt, nf[1], outdir, nf[0], inputs, force, formats, dpi), figs, "the figures")
    for _, fig in figs:
        plt.close(fig)
    return [(name, paths) for (name, _), paths in zip(figs, made)]


def formats_arg(text):
    """--format: png, svg or pdf, or a comma list of them."""
    out = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in out if f not in FORMATS]
    if bad or not out:
        raise argparse.ArgumentTypeError(f"invalid format {text!r}; expected png, svg or pdf (or a comma list)")
    return out


def dpi_arg(text):
    try:
        v = float(text)
    except ValueError:
        v = 0
    if not 10 <= v <= 1200:
        raise argparse.ArgumentTypeError(f"invalid dpi {text!r}; expected a number in 10..1200")
    return v


def main(argv=None):
    p = cli.parser("plot.py", __doc__)
    p.add_argument("results", nargs="+", help="smembench result files or folders of them (other JSON files are "
                   "skipped, with one line)")
    p.add_argument("-o", "--output", required=True, help="directory for the figures (created if missing)")
    p.add_argument("--format", action="append", type=formats_arg, metavar="png|svg|pdf",
                   help="image format, repeatable or a comma list (default: png and svg)")
    p.add_argument("--dpi", type=dpi_arg, help="resolution of the PNG images (default 100)")
    p.add_argument("--force", action="store_true", help="replace a smembench result file that has a figure's name")
    me = os.path.basename(sys.argv[0]) or "plot.py"   # smembench-plot installed, plot.py in the tree

    def body():
        a = p.parse_args(argv)
        formats = list(dict.fromkeys(f for group in (a.format or [["png", "svg"]]) for f in group))
        plt = pyplot()
        say = lambda text: print(f"{me}: {text}", file=sys.stderr)  # noqa: E731
        loaded = load(a.results, say)
        items = make_series(loaded)
        drew = {}
        figs = figures(plt, items, say, drew)
        made = []
        if figs:
            check_outdir(a.output)
        for name, paths in save_all(plt, figs, a.output, a.results, a.force, formats, a.dpi):
            made += paths
            say(f"{tool.shown(name)}.{formats[0]}: {', '.join(map(tool.shown, drew.get(name, ()))) or 'no benchmark'}")
        nowhere = [b for b in figures_pkg.input_benches(items) if not any(b in v for v in drew.values())]
        if made and nowhere:
            say("drawn in no figure: " + ", ".join(
                tool.shown(b) + ("" if any(s.points(b) for s in items) else " (no point ran)") for b in nowhere))
        if not made:
            benches = sorted({b for m in figures_pkg.MODULES for b in m.BENCHES})
            say(f"nothing to plot: no finished or predicted points a figure can show ({', '.join(benches)})")
            return 1
        # the names of the files written, as the file system has them (a script opens them); names
        # inside pages, figures and messages are shown escaped
        return tool.emit(made, 0, "the figures' names")
    return tool.run_tool(body, (reader.ResultError, cli.Usage), [
        (MissingModule, 3, str),
        (RecursionError, 2, "a result file is nested too deeply to plot"),
        (MemoryError, 2, "out of memory reading the result files; plot fewer or smaller files")], prog=me)
