#!/usr/bin/env python3
"""Tests of the fleet report (TAP): scripts/fleet.py on the two committed full H200 runs as two
units, and on copies of them with a known change: a point made 10 % slower on one unit is the one
outlier, equal files have none, a declared between-unit allowance or a point's noise widens the
allowance, an expected node without a file is named as missing, a several-GPU file gives a unit
per GPU, predict-mode files still check the nodes, the heatmap and the written files, and bad input
is one line and exit 2. On the two GPUs of one H200 x2 host (results/units, run at the same time):
no outlier with the variations their files declare; a third unit with a DRAM point 10 % and a
cluster point 8 % slower has exactly those two outliers; a unit of another or an unrecorded GPC
layout makes the cluster points take their variation across layouts (layout_pct). The committed
report of the two (results/fleet) is what scripts/figures.sh makes.

  test_fleet.py
"""
import copy
import glob
import json
import os
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, os.path.join(SCRIPTS, "..", "python"))
sys.path.insert(0, HERE)
from smembench import fleet_units  # noqa: E402
from smembench import gate  # noqa: E402
from smembench import reader  # noqa: E402
import tap  # noqa: E402
from tap import Skip, scale, test  # noqa: E402

RUN1 = os.path.join(ROOT, "results", "nvidia-h200_20261130_all.json")
RUN2 = os.path.join(ROOT, "results", "nvidia-h200_20261130_all_run2.json")
X2 = os.path.join(ROOT, "results", "nvidia-h200-x2_20261129_bandwidth-latency-bank.json")
CARVEOUT = os.path.join(ROOT, "results", "nvidia-h200_20261129_carveout.json")
GPU0 = os.path.join(ROOT, "results", "units", "nvidia-h200_20261130_all_gpu0_r5.json")
GPU1 = os.path.join(ROOT, "results", "units", "nvidia-h200_20261130_all_gpu1_r5.json")
GPU0_R4 = os.path.join(ROOT, "results", "units", "nvidia-h200_20261130_all_gpu0_r4.json")
CLUSTER_BENCHES = ("cluster_occupancy", "cluster_sync", "dsm_atomics", "dsm_bandwidth", "dsm_latency")
# what bench/<name>.c declares now (run_pct, unit_pct, layout_pct or None) where the unit files, written
# before, say otherwise: they carry no layout_pct, and uninit's 1 % (its 12 us launch moves up to 3 %
# between units, and more between runs)
DECLARED = {"cluster_occupancy": (1.5, 5.0, 5.0), "cluster_sync": (4.5, 5.0, 5.0), "dsm_atomics": (1.5, 2.0, 30.0),
            "dsm_bandwidth": (1.5, 4.0, 4.0), "dsm_latency": (1.5, 4.5, 4.5), "uninit": (35.0, 35.0, None)}
PREDICT_A100 = os.path.join(ROOT, "results", "predict", "nvidia-a100-sxm4-model_20261130_carveout-dynamic.json")
# a point of under 0.5 % noise in both runs: 10 % slower is far past its allowance
SLOW_POINT = ("bandwidth", {"width_bytes": 8})
TMP = tempfile.mkdtemp(prefix="smem-fleet-test.")




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
    loaded = fleet_units.gather(paths, lambda text: None)
    return fleet_units.Fleet(fleet_units.units_of(loaded), threshold)


