#!/usr/bin/env python3
"""Tests of a user kernel's result file on the Python side (TAP), on the fixture of a row_softmax run
on an H200 (tests/scripts/fixtures/kernel_row_softmax.json: the carveout and dynamic sweeps, cols 1024
and 4096, one point failed as a race): the schema takes its kernel record and refuses a broken one;
its figure (kernel_row_softmax) draws the file's times, residency, 48 KiB limit, fastest setting and
failed point, under 2500 px; the built-in figures never see its points; the report gives it a section
with the figure and its points; the CSV export and the DataFrames hold its rows.

  test_fig_kernel.py
"""
import copy
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
RESULTS = os.path.join(ROOT, "results")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import without_figure_lines, Skip, test  # noqa: E402
from smembench import plot, reader  # noqa: E402
from smembench.figures import kernel as kfig  # noqa: E402



FIXTURE = os.path.join(HERE, "fixtures", "kernel_row_softmax.json")
BUILTIN = [os.path.join(RESULTS, f"nvidia-h200_20261129_{k}.json") for k in ("carveout", "dynamic")] + \
    [os.path.join(RESULTS, "day", "nvidia-h200_20261130_quick.json")]
PLT = plot.pyplot()
CARVEOUT_X = "preferred shared-memory carveout (%)"
DYNAMIC_X = "dynamic shared memory per block (KiB)"


def doc():
    return reader.load(FIXTURE)


def figures(*named):
    """{name: figure} the plot command draws for these (path, document) pairs, and its notes."""
    notes = []
    figs = plot.figures(PLT, plot.make_series(list(named)), notes.append)
    return dict(figs), notes


def kernel_figure(d=None, path=FIXTURE):
    figs, notes = figures((path, d if d is not None else doc()))
    assert list(figs) == ["kernel_row_softmax"] and not notes, (list(figs), notes)
    return figs["kernel_row_softmax"]


def panels(fig):
    """[(time axes, its residency axes)] by panel, top first."""
    axes = fig.get_axes()
    times = [a for a in axes if a.get_title()]
    twins = [a for a in axes if not a.get_title()]
    assert len(times) == len(twins), [a.get_title() for a in axes]
    return [(t, next(w for w in twins if w.get_position().bounds == t.get_position().bounds)) for t in times]


def line(ax, label):
    lines = [ln for ln in ax.get_lines() if ln.get_label() in (label, "_" + label)]
    assert lines, (label, [ln.get_label() for ln in ax.get_lines()])
    return sorted((float(x), float(y)) for ln in lines for x, y in zip(ln.get_xdata(), ln.get_ydata()) if x == x)


def medians(d, axis, cols):
    """{x: median us} of the file's timed points on the panel's line of cols."""
    if axis == "carveout_pct":
        pts = [r for r in d["results"] if r["params"]["dyn_smem_bytes"] == 0]
        x = lambda r: kfig.DEFAULT_X if r["params"]["carveout_pct"] < 0 else r["params"]["carveout_pct"]  # noqa: E731
    else:
        pts = [r for r in d["results"] if r["params"]["carveout_pct"] == -1]
        x = lambda r: r["params"]["dyn_smem_bytes"] / 1024  # noqa: E731
    return sorted((float(x(r)), r["time_ns"]["stats"]["median"] / 1e3) for r in pts
                  if r["params"]["cols"] == cols and reader.timed(r))


# --- the schema ---------------------------------------------------------------------------------

@test
def the_schema_takes_the_fixture_and_still_every_built_in_file():
    d = doc()
    assert d["kernel"]["function"] == "row_softmax" and len(d["results"]) == 88, len(d["results"])
    schema = json.load(open(os.path.join(RESULTS, "schema.json")))
    assert "kernel" in schema["properties"] and "kernel" not in schema["required"], "optional, additive"
    want = set(schema["$defs"]["kernel"]["required"])
    assert want == {"file", "path", "sha256", "kind", "function", "resources", "description", "description_file",
                    "description_sha256", "verification"}, want
    n = 0
    for base, _, names in os.walk(RESULTS):
        for f in sorted(names):
            p = os.path.join(base, f)
            if not f.endswith(".json") or reader.not_results(p):
                continue
            if json.load(open(p)).get("schema", "").startswith("smembench/"):
                reader.load(p)
                n += 1
    assert n > 100, n


