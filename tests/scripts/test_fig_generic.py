#!/usr/bin/env python3
"""Tests of the generic figure (python/smembench/figures/generic.py) and of what plot says it drew
(TAP): every benchmark the program registers is drawn in some figure of a --sweep all file of the
H200, broadcast's and uninit's figures have a panel per metric with its unit and direction, and a
benchmark no code names (a made-up file) gets its figure from its points alone.

  test_fig_generic.py SMEMBENCH   the program, whose --list names the registered benchmarks
"""
import copy
import json
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402
from smembench import figures as figures_pkg  # noqa: E402
from smembench import plot  # noqa: E402
from smembench import reader  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
# a --sweep all run of the H200 with every benchmark of its build (session 3, unit G)
ALL = os.path.join(ROOT, "results", "gate", "session3_20261202", "nvidia-h200_20261202_all_66201af_unitG_r1.json")


def registered():
    """The benchmarks the program registers: the names of --list's benchmarks section."""
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    p = subprocess.run([SMEMBENCH, "--list"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    names, inside = [], False
    for line in p.stdout.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            inside = line == "benchmarks:"
        elif inside and re.match(r"^  [a-z0-9_]+( |$)", line):
            names.append(line.split()[0])
    assert len(names) >= 20, names
    return names


def run_plot(*args):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), *args], capture_output=True,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def drawn_lines(err):
    """{figure file: [benchmarks]} of plot's stderr lines 'PROG: NAME.png: a, b'."""
    out = {}
    for line in err.splitlines():
        m = re.match(r"^[^:]+: ([A-Za-z0-9_.-]+\.png): (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).split(", ")
    return out


def generic_figures(doc):
    """{name: figure} that plot draws for a document (written to a file and read back)."""
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "in.json")
        with open(f, "w") as fh:
            json.dump(doc, fh)
        plt = plot.pyplot()
        drew = {}
        figs = plot.figures(plt, plot.make_series(plot.load([f], lambda t: None)), None, drew)
    return plt, dict(figs), drew


def only(doc, benches):
    return dict(doc, results=[r for r in doc["results"] if r["bench"] in benches])


def files_of(names):
    """The H200 --sweep all file, and for a registered benchmark newer than it, the first committed
    result file outside the gate's and the units' folders that measured it (each added once)."""
    files = [ALL]
    have = {r["bench"] for r in reader.load(ALL)["results"]}
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "*", "*.json"))):
        if set(names) <= have:
            break
        if os.sep + "gate" + os.sep in path or os.sep + "units" + os.sep in path:
            continue
        try:
            doc = reader.load(path)
        except reader.ResultError:
            continue
        new = {r["bench"] for r in doc["results"] if r["status"] == "ok"} & (set(names) - have)
        if new and not reader.kernel(doc):
            files.append(path)
            have |= new
    return files, sorted(set(names) - have)


@test
def every_registered_benchmark_is_drawn_in_a_figure():
    names = registered()
    files, missing = files_of(names)
    assert not missing, f"registered but measured in no committed file (run it on a GPU and commit the file " \
                        f"under results/<topic>/): {missing}"
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run_plot(*files, "-o", d, "--format", "png")
        assert rc == 0 and "Traceback" not in err, err
        made = sorted(os.path.basename(x) for x in out.split())
        lines = drawn_lines(err)
        assert sorted(lines) == made, (sorted(lines), made)    # a line per figure written, none for another
        drawn = {b for v in lines.values() for b in v}
        nowhere = sorted(set(names) - drawn)
        assert not nowhere, f"registered benchmarks drawn in no figure: {nowhere}\n{err}"
        assert "drawn in no figure" not in err, err
        # the per-sweep modules are overrides: a benchmark one draws has no generic figure
        assert not any(f"bench_{b}.png" in made for b in figures_pkg.drawn_benches()), made
        for b in ("broadcast", "uninit"):
            assert lines.get(f"bench_{b}.png") == [b], lines


