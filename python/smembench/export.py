"""Exports smembench result files to a dashboard's format, on stdout or into a file.

  export.py RESULTS.json [RESULTS2.json ...] --format FORMAT [-o FILE]
  export.py RESULTS.json [RESULTS2.json ...] --format asv -o DIR [--repo CLONE] [--branch NAME]

Only performance goes to a dashboard: each point's median time and the metrics that measure how
fast it ran, times and rates by their unit (ns, cycles, GB/s, B/clk/SM, GFLOP/s, ...) and the
ratios of measured times or rates (pct_of_*, slowdown, cluster_spread); what describes the point
(alloc_bytes, stages, sms, clusters_*, the bank model's predicted_slowdown and wavefronts, uninit's
stale_pct) is left out (the rule: reader.performance). Every value goes out with its unit and
which way is better: each metric's "better" field in the file ("higher" or "lower"), or for files
written before it, the reader's table by metric name and unit, which follows the benchmarks'
descriptors. The median time of a point is always better lower.

  gab-smaller  github-action-benchmark "customSmallerIsBetter": each point's median time (ns, with
               half its interquartile range) and every metric that is better lower (latency in
               cycles, slowdowns, ...). Alias: gab
  gab-bigger   github-action-benchmark "customBiggerIsBetter": every metric that is better higher
               (bytes per clock per SM, GB/s, GFLOP/s, % of a ceiling, ...)
  bmf          Bencher Metric Format: per point the "latency" measure (median ns, q1 and q3 as
               bounds) and one measure per metric named with its unit, e.g.
               "bytes_per_clk_sm (B/clk/SM)"; set each measure's threshold direction in Bencher
               (upper boundary for lower-is-better measures)
  openmetrics  text that is both OpenMetrics and the Prometheus text format (what the Pushgateway
               and promtool read), in base units: smembench_time_seconds, and one gauge family per
               base unit (smembench_bytes_per_second, smembench_ratio for % and x, smembench_cycles,
               ...) with the metric's name, file unit and direction as labels; each sample labelled
               with what identifies its series: the benchmark, its parameters and the GPU (device
               name, cc, CUDA index, PCI bus id, and uuid where the file records one). The build
               is the info gauge smembench_build_info{version, commit, host} 1, not a label on
               every sample; push each file under its own grouping key (instance) to join them
  csv          one row per point and metric (the median time is the metric "time"), RFC 4180:
               comma-separated, a field with a comma (the point, the parameters "k=v,k=v") in
               double quotes, "." decimals, an empty field where there is no value; columns
               point, bench, params, device, cc, device_index, pci_bus_id, uuid, host, commit,
               date (the run's start, ISO 8601 UTC), metric, value, unit, better, q1 and q3 (the
               time's quartiles in ns, on the time's row), noise (the point's robust spread,
               1.4826 MAD / median of its samples, a fraction) and samples (their count)
  asv          airspeed velocity's results tree (-o DIR, a directory): asv.conf.json, results/
               benchmarks.json, results/MACHINE/machine.json and results/MACHINE/COMMIT-ENV.json, which
               `asv publish` builds its site from. A machine is a GPU unit (model and uuid, else host
               and CUDA index), the commit the file's tool.git resolved in the git clone --repo (on
               the first-parent history of --branch, which asv shows alone), a point's axes asv
               parameters; the median time a "time" benchmark BENCH.time in seconds with the
               quartiles, the 99 % interval of the median, the batch and the sample count as asv's
               stats; each metric a "track" benchmark with its unit, BENCH.METRIC where lower is
               better and BENCH.higher_is_better.METRIC where higher is, which the written
               asv.conf.json keeps off asv's regressions page (asv reads every rise as one). DIR is
               new or empty (made whole, or removed again on an error or a signal) or an asv tree
               (its own asv.conf.json kept): the new result files are added to it, benchmarks.json
               merged last; a result file of the same unit, commit and build already there is merged
               with the new one (the union of benchmarks and points; a benchmark at a point in both
               takes this export's value, and the line says how many). One point of one unit at one
               commit twice among the inputs is an error

Several files go into one export: their points one after the other. In gab and bmf, where the
files hold more than one GPU, each name ends in the GPU's uuid (else host/gpuINDEX) in brackets;
the same point of the same GPU in two files (two runs), or twice in one file, is an error in every
format but csv, as a dashboard keeps one value per name or series: one line naming the point and
both places (the two files, or results[i] and results[j] of the one).
Only points that ran and have a timing (status ok) are exported; how many others were left out is
said on stderr. A file with no timed point (predict mode) is an error.
-o FILE writes the file whole or not at all (a hidden temporary file beside it, renamed over it,
mode 0666 less the umask); a device or pipe (/dev/stdout, a FIFO) is written into, never replaced.
It never replaces the input (refused even with --force), an existing smembench result file (unless
--force), a directory, socket or link to nothing; through a link to a file, the file is replaced.
Exit status: 0 written; 2 unusable input (a file that cannot be read or is not a valid result file,
no timed point, a metric whose direction nothing says, one point of one GPU twice, an unknown format,
out of memory; for asv a commit the clone lacks or that is off the branch, no git clone, a directory
that is neither new, empty nor an asv tree) or an output that cannot or must not be written; 128+N a
signal (SIGINT 130, SIGHUP 129, SIGTERM 143:
nothing half-written is left); 70 an internal error (a bug). A reader that stops early (piped into
head) ends the export quietly with status 0.
"""
import json
import os
import sys