def refusal(mutate):
    """The reader's message for the fixture changed by mutate, with the validator and without it."""
    d = json.load(open(FIXTURE))
    mutate(d)
    out = []
    for fallback in (False, True):
        saved = sys.modules.get("jsonschema")
        if fallback:
            sys.modules["jsonschema"] = None       # import jsonschema raises ImportError: the reader's own walk
        try:
            reader.check(copy.deepcopy(d), "k.json")
            out.append(None)
        except reader.ResultError as e:
            out.append(str(e))
        finally:
            if fallback:
                if saved is None:
                    del sys.modules["jsonschema"]
                else:
                    sys.modules["jsonschema"] = saved
    return out


@test
def the_schema_refuses_a_kernel_record_without_its_sha256_or_with_a_wrong_one():
    for mutate, words in ((lambda d: d["kernel"].pop("sha256"), "'sha256' is a required property"),
                          (lambda d: d["kernel"].update(sha256="abc"), "does not match"),
                          (lambda d: d["kernel"].update(kind="elf"), "is not one of"),
                          (lambda d: d["kernel"]["resources"].pop("regs"), "'regs' is a required property"),
                          (lambda d: d["kernel"]["verification"].update(mismatches=-1), "less than the minimum")):
        for msg in refusal(mutate):
            assert msg is not None and msg.startswith("k.json: kernel") and words in msg, (words, msg)
    assert refusal(lambda d: d["kernel"].update(sha256=None)) == [None, None], "null: not computed"


# --- the figure ---------------------------------------------------------------------------------

@test
def the_figure_has_a_carveout_and_a_dynamic_panel_with_labelled_axes():
    fig = kernel_figure()
    (t1, b1), (t2, b2) = panels(fig)
    assert t1.get_title().startswith("Time against the preferred carveout (0 B dynamic, block 256"), t1.get_title()
    assert t2.get_title().startswith("Time against dynamic shared memory (carveout default (no hint)"), t2.get_title()
    assert (t1.get_xlabel(), t2.get_xlabel()) == (CARVEOUT_X, DYNAMIC_X)
    for t, b in ((t1, b1), (t2, b2)):
        assert t.get_ylabel() == "median kernel time (us)" and t.get_yscale() == "log", t.get_ylabel()
        assert b.get_ylabel() == "resident blocks per SM" and b.get_yscale() == "linear"
    ticks = [x.get_text() for x in t1.get_xticklabels()]
    assert ticks[0] == "default" and ticks[1:] == [str(v) for v in range(0, 101, 10)], ticks
    title = fig._suptitle.get_text()
    assert title.startswith("Your kernel row_softmax (softmax.cubin, cubin)") and "NVIDIA H200; 2026-12-02" in title
    w, h = fig.get_size_inches() * fig.dpi
    assert max(w, h) < 2500, (w, h)
    PLT.close(fig)


@test
def each_line_is_the_files_medians_in_one_colour_per_cols_value():
    from matplotlib.colors import to_hex
    d = doc()
    fig = kernel_figure(d)
    (t1, _), (t2, _) = panels(fig)
    hues = {}
    for t, axis in ((t1, "carveout_pct"), (t2, "dyn_smem_bytes")):
        for cols in (1024, 4096):
            got = line(t, f"cols={cols}")
            want = medians(d, axis, cols)
            assert len(got) == len(want) and all(abs(a - c) < 1e-9 and abs(b - e) < 1e-9
                                                  for (a, b), (c, e) in zip(got, want)), (axis, cols)
            colour = {to_hex(ln.get_color()) for ln in t.get_lines() if ln.get_label().lstrip("_") == f"cols={cols}"}
            assert len(colour) == 1, colour
            hues.setdefault(cols, set()).update(colour)
    assert all(len(v) == 1 for v in hues.values()) and hues[1024] != hues[4096], hues
    # the driver's default carveout stands apart: no line joins it to 0 %
    for ln in t1.get_lines():
        if ln.get_label().lstrip("_").startswith("cols="):
            xs = list(ln.get_xdata())
            assert xs == [kfig.DEFAULT_X] or kfig.DEFAULT_X not in xs, xs
    PLT.close(fig)


