"""Compares smembench result files: the CI gate, GPU generations side by side, and a file beside
the published figures of its generation.

  compare.py BASE.json NEW.json [NEW2.json ...] [--threshold PCT] [--drift PCT] [--alpha A]
                                                [--allow KIND,...] [--markdown]
  compare.py --history DIR_OR_FILE [--history ...] [--window N] NEW.json [NEW2.json ...] [options]
  compare.py A.json B.json --across-devices [--markdown]
  compare.py FILE.json --published [--markdown]

THE GATE (the default). Points are matched by benchmark, parameters and, in several-device files,
the device's position; each NEW file is compared with BASE. A point's change is its new median
time over its base median time, minus 1. What the two runs themselves say about the point decides
how large a change it can tell from chance:
  noise s   the point's robust spread in each file, 1.4826 x MAD / median of its raw samples (the
            file's time_ns.stats.robust_spread where it has one; the stopping rule of the
            measurement uses the same definition); s is the larger of the two files'
  drift d   max(--drift, --drift-ns / median, 3 s): how far a point may move between two
            separate runs of one build although nothing changed. Two full bank+bandwidth runs on an H200 moved by up to 1.1 %
            on points of 0.03-0.5 % noise; in quick runs short kernels moved by about their own
            noise or more (uninit 12.5 % at 13.9 % noise, the 64 MiB copy 5.6 % at 4.5 %); two
            batched --sweep all runs moved the 13 us uninit kernels by 410-440 ns (3 %) at
            0.1-0.4 % noise: a fixed part per launch, hence --drift-ns
  error e   1.2533 x sqrt(s_base^2 / n_base + s_new^2 / n_new): the standard error of the
            difference of two medians of n_base and n_new samples
  z         the one-sided normal quantile of --alpha (2.33 at 0.01)
  declared  the benchmark's measured variation (the result record's between_run, from its descriptor
            in bench/bench.h; NEW's, else BASE's): run_pct when both files ran on one unit (same
            uuid), unit_pct on another unit of the same recorded GPC layout, layout_pct (the cluster
            benchmarks) on a unit whose layout differs or is unknown. It is a floor of the drift, and
            the point's threshold widens to declared + z e: a change inside is the unit or the run,
            not the code ("same (band ±X % between units)"). Files without it: --drift alone
Each point is then one of:
  slower, faster  |change| >= --threshold, and the raw samples confirm a change beyond the drift:
                  a one-sided Mann-Whitney U test (SciPy; exact for small samples without ties) of the
                  new samples against the base samples moved by d has p < --alpha
  same            |change| < --threshold, and the point could have seen a change of the threshold:
                  d + z e <= --threshold
  uncertain       neither, with the reason: "noise X % > Y %" when the point's noise is above the
                  largest noise Y at which its sample counts judge a change of the threshold,
                  "too short: N ns of run-to-run drift is X % of T us" when --drift-ns alone is
                  past the threshold, or
                  "not confirmed (p P)" when the samples do not bear the change out, or
                  "every sample throttled" (time_ns.throttled.used: the SM clock was low
                  throughout), or "band ±X % > Y %" when what widened the point's band (its
                  declared variation, or the range of its trials' medians in either file: the
                  levels a fresh setup landed on) is past --max-band (5 %) and the change lies
                  inside it: a change past the band is slower or faster whatever its width.
                  Uncertain points are listed; they do not fail the gate unless --uncertain fail
  not gated       the benchmark's descriptor declares its time not gated (between_run.time_gated
                  false, with the reason, listed in every output): its counts and its gate metric
                  are judged instead
METRICS AND COUNTERS. Every metric with a direction is compared: one derived from the time (a
throughput, a share of a peak or reference, a per-clock figure, a slowdown) moves with the time and
is checked for presence; any other is a count, "metric worse" past 2 % (or its history's range) in its
worse direction, "metric better" the other way. Counters of kind "counter" (results[].counters) are
exact: any change beyond rounding. A metric or counter the base has and NEW lacks, has as null or
newly as 0 is "metric lost". Lost and worse fail the gate unless --allow metric.
Nothing passes by being absent. Each of these is reported and fails the gate unless --allow names
its kind:
  missing   a point of BASE that NEW does not have
  new       a point that only NEW has
  status    a point that stopped running: ok in BASE and failed, invalid, skipped or without a
            timing in NEW, verified in BASE and not in NEW, or newly failed or invalid (a point
            that started running is reported and does not fail)
  device    another GPU: name, compute capability, SM count, shared-memory sizes, or a model
            (--predict) against a real device; another number of devices
  driver    another driver or CUDA runtime version, or NVIDIA driver release string (where both
            files recorded it: device.driver_release)
  clock     another rated SM clock, or measured SM clocks further apart than --threshold
  settings  another run.settings: cold, quick, seed, no_optin, min/max samples, max noise,
            timeout
Another unit of the same model (device.uuid) and its GPC layout (device.gpc.layout) are said in a
line and do not fail the gate: they choose the declared variation.
Output: a header with both files' device, commit, date, host and settings; a line per point
(median time per launch in microseconds, change in %, noise in %, verdict); the missing, new,
status and mismatch findings; the geometric mean of the change per benchmark and overall.
--markdown writes a compact pull-request comment: the header, the points grouped by benchmark and
cause (a row per group: its points, range of change, verdict and reason once; its points in a
<details>), only what fails the gate unfolded (a group's points open up to 10), the changes that
do not fail, the uncertain points, the geometric means and the published figures folded.
--plot FILE.png (or .svg) also draws the change of each point against the base, a bar per point
coloured by verdict (slower, faster, same, uncertain) with its uncertainty and the band it was
judged with, a label per benchmark; past 200 points a bar per benchmark and verdict (the median
change, the range as the whisker), under 2,500 px, and it says so. One NEW file.
It is capped at 60,000 characters (GitHub takes 65,536): every heading, verdict and summary stays,
the smallest tables whole, and the rows of a table that do not fit are folded into a line saying
how many were left out.

HISTORY (--history). Earlier result files (or directories of them, by the rules of smembench.inputs:
each file once, what is no result file skipped with one line) of the same GPU model, driver and
settings judge each positional NEW file; others are left out, each with a line (none left: exit 2).
--window N takes the newest N of them by their recorded date (run.started): each file's header (the
fields before its points) is read to order and sift them, and only the N taken are read whole, so
files older than the window are never read past their header ("N older files not read").
The history knows units (the newest --window files; 0: all): each unit's level per point is the
median of its runs (a file's unit: device.uuid), and the within-unit band is measured from the
runs around their own unit's level (pooled log ratios; a one-sided Student's t bound at --alpha,
times sqrt(1 + 1/k) over the k runs of the unit judged, plus z times the new median's standard
error; never under --drift or --drift-ns; the declared run_pct its floor under 3 degrees of freedom).
NEW is judged against its own unit's level where the history has it, else against the levels of
its unit's class (units whose levels sit together across the benchmarks, measured from the
history; NEW's the nearest by its own times), else of every unit: from the fastest level less the
within-unit band to the slowest plus it (the declared unit_pct widening it under 3 units). Past
the band and the threshold: slower or faster; inside: same, or uncertain where the band is wider
than --max-band. Under three files the newest is the base, as above. Missing, new and stopped points are judged against the newest record of each point.

GENERATIONS (--across-devices). Two files of different GPUs, on purpose: compares what is
comparable across hardware instead of times: bytes per clock per SM, cycles, blocks per SM
(measured, else API, else predicted; predict-mode files work), % of each device's own ceiling,
% of cuBLAS or of the copy, slowdowns and conflict passes. Says which side is ahead at each point
and by how much (within --threshold: even), the geometric mean per benchmark and figure, and the
published figures of each generation where the files carry them. Never a regression: exit 0.

PUBLISHED (--published). One file's measured figures beside the published ones of its generation
(the "published" block of its device record): load latency in cycles, bytes per clock per SM,
banks, bank width, shared memory per SM and per block. Also shown by the other two modes.

Exit status: 0 no point slower, missing, new or stopped and no mismatch (or each allowed), and
with --uncertain fail none uncertain; 1 any of these; 2 unusable input: a file that cannot be read
or is not a valid result file, a file without timed points (predict mode) in the gate, files with no point in common, a bad
option, out of memory; 128+N a signal (SIGINT 130, SIGHUP 129, SIGTERM 143); 70 an internal error
(a bug). When the output is cut short (piped into head), the status is still the gate's.
Needs SciPy and NumPy (Debian: python3-scipy).
"""
import os
import sys