@test
def two_runs_of_the_h200_as_two_units_have_no_outlier():
    d = os.path.join(TMP, "two")
    a, b = node_file(load(RUN1), "n1", d), node_file(load(RUN2), "n2", d)
    f = analyse(a, b)
    timed = len(reader.timed_points(reader.load(RUN1)))
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
    assert f"| n2 gpu0 | bandwidth/width_bytes=8 | {100 * dev:+.2f} | 2.00 | {dev / 0.02:.2f} | threshold |" in out, \
        out[-1000:]
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
    noise = reader.robust_spread(r)
    assert fleet_units.allowance(r, "unit", 2.0) == (0.02, "threshold") and 3 * noise < 0.02
    r["between_run"] = {"run_pct": 1.0, "unit_pct": 6.0, "gpc_layout": True, "layout_pct": 8.0,
                        "source": "measured on 3 H200 units"}
    # the declared number of the unit's relation to the others: gate.allowance(), the gate's
    assert fleet_units.allowance(r, "unit", 2.0) == (0.06, "declared between units of one GPC layout (unit_pct: measured "
                                               "on 3 H200 units)")
    assert fleet_units.allowance(r, "layout", 2.0) == (0.08, "declared between units of another or an unrecorded GPC "
                                                 "layout (layout_pct: measured on 3 H200 units)")
    assert fleet_units.allowance(r, "run", 2.0) == (0.02, "threshold")
    assert fleet_units.allowance(r, "run", 0.5) == (0.01, "declared between runs of one unit (run_pct: measured on 3 H200 "
                                              "units)")
    for ctx in ("run", "unit", "layout"):
        assert fleet_units.allowance(r, ctx, 2.0)[0] == max(0.02, gate.allowance(None, r, ctx), 3 * noise)
    del r["between_run"]["layout_pct"]      # a file written before layout_pct: unit_pct, named as such
    assert fleet_units.allowance(r, "layout", 2.0) == (0.06, "declared between units (unit_pct: measured on 3 H200 units)")
    assert fleet_units.allowance(r, "unit", 7.0) == (0.07, "threshold")
    r["time_ns"]["stats"]["robust_spread"] = 0.03
    assert fleet_units.allowance(r, "unit", 2.0) == (0.09, "3 x noise")
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
    from smembench import plot
    plt = plot.pyplot()
    f = analyse(a, b)
    fig = fleet_units.heatmap(plt, f)
    ax = fig.axes[0]
    img = ax.images[0]
    assert img.get_cmap().name.startswith("RdBu_r") and img.norm.vcenter == 0 and img.norm.vmin == -img.norm.vmax
    boxes = [p for p in ax.patches if not p.get_fill()]
    # the rows that matter first: the outlier's point is the first row, its box at the slow unit
    row = [r["name"] for r in f.ranked()].index("bandwidth/width_bytes=8")
    assert row == 0 and [(p.get_x() + 0.5, p.get_y() + 0.5) for p in boxes] == [(1, 0)], \
        [(p.get_x(), p.get_y()) for p in boxes]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [r["name"] for r in f.ranked()[:fleet_units.HEATMAP_ROWS]] and len(labels) == 80
    # the colour is the deviation over the allowance: the outlier's cell is 4.7 % / 2 % = 2.4
    assert abs(img.get_array()[0, 1] - dev / 0.02) < 1e-9 and img.norm.vmax == fleet_units.CLIP
    # the columns: node and CUDA index, then the PCI bus (these files record no uuid or GPC layout)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["n1 gpu0\n0000:00:06.0", "n2 gpu0\n0000:00:06.0"]
    plt.close(fig)


def unit_file(path, uuid=None, layout=None, declared=False):
    """A unit file, changed: uuid: another GPU's (and PCI bus); layout: another GPC layout,
    "" for none recorded; declared: between_run as bench/<name>.c declares it now (DECLARED)."""
    doc = load(path)
    if uuid:
        doc["device"]["uuid"], doc["device"]["pci_bus_id"] = uuid, "0000:00:08.0"
    if layout == "":
        del doc["device"]["gpc"]
    elif layout:
        doc["device"]["gpc"]["layout"] = layout
    if declared:
        for r in doc["results"]:
            if r["bench"] in DECLARED:
                run_pct, unit_pct, layout_pct = DECLARED[r["bench"]]
                r["between_run"] = {"run_pct": run_pct, "unit_pct": unit_pct, "gpc_layout": layout_pct is not None,
                                    "layout_pct": layout_pct, "source": f"bench/{r['bench']}.c"}
    return doc