@test
def the_residency_is_the_files_measured_and_api_blocks_per_sm():
    d = doc()
    fig = kernel_figure(d)
    (t1, b1), (t2, b2) = panels(fig)
    for b, axis in ((b1, "carveout_pct"), (b2, "dyn_smem_bytes")):
        on = [r for r in d["results"] if r["params"]["cols"] == 1024 and
              r["params"]["dyn_smem_bytes" if axis == "carveout_pct" else "carveout_pct"] ==
              (0 if axis == "carveout_pct" else -1)]
        x = (lambda r: kfig.DEFAULT_X if r["params"][axis] < 0 else r["params"][axis]) if axis == "carveout_pct" \
            else (lambda r: r["params"][axis] / 1024)
        assert line(b, "measured (residency probe)") == sorted((float(x(r)), r["occupancy"]["measured"]) for r in on)
        api = [p for p in line(b, "API")]
        want = sorted((float(x(r)), r["occupancy"]["api"]) for r in on)
        assert set(want) <= set(api), (axis, sorted(set(want) - set(api)))
    # the staircase of the dynamic sweep: 8 blocks per SM to 24 KiB, 1 from 120 KiB
    meas = dict(line(b2, "measured (residency probe)"))
    assert meas[0] == 8 and meas[24] == 8 and meas[32] == 6 and meas[48] == 4 and meas[120] == 1, meas
    PLT.close(fig)


@test
def the_carveout_the_driver_gave_is_marked_where_it_is_not_the_hint():
    d = doc()
    fig = kernel_figure(d)
    (_, b1), _ = panels(fig)
    want = sorted((float(r["params"]["carveout_pct"]), f"{r['occupancy']['effective_carveout']}%")
                  for r in d["results"] if r["params"]["dyn_smem_bytes"] == 0 and r["params"]["cols"] == 1024 and
                  r["occupancy"]["effective_carveout"] is not None and
                  r["occupancy"]["effective_carveout"] != r["params"]["carveout_pct"])
    assert want == [(0.0, "4%"), (1.0, "4%")], want
    got = sorted((float(t.xy[0]), t.get_text()) for t in b1.texts)
    assert got == want, got
    assert any(lab.startswith("n%: the carveout the driver gave") for lab in b1.get_legend_handles_labels()[1])
    PLT.close(fig)


@test
def the_48_kib_default_limit_is_a_vertical_line_on_the_dynamic_panel():
    fig = kernel_figure()
    _, (t2, _) = panels(fig)
    lines = [ln for ln in t2.get_lines() if ln.get_label().startswith("48 KiB: the default limit per block")]
    assert len(lines) == 1 and list(lines[0].get_xdata()) == [48, 48], [ln.get_label() for ln in t2.get_lines()]
    assert "opt-in" in lines[0].get_label()
    PLT.close(fig)


@test
def the_fastest_setting_of_each_cols_value_is_named_in_the_title_and_starred():
    d = doc()
    best = {}
    for r in d["results"]:
        if reader.timed(r):
            c = r["params"]["cols"]
            if c not in best or reader.median_ns(r) < reader.median_ns(best[c]):
                best[c] = r

    def named(r):
        p = r["params"]
        carve = "carveout default" if p["carveout_pct"] < 0 else f"carveout {p['carveout_pct']} %"
        dyn = f"{p['dyn_smem_bytes'] // 1024} KiB" if p["dyn_smem_bytes"] else "0 B"
        return f"cols={p['cols']}: {carve}, {dyn} dynamic: {reader.median_ns(r) / 1e3:.1f} us"
    want = "best: " + "; ".join(named(best[c]) for c in (1024, 4096))
    fig = kernel_figure(d)
    assert want in fig._suptitle.get_text().splitlines(), (want, fig._suptitle.get_text())
    assert want == "best: cols=1024: carveout default, 16 KiB dynamic: 37.8 us; cols=4096: carveout 20 %, 0 B " \
                   "dynamic: 146.1 us", want
    stars = [(float(x), float(y)) for t, _ in panels(fig) for ln in t.get_lines() if ln.get_marker() == "*"
             for x, y in zip(ln.get_xdata(), ln.get_ydata())]
    assert sorted(stars) == sorted([(20.0, reader.median_ns(best[4096]) / 1e3),
                                    (16.0, reader.median_ns(best[1024]) / 1e3)]), stars
    PLT.close(fig)