from smembench import cli
from smembench import gate
from smembench import history
from smembench import inputs
from smembench import reader
from smembench import tool
from smembench.canvas import MissingModule
from smembench.cli import Usage
from smembench.gate_format import across_report, gate_report, published_report
from smembench.tables import cap_markdown


def parse_args(argv):
    ap = cli.parser("compare.py", __doc__)
    ap.add_argument("base", help="the base result file (the one file of --published)")
    ap.add_argument("new", nargs="*", help="result files compared with the base")
    ap.add_argument("--threshold", type=float, default=gate.DEFAULTS.threshold, metavar="PCT",
                    help="smallest change of a median time that counts, in percent (2)")
    ap.add_argument("--drift", type=float, default=gate.DEFAULTS.drift, metavar="PCT",
                    help="least run-to-run drift allowed to any point, in percent (1); a point's own is 3x its noise")
    ap.add_argument("--drift-ns", type=float, default=gate.DEFAULTS.drift_ns, metavar="NS",
                    help="least run-to-run drift of one launch, in nanoseconds (500): what short kernels move by")
    ap.add_argument("--alpha", type=float, default=gate.DEFAULTS.alpha, help="significance level of the U test (0.01)")
    ap.add_argument("--allow", type=gate.allow_list, default=[], metavar="KIND,...",
                    help=f"findings that do not fail the gate: {','.join(gate.ALLOW_KINDS)} or all")
    ap.add_argument("--markdown", action="store_true", help="compact Markdown for a pull-request comment")
    ap.add_argument("--json", action="store_true",
                    help="the gate's decision as JSON: every point's and metric's verdict, the benchmarks not gated on "
                         "time with their reasons, what fails the gate, the exit status")
    ap.add_argument("--plot", metavar="FILE.png|FILE.svg",
                    help="also draw the change of each point against the base, coloured by verdict, with the band "
                         "it was judged with (a bar per benchmark and verdict past 200 points); PNG or SVG by the "
                         "suffix; one NEW file")
    gate.add_verdict_options(ap)
    ap.add_argument("--history", action="append", default=[], metavar="PATH",
                    help="earlier result files (files or directories of them) of the same GPU model and settings: "
                         "every positional file is then a NEW file judged against their between-run spread")
    ap.add_argument("--window", type=int, default=gate.DEFAULTS.window, metavar="N",
                    help="with --history, only the newest N matching files by run.started, the others read no "
                         "further than their header (0, the default: all, each read whole)")
    ap.add_argument("--across-devices", action="store_true",
                    help="compare two GPUs on what compares across hardware; never a regression")
    ap.add_argument("--published", action="store_true",
                    help="one file's measured figures beside the published ones of its generation")
    a = ap.parse_args(argv)
    gate.check_rule_options(a)
    if a.json and (a.markdown or a.published or a.across_devices):
        raise Usage("--json writes the gate's decision; it cannot be combined with --markdown, --published or "
                    "--across-devices")
    if a.published and a.new:
        raise Usage("--published takes one file; see compare.py --help")
    if a.published and a.across_devices:
        raise Usage("--published and --across-devices cannot be combined; see compare.py --help")
    gate.check_max_band(a)
    if a.history and (a.published or a.across_devices):
        raise Usage("--history is for the gate; it cannot be combined with --published or --across-devices")
    if a.window < 0:
        raise Usage(f"invalid value {a.window} for --window; expected 0 (all) or more")
    if a.plot is not None:
        if not a.plot.lower().endswith((".png", ".svg")):
            raise Usage(f'invalid file name "{a.plot}" for --plot; expected a name ending in .png or .svg')
        if a.published or a.across_devices:
            raise Usage("--plot draws the gate's verdicts; it cannot be combined with --published or --across-devices")
        if len(a.new) + (1 if a.history else 0) > 1:
            raise Usage("--plot draws one comparison; expected one NEW file (or one with --history)")
    if a.window and not a.history:
        raise Usage("--window chooses among the --history files; expected it with --history")
    if a.history:
        a.new = [a.base] + a.new
        return a
    if not a.published and not a.new:
        raise Usage("compare.py needs a base file and at least one new file (or --published FILE); "
                    "see compare.py --help")
    return a


