#!/usr/bin/env python3
"""Tests of the fleet report (TAP): scripts/fleet.py on the two committed full H200 runs as two
units, and on copies of them with a known change: a point made 10 % slower on one unit is the one
outlier, equal files have none, a declared between-unit allowance or a point's noise widens the
allowance, an expected node without a file is named as missing, a several-GPU file gives a unit
per GPU, predict-mode files still check the nodes, the heatmap and the written files, and bad input
is one line and exit 2.

  test_fleet.py
"""
import copy
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import fleet  # noqa: E402
import smem_results  # noqa: E402

RUN1 = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")
RUN2 = os.path.join(ROOT, "results", "nvidia-h200_20261130_all_run2.json")
X2 = os.path.join(ROOT, "results", "nvidia-h200-x2_20261129_bandwidth-latency-bank.json")
CARVEOUT = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
PREDICT_A100 = os.path.join(ROOT, "results", "predict", "nvidia-a100-sxm4-model_20261130_carveout-dynamic.json")
# a point of under 0.5 % noise in both runs: 10 % slower is far past its allowance
SLOW_POINT = ("bandwidth", {"width_bytes": 8})
TESTS = []
TMP = tempfile.mkdtemp(prefix="smem-fleet-test.")


class Skip(Exception):
    """A test that cannot run here; reported as '# SKIP reason', never as passed."""


def test(fn):
    TESTS.append(fn)
    return fn


def load(path):
    with open(path) as f:
        return json.load(f)


def node_file(doc, node, directory):
    """A copy of doc as node's file (run.node, as the Slurm script writes it) in directory."""
    doc = copy.deepcopy(doc)
    doc["run"]["node"] = node
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{node}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def find(doc, bench, params):
    rs = [r for r in doc["results"] if r["bench"] == bench and r["params"] == params]
    assert len(rs) == 1, (bench, params, len(rs))
    return rs[0]


def scale(r, factor):
    """A point's samples and statistics made `factor` times slower."""
    r["time_ns"]["raw"] = [round(v * factor) for v in r["time_ns"]["raw"]]
    for k, v in r["time_ns"]["stats"].items():
        if k in ("min", "q1", "median", "q3", "max", "mean", "stdev") and isinstance(v, (int, float)):
            r["time_ns"]["stats"][k] = round(v * factor)


def run(*args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "fleet.py"), *args], capture_output=True, text=True,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