@test
def the_failed_point_is_a_red_x_with_a_note():
    from matplotlib.colors import to_hex
    d = doc()
    failed = [r for r in d["results"] if r["status"] == "failed"]
    assert len(failed) == 1 and "is a race (residency 3 blocks/SM here, 8 there)" in failed[0]["reason"], failed
    fig = kernel_figure(d)
    (t1, _), (t2, _) = panels(fig)
    xs = [ln for t in (t1, t2) for ln in t.get_lines() if ln.get_marker() == "x"]
    assert len(xs) == 1 and xs[0].axes is t2 and to_hex(xs[0].get_color()) == to_hex("tab:red"), xs
    assert list(xs[0].get_xdata()) == [failed[0]["params"]["dyn_smem_bytes"] / 1024] == [64.0]
    assert xs[0].get_label() == "failed: outputs differ, a race\n(residency 3 blocks/SM here, 8 there)", \
        xs[0].get_label()
    notes = [t.get_text() for t in t2.texts]
    assert notes == ["cols=4096: race"], notes
    assert not [t for t in t1.texts], "the carveout panel has no failed point"
    PLT.close(fig)


@test
def legends_are_what_each_axes_draws_colours_differ_and_no_label_overprints():
    from matplotlib.colors import to_hex
    d = doc()
    two = copy.deepcopy(d)
    for name, named in (("one file", [(FIXTURE, d)]), ("two files", [(FIXTURE, d), ("copy/k.json", two)])):
        figs, _ = figures(*named)
        fig = figs["kernel_row_softmax"]
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        for ax in fig.get_axes():
            drawn = [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]
            leg = ax.get_legend()
            assert leg is not None, name
            entries = [t.get_text() for t in leg.get_texts()]
            assert entries == drawn, (name, entries, drawn)
            colours = [to_hex(ln.get_color()) for ln in ax.get_lines()
                       if not ln.get_label().startswith("_") and ln.get_marker() != "*"]
            assert len(set(colours)) == len(colours), (name, ax.get_title(), colours)
            boxes = [(t.get_text(), t.get_window_extent(r)) for t in ax.texts if t.get_visible() and t.get_text()]
            for i, (ta, a) in enumerate(boxes):
                for tb, b in boxes[i + 1:]:
                    assert not a.overlaps(b), f"{name}: {ta!r} overprints {tb!r}"
            lb = leg.get_window_extent(r)
            assert fig.bbox.contains(lb.x1 - 1, lb.y0 + 1), f"{name}: a legend runs off the figure"
        if name == "two files":
            labels = [ln.get_label() for t, _ in panels(fig) for ln in t.get_lines()]
            assert "cols=1024; kernel_row_softmax.json" in labels and "cols=1024; k.json" in labels, labels
        PLT.close(fig)


@test
def the_plot_command_writes_kernel_row_softmax_png_under_2500_px():
    from PIL import Image
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot.py"), FIXTURE, "-o", d, "--format", "png"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and without_figure_lines(p.stderr) == "", (p.returncode, p.stderr)
        assert os.listdir(d) == ["kernel_row_softmax.png"], os.listdir(d)
        with Image.open(os.path.join(d, "kernel_row_softmax.png")) as img:
            assert max(img.size) < 2500 and min(img.size) > 500, img.size
            text = img.text["Description"]
    for words in (CARVEOUT_X, DYNAMIC_X, "resident blocks per SM", "median kernel time (us)", "best: cols=1024",
                  "48 KiB: the default limit per block", "failed: outputs differ, a race", "cols=4096: race"):
        assert words in text, words