@test
def the_two_h200_units_of_one_host_have_no_outlier_with_their_declared_variations():
    rc, out, err = run(GPU0, GPU1)
    assert rc == 0 and "PASS: 0 outliers, 0 missing nodes, 0 points missing on a unit" in out, (rc, out[-800:], err)
    # units named by node (run.host here: not under Slurm), CUDA index, uuid, PCI bus, with their GPC layout
    for text in ("vm gpu0", "vm gpu1", "GPU-b8d34e37-4d04-5317-be8c-f6731f19c418", "0000:00:06.0",
                 "GPU-296e81e0-41dc-e3a5-5798-0bddebd2f1d0", "0000:00:07.0", "18x2,16x5,8x1,2x4",
                 "layout: every unit has GPC layout 18x2,16x5,8x1,2x4"):
        assert text in out, text
    f = analyse(GPU0, GPU1)
    assert [(u.name, u.uuid[:12], u.pci, u.layout) for u in f.units] == [
        ("vm gpu0", "GPU-b8d34e37", "0000:00:06.0", "18x2,16x5,8x1,2x4"),
        ("vm gpu1", "GPU-296e81e0", "0000:00:07.0", "18x2,16x5,8x1,2x4")]
    assert len(f.rows) == 412 and not f.outliers and not f.lacking
    # two GPUs of one layout: every point with its variation between units of one layout
    assert {c["context"] for row in f.rows for c in row["cells"].values()} == {"unit"}
    # the largest: dsm_latency at cluster size 8 over the GPCs (path 2), 3.1 % apart, half of it each way
    (uname, name, cell), *_ = f.largest()
    assert (uname, name) == ("vm gpu1", "dsm_latency/chain_slots=1024,cluster_size=8,path=2"), (uname, name)
    assert 0.015 < cell["dev"] < 0.016 and cell["allow"] == 0.045, cell
    assert cell["source"].startswith("declared between units of one GPC layout (unit_pct: cluster placement"), cell
    assert max(row["spread"] for row in f.rows) < 0.032
    # dsm_atomics, 24.8 % apart on another host's two GPUs, is within 0.4 % here (one layout)
    assert max(row["spread"] for row in f.rows if row["name"].startswith("dsm_atomics/")) < 0.004


@test
def a_third_unit_with_a_slower_dram_and_cluster_point_has_exactly_those_outliers():
    d = os.path.join(TMP, "units-slow")
    slow = unit_file(GPU1, uuid="GPU-00000000-0000-0000-0000-000000000003", declared=True)
    scale(find(slow, "copy", {"mib": 256}), 1.10)                                        # DRAM: unit_pct 5
    scale(find(slow, "dsm_bandwidth", {"cluster_size": 8, "path": 2, "width_bytes": 8}), 1.08)   # 4
    # with the files' own uninit declaration (1 %), n1's 96 KiB uninit point, 3.1 % slower than n2's and
    # n3's (both GPU 1's run), would be a third: what uninit declares now keeps the planted two alone
    paths = [node_file(unit_file(GPU0, declared=True), "n1", d),
             node_file(unit_file(GPU1, declared=True), "n2", d), node_file(slow, "n3", d)]
    f = analyse(*paths)
    got = sorted((u.name, name) for u, name, *_ in f.outliers)
    assert got == [("n3 gpu1", "copy/mib=256"), ("n3 gpu1", "dsm_bandwidth/cluster_size=8,path=2,width_bytes=8")], got
    assert f.outliers[0][2] / f.outliers[0][3] >= f.outliers[1][2] / f.outliers[1][3], "the most over its allowance first"
    (_, _, d1, a1, s1), (_, _, d2, a2, s2) = sorted(f.outliers, key=lambda o: o[1])
    assert 0.09 < d1 < 0.11 and a1 == 0.05 and s1.startswith("declared between units of one GPC layout (unit_pct: DRAM")
    assert 0.07 < d2 < 0.09 and a2 == 0.04 and s2 == "declared between units of one GPC layout (unit_pct: " \
        "bench/dsm_bandwidth.c)", (d2, a2, s2)
    rc, out, err = run(*paths, "--expect", "n1,n2,n3")
    assert rc == 1 and "FAIL: 2 outliers, 0 missing nodes" in out, (rc, out[-800:], err)
    assert re.search(rf"^n3 gpu1 +copy/mib=256 +{re.escape(f'{100 * d1:+.2f}')} +5\.00 +{d1 / 0.05:.2f} +unit_pct +one run$", out, re.M), \
        out[-2000:]
    # between two units the fleet median lies halfway: each is half the difference from it, within
    # the declared variations here (copy 4.7 % of 5 %, dsm_bandwidth 3.6 % of 4 %)
    f = analyse(paths[0], paths[2])
    assert not f.outliers
    devs = {row["name"]: row["cells"]["n3 gpu1"]["dev"] for row in f.rows}
    assert 0.045 < devs["copy/mib=256"] < 0.05 and 0.034 < devs["dsm_bandwidth/cluster_size=8,path=2,width_bytes=8"] \
        < 0.04, devs