def one_line_error(rc, out, err, code=2):
    assert rc == code, (rc, out[-1000:], err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    lines = err.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("smembench: "), err[-2000:]
    assert out == "", out[-500:]
    return lines[0]


def analyse(*paths, threshold=2.0):
    loaded = fleet.gather(paths, lambda text: None)
    return fleet.Fleet(fleet.units_of(loaded), threshold)


@test
def two_runs_of_the_h200_as_two_units_have_no_outlier():
    d = os.path.join(TMP, "two")
    a, b = node_file(load(RUN1), "n1", d), node_file(load(RUN2), "n2", d)
    f = analyse(a, b)
    timed = len(smem_results.timed_points(smem_results.load(RUN1)))
    assert [u.name for u in f.units] == ["n1 gpu0", "n2 gpu0"] and len(f.rows) == timed == 215
    assert not f.outliers and not f.lacking
    # every deviation is the unit's median against the median of the two, and the two mirror
    for row in f.rows:
        c1, c2 = row["cells"]["n1 gpu0"]["dev"], row["cells"]["n2 gpu0"]["dev"]
        assert abs(c1 + c2) < 1e-9 and abs(row["spread"] - (abs(c1) + abs(c2))) < 1e-9, row
    rc, out, err = run(a, b)
    assert rc == 0 and "PASS: 0 outliers, 0 missing nodes, 0 points missing on a unit" in out, (rc, out[-600:], err)
    assert "n1 gpu0" in out and "0000:00:06.0" in out and "Outliers (0)" in out
    # the same files without run.node: units named by host, told apart by file name
    rc, out, _ = run(RUN1, RUN2)
    assert rc == 0 and "vm gpu0 (nvidia-h200_20261130_all)" in out and "vm gpu0 (nvidia-h200_20261130_all_run2)" in out


@test
def a_point_ten_percent_slower_on_one_unit_is_the_one_outlier():
    d = os.path.join(TMP, "slow")
    doc = load(RUN2)
    scale(find(doc, *SLOW_POINT), 1.10)
    a, b = node_file(load(RUN1), "n1", d), node_file(doc, "n2", d)
    f = analyse(a, b)
    assert [(u.name, name) for u, name, *_ in f.outliers] == [("n2 gpu0", "bandwidth/width_bytes=8")], f.outliers
    (_, _, dev, allow, source), = f.outliers
    assert 0.045 < dev < 0.05 and allow == 0.02 and source == "threshold", (dev, allow, source)
    rc, out, err = run(a, b, "--markdown")
    assert rc == 1, (rc, err)
    assert f"n2 gpu0 at bandwidth/width_bytes=8: {100 * dev:+.2f} % against the fleet median, beyond its allowance " \
        "of 2.00 % (threshold)" in out, out[-1000:]
    assert "**FAIL: 1 outlier, 0 missing nodes" in out and "| point | fleet median (us) |" in out
    # among three units the median is a normal one: the slow unit is 10 % off, the others not at all
    c = node_file(load(RUN1), "n3", d)
    f = analyse(a, b, c)
    assert [(u.name, name) for u, name, *_ in f.outliers] == [("n2 gpu0", "bandwidth/width_bytes=8")]
    row = [r for r in f.rows if r["name"] == "bandwidth/width_bytes=8"][0]
    assert abs(row["cells"]["n2 gpu0"]["dev"] - (1.1 * find(load(RUN2), *SLOW_POINT)["time_ns"]["stats"]["median"] /
                                                 row["median_ns"] - 1)) < 1e-6
    # a higher threshold lets it pass
    rc, out, _ = run(a, b, "--threshold", "5")
    assert rc == 0 and "Outliers (0)" in out


@test
def equal_files_have_no_outlier_and_no_deviation():
    d = os.path.join(TMP, "equal")
    doc = load(RUN1)
    paths = [node_file(doc, n, d) for n in ("n1", "n2", "n3")]
    f = analyse(*paths)
    assert not f.outliers and all(c["dev"] == 0 for row in f.rows for c in row["cells"].values())
    assert all(row["spread"] == 0 for row in f.rows)
    rc, out, _ = run(d)           # a directory stands for its files
    assert rc == 0 and "3 units, 215 points" in out


@test
def the_allowance_is_the_largest_of_threshold_declared_and_noise():
    r = copy.deepcopy(find(load(RUN1), *SLOW_POINT))
    noise = smem_results.robust_spread(r)
    assert fleet.allowance(r, 2.0) == (0.02, "threshold") and 3 * noise < 0.02
    r["between_run"] = {"run_pct": 1.0, "unit_pct": 6.0, "gpc_layout": False, "source": "measured on 3 H200 units"}
    assert fleet.allowance(r, 2.0) == (0.06, "declared between units (measured on 3 H200 units)")
    assert fleet.allowance(r, 7.0) == (0.07, "threshold")
    r["time_ns"]["stats"]["robust_spread"] = 0.03
    assert fleet.allowance(r, 2.0) == (0.09, "3 x noise")
    # the declared allowance in a file keeps the 10 % slower point from being an outlier
    d = os.path.join(TMP, "declared")
    doc = load(RUN2)
    scale(find(doc, *SLOW_POINT), 1.10)
    for r in doc["results"]:
        r["between_run"] = {"run_pct": 1.0, "unit_pct": 6.0, "gpc_layout": False, "source": "test"}
    a, b = node_file(load(RUN1), "n1", d), node_file(doc, "n2", d)
    rc, out, err = run(a, b)
    assert rc == 0 and "Outliers (0)" in out, (rc, out[-800:], err)
    # a noisy point needs more than the threshold: uninit's 16 KiB point moved 9 % between the runs
    f = analyse(RUN1, RUN2)
    row = [r for r in f.rows if r["name"] == "uninit/dyn_smem_bytes=16384"][0]
    cell = max(row["cells"].values(), key=lambda c: c["dev"])
    assert cell["dev"] > 0.05 and cell["source"] == "3 x noise" and cell["allow"] > cell["dev"], cell


@test
def an_expected_node_without_a_file_is_named_missing():
    d = os.path.join(TMP, "missing")
    a, b = node_file(load(RUN1), "n1", d), node_file(load(RUN2), "n2", d)
    rc, out, err = run(a, b, "--expect", "n1,n2,n3")
    assert rc == 1, (rc, err)
    assert "Missing nodes (1): no file for n3" in out and "FAIL: 0 outliers, 1 missing node" in out
    rc, out, _ = run(a, b, "--expect", "n1,n2")
    assert rc == 0 and "Missing nodes" not in out
    rc, out, _ = run(a, "--expect", "n1")
    assert rc == 0 and "one unit: nothing to compare" in out
    # a node's file that lost points (its run was cut short): the points are named per unit
    doc = load(RUN2)
    doc["results"] = doc["results"][:100]
    b = node_file(doc, "n2", os.path.join(TMP, "short"))
    rc, out, _ = run(a, b)
    assert rc == 1 and "n2 gpu0: 115 (" in out and "115 points missing on a unit" in out, out[-800:]


@test
def a_several_gpu_file_gives_a_unit_per_gpu_with_uuid_and_bus():
    doc = load(X2)
    doc["devices"][1]["uuid"] = "GPU-00000000-0000-0000-0000-000000000001"
    path = node_file(doc, "n7", os.path.join(TMP, "x2"))
    f = analyse(path)
    assert [(u.name, u.gpu, u.pci, u.uuid) for u in f.units] == \
        [("n7 gpu0", 0, "0000:00:06.0", ""), ("n7 gpu1", 1, "0000:00:07.0", "GPU-00000000-0000-0000-0000-000000000001")]
    assert len(f.rows) == 104 and not f.lacking
    rc, out, _ = run(path)
    assert "GPU-00000000-0000-0000-0000-000000000001" in out and "0000:00:07.0" in out
    # the spread between the two GPUs, as the device run recorded it: largest 1.08 %
    assert abs(max(r["spread"] for r in f.rows) - 0.0108) < 0.0005, max(r["spread"] for r in f.rows)


@test
def predict_mode_files_still_check_the_nodes():
    d = os.path.join(TMP, "predict")
    doc = load(PREDICT_A100)
    paths = [node_file(doc, n, d) for n in ("n1", "n2")]
    rc, out, err = run(*paths, "--expect", "n1,n2,n3", "-o", os.path.join(TMP, "predict-out"))
    assert rc == 1 and "no unit has a timed point" in out and "no file for n3" in out, (rc, out, err)
    assert sorted(os.listdir(os.path.join(TMP, "predict-out"))) == ["fleet.md", "fleet.txt"]
    rc, out, _ = run(*paths, "--expect", "n1,n2")
    assert rc == 0 and "2 units, 0 points" in out


@test
def the_written_report_and_heatmap():
    d = os.path.join(TMP, "written")
    doc = load(RUN2)
    scale(find(doc, *SLOW_POINT), 1.10)
    a, b = node_file(load(RUN1), "n1", d), node_file(doc, "n2", d)
    outdir = os.path.join(TMP, "fleet-out")
    rc, out, err = run(a, b, "-o", outdir)
    assert rc == 1, err
    assert sorted(os.listdir(outdir)) == ["fleet.md", "fleet.png", "fleet.txt"]
    for name in os.listdir(outdir):
        assert stat.S_IMODE(os.stat(os.path.join(outdir, name)).st_mode) & 0o644 == 0o644
    assert open(os.path.join(outdir, "fleet.txt")).read() == out
    assert open(os.path.join(outdir, "fleet.md")).read() == run(a, b, "--markdown")[1]
    try:
        import matplotlib  # noqa: F401
        from PIL import Image
    except ImportError:
        raise Skip("matplotlib or PIL missing: the heatmap is not checked") from None
    im = Image.open(os.path.join(outdir, "fleet.png"))
    desc = im.info.get("Description", "")
    assert "NVIDIA H200 fleet, 2026-11-30: 2 units, 215 points, 1 outlier (boxed)" in desc, desc[:300]
    dev = [u for u in analyse(a, b).outliers][0][2]
    assert "n1 gpu0" in desc and "bandwidth/width_bytes=8" in desc and f"\n{100 * dev:+.2f}\n" in desc
    # the figure itself: a diverging scale centred on 0, one boxed cell, at the slow unit's point
    import plot
    plt = plot.pyplot()
    f = analyse(a, b)
    fig = fleet.heatmap(plt, f)
    ax = fig.axes[0]
    img = ax.images[0]
    assert img.get_cmap().name.startswith("RdBu_r") and img.norm.vcenter == 0 and img.norm.vmin == -img.norm.vmax
    boxes = [p for p in ax.patches if not p.get_fill()]
    row = [r["name"] for r in f.rows].index("bandwidth/width_bytes=8")
    assert [(p.get_x() + 0.5, p.get_y() + 0.5) for p in boxes] == [(1, row)], [(p.get_x(), p.get_y()) for p in boxes]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [r["name"] for r in f.rows]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["n1 gpu0", "n2 gpu0"]
    plt.close(fig)


@test
def bad_input_is_one_line_and_exit_2():
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "smembench/1", "tool": {}')
    empty = os.path.join(TMP, "empty-dir")
    os.makedirs(empty, exist_ok=True)
    cases = [((os.path.join(TMP, "absent.json"),), "No such file"),
             ((bad,), "not JSON"),
             ((empty,), "no result files among the inputs"),
             ((RUN1, PREDICT_A100), "units of 2 GPU models"),
             ((RUN1, RUN1), "the same file twice"),
             ((RUN1, "--threshold", "abc"), 'invalid value "abc" for --threshold'),
             ((RUN1, "--threshold", "-1"), "--threshold"),
             ((RUN1, "--expect", "n1,,n2"), "invalid node list"),
             ((RUN1, "--frobnicate"), "unrecognized arguments"),
             ((), "required"),
             ((RUN1, "-o", RUN1), "is not a directory")]
    for args, needle in cases:
        line = one_line_error(*run(*args))
        assert needle in line, (args, line)
    assert run("--help")[0] == 0
    # JSON that is not a result file is skipped with a note, not an error
    other = os.path.join(TMP, "notes")
    os.makedirs(other, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "results", "schema.json"), other)
    node_file(load(CARVEOUT), "n1", other)
    rc, out, err = run(other)
    assert rc == 0 and "skipping" in err and "schema.json" in err, (rc, err)


def main():
    print(f"1..{len(TESTS)}")
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print(f"ok {i} - {t.__name__}")
        except Skip as e:
            print(f"ok {i} - {t.__name__} # SKIP {e}")
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            failed += 1
            print(f"not ok {i} - {t.__name__}: {type(e).__name__}: {str(e)[:3000]}")
        sys.stdout.flush()
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