@test
def the_built_in_figures_never_see_a_user_kernels_points():
    builtin = [(p, reader.load(p)) for p in BUILTIN]

    def texts(figs):
        out = {n: plot.texts(f) for n, f in figs.items()}
        for f in figs.values():
            PLT.close(f)
        return out
    alone = texts(figures(*builtin)[0])
    mixed, notes = figures(*builtin, (FIXTURE, doc()))
    mixed = texts(mixed)
    assert set(mixed) == set(alone) | {"kernel_row_softmax"} and not notes, (sorted(mixed), notes)
    assert all(mixed[n] == alone[n] for n in alone), [n for n in alone if mixed[n] != alone[n]]
    # a kernel named as a built-in benchmark: still its own figure, and the carveout figure unchanged
    named = copy.deepcopy(doc())
    named["kernel"]["function"] = "footprint"
    for r in named["results"]:
        r["bench"] = "footprint"
    mixed = texts(figures(*builtin, ("footprint.json", named))[0])
    assert set(mixed) == set(alone) | {"kernel_footprint"}, sorted(mixed)
    assert all(mixed[n] == alone[n] for n in alone), [n for n in alone if mixed[n] != alone[n]]
    assert "Your kernel footprint" in mixed["kernel_footprint"]


@test
def the_shared_default_configuration_written_twice_draws_the_same_figure():
    """The driver may write the configuration every sweep shares (carveout -1, 0 B dynamic) under
    each sweep; the fixture has it once, under the carveout sweep: the figure is the same."""
    d = doc()
    twice = copy.deepcopy(d)
    twice["results"] += [dict(copy.deepcopy(r), sweep="dynamic") for r in d["results"]
                         if r["params"]["carveout_pct"] == -1 and r["params"]["dyn_smem_bytes"] == 0]
    a, b = kernel_figure(d), kernel_figure(twice)
    assert plot.texts(a) == plot.texts(b)
    for (ta, _), (tb, _) in zip(panels(a), panels(b)):
        assert [line(ta, f"cols={c}") for c in (1024, 4096)] == [line(tb, f"cols={c}") for c in (1024, 4096)]
    PLT.close(a)
    PLT.close(b)


@test
def a_file_with_one_sweep_draws_one_panel_and_one_without_a_timed_point_none():
    d = doc()
    only = copy.deepcopy(d)
    only["results"] = [r for r in d["results"] if r["sweep"] == "carveout"]
    fig = kernel_figure(only)
    assert [t.get_xlabel() for t, _ in panels(fig)] == [CARVEOUT_X]
    PLT.close(fig)
    untimed = copy.deepcopy(d)
    for r in untimed["results"]:
        r["status"], r["reason"] = "skipped", "not run"
        r["time_ns"]["stats"]["median"] = None
    figs, notes = figures(("untimed.json", untimed))
    assert not figs and notes == ["untimed.json: the kernel row_softmax has no timed point: nothing for its figure"], \
        notes


# --- the report, the export, the DataFrames ------------------------------------------------------

def report(*paths):
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), *paths, "-o", d],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return open(os.path.join(d, "index.html"), encoding="utf-8").read()


def section(page, sid):
    m = re.search(rf'<section id="{re.escape(sid)}">(.*?)</section>', page, re.S)
    assert m, f"no section {sid}"
    return m.group(1)


def rows(text, table_id):
    m = re.search(rf'<table class="sortable" id="{re.escape(table_id)}">.*?<tbody>(.*?)</tbody>', text, re.S)
    assert m, f"no table {table_id}"
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", m.group(1), re.S)]


@test
def the_report_gives_the_kernel_a_section_with_its_figure_and_points():
    d = doc()
    page = report(FIXTURE)
    assert '<a href="#kernel-row_softmax">kernel row_softmax</a>' in page
    assert not re.search(r'<section id="sweep-(carveout|dynamic)"', page), "the kernel's sweeps are its section"
    sec = section(page, "kernel-row_softmax")
    assert sec.startswith("<h2>Your kernel <code>row_softmax</code></h2>"), sec[:80]
    assert re.findall(r'<figure id="([^"]+)">', sec) == ["fig-kernel-row_softmax-kernel_row_softmax"]
    fig = re.search(r"<figure.*?</figure>", sec, re.S).group(0)
    assert "<svg" in fig and "best: cols=1024" in fig and "kernel_row_softmax.svg" in fig
    assert "softmax.cubin</code> (cubin, sha256 <code>" + d["kernel"]["sha256"][:16] in sec
    assert "88 configurations in 2 groups" in sec and "1 mismatch</span>" in sec and "reference matched" in sec
    pts = rows(sec, "points-kernel-row_softmax")
    assert len(pts) == len(d["results"]) == 88, len(pts)
    assert [(row[0], row[1]) for row in pts] == \
        [(r["bench"], ", ".join(f"{k}={v}" for k, v in r["params"].items())) for r in d["results"]]
    bad = rows(sec, "notrun-kernel-row_softmax")
    assert len(bad) == 1 and bad[0][2] == "failed" and "a race (residency 3 blocks/SM here, 8 there)" in bad[0][3], \
        bad