@test
def units_of_another_or_an_unrecorded_gpc_layout_judge_cluster_points_with_layout_pct():
    d = os.path.join(TMP, "units-layout")
    third = "GPU-00000000-0000-0000-0000-000000000003"
    base = [node_file(unit_file(GPU0, declared=True), "n1", d), node_file(unit_file(GPU1, declared=True), "n2", d)]
    point = ("dsm_atomics", {"cluster_size": 8, "path": 2})

    def fleet_with(layout, threshold=2.0):
        doc = unit_file(GPU1, uuid=third, layout=layout, declared=True)
        scale(find(doc, *point), 1.20)
        return analyse(*base, node_file(doc, "n3", d), threshold=threshold)

    # one layout: dsm_atomics may move 2 % between units (above a threshold of 1 %); 20 % slower is an outlier
    f = fleet_with(None, threshold=1.0)
    assert [(u.name, name) for u, name, *_ in f.outliers] == [("n3 gpu1", "dsm_atomics/cluster_size=8,path=2")]
    assert f.outliers[0][3] == 0.02 and f.outliers[0][4].startswith("declared between units of one GPC layout (unit_pct")
    # another layout, or none recorded: every unit is judged across layouts (the widest relation to the
    # others), the cluster points with layout_pct (dsm_atomics 30 %), the others with unit_pct
    for layout, note in (("18x2,16x4,14x1,8x1,2x4", "layout: GPC layouts 18x2,16x4,14x1,8x1,2x4, 18x2,16x5,8x1,2x4:"),
                         ("", "layout: GPC layout 18x2,16x5,8x1,2x4; no layout recorded on n3 gpu1:")):
        f = fleet_with(layout)
        assert not f.outliers, f.outliers
        assert {c["context"] for row in f.rows for c in row["cells"].values()} == {"layout"}
        for row in f.rows:
            bench = row["name"].split("/")[0]
            for c in row["cells"].values():
                if bench in CLUSTER_BENCHES:
                    assert c["allow"] == DECLARED[bench][2] / 100 and c["source"].startswith(
                        "declared between units of another or an unrecorded GPC layout (layout_pct"), (row["name"], c)
                elif bench == "copy":
                    assert c["allow"] == 0.05 and c["source"].startswith("declared between units (unit_pct"), c
        cell = [r for r in f.rows if r["name"] == "dsm_atomics/cluster_size=8,path=2"][0]["cells"]["n3 gpu1"]
        assert 0.19 < cell["dev"] < 0.21 and cell["allow"] == 0.30, cell
        rc, out, _ = run(*base, os.path.join(d, "n3.json"))
        assert rc == 0 and note in out and "layout_pct" in out, out[:1500]
    # two runs of one GPU (one uuid) are one unit, not two: its time the median of the runs' medians
    f = analyse(*(node_file(unit_file(p, declared=True), run, os.path.join(d, "runs")) for p, run in
                  ((GPU0_R4, "r4"), (GPU0, "r5"))))
    assert [(u.name, len(u.runs)) for u in f.units] == [("r4 gpu0", 2)] and not f.outliers, f.units
    row = [r for r in f.rows if r["name"] == "bandwidth/width_bytes=8"][0]
    assert row["median_ns"] == (find(load(GPU0_R4), *SLOW_POINT)["time_ns"]["stats"]["median"] +
                                find(load(GPU0), *SLOW_POINT)["time_ns"]["stats"]["median"]) / 2, row
    assert "every file is of one GPU" in fleet_units.layout_note(f.units)