from smembench import cli
from smembench import inputs as scanner
from smembench import tool
from smembench import reader
from smembench import dashboards
from smembench.dashboards import FORMATS, bmf, gab, openmetrics, to_csv

Usage = cli.Usage


def write(text, path, inputs, force):
    """stdout, or a file by tool's rules (whole or not at all; a device or FIFO that exists,
    /dev/stdout included, written into and never replaced)."""
    if path == "-":
        tool.write_stdout(text, "the export")
        return
    try:
        tool.write_text(path, text, inputs=inputs, force=force, stream=True)
    except tool.OutputError as e:
        raise Usage(str(e)) from None


def asv_target(out):
    """What -o DIR is for --format asv, checked before any work: (directory, its asv.conf.json as a
    dict or None for a new tree, the existing benchmarks.json or None). A new or empty directory
    whose parent can be written, or an asv tree (one with an asv.conf.json); Usage otherwise."""
    if out == "-":
        raise Usage("--format asv writes a directory (an asv results tree); give -o DIR")
    if os.path.islink(out) and not os.path.exists(out):
        raise Usage(f"cannot use {out} for the asv tree: it is a symbolic link to nothing; give a directory")
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise Usage(f"{out} is not a directory; --format asv writes an asv tree into -o DIR")
        if not os.access(out, os.W_OK | os.X_OK):
            raise Usage(f"cannot write to the output directory {out}: permission denied")
        conf_path = os.path.join(out, "asv.conf.json")
        if not os.path.exists(conf_path):
            if os.listdir(out):
                raise Usage(f"{out} is a non-empty directory and no asv tree (it has no asv.conf.json); give a new "
                            "or empty directory, or a tree that --format asv wrote")
            return out, None, None
        try:
            with open(conf_path, encoding="utf-8") as f:
                conf = json.load(f)
            results = os.path.join(out, conf.get("results_dir", "results"))
            bench = os.path.join(results, "benchmarks.json")
            old = None
            if os.path.exists(bench):
                with open(bench, encoding="utf-8") as f:
                    old = json.load(f)
                if old.get("version") != dashboards.ASV_BENCHMARKS_VERSION:
                    raise Usage(f"{bench} is asv's benchmarks.json version {old.get('version')}; expected "
                                f"{dashboards.ASV_BENCHMARKS_VERSION} (asv 0.6): export into a new tree")
                old.pop("version")
        except (OSError, ValueError, AttributeError) as e:
            raise Usage(f"cannot read the asv tree in {out}: {getattr(e, 'strerror', None) or e}; expected the "
                        "asv.conf.json and results/benchmarks.json that asv or --format asv writes") from None
        return out, conf, old
    up = os.path.dirname(os.path.abspath(out))
    while not os.path.exists(up):
        up = os.path.dirname(up)
    if not os.path.isdir(up):
        raise Usage(f'cannot create the output directory {out}: "{up}" is not a directory')
    if not os.access(up, os.W_OK | os.X_OK):
        raise Usage(f"cannot create the output directory {out}: permission denied in {up}")
    return out, None, None