def run(argv):
    """(output lines, exit status); raises Usage for unusable input."""
    a = parse_args(argv)
    out, rc = compare_files(a)
    if a.json:
        docs = [x for x in out if x.startswith("{")]
        return ([docs[0]] if len(docs) == 1 else ["[" + ",\n".join(docs) + "]"]), rc
    return (cap_markdown(out) if a.markdown else out), rc


def compare_files(a):
    """(output lines, exit status) of the parsed arguments."""
    if a.history:
        gate.scipy_stats()
        try:
            news = [(f, inputs.load_named(f)) for f in a.new]
            paths = history.history_paths(a.history)
            news_ids = {(st.st_dev, st.st_ino) for st in map(os.stat, a.new)}
            paths = [p for p in paths if (os.stat(p).st_dev, os.stat(p).st_ino) not in news_ids]
            if not paths:
                raise Usage("no history file besides the new files; --history needs earlier result files")
            loaded = {}
            if not a.window:
                hist = [(p, inputs.load(p)) for p in paths]
        except reader.ResultError as e:
            raise Usage(str(e)) from None
        out, worst = [], 0
        for path, new in news:
            if not reader.timed_points(new):
                raise Usage(f"{inputs.shown(path)}: no timed point (a {new['run'].get('mode')}-mode file); the gate "
                            "compares times")
        for path, new in news:
            extra = []
            if a.window:
                try:
                    hist, extra = history.windowed_history(paths, new, a, loaded)
                    if hist is None:     # a header's date was not its file's: every file read whole
                        hist, extra = [(p, loaded.get(p) or inputs.load(p)) for p in paths], []
                except reader.ResultError as e:
                    raise Usage(str(e)) from None
                if not hist:
                    raise Usage("no history file has the GPU model, driver and settings of the new file: " +
                                "; ".join(line.split(": ", 1)[1] for line in extra[:3]))
            base, points, lines = history.history_base(new, hist, a)
            lines += extra
            name = inputs.shown(path)
            if len(news) > 1:
                out += ["", f"## {name}", ""] if a.markdown else [f"== {name}"]
            judged = []
            report, rc = gate_report("history", name, base, new, a, points, lines, judged=judged)
            out += report
            worst = max(worst, rc)
            if a.plot:
                plot_change(a, judged, base, new, ("history", name), [path] + paths)
        return out, worst
    judging = not a.published and not a.across_devices
    if judging:
        gate.scipy_stats()

    def load(path):
        doc = inputs.load_named(path)
        if judging and not reader.timed_points(doc):    # refused at once, before the next file is read
            raise Usage(f"{inputs.shown(path)}: no timed point (a {doc['run'].get('mode')}-mode file); the gate compares "
                        "times (--across-devices compares occupancy)")
        return doc
    try:
        base = load(a.base)
        news = [(f, load(f)) for f in a.new]
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    if a.published:
        return published_report([base], a.markdown, required=inputs.shown(a.base)), 0
    out, worst = [], 0
    base_name = inputs.shown(a.base)
    for path, new in news:
        path = inputs.shown(path)
        if len(news) > 1:
            out += ["", f"## {path}", ""] if a.markdown else [f"== {path}"]
        if a.across_devices:
            out += across_report(base_name, path, base, new, a)
        else:
            judged = []
            lines, rc = gate_report(base_name, path, base, new, a, judged=judged)
            out += lines
            worst = max(worst, rc)
            if a.plot:
                plot_change(a, judged, base, new, (base_name, path), [a.base, path])
    return out, worst


def plot_change(a, rows, base, new, names, inputs_):
    """Writes --plot's chart (smembench.figures.change) of the gate's rows."""
    from smembench import canvas
    from smembench.figures import change
    plt = canvas.pyplot()
    _, stats = gate.scipy_stats()
    fig, _, _ = change.draw(plt, rows, base, new, names, a, float(stats.norm.ppf(1 - a.alpha)))
    ext = a.plot.lower().rsplit(".", 1)[-1]
    meta = {"Description": canvas.texts(fig)} if ext == "png" else {"Date": None}
    try:
        tool.write_file(a.plot, lambda f: fig.savefig(f, format=ext, metadata=meta), inputs=inputs_)
    finally:
        plt.close(fig)


def main(argv=None):
    return tool.run_tool(
        lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the comparison"), (Usage, MissingModule),
        [(RecursionError, 2, "a result file is nested too deeply to compare")])