@test
def broadcast_and_uninit_have_a_panel_per_metric_with_its_unit():
    doc = reader.load(ALL)
    plt, figs, drew = generic_figures(only(doc, ("broadcast", "uninit")))
    assert sorted(figs) == ["bench_broadcast", "bench_uninit"], sorted(figs)
    assert drew == {"bench_broadcast": ["broadcast"], "bench_uninit": ["uninit"]}, drew
    for b in ("broadcast", "uninit"):
        pts = [r for r in doc["results"] if r["bench"] == b and r["status"] == "ok"]
        metrics = list(dict.fromkeys(m for r in pts for m in r["metrics"]))
        fig = figs[f"bench_{b}"]
        assert len(fig.axes) == len(metrics) >= 1, (b, len(fig.axes), metrics)
        for ax, m in zip(fig.axes, metrics):
            unit, better = pts[0]["metrics"][m]["unit"], pts[0]["metrics"][m]["better"]
            assert ax.get_ylabel() == f"{m} ({unit})", (b, ax.get_ylabel())
            assert ax.get_title().startswith(f"{m} ({unit})") and f"{better} is better" in ax.get_title(), \
                ax.get_title()
            lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith(("_", "ceiling"))]
            assert len(lines) == 1, (b, m, [ln.get_label() for ln in ax.get_lines()])
            ys = sorted(float(y) for y in lines[0].get_ydata())
            assert ys == sorted(r["metrics"][m]["value"] for r in pts), (b, m, ys)
        assert fig._suptitle.get_text().startswith(f"{b}: each metric")
        assert "NVIDIA H200" in fig._suptitle.get_text() and reader.run_date(doc) in fig._suptitle.get_text()
        plt.close(fig)
    # uninit varies the dynamic allocation: it is the x axis, its ticks the measured sizes
    fig = figs["bench_uninit"]
    sizes = sorted(r["params"]["dyn_smem_bytes"] for r in doc["results"] if r["bench"] == "uninit")
    assert fig.axes[-1].get_xlabel() == "dyn_smem_bytes"
    assert [t.get_text() for t in fig.axes[-1].get_xticklabels()] == [f"{v:g}" for v in sizes]
    # broadcast's one point: the ceiling the file gives its bytes per clock is drawn
    bpc = figs["bench_broadcast"].axes[0]
    assert [ln.get_label() for ln in bpc.get_lines() if ln.get_label().startswith("ceiling")] == \
        ["ceiling: 128 B/clk/SM"], [ln.get_label() for ln in bpc.get_lines()]


def made_up(doc, axes, metrics):
    """A document of one made-up benchmark: a point per combination of the axes' values, each metric
    a function of the point's values; every other field from a real point."""
    base = next(r for r in doc["results"] if r["bench"] == "uninit" and r["status"] == "ok")
    points = [{}]
    for name, values in axes:
        points = [dict(p, **{name: v}) for p in points for v in values]
    results = []
    for p in points:
        r = copy.deepcopy(base)
        r["bench"] = "zz_made_up"
        r["params"] = p
        r["metrics"] = {m: {"value": f(p), "unit": unit, "ceiling": None, "better": better}
                        for m, unit, better, f in metrics}
        results.append(r)
    return dict(copy.deepcopy(doc), results=results)


@test
def a_benchmark_no_code_names_gets_a_figure_from_its_points():
    doc = reader.load(ALL)
    fake = made_up(doc, [("size_bytes", (1024, 2048, 4096, 8192, 16384)), ("mode", (0, 1))],
                   [("rate", "GB/s", "higher", lambda p: p["size_bytes"] / 1024 + 100 * p["mode"]),
                    ("wait", "ns", "lower", lambda p: 5.0 + p["mode"])])
    plt, figs, drew = generic_figures(fake)
    assert list(figs) == ["bench_zz_made_up"] and drew == {"bench_zz_made_up": ["zz_made_up"]}, (figs, drew)
    fig = figs["bench_zz_made_up"]
    assert len(fig.axes) == 2
    for ax, (m, unit, way) in zip(fig.axes, (("rate", "GB/s", "higher"), ("wait", "ns", "lower"))):
        assert ax.get_ylabel() == f"{m} ({unit})" and f"{way} is better" in ax.get_title(), ax.get_title()
        lines = ax.get_lines()
        assert [ln.get_label() for ln in lines] == ["mode=0", "mode=1"], [ln.get_label() for ln in lines]
        for ln in lines:
            assert [float(x) for x in ln.get_xdata()] == [1024, 2048, 4096, 8192, 16384]
        assert ax.get_xscale() == "log", "powers of two: a log2 axis"
        assert ax.get_legend() is not None
    assert [float(y) for y in fig.axes[0].get_lines()[1].get_ydata()] == [101, 102, 104, 108, 116]
    assert fig.axes[-1].get_xlabel() == "size_bytes"
    plt.close(fig)