def write_asv(a, inputs):
    """--format asv: the results tree (and a new tree's asv.conf.json) written file by file, each whole
    (tool.write_text), benchmarks.json last, so that an existing tree stays one asv reads; on any
    failure or signal the files and directories this export made are removed again."""
    out, conf, old = asv_target(a.output)
    branch = a.branch or (conf or {}).get("branches", [None])[0] or \
        dashboards._git(a.repo, "symbolic-ref", "-q", "--short", "HEAD") or "HEAD"
    commits, top = dashboards.asv_commits(a.repo, branch, inputs)
    results_dir = (conf or {}).get("results_dir", "results")

    def existing(rel):
        """The tree's result file rel (results/MACHINE/COMMIT-ENV.json), or None where it has none."""
        path = os.path.join(out, rel.replace("results/", results_dir + "/", 1))
        if conf is None or not os.path.lexists(path):
            return None
        try:
            with reader.open_regular(path, "an asv result file") as f:
                res = json.load(f)
            if not isinstance(res, dict) or res.get("version") != dashboards.ASV_RESULTS_VERSION:
                raise ValueError(f"not asv's result file version {dashboards.ASV_RESULTS_VERSION}")
            dashboards.asv_points_of(res, old or {})
        except (OSError, ValueError, RecursionError) as e:
            raise Usage(f"cannot merge into {path}: {getattr(e, 'strerror', None) or e}; expected the result file "
                        "asv or --format asv writes (export into a new tree)") from None
        return res
    merged = {}
    files = dashboards.asv_tree(inputs, commits, old, existing, merged)
    if conf is None:
        files["asv.conf.json"] = dashboards.asv_conf(os.path.relpath(os.path.realpath(top),
                                                                     os.path.realpath(os.path.abspath(out))), branch)
    order = sorted(files, key=lambda p: (p == "results/benchmarks.json", p))
    made = []                        # files and directories that did not exist before, to undo
    try:
        for d in [out] + sorted({os.path.join(out, os.path.dirname(p.replace("results/", results_dir + "/", 1)))
                                 for p in order}):
            if not os.path.isdir(d):
                tool.output_dir(d, "the asv tree")
                made.append(d)
        for rel in order:
            path = os.path.join(out, rel.replace("results/", results_dir + "/", 1)) if rel.startswith("results/") \
                else os.path.join(out, rel)
            existed = os.path.exists(path)
            tool.write_text(path, json.dumps(files[rel], indent=1 if rel.endswith(".conf.json") else None,
                                             sort_keys=True) + "\n", inputs=a.results)
            if not existed:
                made.append(path)
    except BaseException:
        for p in reversed(made):
            try:
                (os.rmdir if os.path.isdir(p) else os.unlink)(p)
            except OSError:
                pass
        raise
    n = sum(1 for p in files if p.startswith("results/") and not p.endswith(("machine.json", "benchmarks.json")))
    machines = sum(1 for p in files if p.endswith("machine.json"))
    print(f"smembench: {out}: {n} asv result file{'s' * (n != 1)} of {machines} machine{'s' * (machines != 1)}"
          f"{merge_note(merged)}, {len(files['results/benchmarks.json']) - 1} benchmarks; "
          f"asv publish --config {os.path.join(out, 'asv.conf.json')} builds the site", file=sys.stderr)


def merge_note(merged):
    """What merging into the tree's result files did, for the export's line: "" where it merged none."""
    n = merged.get("files", 0)
    if not n:
        return ""
    kept, replaced = merged.get("kept", 0), merged.get("replaced", 0)
    return (f" ({n} merged with the tree's: {kept} of its values kept"
            + (f", {replaced} replaced by this export's" if replaced else "") + ")")


def run(argv):
    ap = cli.parser("export.py", __doc__)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--format", required=True, choices=FORMATS)
    ap.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)")
    ap.add_argument("--force", action="store_true", help="replace an existing smembench result file with the export")
    ap.add_argument("--repo", default=".", metavar="DIR",
                    help="--format asv: the git clone that holds the files' commits (default: the current directory)")
    ap.add_argument("--branch", metavar="NAME",
                    help="--format asv: the branch whose first-parent history orders the commits (default: the "
                         "tree's asv.conf.json's, else the clone's current branch)")
    a = ap.parse_args(argv)
    if a.format == "asv":
        asv_target(a.output)         # before the work, as a file output is
    elif a.output == "-":
        tool.check_stdout()     # before the work, as a file output is
    else:
        try:       # before the work: an output that must not be written is refused at once
            tool.target(a.output, inputs=a.results, force=a.force, stream=True)
        except tool.OutputError as e:
            raise Usage(str(e)) from None
    try:
        inputs = [(scanner.shown(path), scanner.load(path))
                  for path in scanner.paths(a.results, "the inputs", scanner.warn())]
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    if a.format == "asv":
        dashboards.points(inputs)    # a file without a timed point is refused before git is asked
        write_asv(a, inputs)
        make = None
    else:
        make = {"gab": lambda d: gab(d, False), "gab-smaller": lambda d: gab(d, False),
                "gab-bigger": lambda d: gab(d, True),
                "bmf": bmf, "openmetrics": openmetrics, "csv": to_csv}[a.format]
    text = make(inputs) if make else None
    for path, doc in inputs:
        left = len(doc["results"]) - len(reader.timed_points(doc))
        if left:
            print(f"smembench: {(path + ': ') if len(inputs) > 1 else ''}{left} of {len(doc['results'])} points "
                  "not exported (not run, or without a timing)", file=sys.stderr)
    if text is not None:
        write(text, a.output, a.results, a.force)
    return 0


def main(argv=None):
    return tool.run_tool(
        lambda: run(sys.argv[1:] if argv is None else argv), (Usage,),
        [(OSError, 2, lambda e: f"cannot write the export: {e.strerror or e}"),
         (RecursionError, 2, "the result file is nested too deeply to export"),
         (MemoryError, 2, "out of memory reading the result file")], on_pipe=0, stdout=False)
