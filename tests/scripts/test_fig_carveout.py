#!/usr/bin/env python3
"""Tests of the carveout figure around its trade-off (issue 35), checked on the drawn figure of the
committed H200 --sweep all file: the panels, the log time axis with the blocks per SM at each point,
the x axis in KiB with the requested % as a secondary axis, the gather's residency, no two legend
entries whose lines coincide, the L1 left crossing the gather's table between the 50 % and 60 %
points; the unified L1 + shared size recorded by the program and the reader's snapshot of it.

  test_fig_carveout.py [SMEMBENCH]   the program (--list --json, --predict); else those tests skip
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RESULTS = os.path.join(ROOT, "results")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402
from smembench import l1split  # noqa: E402
from smembench import plot  # noqa: E402
from smembench import reader  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
ALL = os.path.join(RESULTS, "nvidia-h200_20261130_all.json")


def figure(paths, edit=None):
    """The carveout figure of the files (each doc passed through edit first where given)."""
    plt = plot.pyplot()
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, p in enumerate(paths):
            if edit:
                doc = json.load(open(p))
                edit(doc)
                p = os.path.join(d, f"{i}.json")
                json.dump(doc, open(p, "w"))
            files.append(p)
        figs = dict(plot.figures(plt, plot.make_series(plot.load(files, lambda t: None))))
    for name, f in figs.items():
        if name != "carveout":
            plt.close(f)
    return plt, figs["carveout"]


def legend(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def lines(ax):
    """{label: (xs, ys)} of the labelled lines with data."""
    out = {}
    for ln in ax.get_lines():
        lab = ln.get_label()
        if lab.startswith("_") or len(ln.get_xdata()) == 0:
            continue
        out[lab] = ([float(x) for x in ln.get_xdata()], [float(y) for y in ln.get_ydata()])
    return out


def finite(xs, ys):
    return [(x, y) for x, y in zip(xs, ys) if x == x and y == y]


@test
def the_h200_figure_shows_the_trade_off():
    plt, fig = figure([ALL])
    doc = reader.load(ALL)
    per_sm = doc["device"]["smem_per_sm"] / 1024           # 228 KiB on the H200
    time, blocks, split = fig.axes
    # time: log scale, both kernels, and the blocks per SM written at every timed point
    assert time.get_yscale() == "log", time.get_yscale()
    drawn = lines(time)
    foot = next(v for k, v in drawn.items() if k.startswith("footprint, 31 KiB tile"))
    gath = next(v for k, v in drawn.items() if k.startswith("gather, 96 KiB table"))
    timed = [r for r in doc["results"] if r["bench"] == "footprint" and r["status"] == "ok"]
    assert len(foot[0]) == len({r["params"]["carveout_pct"] for r in timed}), foot[0]
    texts = [t.get_text() for t in time.texts]
    want = {str(r["occupancy"]["measured"]) for r in timed}
    assert want <= set(texts), (want, texts)
    assert texts.count("8") >= len(gath[0]) and "7" in texts, texts    # gather 8 at each point, footprint up to 7
    # x in KiB: carveout % of the device's largest configuration; the % on a secondary axis on top
    r60 = next(r for r in timed if r["params"]["carveout_pct"] == 60)
    assert abs(foot[0][sorted({r["params"]["carveout_pct"] for r in timed}).index(60)] - 0.6 * per_sm) < 1e-6
    assert "KiB" in split.get_xlabel(), split.get_xlabel()
    sec = [c for c in time.child_axes if type(c).__name__ == "SecondaryAxis"]
    assert len(sec) == 1 and "%" in sec[0].get_xlabel(), [c.get_xlabel() for c in sec]
    fig.canvas.draw()
    ticks = {t.get_text() for t in sec[0].get_xticklabels() if t.get_visible()}
    assert {"0", "50", "100"} <= ticks, ticks
    top = sec[0].get_xlim()
    assert abs(top[1] - time.get_xlim()[1] / per_sm * 100) < 1e-6, (top, time.get_xlim())
    # the gather's residency is drawn, and API = calculator = measured is one line for each kernel
    res = legend(blocks)
    assert any(t.startswith("gather") and "measured = API = calculator" in t.replace("\n", " ") for t in res), res
    assert any(t.startswith("footprint") for t in res), res
    assert len(res) == 2, res
    # the split: the driver's configuration, the hint, the L1 left and the gather's table
    text = [t.replace("\n", " ") for t in legend(split)]
    assert any("driver's configuration" in t for t in text), text
    assert any(t.startswith("the hint") for t in text), text
    l1 = next(v for k, v in lines(split).items() if "L1 left" in k)
    table = next(v for k, v in lines(split).items() if "gather's table: 96 KiB" in k.replace("\n", " "))
    assert set(table[1]) == {96.0}, table
    pts = dict(finite(*l1))
    x50, x60 = 0.5 * per_sm, 0.6 * per_sm
    assert pts[x50] > 96 > pts[x60], (pts[x50], pts[x60])            # 256 - 132 = 124; 256 - 164 = 92
    assert (pts[x50], pts[x60]) == (124.0, 92.0), (pts[x50], pts[x60])
    assert all(y >= 96 for x, y in pts.items() if x <= x50) and all(y < 96 for x, y in pts.items() if x >= x60)
    # gather's time jumps exactly where its L1 left falls under the table
    g = dict(zip(*gath))
    assert g[x60] > 2 * g[x50], (g[x50], g[x60])
    assert r60["occupancy"]["smem_config_predicted_bytes"] == 164 * 1024
    plt.close(fig)


@test
def no_two_legend_entries_draw_the_same_line():
    """Today's figure drew "API" exactly under "predicted" and the hint's step under the driver's
    pick; now equal series are one line whose label names both. Checked on the H200 file, on the 15
    files of four units and on the H200 beside three predicted GPUs."""
    units = sorted(os.path.join(RESULTS, "units", f) for f in os.listdir(os.path.join(RESULTS, "units"))
                   if f.endswith(".json"))
    contract = sorted(os.path.join(RESULTS, "contract", f) for f in os.listdir(os.path.join(RESULTS, "contract"))
                      if f.startswith("nvidia-h200_20261202_all_") and f.endswith(".json"))
    predicted = [os.path.join(RESULTS, "predict", f) for f in sorted(os.listdir(os.path.join(RESULTS, "predict")))
                 if f.split("-model_")[0] in ("nvidia-a100-sxm4", "nvidia-geforce-rtx-4090", "nvidia-t4")]
    assert len(units) + len(contract) == 15 and len(predicted) == 3, (units, contract, predicted)
    for paths in ([ALL], units + contract, [ALL] + predicted):
        plt, fig = figure(paths)
        for ax in fig.axes:
            seen = {}
            for lab, (xs, ys) in lines(ax).items():
                key = tuple(finite(xs, ys))
                assert key not in seen, f"{ax.get_title()}: {lab!r} lies under {seen.get(key)!r}"
                seen[key] = lab
        h = fig.get_size_inches()[1] * fig.dpi
        assert h <= 2500, f"{len(paths)} files: {h:.0f} px tall"
        plt.close(fig)
    # the three predicted GPUs: a split panel each, with its own unified size and table
    plt, fig = figure([ALL] + predicted)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(fig.axes) == 6, titles
    for ax, (unified, table) in zip(fig.axes[2:], ((256, 96), (192, 72), (128, 48), (96, 36))):
        text = " ".join(t.replace("\n", " ") for t in legend(ax))
        assert f"L1 left = {unified} KiB unified" in text and f"gather's table: {table} KiB" in text, text
    plt.close(fig)


@test
def an_overridden_hint_is_marked():
    def override(doc):
        for r in doc["results"]:
            if r["bench"] == "footprint" and r["params"].get("carveout_pct") == 20:
                r["occupancy"]["hint_overridden"] = True
                r["occupancy"]["measured"] = r["occupancy"]["api"] + 1
    plt, fig = figure([ALL])
    assert not any("overridden" in t for t in legend(fig.axes[2]))
    plt.close(fig)
    plt, fig = figure([ALL], override)
    marks = {k: v for k, v in lines(fig.axes[2]).items() if k.startswith("hint overridden")}
    assert len(marks) == 1, legend(fig.axes[2])
    (xs, ys), = marks.values()
    per_sm = reader.load(ALL)["device"]["smem_per_sm"] / 1024
    assert xs == [0.2 * per_sm] and ys == [64.0], (xs, ys)
    # the measured residency now differs from the API's: it is drawn apart, not merged
    res = [t.replace("\n", " ") for t in legend(fig.axes[1])]
    assert any(t.startswith("footprint") and t.split(": ")[1].startswith("measured") and "API" not in t
               for t in res), res
    plt.close(fig)


@test
def the_overridden_mark_needs_a_hint_that_shared_memory_follows():
    """Issue 52: 38 swizzle_ldmatrix points of a stock --sweep all (no carveout hint set, register-
    limited, 6/6/5) were marked overridden, under a legend saying the driver did not follow the
    hint. The mark now needs a hint (launch.carveout_requested), a shared-memory limit and the
    measured residency apart from the API's; the older file's flag is read by that rule."""
    doc = reader.load(os.path.join(RESULTS, "figures_35", "h200", "nvidia-h200_20261203_all_u1.json"))
    flagged = [r for r in doc["results"] if (r.get("occupancy") or {}).get("hint_overridden")]
    assert len(flagged) == 38 and {r["bench"] for r in flagged} == {"swizzle_ldmatrix"}, len(flagged)
    assert all(r["launch"]["carveout_requested"] is None for r in flagged)
    assert not any(l1split.hint_overridden(r) for r in doc["results"])
    assert not any(dict(l1split.split_cells(doc, r))["hint overridden"] for r in flagged)
    r = json.loads(json.dumps(next(r for r in doc["results"] if r["bench"] == "footprint" and
                                   r["params"]["carveout_pct"] == 20)))
    assert "shared_memory" in r["occupancy"]["limiter"] and r["launch"]["carveout_requested"] == 20
    r["occupancy"].update(hint_overridden=True, measured=r["occupancy"]["api"] + 1)
    assert l1split.hint_overridden(r)
    r["launch"]["carveout_requested"] = None
    assert not l1split.hint_overridden(r), "no hint, nothing overridden"
    # the driver sets the flag by the same rule (src/runner.c, probe_residency)
    src = open(os.path.join(ROOT, "src", "runner.c"), encoding="utf-8").read()
    assert 'plan->carveout_pct >= 0 && strstr(r->occ.limiter, "shared_memory")' in src


@test
def older_files_take_the_unified_size_from_the_snapshot():
    """The H200 file predates unified_l1_smem_bytes: the snapshot gives 256 KiB; a recorded value
    wins; an unknown cc has none and the figure says so instead of drawing an L1 left."""
    doc = reader.load(ALL)
    assert "unified_l1_smem_bytes" not in doc["device"]["published"]
    assert l1split.unified_bytes(doc) == (256 * 1024, "core/arch.c (snapshot)")
    a100 = reader.load(os.path.join(RESULTS, "predict", "nvidia-a100-sxm4-model_20261130_carveout-dynamic.json"))
    assert l1split.unified_bytes(a100) == (192 * 1024, "recorded")
    odd = json.loads(json.dumps(doc))
    odd["device"]["cc"] = "9.9"
    assert l1split.unified_bytes(odd)[0] is None
    r = next(r for r in doc["results"] if r["bench"] == "gather" and r["params"]["carveout_pct"] == 60)
    cells = dict(l1split.split_cells(doc, r))
    assert cells == {"shared config (KiB/SM)": 164.0, "L1 left (KiB/SM)": 92.0, "effective carveout (%)": None,
                     "hint overridden": False}, cells
    notes = []
    plt = plot.pyplot()
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "odd.json")
        json.dump(odd, open(f, "w"))
        figs = dict(plot.figures(plt, plot.make_series(plot.load([f], notes.append)), notes.append))
    assert not any("L1 left" in k for k in lines(figs["carveout"].axes[2])), legend(figs["carveout"].axes[2])
    assert any("cc 9.9 is not in core/arch.c's table" in n for n in notes), notes
    for f in figs.values():
        plt.close(f)


@test
def the_snapshot_is_the_programs_table():
    """python/smembench/archs.json holds, for every compute capability of core/arch.c, what
    smembench --list --json's archs say; and a fresh predict file records the same value."""
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    p = subprocess.run([SMEMBENCH, "--list", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    said = {a["cc"]: a["published"]["unified_l1_smem_bytes"] for a in json.loads(p.stdout)["archs"]}
    assert len(said) >= 10 and said["9.0"]["value"] == 256 * 1024, said
    assert l1split.UNIFIED == said, (l1split.UNIFIED, said)
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "t4.json")
        p = subprocess.run([SMEMBENCH, "--predict", "t4", "--sweep", "carveout", "-q", "-o", f], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        doc = reader.load(f)
    assert doc["device"]["published"]["unified_l1_smem_bytes"] == said["7.5"], doc["device"]["published"]
    assert l1split.unified_bytes(doc) == (96 * 1024, "recorded")


def main():
    return tap.run()


if __name__ == "__main__":
    sys.exit(main())