@test
def chromium_sorts_and_filters_every_table_of_the_kernels_report():
    import shutil
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                   None)
    if browser is None:
        raise Skip("no Chromium (Debian package chromium; scripts/setup.sh --dev installs it)")
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "index.html")
        open(page, "w", encoding="utf-8").write(report(FIXTURE))
        p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={d}/profile",
                            "--enable-logging=stderr", "--v=0", "--dump-dom", f"file://{page}#selftest"],
                           capture_output=True, text=True, timeout=120)
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
    assert p.returncode == 0 and console == [], (p.returncode, console[:3])
    m = re.search(r'<output id="selftest" data-result="(\w+)">([^<]*)</output>', p.stdout)
    assert m and m.group(1) == "pass" and m.group(2).startswith("selftest: pass, 3 tables"), m and m.group(0)


@test
def a_kernel_file_beside_built_in_files_leaves_their_sections_as_they_were():
    strip = lambda s: re.sub(r"<svg.*?</svg>", "<svg/>", s, flags=re.S)  # noqa: E731 - classes renumber
    alone, mixed = report(*BUILTIN[:2]), report(*BUILTIN[:2], FIXTURE)
    for sid in ("sweep-carveout", "sweep-dynamic"):
        assert strip(section(alone, sid)) == strip(section(mixed, sid)), sid
    assert re.findall(r'<figure id="([^"]+)">', section(mixed, "kernel-row_softmax")) == \
        ["fig-kernel-row_softmax-kernel_row_softmax"]


@test
def the_csv_export_has_a_row_per_timed_point_and_metric():
    d = doc()
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "export.py"), FIXTURE, "--format", "csv"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "smembench: 1 of 88 points not exported (not run, or without a timing)", p.stderr
    table = list(csv.DictReader(io.StringIO(p.stdout)))
    timed = [r for r in d["results"] if reader.timed(r)]
    assert len(timed) == 87 and len(table) == 2 * len(timed), len(table)    # time and time_us
    assert {r["bench"] for r in table} == {"row_softmax"} and {r["metric"] for r in table} == {"time", "time_us"}
    us = {r["point"]: float(r["value"]) for r in table if r["metric"] == "time_us"}
    assert us == {reader.point_name(r): r["metrics"]["time_us"]["value"] for r in timed}
    assert all(r["unit"] == "us" and r["better"] == "lower" for r in table if r["metric"] == "time_us")


@test
def the_dataframes_hold_the_kernels_points_with_a_kernel_column():
    try:
        import pandas
    except ImportError:
        raise Skip("no pandas (python3-pandas)") from None
    import smembench
    d = doc()
    df = smembench.to_dataframe([FIXTURE, BUILTIN[0]])
    mine = df[df["kernel"] == "softmax.cubin"]
    assert len(mine) == 88 and df["kernel"].isna().sum() == len(reader.load(BUILTIN[0])["results"]), len(mine)
    assert str(df["kernel"].dtype) == "category" and set(mine["bench"]) == {"row_softmax"}
    assert str(mine["param_cols"].dtype) == "Int64" and set(mine["param_cols"]) == {1024, 4096}
    assert str(mine["param_carveout_pct"].dtype) == "Int64" and mine["param_carveout_pct"].min() == -1
    fast = mine.groupby("param_cols")["time_median"].min().to_dict()
    assert fast == {c: min(reader.median_ns(r) for r in d["results"] if reader.timed(r) and r["params"]["cols"] == c)
                    for c in (1024, 4096)}, fast
    assert pandas.isna(mine[mine["status"] == "failed"]["time_median"]).all()
    long = smembench.to_dataframe(FIXTURE, long=True)
    assert len(long) == 2 * 87 and set(long["bench"]) == {"row_softmax"}, len(long)


sys.exit(tap.run())
