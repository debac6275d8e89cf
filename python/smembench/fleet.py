"""The fleet report: every GPU unit of one model against the fleet, point by point.

  fleet.py FILE_OR_DIR... [--expect NODE,NODE,...] [-o DIR] [--markdown] [--threshold PCT]

Input: node files and folders of them, by the rules of smembench.inputs (a folder stands for its
*.json files; JSON that is not a result file is skipped with one line; each file counted once), each
of one or several GPUs. A unit is one GPU of one file, named by its node (the file's run.node, which
the Slurm script sets to $SLURMD_NODENAME; without it, the file's name NODE.json where NODE is one of
--expect, as the Slurm script names node files; else run.host, else the file's name) and its CUDA
index, with its uuid, PCI bus and GPC layout (device.gpc.layout, found by
the cluster probe) beside; two units that would read the same (two files of one host) get their
file's name added. Every unit must be of one GPU model.

Per point (benchmark and parameters), over the units that timed it:
  fleet median  the median of the units' median times
  spread        (slowest - fastest) / fleet median
  deviation     a unit's median time / fleet median - 1 (positive: slower)
  outlier       a unit slower than the fleet median by more than its allowance, the largest of
                --threshold (2 %), the variation its record declares (results[i].between_run) for
                the unit's relation to the other units that timed the point, and 3 x the point's
                robust noise (1.4826 x MAD / median of its samples): the gate's rule for a point
                judged against another unit (allowance()). The relation is the gate's
                (compare.unit_context), the widest against any other unit: "layout" where a GPC
                layout differs or is not recorded (the cluster benchmarks' layout_pct, the others'
                unit_pct), "unit" another GPU of the same layout (unit_pct), "run" only files of
                the same GPU (uuid) (run_pct)
A point some units timed and another did not is reported by unit (nothing passes by being absent).
Files without any timed point (predict mode) make a fleet of units without times: the units and
--expect are still checked.

Output: the units (with their GPC layouts, and a line on which declared variation those make the
rule take), a table of the points (fleet median, spread, each unit's deviation, * marking an
outlier), the five largest deviations with their allowances, the outliers with their allowance and
where it came from, missing nodes; --markdown
writes the tables in Markdown. With -o DIR also DIR/fleet.txt, DIR/fleet.md and DIR/fleet.png, a
heatmap of the deviations (points by units, a diverging colour scale centred on 0, outliers boxed).
--expect NODE,...: the nodes that should have a file; one without is named as missing.

Exit status: 0 no outlier, no missing node and no point missing on a unit; 1 any of these; 2
unusable input (no result file, an unreadable or invalid file, units of different GPU models, a
point twice in one unit, a bad option) or an output that cannot be written; 3 matplotlib missing
(-o only).
"""
import argparse
import math
import os
import sys

from smembench import canvas
from smembench import cli
from smembench import tool
from smembench.cli import Usage
from smembench.fleet_units import DEFAULT_THRESHOLD_PCT, Fleet, gather, heatmap, markdown, report_lines, units_of


def expect_list(text):
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f'invalid node list "{text}"; expected NODE,NODE,...')
    return names


def threshold_value(text):
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 0 <= v < 1000:
        raise argparse.ArgumentTypeError(f'invalid value "{text}" for --threshold; expected a percentage 0..1000')
    return v


def run(argv):
    ap = cli.parser("fleet.py", __doc__)
    ap.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR", help="node result files, or directories of them")
    ap.add_argument("--expect", type=expect_list, default=[], metavar="NODE,...",
                    help="the nodes that should have a file; one without is reported missing (exit 1)")
    ap.add_argument("-o", "--output", metavar="DIR", help="also write fleet.txt, fleet.md and fleet.png into DIR")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables on stdout")
    ap.add_argument("--threshold", type=threshold_value, default=DEFAULT_THRESHOLD_PCT, metavar="PCT",
                    help=f"the least deviation that makes an outlier, in percent ({DEFAULT_THRESHOLD_PCT:g})")
    a = ap.parse_args(argv)
    notes = []
    loaded = gather(a.inputs, lambda text: print(f"smembench: {text}", file=sys.stderr))
    if not loaded and not a.expect:
        raise Usage("no result files among the inputs: nothing to report")
    units = units_of(loaded, a.expect)
    nodes = list(dict.fromkeys(u.node for u in units))
    missing = [n for n in a.expect if n not in nodes]
    unexpected = [n for n in nodes if a.expect and n not in a.expect]
    fleet = Fleet(units, a.threshold)
    if len(units) == 1:
        notes += ["note: one unit: nothing to compare it with", ""]
    text = "\n".join(report_lines(fleet, missing, unexpected, False, notes)) + "\n"
    # a pull-request comment: within GitHub's limit, the outliers kept before the other points
    md = "\n".join(markdown(fleet, missing, unexpected, notes)) + "\n"
    if a.output:
        plt = canvas.pyplot() if fleet.rows else None      # before anything is written
        try:
            canvas.check_outdir(a.output)
            for name, body in (("fleet.txt", text), ("fleet.md", md)):
                path = os.path.join(a.output, name)
                tool.write_file(path, lambda f, body=body: f.write(tool.encode_text(body)), inputs=a.inputs)
            if plt is not None:
                fig = heatmap(plt, fleet)
                try:
                    path = os.path.join(a.output, "fleet.png")
                    tool.write_file(path, lambda f: fig.savefig(
                        f, format="png", metadata={"Description": canvas.texts(fig)}), inputs=a.inputs)
                finally:
                    plt.close(fig)
        except tool.OutputError as e:
            raise Usage(str(e)) from None
        except OSError as e:
            raise Usage(f"cannot write into {a.output}: {e.strerror or e}") from None
    status = 1 if fleet.outliers or missing or fleet.lacking else 0
    try:
        tool.write_stdout(md if a.markdown else text, "the fleet report")
    except BrokenPipeError:         # the status stands when the output is cut short (| head)
        tool.closed_stdout()
    return status


def main(argv=None):
    return tool.run_tool(lambda: run(sys.argv[1:] if argv is None else argv), (Usage,),
                                [(canvas.MissingModule, 3, str)])
