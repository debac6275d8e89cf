"""Exports smembench result files to a dashboard's format, on stdout or into a file.

  export.py RESULTS.json [RESULTS2.json ...] --format FORMAT [-o FILE]

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

Several files go into one export: their points one after the other. In gab and bmf, where the
files hold more than one GPU, each name ends in the GPU's uuid (else host/gpuINDEX) in brackets;
the same point of the same GPU in two files (two runs) is an error in every format but csv, as a
dashboard keeps one value per name or series.
Only points that ran and have a timing (status ok) are exported; how many others were left out is
said on stderr. A file with no timed point (predict mode) is an error.
-o FILE writes the file whole or not at all (a hidden temporary file beside it, renamed over it,
mode 0666 less the umask); a device or pipe (/dev/stdout, a FIFO) is written into, never replaced.
It never replaces the input (refused even with --force), an existing smembench result file (unless
--force), a directory, socket or link to nothing; through a link to a file, the file is replaced.
Exit status: 0 written; 2 unusable input (a file that cannot be read or is not a valid result file,
no timed point, a metric whose direction nothing says, one point of one GPU twice, an unknown format,
out of memory) or an
output that cannot or must not be written; 128+N a signal (SIGINT 130, SIGHUP 129, SIGTERM 143:
nothing half-written is left); 70 an internal error (a bug). A reader that stops early (piped into
head) ends the export quietly with status 0.
"""
import sys

from smembench import cli
from smembench import inputs as scanner
from smembench import tool
from smembench import reader
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


def run(argv):
    ap = cli.parser("export.py", __doc__)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--format", required=True, choices=FORMATS)
    ap.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write (default: stdout)")
    ap.add_argument("--force", action="store_true", help="replace an existing smembench result file with the export")
    a = ap.parse_args(argv)
    if a.output == "-":
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
    make = {"gab": lambda d: gab(d, False), "gab-smaller": lambda d: gab(d, False), "gab-bigger": lambda d: gab(d, True),
            "bmf": bmf, "openmetrics": openmetrics, "csv": to_csv}[a.format]
    text = make(inputs)
    for path, doc in inputs:
        left = len(doc["results"]) - len(reader.timed_points(doc))
        if left:
            print(f"smembench: {(path + ': ') if len(inputs) > 1 else ''}{left} of {len(doc['results'])} points "
                  "not exported (not run, or without a timing)", file=sys.stderr)
    write(text, a.output, a.results, a.force)
    return 0


def main(argv=None):
    return tool.run_tool(
        lambda: run(sys.argv[1:] if argv is None else argv), (Usage,),
        [(OSError, 2, lambda e: f"cannot write the export: {e.strerror or e}"),
         (RecursionError, 2, "the result file is nested too deeply to export"),
         (MemoryError, 2, "out of memory reading the result file")], on_pipe=0, stdout=False)
