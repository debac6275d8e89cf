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
        assert names == ["carveout.png", "carveout.svg", "occupancy.png", "occupancy.svg"], names
        for fig in ("carveout", "occupancy"):
            svg = open(os.path.join(d, "plots", f"{fig}.svg")).read()
            for f in files:
                name = reader.load(f)["device"]["name"]
                assert svg.count(f">{name}<") == 1, f"{fig}: the legend names {name} once"


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
    same = labels([H200["carveout"], H200["carveout"]])
    assert len(set(same)) == 2 and all(s.startswith("NVIDIA H200") for s in same), same
    # the tile and the reduction sweep of one session: two files, two series, told apart by the sweep
    assert labels([H200["tile"], H200["reduction"]]) == ["NVIDIA H200, --sweep tile", "NVIDIA H200, --sweep reduction"]


@test
def legends_never_cover_an_axes():
    plt, figs = figures_of([H200[k] for k in ("bandwidth-latency-bank", "carveout", "dynamic", "tile", "reduction",
                                              "bank-bandwidth_run1")] + [A100])
    assert set(figs) == {"carveout", "occupancy", "bank", "bandwidth", "tile", "memory"}, set(figs)
    for name, fig in figs.items():
        fig.canvas.draw()
        boxes = [a.get_window_extent() for a in fig.axes]
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


def main():
    return tap.run()

if __name__ == "__main__":
    sys.exit(main())
