#!/usr/bin/env python3
"""Tests of the figures (TAP): the committed figures regenerate from the committed result files,
predict-mode files plot, legend labels tell files apart, each fixed defect stays fixed (checked on
the drawn figure: where texts and legends lie, what the ticks read), and unusual input or a bad
output directory gets one line and the documented exit status, never a half-written image.

  test_plot.py [SMEMBENCH]   the program, to make fresh predict-mode files (else those tests skip)
"""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
RESULTS = os.path.join(ROOT, "results")
sys.path.insert(0, os.path.join(SCRIPTS, "..", "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402
from smembench import plot  # noqa: E402
from smembench import reader  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
# Another matplotlib version draws text a little differently and may move an edge by a pixel: a
# committed figure and a fresh one made by it must show the same texts (the PNG's Description) and
# differ in at most this share of pixels, a pixel counting as the same when one within SHIFT pixels
# of it has nearly its colour (3.6.3 against 3.9.2: 0.044 % at most, about 200 pixels; a moved
# legend or a missing bar is thousands)
MAX_UNMATCHED = 0.001
SHIFT = 2




def result(name):
    return os.path.join(RESULTS, name)


H200 = {k: result(f"nvidia-h200_20261129_{k}.json") for k in
        ("bandwidth-latency-bank", "carveout", "dynamic", "tile", "reduction", "bank-bandwidth_run1",
         "bank-bandwidth_run2")}
X2 = result("nvidia-h200-x2_20261129_bandwidth-latency-bank.json")
A100 = result("predict/nvidia-a100-sxm4-model_20261130_carveout-dynamic.json")


def run_plot(*args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot.py"), *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, f"expected one line, got: {err!r}"
    return lines[0]


def png_text(path):
    """The text chunks of a PNG: Software (matplotlib names its version) and Description."""
    from PIL import Image
    with Image.open(path) as img:
        return dict(img.text)


def unmatched(a, b):
    """The share of a's pixels with no pixel of nearly their colour within SHIFT pixels in b."""
    import numpy as np
    h, w = a.shape[:2]
    pad = np.pad(b, ((SHIFT, SHIFT), (SHIFT, SHIFT), (0, 0)), mode="edge")
    best = np.full((h, w), np.inf)
    for dy in range(-SHIFT, SHIFT + 1):
        for dx in range(-SHIFT, SHIFT + 1):
            moved = pad[SHIFT + dy:SHIFT + dy + h, SHIFT + dx:SHIFT + dx + w]
            best = np.minimum(best, np.abs(a - moved).max(axis=2))
    return float((best > 0.25).mean())


def figures_of(paths):
    plt = plot.pyplot()
    loaded = plot.load(paths, lambda text: None)
    return plt, dict(plot.figures(plt, plot.make_series(loaded)))


def labels(paths):
    return [s.label for s in plot.relabel(plot.make_series(plot.load(paths, lambda t: None)))]


@test
def committed_figures_regenerate_from_the_committed_files():
    import matplotlib
    import matplotlib.image
    committed = sorted(p for p in glob.glob(os.path.join(RESULTS, "plots", "**", "*.png"), recursive=True)
                       if os.sep + "before" + os.sep not in p)
    assert len(committed) >= 8, committed
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(["bash", os.path.join(SCRIPTS, "figures.sh"), d, "plots"], capture_output=True, text=True,
                           timeout=600, env=dict(os.environ, PYTHON=sys.executable))
        assert p.returncode == 0, p.stderr
        made = sorted(glob.glob(os.path.join(d, "plots", "**", "*.png"), recursive=True))
        assert [os.path.relpath(m, os.path.join(d, "plots")) for m in made] == \
            [os.path.relpath(c, os.path.join(RESULTS, "plots")) for c in committed], (made, committed)
        exact, worst = 0, 0.0
        for c, m in zip(committed, made):
            tc, tm = png_text(c), png_text(m)
            assert tc.get("Description") and tc.get("Description") == tm.get("Description"), \
                f"{c} shows other texts than a fresh figure: run scripts/figures.sh"
            if tc.get("Software") == tm.get("Software"):
                # the same matplotlib: the bytes must be the same
                assert open(c, "rb").read() == open(m, "rb").read(), \
                    f"{c} differs from a fresh figure (matplotlib {matplotlib.__version__}): run scripts/figures.sh"
                exact += 1
            else:
                a, b = matplotlib.image.imread(c)[..., :3], matplotlib.image.imread(m)[..., :3]
                assert a.shape == b.shape, (c, a.shape, b.shape)
                share = max(unmatched(a, b), unmatched(b, a))
                assert share <= MAX_UNMATCHED, f"{c}: {100 * share:.3f} % of the pixels differ"
                worst = max(worst, share)
        print(f"# {exact} of {len(made)} figures byte-identical (matplotlib {matplotlib.__version__}), "
              f"the rest at most {100 * worst:.3f} % of pixels apart")


@test
def committed_predict_files_validate():
    files = glob.glob(os.path.join(RESULTS, "predict", "*.json"))
    assert len(files) >= 3, files
    for f in files:
        doc = reader.load(f)
        assert doc["run"]["mode"] == "predict" and doc["device"]["model"] is True, f
        assert any(r["status"] == "predicted" for r in doc["results"]), f


@test
def fresh_predict_files_of_several_models_plot_the_staircase_and_the_carveout_steps():
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    with tempfile.TemporaryDirectory() as d:
        files = []
        for model in ("t4", "a100", "l4", "b200"):
            f = os.path.join(d, f"{model}.json")
            p = subprocess.run([SMEMBENCH, "--predict", model, "--sweep", "carveout,dynamic", "-q", "-o", f],
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr
            files.append(f)
        rc, out, err = run_plot(*files, "-o", os.path.join(d, "plots"))
        assert rc == 0, err
        names = sorted(os.path.basename(x) for x in out.split())
        # four models: the generations figure too (figures/generations.py)
        assert names == ["carveout.png", "carveout.svg", "generations.png", "generations.svg", "occupancy.png",
                         "occupancy.svg"], names
        for fig in ("carveout", "occupancy"):
            svg = open(os.path.join(d, "plots", f"{fig}.svg")).read()
            for f in files:
                name = reader.load(f)["device"]["name"]
                assert f"; {name}<" in svg or f">{name}<" in svg, f"{fig}: the legend names {name}"


@test
def a_predict_file_draws_predicted_blocks_per_sm():
    plt, figs = figures_of([A100])
    assert set(figs) == {"carveout", "occupancy"}, set(figs)
    doc = reader.load(A100)
    want = sorted((r["params"]["dyn_smem_bytes"] / 1024, r["occupancy"]["predicted"]) for r in doc["results"]
                  if r["bench"] == "dynamic" and r["status"] == "predicted")
    ax = figs["occupancy"].axes[0]
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("predicted"))
    drawn = {(float(x), float(y)) for x, y in zip(line.get_xdata(), line.get_ydata()) if x == x}
    assert set(want) <= drawn, "every predicted point is on the staircase"
    assert {x for x, _ in drawn} == {x for x, _ in want}, "the staircase is drawn over the predicted sizes only"
    for f in figs.values():
        plt.close(f)


@test
def labels_tell_files_apart_only_as_far_as_needed():
    assert labels([H200["bandwidth-latency-bank"]]) == ["NVIDIA H200"]
    assert labels([H200["carveout"], A100]) == ["NVIDIA H200", "NVIDIA A100-SXM4 (model)"]
    two = labels([H200["bank-bandwidth_run1"], H200["bank-bandwidth_run2"]])
    assert two == ["NVIDIA H200, 12:36:18 UTC", "NVIDIA H200, 12:36:21 UTC"], two
    assert labels([X2]) == ["NVIDIA H200 #0 on vm", "NVIDIA H200 #1 on vm"]
    # the same file named twice is read once (the scanner's rule): one series
    assert labels([H200["carveout"], H200["carveout"]]) == ["NVIDIA H200"]
    # two copies of one file are two series, told apart
    with tempfile.TemporaryDirectory() as d:
        dup = shutil.copy(H200["carveout"], os.path.join(d, "copy.json"))
        same = labels([H200["carveout"], dup])
    assert len(set(same)) == 2 and all(s.startswith("NVIDIA H200") for s in same), same
    # the tile and the reduction sweep of one session: two files, two series, told apart by the sweep
    assert labels([H200["tile"], H200["reduction"]]) == ["NVIDIA H200, --sweep tile", "NVIDIA H200, --sweep reduction"]


@test
def legends_never_cover_an_axes():
    plt, figs = figures_of([H200[k] for k in ("bandwidth-latency-bank", "carveout", "dynamic", "tile", "reduction",
                                              "bank-bandwidth_run1")] + [A100])
    # two GPU models (the H200 measured, the A100 predicted): the generations figure too
    assert set(figs) == {"carveout", "occupancy", "bank", "bandwidth", "tile", "memory", "generations"}, set(figs)
    for name, fig in figs.items():
        fig.canvas.draw()
        # an axes drawn without its axis is a legend's holder (generations' keys below the panels)
        boxes = [a.get_window_extent() for a in fig.axes if a.axison]
        for a in fig.axes:
            leg = a.get_legend()
            if leg:
                lb = leg.get_window_extent()
                assert not any(lb.overlaps(b) for b in boxes), f"{name}: a legend covers an axes"
                assert fig.bbox.contains(lb.x1 - 1, lb.y0 + 1), f"{name}: a legend runs off the figure"
        plt.close(fig)


@test
def the_opt_in_note_is_inside_the_axes():
    plt, figs = figures_of([H200["dynamic"]])
    fig = figs["occupancy"]
    fig.canvas.draw()
    ax = fig.axes[0]
    notes = [t for t in ax.texts if "opt-in above" in t.get_text()]
    assert len(notes) == 1, [t.get_text() for t in ax.texts]
    nb, ab = notes[0].get_window_extent(), ax.get_window_extent()
    assert ab.x0 <= nb.x0 and nb.x1 <= ab.x1 and ab.y0 <= nb.y0 and nb.y1 <= ab.y1, (nb, ab)
    assert notes[0].get_text().strip() == "48 KiB: opt-in above"
    plt.close(fig)


@test
def the_tile_plot_reads_1024_and_has_one_title():
    plt, figs = figures_of([H200["tile"]])
    fig = figs["tile"]
    fig.canvas.draw()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1024", "2048", "4096"]
    assert [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()] == []
    assert ax.get_title() == "NVIDIA H200", "the panel is titled by its series"
    assert fig._suptitle.get_text().count("NVIDIA H200") == 1
    plt.close(fig)


# ---- the tile figure with the pipelined SGEMM (issue 22) ------------------------------------------
#
# No committed file has sgemm_cp_async / sgemm_tma points yet. The fixture is the committed H200 tile
# sweep (its matmul, matmul_rb and cuBLAS points as measured) plus the SGEMM points that `smembench
# --predict h200 --sweep tile` plans (params, launch and shared memory, predicted blocks per SM,
# skipped points with their reasons), timed here with made-up rates: a share of the real cuBLAS rate
# at the same n that grows with the stages, favours bk 16 and TMA, and loses with bm 256.

SGEMMS = ("sgemm_cp_async", "sgemm_tma")


def fixture_share(r):
    """The fixture's rate of an SGEMM point as a share of cuBLAS at its n (made up, see above)."""
    import math
    p = r["params"]
    return (0.50 + 0.06 * math.log2(p["stages"]) + {8: 0.0, 16: 0.05, 32: 0.02}[p["bk"]] +
            (0.03 if r["bench"] == "sgemm_tma" else 0.0) - (0.05 if p["bm"] == 256 else 0.0))


def sgemm_tile_file(d):
    """The fixture file in d: the committed tile sweep plus the planned SGEMM points, timed."""
    if not SMEMBENCH:
        raise Skip("no smembench program given (the SGEMM points come from its --predict plans)")
    pred = os.path.join(d, "pred.json")
    p = subprocess.run([SMEMBENCH, "--predict", "h200", "--sweep", "tile", "-q", "-o", pred], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = copy.deepcopy(reader.load(H200["tile"]))
    cublas = {r["params"]["n"]: r for r in doc["results"] if r["bench"] == "cublas" and r["status"] == "ok"}
    added = 0
    for plan in reader.load(pred)["results"]:
        if plan["bench"] not in SGEMMS:
            continue
        r = copy.deepcopy(plan)
        r.pop("between_run", None)      # the committed file predates it
        if r["status"] == "predicted":
            ref = cublas[r["params"]["n"]]
            c_gflops = reader.metric(ref, "gflops")
            gflops = c_gflops * fixture_share(r)
            peak = c_gflops / reader.metric(ref, "pct_of_fp32_peak") * 100
            ns = round(2 * r["params"]["n"] ** 3 / gflops)
            raw = [ns + k for k in (-300, -100, 0, 100, 300)]
            r["status"] = "ok"
            r["time_ns"] = {"stats": {"min": raw[0], "q1": raw[1], "median": ns, "q3": raw[3], "max": raw[-1],
                                      "mean": ns, "stdev": 224, "noise": 224 / ns, "count": len(raw)}, "raw": raw}
            r["clock_mhz"] = ref["clock_mhz"]
            r["metrics"] = {"gflops": {"value": gflops, "unit": "GFLOP/s", "ceiling": peak},
                            "pct_of_fp32_peak": {"value": 100 * gflops / peak, "unit": "%", "ceiling": 100},
                            "pct_of_cublas": {"value": 100 * gflops / c_gflops, "unit": "%", "ceiling": None}}
            blocks = r["occupancy"]["predicted"]
            r["occupancy"].update(api=blocks, measured=blocks, measured_sms=doc["device"]["sm_count"])
            r["verified"] = True
            added += 1
        doc["results"].append(r)
    assert added >= 24, f"the plan has {added} SGEMM points to time"
    doc["run"]["argv"] += ["(fixture: SGEMM points added by tests/scripts/test_plot.py)"]
    path = os.path.join(d, "sgemm_tile.json")
    json.dump(doc, open(path, "w"))
    reader.load(path)   # a valid result file
    return path


def smem_kib(r):
    return (r["launch"]["static_smem"] + r["launch"]["dynamic_smem"]) / 1024


def xy_of(pts):
    return sorted((smem_kib(r), r["metrics"]["gflops"]["value"] / 1e3) for r in pts)


# the tile sweep of the H200 with the pipelined SGEMM, its A widths and the transpose's blocks of two tiles (commit d59a408)
H200_SGEMM = os.path.join(RESULTS, "tile", "nvidia-h200_20261201_tile_d59a408.json")


@test
def the_sgemm_tile_figure_is_tflops_against_shared_memory_per_block_with_cublas_the_line():
    # the real H200 file, then (with smembench to plan them) every shape's points on a fixture
    check_sgemm_figure(H200_SGEMM, 6)
    if SMEMBENCH:
        with tempfile.TemporaryDirectory() as d:
            check_sgemm_figure(sgemm_tile_file(d), 6)


def check_sgemm_figure(f, min_configs):
    doc = reader.load(f)
    ok = [r for r in doc["results"] if r["status"] == "ok"]
    sgemm = [r for r in ok if r["bench"] in SGEMMS]
    ns = sorted({r["params"]["n"] for r in sgemm})
    plt, figs = figures_of([f])
    fig = figs["tile"]
    fig.canvas.draw()
    assert [ax.get_title() for ax in fig.axes] == [f"NVIDIA H200, n = {v}" for v in ns], \
        "a panel per n of the SGEMM points: " + str([ax.get_title() for ax in fig.axes])
    boxes = [ax.get_window_extent() for ax in fig.axes]
    for ax, at in zip(fig.axes, ns):
        where = ax.get_title()
        assert "shared memory per block" in ax.get_xlabel() and ax.get_xscale() == "log", ax.get_xlabel()
        assert "TFLOP/s" in ax.get_ylabel()
        lines = {lab: sorted(zip(xs, ys)) for lab, xs, ys in drawn_lines(ax)}
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert sorted(legend) == sorted(lines), f"{where}: every line in the legend, each drawn: {legend}"
        here = [r for r in sgemm if r["params"]["n"] == at]
        configs = {}
        for r in here:
            p = r["params"]
            # files from before the A width axis read their float2 loads as a_width_bytes 8
            configs.setdefault((r["bench"], p["bm"], p["bn"], p["bk"], p.get("a_width_bytes", 8)), []).append(r)
        assert len(configs) >= min_configs, configs.keys()
        for (bench, bm, bn, bk, width), pts in configs.items():
            copy_ = "TMA" if bench == "sgemm_tma" else "cp.async"
            stages = ", ".join(str(s) for s in sorted(r["params"]["stages"] for r in pts))
            label = f"{copy_} {bm} x {bn} x {bk}, A float{width // 4}, stages {stages}"
            assert label in lines, f"{where}: no line {label!r} in {sorted(lines)}"
            assert lines[label] == xy_of(pts), f"{where}: {label} is not drawn at its stage points"
        # the teaching kernels at their own shared memory, global-only as a dotted floor
        tiled = [r for r in ok if r["bench"] == "matmul" and r["params"]["n"] == at and r["params"]["tile"]]
        rb = [r for r in ok if r["bench"] == "matmul_rb" and r["params"]["n"] == at]
        for name, pts in (("tiled matmul, tile", tiled), ("register-blocked, bk", rb)):
            got = [v for lab, v in lines.items() if lab.startswith(name)]
            assert got == [xy_of(pts)], f"{where}: {name} drawn at {got}, measured at {xy_of(pts)}"
        floor = next(r for r in ok if r["bench"] == "matmul" and r["params"]["n"] == at
                     and r["params"]["tile"] == 0)
        gl = next(ln for ln in ax.get_lines() if ln.get_label().startswith("global memory only"))
        assert abs(gl.get_ydata()[0] - floor["metrics"]["gflops"]["value"] / 1e3) < 1e-9 and \
            gl.get_linestyle() == ":"
        # cuBLAS: a black horizontal line at its rate, labelled with it on the plot
        cub = next(r for r in ok if r["bench"] == "cublas" and r["params"]["n"] == at)
        tf = cub["metrics"]["gflops"]["value"] / 1e3
        line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("cuBLAS"))
        assert set(line.get_ydata()) == {tf} and line.get_color() == "black", line.get_ydata()
        assert any(t.get_text() == f"cuBLAS {tf:.1f} TFLOP/s" for t in ax.texts), [t.get_text() for t in ax.texts]
        # the best point: the SGEMM point of most GFLOP/s, starred and named
        best = max(here, key=lambda r: r["metrics"]["gflops"]["value"])
        star = next(ln for ln in ax.get_lines() if ln.get_marker() == "*")
        assert list(zip(star.get_xdata(), star.get_ydata())) == xy_of([best]), f"{where}: the star is elsewhere"
        p = best["params"]
        name = (f"best: {best['bench']} {p['bm']} x {p['bn']} x {p['bk']}, A float{p.get('a_width_bytes', 8) // 4}, "
                f"{p['stages']} stages, "
                f"{smem_kib(best):.1f} KiB, {best['occupancy']['measured']} blocks/SM:\n"
                f"{best['metrics']['gflops']['value'] / 1e3:.1f} TFLOP/s, "
                f"{best['metrics']['pct_of_cublas']['value']:.0f} % of cuBLAS")
        assert [t.get_text() for t in ax.texts if t.get_text().startswith("best")] == [name], \
            f"{where}: {[t.get_text() for t in ax.texts]}"
        # blocks per SM: every SGEMM point ringed by the shape of its measured value
        for r in here:
            b = r["occupancy"]["measured"]
            want = f"ring: {b} block{'' if b == 1 else 's'}/SM (measured)"
            assert xy_of([r])[0] in lines.get(want, []), f"{where}: {reader.point_name(r)} not ringed as {want}"
        # readable: no legend over an axes or off the figure, no text over another
        lb = ax.get_legend().get_window_extent()
        assert not any(lb.overlaps(b) for b in boxes) and fig.bbox.contains(lb.x1 - 1, lb.y0 + 1), where
        texts = [t.get_window_extent() for t in ax.texts]
        assert not any(a.overlaps(b) for i, a in enumerate(texts) for b in texts[i + 1:]), where
        ab = ax.get_window_extent()
        for t, box in zip(ax.texts, texts):
            assert ab.x0 <= box.x0 and box.x1 <= ab.x1 and ab.y0 <= box.y0 and box.y1 <= ab.y1, \
                f"{where}: {t.get_text()!r} runs out of its panel"
    close(plt, figs)


@test
def smembench_plot_draws_the_sgemm_tile_figure_as_png():
    with tempfile.TemporaryDirectory() as d:
        f = sgemm_tile_file(d)
        out = os.path.join(d, "plots")
        rc, stdout, err = run_plot(f, "-o", out, "--format", "png")
        assert rc == 0 and "Traceback" not in err, (rc, err)
        assert "tile.png" in os.listdir(out), os.listdir(out)
        from PIL import Image
        with Image.open(os.path.join(out, "tile.png")) as img:
            assert img.size[0] >= 1000 and img.size[1] >= 900, img.size
            shown = img.text.get("Description", "")
        assert "shared memory per block" in shown and "best: sgemm_tma" in shown, shown[:400]


@test
def the_memory_plot_colours_kernels_and_its_labels_do_not_overlap():
    plt, figs = figures_of([H200["tile"], H200["reduction"]])
    fig = figs["memory"]
    fig.canvas.draw()
    ax = fig.axes[0]
    bars = [p for p in ax.patches if p.get_width() > 0 and p.get_facecolor()[3] > 0]
    assert len({p.get_facecolor() for p in bars}) >= 6, "a colour per kind of kernel"
    labels_ = [t.get_text() for t in ax.get_yticklabels()]
    assert any(s.startswith("device-to-device copy, 64 MiB") for s in labels_), labels_
    texts = [t.get_window_extent() for t in ax.texts]
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            assert not a.overlaps(b), "two value labels overlap"
    for t, p in zip(ax.texts, bars):
        assert t.get_window_extent().x0 >= p.get_window_extent().x1 - 1, f"{t.get_text()!r} overlaps its bar"
        assert ax.get_window_extent().contains(t.get_window_extent().x1 - 1, t.get_window_extent().y0 + 1), \
            f"{t.get_text()!r} runs out of the axes"
    plt.close(fig)


@test
def the_memory_plot_names_each_transpose_layout_and_geometry_and_reads_padding_words():
    with tempfile.TemporaryDirectory() as d:
        new = day_file("transpose_layouts", d)
        plt, figs = figures_of([H200["tile"], new])
    fig = figs["memory"]
    fig.canvas.draw()
    ax = fig.axes[0]
    labels_ = [t.get_text() for t in ax.get_yticklabels()]
    for want in ("transpose, tile [32][33], 256 MiB", "transpose, tile [32][32], 64 MiB",
                 "transpose, tile [32][32] XOR-swizzled, float accesses, 256 MiB",
                 "transpose, tile [64][65], float4 accesses, 256 MiB",
                 "transpose, tile [64][64] XOR-swizzled, float4 accesses, 64 MiB"):
        assert any(lab.startswith(want) for lab in labels_), (want, labels_)
    bars = list(zip(ax.containers[0].patches, labels_))     # one bar per row, in the rows' order
    colours = {}
    for p, lab in bars:
        if lab.startswith("transpose, tile"):
            kind = "swizzled" if "XOR" in lab else "padded" if "[32][33]" in lab or "[64][65]" in lab else "row-major"
            colours.setdefault(kind, set()).add(p.get_facecolor())
    assert sorted(colours) == ["padded", "row-major", "swizzled"], colours
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len(set.union(*colours.values())) == 3, "a colour per layout"
    hatches = {p.get_hatch() for p in ax.patches if p.get_hatch()}
    assert len(hatches) == 1, "two files, two hatch patterns: the geometry axes are drawn, not split"
    plt.close(fig)


H200_TILE_COPY = os.path.join(RESULTS, "tile", "nvidia-h200_20261201_tile_copy_repeat1_8343979.json")


@test
def the_memory_plot_draws_the_tile_copy_beside_the_transposes_it_bounds():
    # the real H200 run with the tile copy at 4, 8 and 16 KiB a block beside the transposes and the copy
    plt, figs = figures_of([H200_TILE_COPY])
    fig = figs["memory"]
    fig.canvas.draw()
    ax = fig.axes[0]
    labels_ = [t.get_text() for t in ax.get_yticklabels()]
    for kib in (4, 8, 16):
        for mib in (256, 1024):
            want = f"tile copy, no shared memory (64-float tiles, {kib} KiB a block), {mib} MiB"
            assert any(lab.startswith(want) for lab in labels_), (want, labels_)
    bars = dict(zip(labels_, ax.containers[0].patches))
    tile_copy = {p.get_facecolor() for lab, p in bars.items() if lab.startswith("tile copy")}
    others = {p.get_facecolor() for lab, p in bars.items() if not lab.startswith("tile copy")}
    assert len(tile_copy) == 1 and not tile_copy & others, "a colour of its own"
    doc = reader.load(H200_TILE_COPY)
    pct = {(r["params"]["mib"], r["params"]["block_kib"]): reader.metric(r, "pct_of_copy")
           for r in doc["results"] if r["bench"] == "tile_copy"}
    shown = " ".join(t.get_text() for t in ax.texts)
    for (mib, kib), v in pct.items():
        assert f"{v:.1f} % of the copy" in shown, (mib, kib, v, shown[:300])
    plt.close(fig)


@test
def overlaying_files_keeps_the_latency_ticks_and_labels_each_file_once():
    # the last file has no latency points: it once cleared the latency axis' ticks
    files = [H200["bandwidth-latency-bank"], H200["bank-bandwidth_run1"], H200["bank-bandwidth_run2"]]
    plt, figs = figures_of(files)
    fig = figs["bandwidth"]
    fig.canvas.draw()
    bw, lat = fig.axes
    assert [t.get_text() for t in lat.get_xticklabels()] == ["address chase", "index chase j = s[j]"]
    assert [t.get_text() for t in bw.get_xticklabels()] == ["4 B", "8 B", "16 B"]
    short = [s.short for s in plot.relabel(plot.make_series(plot.load(files, lambda t: None)))]
    entries = [t.get_text() for t in bw.get_legend().get_texts() if not t.get_text().startswith("ceiling")]
    assert entries[:3] == short and len(set(entries[:3])) == 3, entries
    entries = [t.get_text() for t in lat.get_legend().get_texts()]
    assert entries == short[:1], "only the file with latency points is in the latency legend: " + str(entries)
    colours = {tuple(p.get_facecolor()) for p in lat.patches}
    assert len(colours) == 1, "only the file with latency points has latency bars"
    bank = figs["bank"]
    bank.canvas.draw()
    entries = [t.get_text() for t in bank.axes[0].get_legend().get_texts()]
    assert entries == ["bank model"] + short, entries
    for f in figs.values():
        plt.close(f)


@test
def the_readme_glob_skips_the_schema_with_a_note():
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run_plot(*sorted(glob.glob(os.path.join(RESULTS, "*.json"))), "-o", d)
        assert rc == 0, err
        assert "skipping" in err and "schema.json: not a smembench result file" in err, err
        assert "Traceback" not in err


@test
def ok_points_without_statistics_are_left_out_of_the_time_plots():
    """A --check run writes ok points with null statistics: plotted without times, one note."""
    with tempfile.TemporaryDirectory() as d:
        for name, want_rc in (("carveout", 0), ("bandwidth-latency-bank", 1)):
            doc = json.load(open(H200[name]))
            doc["run"]["argv"].append("--check")   # what a --check run records (an ok point without a time else is refused)
            for r in doc["results"]:
                r["time_ns"] = {"stats": {k: None for k in r["time_ns"]["stats"]}, "raw": []}
                r["time_ns"]["stats"]["count"] = 0
                r["clock_mhz"] = None
                r["metrics"] = {}
            f = os.path.join(d, f"{name}.json")
            json.dump(doc, open(f, "w"))
            reader.load(f)   # schema-valid
            out = os.path.join(d, name)
            rc, stdout, err = run_plot(f, "-o", out)
            assert rc == want_rc, (rc, err)
            lines = err.strip().splitlines()
            assert "Traceback" not in err and 1 <= len(lines) <= 4, err
            assert "ran without a time" in lines[0], lines
            assert all(f in line for line in lines[1:-1]), "each figure's note names the file"
            if want_rc == 0:
                assert sorted(os.listdir(out)) == ["carveout.png", "carveout.svg"], os.listdir(out)
            else:
                assert "nothing to plot" in lines[-1]
                assert not os.path.exists(out), "nothing to plot: no directory made"


@test
def a_bad_output_directory_is_one_line_and_exit_2():
    with tempfile.TemporaryDirectory() as d:
        afile = os.path.join(d, "afile")
        open(afile, "w").write("x")
        for out, needle in ((os.path.join(afile, "plots"), "cannot create the output directory"),
                            (afile, "is not a directory"),
                            ("/proc/version/plots", "cannot create the output directory")):
            rc, stdout, err = run_plot(H200["carveout"], "-o", out)
            assert rc == 2 and needle in one_line(err), (out, rc, err)
            assert stdout == ""
        assert open(afile).read() == "x"
        if os.geteuid() != 0:
            ro = os.path.join(d, "ro")
            os.mkdir(ro, 0o500)
            rc, _, err = run_plot(H200["carveout"], "-o", ro)
            assert rc == 2 and "cannot write" in one_line(err), err
            assert os.listdir(ro) == []


@test
def an_image_is_whole_or_absent():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fig.png")

        def fails(f):
            f.write(b"\x89PNG half")
            raise OSError(28, "No space left on device")
        try:
            plot.write_atomically(path, fails)
            raise AssertionError("the failure was swallowed")
        except plot.OutputError as e:
            assert "No space left on device" in str(e), str(e)
        assert os.listdir(d) == [], os.listdir(d)
        open(path, "wb").write(b"old")
        try:
            plot.write_atomically(path, fails)
        except plot.OutputError:
            pass
        assert os.listdir(d) == ["fig.png"] and open(path, "rb").read() == b"old"
        plot.write_atomically(path, lambda f: f.write(b"new"))
        assert open(path, "rb").read() == b"new" and os.listdir(d) == ["fig.png"]
        assert os.stat(path).st_mode & 0o444 == 0o444 & ~plot._umask(), oct(os.stat(path).st_mode)


@test
def a_missing_matplotlib_is_one_line_naming_the_debian_package():
    with tempfile.TemporaryDirectory() as d:
        # -S: no site-packages, so no matplotlib
        p = subprocess.run([sys.executable, "-S", os.path.join(SCRIPTS, "plot.py"), H200["carveout"], "-o", d],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 3, (p.returncode, p.stderr)
        assert "install the Debian package python3-matplotlib" in one_line(p.stderr)


@test
def unusable_results_are_one_line_and_exit_2():
    with tempfile.TemporaryDirectory() as d:
        doc = json.load(open(H200["carveout"]))
        bad = copy.deepcopy(doc)
        bad["schema"] = "smembench/2"
        f = os.path.join(d, "v2.json")
        json.dump(bad, open(f, "w"))
        for path, needle in ((f, "not supported"), (os.path.join(d, "missing.json"), "No such file")):
            rc, out, err = run_plot(path, "-o", os.path.join(d, "plots"))
            assert rc == 2 and needle in one_line(err), (rc, err)
            assert not os.path.exists(os.path.join(d, "plots"))



# ---- issue 25: the figures of one day's files, each defect checked on the drawn figure ------------
#
# The day's runs with extra --axis values (a footprint run with --axis tile_bytes=8192,49152,100000,
# a cluster run of sizes 3,5,12, a staging_bulk-only run, a --quick staging run) are taken from
# results/day/*.json when such files are there (found by what they hold, whatever their names).
# Until then each is made here from real H200 points by selecting and relabelling them (day_file):
# footprint points of three real runs labelled with the three tile sizes; cluster points of sizes
# 2/4/8 relabelled 3/5/12; the staging_bulk points alone without the global_read they were compared
# with; the staging points at every other transfer size as a 64 MiB --quick run.

DAY = {k: result(f"nvidia-h200_20261130_{k}.json") for k in ("all", "all_run2", "cluster", "staging", "dynamic")}
QUICK = result("gate/nvidia-h200_20261130_quick_run1.json")
SWIZZLE = result("swizzle/nvidia-h200_20261130_swizzle.json")
SWIZZLE_PTX80 = result("swizzle/nvidia-h200_20261130_swizzle_ptx80.json")


def _params(doc, bench, key):
    return {r["params"].get(key) for r in doc["results"] if r["bench"] == bench}


def real_day_file(kind):
    """A committed results/day/ file of that kind, or None."""
    for f in sorted(glob.glob(os.path.join(RESULTS, "day", "*.json"))):
        try:
            doc = reader.load(f)
        except reader.ResultError:
            continue
        benches = {r["bench"] for r in doc["results"]}
        if kind == "tile_bytes" and len(_params(doc, "footprint", "tile_bytes")) > 1:
            return f
        if kind == "cluster_3_5_12" and {3, 5, 12} <= _params(doc, "dsm_latency", "cluster_size"):
            return f
        if kind == "bulk_only" and benches == {"staging_bulk"}:
            return f
        if kind == "quick_staging" and doc["run"]["settings"].get("quick") and "staging_bulk" in benches:
            return f
        if kind == "transpose_layouts" and len(_params(doc, "transpose", "layout")) > 2:
            return f
    return None


def day_file(kind, d):
    """The path of a file of that kind: the real one in results/day/, else one made in d from real points."""
    real = real_day_file(kind)
    if real:
        return real
    if kind == "tile_bytes":
        doc = copy.deepcopy(reader.load(DAY["all"]))
        pts = []
        for tile, src in ((8192, DAY["all"]), (49152, DAY["all_run2"]), (100000, H200["carveout"])):
            for r in reader.load(src)["results"]:
                if r["bench"] == "footprint":
                    r = copy.deepcopy(r)
                    r["params"]["tile_bytes"] = tile
                    pts.append(r)
        doc["results"] = pts + [r for r in doc["results"] if r["bench"] == "gather"]
        doc["run"]["sweep"] = "carveout"
        doc["run"]["argv"] += ["--axis", "tile_bytes=8192,49152,100000"]
    elif kind == "cluster_3_5_12":
        doc = copy.deepcopy(reader.load(DAY["cluster"]))
        new = {2: 3, 4: 5, 8: 12}
        doc["results"] = [r for r in doc["results"] if r["params"].get("cluster_size") in new]
        for r in doc["results"]:
            r["params"]["cluster_size"] = new[r["params"]["cluster_size"]]
        doc["run"]["argv"] += ["--axis", "cluster_size=3,5,12"]
    elif kind == "bulk_only":
        doc = copy.deepcopy(reader.load(DAY["staging"]))
        doc["results"] = [r for r in doc["results"] if r["bench"] == "staging_bulk"]
        for r in doc["results"]:
            r["metrics"].pop("pct_of_read", None)     # nothing to be a per cent of
        doc["run"]["sweep"] = "staging_bulk"
    elif kind == "quick_staging":
        doc = copy.deepcopy(reader.load(DAY["staging"]))
        sizes = sorted(_params(doc, "staging_bulk", "transfer_bytes"))[::2]
        doc["results"] = [r for r in doc["results"] if r["params"].get("transfer_bytes", sizes[0]) in sizes]
        for r in doc["results"]:
            r["params"]["mib"] = 64
        doc["run"]["settings"]["quick"] = True
        doc["run"]["started"] = doc["run"]["started"][:11] + "09:58:00Z"
    elif kind == "transpose_layouts":
        # the layout axis (0 row-major, 1 padded, 2 swizzled) and the geometry axes in place of
        # padding_words: the 32-float tile's points as they were, a swizzled twin of the padded one and
        # the three layouts at the 64-float edge with float4 accesses, their GB/s made up
        doc = copy.deepcopy(reader.load(H200["tile"]))
        pts = [r for r in doc["results"] if r["bench"] in ("copy", "transpose_naive")]
        for r in doc["results"]:
            if r["bench"] != "transpose":
                continue
            pad = r["params"].pop("padding_words")
            for layout, edge, width, scale in ((pad, 32, 4, 1.0), (2, 32, 4, 1.01), (pad, 64, 16, 1.08),
                                               (2, 64, 16, 1.1)):
                if layout == 2 and not pad:
                    continue
                t = copy.deepcopy(r)
                t["params"] = dict(r["params"], layout=layout, edge_elems=edge, width_bytes=width, band_tiles=1)
                for m in ("gbytes_per_s", "pct_of_copy"):
                    t["metrics"][m]["value"] *= scale
                pts.append(t)
        doc["results"] = pts
        doc["run"]["argv"] += ["--axis", "edge_elems=32,64", "--axis", "width_bytes=4,16"]
    path = os.path.join(d, f"{kind}.json")
    json.dump(doc, open(path, "w"))
    reader.load(path)   # a valid result file
    return path


def drawn_lines(ax):
    """The labelled lines of an axes that show data: [(label, xs, ys)] without the NaN breaks."""
    out = []
    for ln in ax.get_lines():
        xs = [float(x) for x in ln.get_xdata()]
        ys = [float(y) for y in ln.get_ydata()]
        if ln.get_label().startswith("_") or not any(x == x for x in xs):
            continue
        # a line shows data only where it has a marker or two points to join (cuBLAS at the one n of
        # a --quick file was a legend entry over nothing)
        finite = sum(1 for x, y in zip(xs, ys) if x == x and y == y)
        if ln.get_marker() in (None, "None", "", " ") and (finite < 2 or ln.get_linestyle() in ("None", "", " ")):
            continue
        out.append((ln.get_label(), xs, ys))
    return out


def close(plt, figs):
    for f in figs.values():
        plt.close(f)


@test
def a_file_varying_tile_bytes_gives_a_line_per_tile_size():
    with tempfile.TemporaryDirectory() as d:
        f = day_file("tile_bytes", d)
        tiles = sorted(_params(reader.load(f), "footprint", "tile_bytes"))
        plt, figs = figures_of([DAY["all"], f])
        ax = figs["carveout"].axes[0]
        foot = [(lab, xs, ys) for lab, xs, ys in drawn_lines(ax) if lab.startswith("footprint")]
        assert len(foot) == 1 + len(tiles), [lab for lab, _, _ in foot]
        for t in tiles:
            assert sum(f"tile_bytes={t}" in lab for lab, _, _ in foot) == 1, (t, [lab for lab, _, _ in foot])
        for lab, xs, _ in foot:
            assert xs == sorted(set(xs)), f"{lab}: one point per carveout, never a swing back: {xs}"
        blocks = figs["carveout"].axes[1]
        for lab, xs, _ in drawn_lines(blocks):
            real = [x for x in xs if x == x]
            assert real == sorted(real), f"{lab}: the API line jumps back and forth"
        close(plt, figs)


@test
def files_of_one_day_are_never_merged():
    with tempfile.TemporaryDirectory() as d:
        c3 = day_file("cluster_3_5_12", d)
        plt, figs = figures_of([DAY["cluster"], c3])
        for ax in figs["cluster"].axes:
            for lab, xs, _ in drawn_lines(ax):
                sizes = {x for x in xs if x == x}
                assert sizes <= {3, 5, 12} or not sizes & {3, 5, 12}, f"{ax.get_title()}: {lab} mixes two files"
        close(plt, figs)
        plt, figs = figures_of([DAY["all"], H200["carveout"]])
        mib = [lab for lab, _, _ in drawn_lines(figs["carveout"].axes[0])]
        assert len(mib) == 4, f"two files, two kernels: four lines, not a merged sawtooth: {mib}"
        close(plt, figs)
        q = day_file("quick_staging", d)
        plt, figs = figures_of([DAY["staging"], q])
        axes = figs["staging"].axes
        assert len(axes) == 2, "the full and the quick staging run each get a panel"
        assert "--quick" in axes[1].get_title() + axes[0].get_title(), [a.get_title() for a in axes]
        for ax in axes:
            for lab, xs, _ in drawn_lines(ax):
                assert len(xs) == len(set(xs)), f"{ax.get_title()}: {lab} has two points at one size"
        close(plt, figs)


@test
def the_cluster_figure_draws_only_what_was_measured():
    """Issue 35: the clusters-resident panel drew the API's answer as steps between cluster sizes 1
    and 2 (where no cluster exists) under log2 ticks of 1024/512/128/64 beside values of
    1056/528/132/66, and the H800 anchor at size 2 (181 cycles, one value) was a bar of no height."""
    doc = reader.load(DAY["cluster"])
    sms = doc["device"]["sm_count"]
    plt, figs = figures_of([DAY["cluster"]])
    fig = figs["cluster"]
    fig.canvas.draw()
    by = {ax.get_title(): ax for ax in fig.axes}
    occ = by["Clusters resident at once"]
    measured = {r["params"]["cluster_size"] for r in doc["results"] if r["bench"] == "cluster_occupancy"}
    for ln in occ.get_lines():
        xs = [x for x in ln.get_xdata() if x == x]
        assert set(xs) <= measured and len(xs) == len(set(xs)), f"{ln.get_label()}: x {xs} beyond {measured}"
        assert ln.get_linestyle() == "None", f"{ln.get_label()} joins cluster sizes with a line"
    ticks = [float(t.get_text().split()[0]) for t in occ.get_yticklabels() if t.get_text()]
    drawn = {v for ln in occ.get_lines() for v in ln.get_ydata()}
    assert sms in ticks and 8 * sms in drawn and 8 * sms in ticks, (ticks, sms)
    assert not [t for t in ticks if t >= 32 and t % sms and sms % t], f"ticks beside the counts: {ticks}"
    # each measured series in the colour of the API's answer it checks
    lines = occ.get_lines()
    for api, meas in zip(lines[::2], lines[1::2]):
        assert api.get_label().startswith("API") and meas.get_label().startswith("measured")
        assert api.get_color() == meas.get_color(), (api.get_label(), api.get_color(), meas.get_color())
    lat = by["DSM load latency"]
    anchors = [ln for ln in lat.get_lines() if ln.get_color() == "dimgray"]
    assert anchors, "the H800 anchors are drawn"
    for ln in anchors:
        ys = list(ln.get_ydata())
        assert len(ys) == 1 and ln.get_marker() not in ("None", "", None) or max(ys) > min(ys), \
            f"an anchor of no height: {list(ln.get_xdata())}, {ys}"
    close(plt, figs)


@test
def the_staging_figure_keeps_one_colour_per_kernel_and_readable_ticks():
    """Issue 35: staging's last tick read "226.875K" and a colour meant a (kernel, width) pair, so
    that a panel without one of them shifted the others. Now a colour is a kernel in every panel and
    the width is the line style; a size that is no whole KiB has one decimal."""
    from smembench.figures import staging
    with tempfile.TemporaryDirectory() as d:
        q = day_file("quick_staging", d)
        plt, figs = figures_of([DAY["staging"], q])
        fig = figs["staging"]
        fig.canvas.draw()
        colour, style = {}, {}
        for ax in fig.axes:
            ticks = [t.get_text() for t in ax.get_xticklabels()]
            assert ticks and all(re.fullmatch(r"\d+(\.\d)?K", t) for t in ticks), ticks
            for ln in ax.get_lines():
                lab = ln.get_label()
                kernel = next((k for k, v in staging.KERNELS.items() if lab.startswith(v[0] + ",") or lab == v[0]), None)
                if kernel is None:
                    continue
                assert colour.setdefault(kernel, ln.get_color()) == ln.get_color(), f"{ax.get_title()}: {lab}"
                width = lab.rsplit(", ", 1)[-1] if lab != staging.KERNELS[kernel][0] else ""
                assert style.setdefault(width, ln.get_linestyle()) == ln.get_linestyle(), f"{lab}: another style"
        assert len(set(colour.values())) == len(colour) == 3, colour
        close(plt, figs)
    assert staging.kib(232320) == "226.9K" and staging.kib(65536) == "64K"


@test
def the_bank_model_is_a_bar_at_each_stride_not_a_comb_of_risers():
    """Issue 35: the bank model was a step line with a riser between every two strides where it
    alternates (a comb between integer strides that the model does not define)."""
    doc = reader.load(H200["bandwidth-latency-bank"])
    plt, figs = figures_of([H200["bandwidth-latency-bank"]])
    fig = figs["bank"]
    for ax in fig.axes:
        w = int(ax.get_title().split("-")[0])
        want = {(r["params"]["stride_elems"], reader.metric(r, "predicted_slowdown")) for r in doc["results"]
                if r["bench"] == "bank" and r["status"] == "ok" and r["params"]["width_bytes"] == w}
        model = [ln for ln in ax.get_lines() if ln.get_label() == "bank model"]
        assert len(model) == 1, [ln.get_label() for ln in ax.get_lines()]
        xs, ys = list(model[0].get_xdata()), list(model[0].get_ydata())
        assert model[0].get_linestyle() == "None", f"{w}-byte panel: the model's values are joined by risers"
        assert len(xs) == len(set(xs)) and all(x == x for x in xs), f"{w}-byte panel: x {xs}"
        assert set(zip(xs, ys)) == want, f"{w}-byte panel: the model drawn is not the file's"
    close(plt, figs)


@test
def overlays_of_one_gpu_model_keep_absolute_times():
    with tempfile.TemporaryDirectory() as d:
        slow = json.load(open(DAY["all"]))
        for r in slow["results"]:   # the same run 10 % slower everywhere
            r["time_ns"]["raw"] = [round(v * 1.1) for v in r["time_ns"]["raw"]]
            if isinstance(r["time_ns"]["stats"].get("median"), (int, float)):
                r["time_ns"]["stats"]["median"] = round(r["time_ns"]["stats"]["median"] * 1.1)
        f = os.path.join(d, "slow.json")
        json.dump(slow, open(f, "w"))
        plt, figs = figures_of([DAY["all"], f])
        for name, panel in (("carveout", 0), ("occupancy", 1)):
            ax = figs[name].axes[panel]
            assert "(us)" in ax.get_ylabel(), (name, ax.get_ylabel())
            lines = drawn_lines(ax)
            base = next(ys for lab, _, ys in lines if "#1" in lab or "slow" not in lab)
            ratios = [[b / a for a, b in zip(base, ys)] for lab, _, ys in lines if len(ys) == len(base)]
            assert any(all(abs(r - 1.1) < 1e-4 for r in rs) for rs in ratios), \
                f"{name}: the 10 % slower run is drawn 10 % above its base"
        close(plt, figs)
        # another GPU model (no timed file of one is committed: the slow file relabelled)
        slow["device"]["name"] = "NVIDIA H100 80GB HBM3"
        json.dump(slow, open(f, "w"))
        plt, figs = figures_of([DAY["all"], f])
        label = figs["occupancy"].axes[1].get_ylabel()
        assert "fastest" in label and "models differ" in label, label
        close(plt, figs)


@test
def step_lines_stay_over_the_measured_values():
    plt, figs = figures_of([QUICK])
    doc = reader.load(QUICK)
    strides = _params(doc, "bank", "stride_elems")
    for ax in figs["bank"].axes:
        model = next(ln for ln in ax.get_lines() if ln.get_label() == "bank model")
        xs = list(model.get_xdata())
        assert {x for x in xs if x == x} <= strides, "the model is drawn at measured strides only"
        for i in range(1, len(xs)):     # never a level from 16 to 32: 24 was not measured
            if model.get_linestyle() == "None":
                break                   # a bar at each stride (issue 35): nothing joins two strides
            if xs[i] == xs[i] and xs[i - 1] == xs[i - 1] and xs[i] != xs[i - 1]:
                assert xs[i] - xs[i - 1] <= 1, f"{ax.get_title()}: a step drawn from {xs[i - 1]} to {xs[i]}"
    occ = figs["occupancy"].axes[0]
    api = next(ln for ln in occ.get_lines() if ln.get_label().startswith("API"))
    pts = list(zip(api.get_xdata(), api.get_ydata()))
    k = next(i for i, (x, _) in enumerate(pts) if x == 100)
    assert pts[k + 1][0] != pts[k + 1][0], f"no 2-blocks level from 100 to 227 KiB (the cliff is at 113): {pts}"
    carve = figs["carveout"].axes[1]
    per_sm = doc["device"]["smem_per_sm"] / 1024      # x: KiB the carveout asks for (issue 35)
    for ln in carve.get_lines():
        xs = [x for x in ln.get_xdata() if x == x]
        assert set(xs) <= {0, per_sm / 2, per_sm}, f"{ln.get_label()}: drawn at {xs}, measured at 0, 50, 100 %"
    close(plt, figs)


@test
def a_file_a_figure_cannot_show_is_a_line_and_no_image():
    with tempfile.TemporaryDirectory() as d:
        bulk = day_file("bulk_only", d)
        out = os.path.join(d, "a")
        rc, stdout, err = run_plot(bulk, "-o", out)
        assert rc == 1, (rc, err)
        lines = err.strip().splitlines()
        assert any(bulk in ln and "global_read" in ln for ln in lines), err
        assert "Traceback" not in err and not os.path.exists(out)
        out = os.path.join(d, "b")
        rc, stdout, err = run_plot(bulk, DAY["staging"], "-o", out)
        assert rc == 0, err
        assert any(bulk in ln and "global_read" in ln for ln in err.splitlines()), err
        plt, figs = figures_of([bulk, DAY["staging"]])
        assert len(figs["staging"].axes) == 1, "the bulk-only file gets no empty panel"
        close(plt, figs)
        c3 = day_file("cluster_3_5_12", d)
        plt, figs = figures_of([c3])
        fig = figs["cluster"]
        fig.canvas.draw()
        for ax in fig.axes:
            assert drawn_lines(ax), f"{ax.get_title()}: an empty panel"
            ticks = [t.get_text() for t in ax.get_xticklabels()]
            assert ticks == ["3", "5", "12"], (ax.get_title(), ticks)
        close(plt, figs)


def every_figure():
    """The figures of the day: the session's files, the quick run, the swizzle sweep's files, two of each
    to overlay, and (given the program) the SGEMM tile fixture."""
    with tempfile.TemporaryDirectory() as d:
        extra = [day_file(k, d) for k in ("tile_bytes", "cluster_3_5_12", "quick_staging", "transpose_layouts")]
        sets = ([DAY["all"]], [DAY["cluster"]], [DAY["staging"]], [QUICK],
                [DAY["all"], DAY["all_run2"], DAY["cluster"], DAY["staging"], DAY["dynamic"], QUICK] + extra,
                [DAY["all"], A100], [SWIZZLE], [SWIZZLE, SWIZZLE_PTX80, DAY["staging"]])
        if SMEMBENCH:   # the tile figure against shared memory, alone and beside a file without SGEMM points
            sgemm = sgemm_tile_file(d)
            sets += ([sgemm], [sgemm, DAY["all"]])
        for paths in sets:
            plt, figs = figures_of(paths)
            for name, fig in figs.items():
                fig.canvas.draw()
                yield f"{name} of {', '.join(os.path.basename(p) for p in paths)}", fig
                plt.close(fig)


@test
def every_panel_is_titled_and_its_legend_is_what_it_draws():
    for name, fig in every_figure():
        for ax in fig.axes:
            if not ax.axison and ax.get_legend():
                continue        # a holder of the figure's keys, no panel
            assert ax.get_title(), f"{name}: a panel without a title"
            leg = ax.get_legend()
            drawn = [lab for lab, _, _ in drawn_lines(ax)] + \
                [p.get_label() for p in ax.containers if not p.get_label().startswith("_")]
            if leg is None:
                # a figure whose panels share one key below them (generations: a colour per GPU, a style
                # per method) says what each panel draws there
                keys = fig.legends or [a for a in fig.axes if not a.axison and a.get_legend()]
                assert not drawn or len(fig.axes) == 1 or keys, \
                    f"{name}: {ax.get_title()} draws {drawn} without a legend"
                continue
            hatches = {p.get_hatch() for p in ax.patches if p.get_hatch() is not None}
            handles = getattr(leg, "legend_handles", None) or leg.legendHandles
            entries = [t.get_text() for t, h in zip(leg.get_texts(), handles)
                       if not (hasattr(h, "get_hatch") and h.get_hatch() in hatches | {""})]
            for e in entries:
                if e.startswith(("n%", "n:")) or "Luo" in e or "ceiling" in e or "peak" in e or "90 %" in e:
                    continue    # notes and reference lines
                assert e in drawn, f"{name}: {ax.get_title()}: {e!r} is in the legend but not drawn"


@test
def no_two_series_of_an_axes_share_a_look():
    from matplotlib.colors import to_hex
    for name, fig in every_figure():
        for ax in fig.axes:
            seen = {}
            for ln in ax.get_lines():
                if ln.get_label().startswith("_") or not any(x == x for x in ln.get_xdata()):
                    continue
                # a line is told apart by its look: its colour, and where a colour is one meaning
                # (staging's kernel, the cluster figure's API answer and its measured check) by its
                # line style or marker (the load width; hollow circles and crosses)
                c = (to_hex(ln.get_color()), str(ln.get_linestyle()), str(ln.get_marker()))
                assert c not in seen, f"{name}: {ax.get_title()}: {ln.get_label()!r} and {seen[c]!r} look the same {c}"
                seen[c] = ln.get_label()
            bars = {}
            for cont in ax.containers:
                if cont.patches and cont.patches[0].get_facecolor()[3] > 0:
                    c = to_hex(cont.patches[0].get_facecolor())
                    assert c not in bars, f"{name}: {ax.get_title()}: two bar series in {c}"
                    bars[c] = cont


@test
def labels_never_overprint():
    for name, fig in every_figure():
        r = fig.canvas.get_renderer()
        for ax in fig.axes:
            boxes = [(t.get_text(), t.get_window_extent(r)) for t in ax.texts if t.get_visible() and t.get_text()]
            for i, (ta, a) in enumerate(boxes):
                for tb, b in boxes[i + 1:]:
                    assert not a.overlaps(b), f"{name}: {ax.get_title()}: {ta!r} overprints {tb!r}"


@test
def series_are_named_by_what_differs_not_by_the_start_time():
    assert labels([DAY["all"], QUICK]) == ["NVIDIA H200, full", "NVIDIA H200, --quick"], labels([DAY["all"], QUICK])
    assert labels([DAY["all"], DAY["dynamic"]]) == ["NVIDIA H200, --sweep all", "NVIDIA H200, --sweep dynamic"]
    two = labels([DAY["all"], DAY["all_run2"]])    # nothing but the time tells these apart
    assert two == ["NVIDIA H200, 07:33:42 UTC", "NVIDIA H200, 07:34:29 UTC"], two


@test
def two_units_of_one_model_read_apart_by_their_uuid():
    """Issue 35: the gpu0 and gpu1 runs of one host read the same ("NVIDIA H200, --sweep all, 20:14:08
    UTC" twice, told apart only by the file name). The unit (a short uuid) now comes before the build,
    the commit and the time."""
    files = [os.path.join(RESULTS, "units", f"nvidia-h200_20261130_all_gpu{g}_r{r}.json") for g in (0, 1) for r in (1, 2)]
    got = labels(files)
    units = [reader.load(f)["device"]["uuid"][:12] for f in files]
    assert len(set(units)) == 2, units
    assert got == [f"NVIDIA H200, {u}, {t}" for u, t in zip(units, ["20:14:08 UTC", "20:15:32 UTC"] * 2)], got
    # one unit's runs: the uuid is shared, so it is not repeated in every label
    assert labels(files[:2]) == ["NVIDIA H200, 20:14:08 UTC", "NVIDIA H200, 20:15:32 UTC"], labels(files[:2])
    # a model's prediction has no uuid: nothing is added for it
    assert reader.unit_label({"name": "x"}) == "" and reader.unit_label({"uuid": units[0] + "-aaaa"}) == units[0]


@test
def runs_of_one_unit_and_build_are_one_median_line_with_a_band():
    """Issue 35: several files overlay a line per run (26-39 legend entries a carveout panel). Now
    three or more runs of one unit, build, commit and settings are one series: at each point the
    median of the runs, their range drawn as a band (from two runs on since issue 52); other units
    and models are never folded in."""
    import statistics
    from smembench import series as series_mod
    from smembench.figures import common as fc
    files = sorted(glob.glob(os.path.join(RESULTS, "units", "nvidia-h200_20261130_all_gpu*_r*.json")))
    assert len(files) == 10, files
    loaded = plot.load(files, lambda t: None)
    made = series_mod.relabel(series_mod.aggregate(plot.make_series(loaded)))
    units = sorted({reader.load(f)["device"]["uuid"][:12] for f in files})
    assert sorted(s.label for s in made) == [f"NVIDIA H200, {u}, median of 5 runs" for u in units], \
        [s.label for s in made]
    s = made[0]
    runs = [doc for path, doc in loaded if doc["device"]["uuid"] == s.doc["device"]["uuid"]]
    pts = s.timed("footprint")
    assert pts and all(r["runs"]["count"] == 5 for r in pts), len(pts)
    for r in pts:
        same = [x for d in runs for x in d["results"] if reader.point_key(x) == reader.point_key(r)]
        meds = [reader.median_ns(x) for x in same]
        assert reader.median_ns(r) == statistics.median(meds), (reader.point_name(r), meds)
        vals = [reader.metric(x, "gbytes_per_s") for x in same]
        assert reader.metric(r, "gbytes_per_s") == statistics.median(vals)
    x, y = fc.xy(pts, lambda r: r["params"]["carveout_pct"], lambda r: reader.median_ns(r))
    lo, hi = y.band
    for xv, l, h in zip(x, lo, hi):
        meds = [reader.median_ns(q) for d in runs for q in d["results"]
                if q["bench"] == "footprint" and q["params"]["carveout_pct"] == xv]
        assert (l, h) == (min(meds), max(meds)), (xv, l, h, meds)
    # the figure draws it: one line per unit and kernel, each with its band
    plt, figs = figures_of(files)
    ax = figs["carveout"].axes[0]
    labels_ = [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_") and len(ln.get_xdata())]
    assert len(labels_) == 4 and all("median of 5 runs" in t for t in labels_), labels_
    assert len(ax.collections) >= 4, "a band for each median line"
    close(plt, figs)
    # issue 52 (smembench.layout): two runs of a unit are their median too; a model's prediction and
    # another commit are never folded in
    two = series_mod.aggregate(plot.make_series(plot.load(files[:2], lambda t: None)))
    assert len(two) == 1 and len(two[0].runs) == 2, [len(t.runs or [t]) for t in two]
    with tempfile.TemporaryDirectory() as d:
        docs = [json.load(open(f)) for f in files[:5]]
        docs[4]["tool"]["git"] = "0000000"
        paths = []
        for i, doc in enumerate(docs):
            paths.append(os.path.join(d, f"{i}.json"))
            json.dump(doc, open(paths[-1], "w"))
        made = series_mod.aggregate(plot.make_series(plot.load(paths, lambda t: None)))
        assert [len(t.runs or [t]) for t in made] == [4, 1], [len(t.runs or [t]) for t in made]


# the 15 --sweep all files of six GPU units (issue 35): two units of one host, five runs each, a third
# unit's cluster run, and two runs each of two more units
FIFTEEN = sorted(glob.glob(os.path.join(RESULTS, "units", "*.json"))) + \
    sorted(glob.glob(os.path.join(RESULTS, "contract", "nvidia-h200_20261202_all_*.json")))


# the figures that pool four or more units and draw each against their median
POOLING = ("tile", "memory", "cluster", "swizzle", "bank", "staging", "occupancy")


def legend_entries(fig):
    return sum(len(ax.get_legend().get_texts()) for ax in fig.axes if ax.get_legend()) + \
        sum(len(leg.get_texts()) for leg in fig.legends)


def change_axes(fig):
    """The panel of each unit against the units' median (figures.common.change_panel), or None."""
    return next((ax for ax in fig.axes if ax.get_title().startswith("Each GPU unit's time")), None)


@test
def every_figure_of_many_files_stays_under_2500_px_with_a_short_legend():
    """Issue 35: the 15 files drew tile 1100x5270 px with 174 legend entries, memory 1492x5010 px,
    cluster 1050x2786 px with 173 entries, swizzle 80 entries. Now four or more units of one model
    are one median with their range as a band and a panel of each unit against it, so no figure
    passes 2,500 px on its long side and the legends do not grow with the files: the 15 files and
    the same 15 twice over (copies) give the same sizes and legend counts."""
    assert len(FIFTEEN) == 15, FIFTEEN
    got = {}
    with tempfile.TemporaryDirectory() as d:
        twice = []
        for f in FIFTEEN:
            twice.append(os.path.join(d, "copy_" + os.path.basename(f)))
            shutil.copyfile(f, twice[-1])
        for paths in ([FIFTEEN[0]], FIFTEEN[-2:], FIFTEEN, FIFTEEN + twice):
            plt, figs = figures_of(paths)
            assert len(figs) >= 10, (len(paths), sorted(figs))
            for name, fig in figs.items():
                fig.canvas.draw()
                w, h = fig.canvas.get_width_height()
                n = legend_entries(fig)
                got[len(paths), name] = (w, h, n)
                assert max(w, h) <= 2500, f"{len(paths)} files: {name} is {w}x{h} px"
                most = max([len(ax.get_legend().get_texts()) for ax in fig.axes if ax.get_legend()] or [0])
                assert most <= 30, f"{len(paths)} files: {name} has a legend of {most} entries"
                assert len(paths) < 15 or n <= 45, f"{len(paths)} files: {name} has {n} legend entries"
                ax = change_axes(fig)
                if len(paths) >= 15 and name in POOLING:
                    # a unit once in the legend of the change panel: the units that ran the figure's benchmarks
                    assert ax is not None, f"{name}: no panel of each unit against the median"
                    units = [t.get_text() for t in ax.get_legend().get_texts()]
                    assert all(re.match(r"GPU-[0-9a-f]{8}, ", u) for u in units), units
                    assert len(set(units)) == len(units), units
                    assert 2 <= len(units) <= 5, units
                elif len(paths) < 4:
                    assert ax is None, f"{len(paths)} files: {name} pools fewer than four units"
            close(plt, figs)
    for name in ("tile", "memory", "cluster", "swizzle"):
        assert got[15, name] == got[30, name], (name, got[15, name], got[30, name])
        print(f"# 15 files: {name} {got[15, name][0]}x{got[15, name][1]} px, {got[15, name][2]} legend entries")
    # before: tile 5270 px tall and 174 entries, memory 5010 px, cluster 173 entries, swizzle 80; the
    # sizes are the figures' inches at 100 dpi (no text metrics), as docs/plot.md quotes them
    assert got[15, "tile"] == (1100, 1630, 42) and got[15, "cluster"][2] < 60 and got[15, "swizzle"][2] < 40, got
    tallest = max(got, key=lambda k: max(got[k][:2]))
    # the tallest was the memory figure of two runs of one unit (2,250 px: a bar each per kernel and
    # size); since issue 52 those runs are their median, and the tallest is the cluster figure
    assert max(got[tallest][:2]) <= 1850, (tallest, got[tallest])


@test
def the_unit_slower_on_dram_streaming_stands_apart_from_the_others():
    """Issue 35: overlays of 13 runs hid the one unit (GPU-53e5ebc9) whose DRAM-streaming points
    run 3-3.5 % slower. The memory figure of the 15 files draws each unit's time against the units'
    median by benchmark: that unit's transpose without shared memory sits 3 % or more above the
    median, and its runs' range (the bar) lies above every other unit's."""
    plt, figs = figures_of(FIFTEEN)
    ax = change_axes(figs["memory"])
    cats = [t.get_text() for t in ax.get_xticklabels()]
    k = cats.index("transpose_naive")
    from matplotlib.collections import LineCollection
    bars = [seg for col in ax.collections if isinstance(col, LineCollection) for seg in col.get_segments()]
    from matplotlib.colors import to_hex
    # a unit is a colour, named once in the legend; its median per benchmark a marker, its points dots
    unit_of = {to_hex(ln.get_color()): lab.split(",")[0] for lab, _, _ in drawn_lines(ax) for ln in ax.get_lines()
               if ln.get_label() == lab}
    at = {}
    for ln in ax.get_lines():
        x, y = ln.get_xdata(), ln.get_ydata()
        if ln.get_marker() != "." and len(x) == 1 and round(x[0]) == k:
            lo, hi = next((min(sg[:, 1]), max(sg[:, 1])) for sg in bars if abs(sg[0, 0] - x[0]) < 1e-9)
            at[unit_of[to_hex(ln.get_color())]] = (y[0], lo, hi)
    assert len(at) == 4 and "GPU-53e5ebc9" in at, at
    y, lo, hi = at.pop("GPU-53e5ebc9")
    assert y >= 3.0 and round(y, 1) == 3.6, f"the slower unit drawn at {y:+.2f} % (docs/plot.md: 3.6 %)"
    assert lo > max(h for _, _, h in at.values()) and all(abs(v) < 1 for v, _, _ in at.values()), (y, lo, at)
    # what is drawn is the files' times: the unit's median against the median of the four units' medians
    import statistics
    from smembench import series as series_mod
    loaded = plot.load(FIFTEEN, lambda t: None)
    units = series_mod.aggregate(plot.make_series(loaded))
    meds = {}
    for s in units:
        for r in s.timed("transpose_naive"):
            meds.setdefault(reader.point_key(r), {})[s.doc["device"]["uuid"][:12]] = reader.median_ns(r)
    change = [100 * (m["GPU-53e5ebc9"] / statistics.median(m.values()) - 1) for m in meds.values()]
    assert abs(y - statistics.median(change)) < 1e-9, (y, change)
    close(plt, figs)


@test
def plot_of_the_15_files_takes_under_20_cpu_seconds_and_500_mb():
    """Issue 35: plot of 13 full files took 28 s on the 2-core build machine (the 15: 22.4 s, 21.5
    CPU s, 281 MB). Now the 15 files take 8.4-8.7 s there (10.8 CPU seconds in all, the figures
    saved by two processes) and 199 MB; bounded here by CPU time, which a loaded machine stretches
    less than wall time, with margin, and by the peak memory of the largest process."""
    import resource
    import time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as d:
        t0 = time.monotonic()
        rc, out, err = run_plot("-o", d, *FIFTEEN)
        wall = time.monotonic() - t0
        assert rc == 0, err
        assert len(out.split()) == 24, out     # 12 figures, PNG and SVG
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"# plot of the 15 files: {cpu:.1f} CPU s, {wall:.1f} s wall, peak {after.ru_maxrss / 1024:.0f} MB")
    assert cpu < 20, f"{cpu:.1f} CPU s"
    assert after.ru_maxrss < 500 * 1024, f"{after.ru_maxrss / 1024:.0f} MB"


@test
def format_and_dpi_choose_the_images():
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        for out in (a, b):
            rc, stdout, err = run_plot(H200["carveout"], "-o", out, "--format", "pdf", "--format", "png,svg",
                                       "--dpi", "50")
            assert rc == 0, err
        assert sorted(os.listdir(a)) == ["carveout.pdf", "carveout.png", "carveout.svg"], os.listdir(a)
        for f in os.listdir(a):
            assert open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read(), f"{f} differs"
        from PIL import Image
        with Image.open(os.path.join(a, "carveout.png")) as small:
            rc, _, err = run_plot(H200["carveout"], "-o", os.path.join(d, "c"), "--format", "png")
            with Image.open(os.path.join(d, "c", "carveout.png")) as big:
                assert abs(small.size[0] * 2 - big.size[0]) <= 2, (small.size, big.size)
        assert os.listdir(os.path.join(d, "c")) == ["carveout.png"]
        for bad in (["--format", "jpg"], ["--dpi", "0"]):
            rc, stdout, err = run_plot(H200["carveout"], "-o", os.path.join(d, "e"), *bad)
            assert rc == 2 and "invalid" in err and not os.path.exists(os.path.join(d, "e")), (bad, rc, err)


def main():
    return tap.run()

if __name__ == "__main__":
    sys.exit(main())