@test
def the_markdown_is_capped_for_a_pull_request_comment_with_the_verdict_kept():
    """Eight units of the two --sweep all runs, four of them 10 % slower at every point: some 860
    outliers, over 100,000 characters of Markdown uncapped. --markdown (and fleet.md) stays within
    60,000 (GitHub takes 65,536): the heading first, the deviation table's header and the PASS/FAIL
    line kept, and the rows and outliers that do not fit folded into lines saying how many."""
    d = os.path.join(TMP, "capped")
    paths = []
    for i in range(8):
        doc = load(RUN1 if i % 2 else RUN2)
        if i >= 4:
            for r in doc["results"]:
                if r.get("time_ns"):
                    scale(r, 1.10)
        paths.append(node_file(doc, f"n{i + 1}", d))
    f = analyse(*paths)
    full = "\n".join(fleet_units.report_lines(f, [], [], True)) + "\n"
    assert len(full) > 100000 and len(f.outliers) > 500, (len(full), len(f.outliers))
    outdir = os.path.join(TMP, "capped-out")
    rc, out, err = run(*paths, "--markdown", "-o", outdir)
    assert rc == 1, err[-2000:]
    assert len(out) <= 60000, len(out)
    assert open(os.path.join(outdir, "fleet.md")).read() == out, "fleet.md is the same capped Markdown"
    assert len(run(*paths)[1]) > 60000, "the text report is not capped"
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == full.split("\n")[0] and lines[0].startswith("## smembench fleet: NVIDIA H200, 8 units")
    assert lines[-1] == f"**FAIL: {len(f.outliers)} outliers, 0 missing nodes, 0 points missing on a unit**", lines[-3:]
    assert [x for x in lines if x.startswith("#")] == [x for x in full.split("\n") if x.startswith("#")], \
        "every heading is kept"
    folds = dict((what, int(n)) for n, what in re.findall(
        r"^\*(\d+) more (outliers|points) left out, the least far from normal: the comment is capped at 60,000 "
        r"characters \(GitHub takes 65,536\); fleet.txt and the report without --markdown list every row\*$", out, re.M))
    # capped by importance: the outliers keep their rows first (here they alone fill the comment), the
    # most over their allowance first; the deviation table keeps its header and says what it left out
    items = [x for x in lines if re.match(r"\| n\d gpu0 \| [a-z_]+/", x)]
    assert items and len(items) + folds["outliers"] == len(f.outliers) and folds["points"] == len(f.rows), \
        (len(items), folds, len(f.outliers))
    ranked = fleet_units.outlier_rows(f)
    assert items == ["| " + " | ".join(r) + " |" for r in ranked[:len(items)]]
    assert float(items[-1].split(" | ")[4]) >= max(float(r[4]) for r in ranked[len(items):])
    # the unit table is small: whole
    assert sum(1 for x in lines if re.match(r"\| n\d gpu0 \| n\d \|", x)) == 8