@test
def more_lines_than_a_panel_holds_are_folded_into_a_median():
    doc = reader.load(ALL)
    # n varies most (x); 3 x 4 = 12 lines: the axis with more values (seed) is folded, a line per mode left
    fake = made_up(doc, [("n", (10, 20, 30, 40, 50)), ("mode", (0, 1, 2)), ("seed", (1, 2, 3, 4))],
                   [("rate", "G/s", "higher", lambda p: p["n"] + p["seed"] + 10 * p["mode"])])
    plt, figs, _ = generic_figures(fake)
    ax = figs["bench_zz_made_up"].axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["mode=0", "mode=1", "mode=2"]
    assert ax.get_xscale() == "linear" and ax.get_xlabel() == "n"
    assert [float(y) for y in ax.get_lines()[1].get_ydata()] == [22.5, 32.5, 42.5, 52.5, 62.5], \
        "the median over seed"
    assert [t.get_text() for t in ax.texts] == ["median over seed"]
    plt.close(figs["bench_zz_made_up"])


@test
def plot_names_a_benchmark_it_draws_nowhere():
    doc = reader.load(ALL)
    fake = made_up(doc, [("n", (1, 2))], [("rate", "G/s", "higher", lambda p: p["n"])])
    for r in fake["results"]:
        r["metrics"] = {}       # nothing to draw
    fake["results"] += [r for r in doc["results"] if r["bench"] == "uninit"]
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "in.json")
        with open(f, "w") as fh:
            json.dump(fake, fh)
        rc, out, err = run_plot(f, "-o", os.path.join(d, "out"), "--format", "png")
        assert rc == 0, err
        assert drawn_lines(err) == {"bench_uninit.png": ["uninit"]}, err
        assert err.splitlines()[-1].endswith(": drawn in no figure: zz_made_up"), err
        assert [os.path.basename(x) for x in out.split()] == ["bench_uninit.png"], out


@test
def older_files_axis_values_are_the_descriptors():
    """reader.ADDED_AXES (python/smembench/older_axes.json, installed with the reader) says what the
    descriptors say: every axis's "before" in smembench --list --json, and --list's text agrees."""
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    p = subprocess.run([SMEMBENCH, "--list", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    said = {}
    for b in json.loads(p.stdout)["benchmarks"]:
        for ax in b["axes"]:
            if ax["before"] is not None:
                said.setdefault(b["name"], {})[ax["name"]] = ax["before"]
    p = subprocess.run([SMEMBENCH, "--list"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    printed, bench = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"^  ([a-z0-9_]+) ", line)
        if m:
            bench = m.group(1)
        m = re.match(r"^    --axis ([a-z0-9_]+)=.*; files before this axis: (-?[0-9]+)$", line)
        if m:
            printed.setdefault(bench, {})[m.group(1)] = int(m.group(2))
    assert printed == said, (printed, said)
    assert said, "--list names no axis with a value for older files"
    assert reader.ADDED_AXES == said, (reader.ADDED_AXES, said)
    with open(reader.OLDER_AXES_FILE) as f:
        assert json.load(f)["benches"] == said
    # an older transpose point (no depth, block or residency axis) reads as the newer one
    doc = json.loads(json.dumps(reader.load(ALL)))
    r = next(r for r in doc["results"] if r["bench"] == "transpose")
    for k in said["transpose"]:
        r["params"].pop(k)
    reader.check(doc)
    assert {k: r["params"].get(k) for k in said["transpose"]} == said["transpose"], r["params"]


def main():
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