@test
def the_committed_fleet_report_is_current():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise Skip("matplotlib missing: the report and heatmap cannot be made") from None
    fresh = os.path.join(TMP, "figures")
    p = subprocess.run(["bash", os.path.join(SCRIPTS, "figures.sh"), fresh, "fleet"], capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, PYTHON=sys.executable, NO_SCREENSHOT="1"))
    assert p.returncode == 0, p.stderr[-2000:]
    committed = os.path.join(ROOT, "results", "fleet")
    assert os.path.exists(os.path.join(committed, "screenshot.png")), "the screenshot beside it"
    for name in ("fleet.txt", "fleet.md"):
        assert open(os.path.join(fresh, "fleet", name)).read() == open(os.path.join(committed, name)).read(), \
            f"results/fleet/{name} is stale: run scripts/figures.sh results fleet"
    # the figures' SVG and their shared style sheet are matplotlib's output, by its version
    page = [re.sub(r"<svg.*?</svg>", "<svg/>", re.sub(r"svg \.fs[0-9a-f]+ \{[^}]*\}\n", "",
                                                      open(os.path.join(d, "report", "index.html")).read()), flags=re.S)
            for d in (os.path.join(fresh, "fleet"), committed)]
    assert page[0] == page[1], "results/fleet/report/index.html is stale: run scripts/figures.sh results fleet"


@test
def bad_input_is_one_line_and_exit_2():
    bad = os.path.join(TMP, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "smembench/1", "tool": {}')
    empty = os.path.join(TMP, "empty-dir")
    os.makedirs(empty, exist_ok=True)
    # a copy of RUN1 under its name in another folder: the same file by another path is read once
    # (smembench.inputs), a copy is a second unit that reads the same
    copy_dir = os.path.join(TMP, "copy")
    os.makedirs(copy_dir, exist_ok=True)
    shutil.copy(RUN1, copy_dir)
    cases = [((os.path.join(TMP, "absent.json"),), "No such file or directory"),
             ((bad,), "not JSON"),
             ((empty,), "no result file among the inputs"),
             ((RUN1, PREDICT_A100), "units of 2 GPU models"),
             ((RUN1, os.path.join(copy_dir, os.path.basename(RUN1))), "the same file twice"),
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


@test
def node_files_without_run_node_are_named_by_their_file_under_expect():
    """Node files without run.node (written outside Slurm, or by a driver before it recorded one), all
    of one host, named n1.json and n2.json as the Slurm script names them: with --expect n1,n2 they
    are those nodes, not two units of the host and both nodes missing; a file whose name is no
    expected node keeps its host, and the node without a file is still missing."""
    d = os.path.join(TMP, "no-node")
    for n in ("n1", "n2"):
        path = node_file(load(CARVEOUT), n, d)
        doc = load(path)
        doc["run"]["node"] = None
        with open(path, "w") as f:
            json.dump(doc, f)
    host = load(CARVEOUT)["run"]["host"]
    rc, out, err = run(os.path.join(d, "n1.json"), os.path.join(d, "n2.json"), "--expect", "n1,n2")
    assert rc == 0 and err == "" and "Missing nodes" not in out and ", 0 missing nodes," in out, (rc, out[-1500:], err)
    assert re.search(r"^n1 gpu0 ", out, re.M) and re.search(r"^n2 gpu0 ", out, re.M), out[:1500]
    rc, out, err = run(os.path.join(d, "n1.json"), "--expect", "n1,n3")
    assert rc == 1 and "no file for n3" in out and re.search(r"^n1 gpu0 ", out, re.M), (rc, out[-1500:])
    os.rename(os.path.join(d, "n2.json"), os.path.join(d, "other.json"))
    rc, out, err = run(os.path.join(d, "n1.json"), os.path.join(d, "other.json"), "--expect", "n1,n2")
    assert rc == 1 and "no file for n2" in out and re.search(rf"^{re.escape(host)} gpu0", out, re.M), (rc, out[-1500:])


FIFTEEN = sorted(glob.glob(os.path.join(ROOT, "results", "units", "*.json")) +
                 glob.glob(os.path.join(ROOT, "results", "contract", "nvidia-h200_20261202_all_*.json")))


def fifteen():
    if not hasattr(fifteen, "fleet"):
        fifteen.fleet = analyse(*FIFTEEN)
    return fifteen.fleet


@test
def the_fifteen_files_are_five_gpu_units_each_one_vote():
    """The 15 --sweep all and cluster files of results/contract and results/units: 5 GPUs by uuid (2,
    2, 5, 5 and 1 runs), not 15 units; a unit's time at a point is the median of its runs' medians
    and the fleet median the median of the units'."""
    assert len(FIFTEEN) == 15
    f = fifteen()
    assert [(u.uuid[:12], len(u.runs)) for u in f.units] == [
        ("GPU-78090615", 2), ("GPU-53e5ebc9", 2), ("GPU-b8d34e37", 5), ("GPU-296e81e0", 5), ("GPU-3f12ef50", 1)]
    assert len({u.name for u in f.units}) == 5 and f.units[0].name == "vm gpu0 (GPU-78090615)"
    docs = {p: load(p) for p in FIFTEEN}
    row = [r for r in f.rows if r["name"] == "bandwidth/width_bytes=8"][0]
    per_unit = []
    for u in f.units:
        meds = [find(docs[run.path], *SLOW_POINT)["time_ns"]["stats"]["median"] for run in u.runs
                if run.uuid != "GPU-3f12ef50-cea6-4486-c130-caa8795799ce"]
        if meds:
            per_unit.append(statistics.median(meds))
            assert abs(row["cells"][u.name]["dev"] - (statistics.median(meds) / row["median_ns"] - 1)) < 1e-12
    assert len(per_unit) == 4 == len(row["cells"]) and row["median_ns"] == statistics.median(per_unit)
    rc, out, err = run(*FIFTEEN)
    assert rc == 1 and out.startswith("smembench fleet: NVIDIA H200, 5 units (15 runs), 758 points"), out[:300]
    assert f"FAIL: {len(f.outliers)} outliers" in out


@test
def outliers_are_one_table_the_most_over_their_allowance_first_the_rule_said_once():
    f = fifteen()
    ratios = [d / a for _, _, d, a, _ in f.outliers]
    assert len(ratios) >= 5 and ratios == sorted(ratios, reverse=True) and min(ratios) > 1, ratios
    rc, out, _ = run(*FIFTEEN)
    section = out[out.index("Outliers ("):out.index("The 5 largest")]
    assert section.count("allowance = the largest of") == 1 and "against the fleet median" not in section
    rows = [x for x in section.splitlines() if x.startswith("vm gpu")]
    assert len(rows) == len(f.outliers) and all(len(x) < 160 for x in rows), rows
    assert [float(re.split(r"\s{2,}", x)[4]) for x in rows] == [round(r, 2) for r in ratios]
    # what each outlier is: gather's 96 KiB table on the two units of one host, five runs each agreeing,
    # is a unit difference; the cluster run's unit has one run
    assert all(x.endswith("one run") or "unit difference (5 runs within" in x for x in rows), rows
    # the DRAM source of gather's 5 %, once under the table instead of on each of its rows
    assert section.count("DRAM streaming") == 1, section


@test
def the_heatmap_of_fifteen_files_shows_the_rows_that_matter_within_2500_px():
    try:
        import matplotlib  # noqa: F401
        from PIL import Image
    except ImportError:
        raise Skip("matplotlib or PIL missing: the heatmap is not checked") from None
    f = fifteen()
    outdir = os.path.join(TMP, "fifteen-out")
    rc, out, err = run(*FIFTEEN, "-o", outdir)
    assert rc == 1, err[-2000:]
    im = Image.open(os.path.join(outdir, "fleet.png"))
    assert max(im.size) < 2500 and os.path.getsize(os.path.join(outdir, "fleet.png")) < 1_500_000, im.size
    desc = im.info["Description"]
    left = len(f.rows) - fleet_units.HEATMAP_ROWS
    assert f"the 80 points farthest from normal drawn; {left} more not drawn" in desc, desc[:600]
    from smembench import plot
    plt = plot.pyplot()
    fig = fleet_units.heatmap(plt, f)
    ax = fig.axes[0]
    img = ax.images[0]
    data = img.get_array()
    assert data.shape == (80, 5)
    # every outlier drawn, in the first rows, boxed; then rows by their largest |deviation| / allowance
    boxes = sorted((round(p.get_y() + 0.5), round(p.get_x() + 0.5)) for p in ax.patches if not p.get_fill())
    assert len(boxes) == len(f.outliers) and max(i for i, _ in boxes) < len({o[1] for o in f.outliers}), boxes
    worst = [r["worst"] for r in f.ranked()]
    n_out = len({o[1] for o in f.outliers})
    assert worst[n_out:] == sorted(worst[n_out:], reverse=True)
    assert all(w <= worst[79] for w in worst[80:])
    # the colours: deviation / allowance on a fixed scale, clipped at 3 (dsm_atomics' +24 % on a 2 %
    # allowance, 12 x, no longer sets it), and the colour bar says so
    assert img.norm.vmin == -3 and img.norm.vmax == 3 and img.norm.vcenter == 0
    assert np_max(data) > 10 and "clipped at \u00b13 (1 cell beyond)" in fig.axes[1].get_ylabel()
    plt.close(fig)


def np_max(data):
    import numpy as np
    return float(np.nanmax(np.ma.filled(data.astype(float), np.nan)))


@test
def fleet_md_of_fifteen_files_is_capped_by_importance():
    f = fifteen()
    md = run(*FIFTEEN, "--markdown")[1]
    assert len(md) <= 60000 and len("\n".join(fleet_units.report_lines(f, [], [], True))) > 60000
    lines = md.splitlines()
    # every outlier kept, in the order of their deviation over allowance
    assert [x for x in lines if re.match(r"\| vm gpu\d( \(GPU-\w+\))? \| [a-z_]+/", x)] == \
        ["| " + " | ".join(r) + " |" for r in fleet_units.outlier_rows(f)]
    # the deviation table keeps the points farthest from normal and says how many it left out
    head = lines.index("| point | fleet median (us) | spread (%) | " + " | ".join(u.name for u in f.units) + " |")
    kept = []
    for x in lines[head + 2:]:
        if not x.startswith("|"):
            break
        kept.append(x.split(" | ")[0][2:])
    assert kept == [r["name"] for r in f.ranked()[:len(kept)]] and len(kept) > 100, len(kept)
    m = re.search(r"^\*(\d+) more points left out, the least far from normal", md, re.M)
    assert m and int(m.group(1)) == len(f.rows) - len(kept), md[-3000:]
    assert lines[-1] == f"**FAIL: {len(f.outliers)} outliers, 0 missing nodes, {len(f.lacking)} points missing on a unit**"


@test
def fleet_of_fifteen_files_takes_under_10_s_and_500_mb():
    """The issue's bound on the 2-core build machine (17 s and 1.43 GB before), the heatmap written:
    measured in a child of its own, its processor time (user and system: the wall time on an idle
    machine, not moved by what else the shared machine runs) and its peak resident memory."""
    secs, kib, rc = timed_child([os.path.join(SCRIPTS, "fleet.py"), *FIFTEEN, "-o", os.path.join(TMP, "timed")])
    assert rc == 1 and secs < 10 and kib < 500 * 1024, (rc, secs, kib)
    print(f"# fleet of 15 files: {secs:.1f} s of processor time, {kib // 1024} MiB")


def timed_child(argv):
    """(processor seconds, peak resident KiB, exit status) of python3 ARGV run in a child."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
             "u = resource.getrusage(resource.RUSAGE_CHILDREN); print(p.returncode, u.ru_utime + u.ru_stime, u.ru_maxrss)")
    p = subprocess.run([sys.executable, "-c", probe, sys.executable, *argv], capture_output=True, text=True, timeout=600)
    rc, secs, kib = p.stdout.split()
    return float(secs), int(kib), int(rc)


def main():
    return tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True))

if __name__ == "__main__":
    sys.exit(main())
