#!/usr/bin/env python3
"""Tests of the Python side of hardware counters (issue 48) on committed H200 files given plausible
counters (counters_fixtures.py): the schema (with and without counters), the reader, to_dataframe's
counter columns, the directions, the exports, smembench.explain and smembench-report --explain, the
report's section, and the carveout, user-kernel and bank figures' counter panels (and the same
figures as before for files without counters).

  test_counters.py
"""
import copy
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import counters_fixtures as fx  # noqa: E402
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402
from smembench import counters as smem_counters  # noqa: E402
from smembench import dashboards  # noqa: E402
from smembench import explain  # noqa: E402
from smembench import reader  # noqa: E402

TMP = tempfile.mkdtemp(prefix="smem_counters_")
FILES = {}


def path(name):
    """The fixture file of that name, written once into the test's folder."""
    if name not in FILES:
        doc = {"carveout": fx.carveout, "bank": fx.bank, "unavailable": fx.unavailable, "kernel": fx.kernel}[name]()
        FILES[name] = fx.write(doc, TMP, f"{name}.json")
    return FILES[name]


def doc(name):
    return reader.load(path(name))


def point(d, bench, **params):
    return next(r for r in d["results"] if r["bench"] == bench and all(r["params"].get(k) == v
                                                                       for k, v in params.items()))


def refused(d, needle):
    try:
        reader.check(d)
    except reader.ResultError as e:
        assert needle in str(e), str(e)
        return
    raise AssertionError(f"a document with {needle} was accepted")


@test
def the_schema_takes_counters_and_files_without_them():
    for name in ("carveout", "bank", "unavailable", "kernel"):
        doc(name)
    reader.load(fx.CARVEOUT)        # an older file, no counters anywhere
    d = fx.carveout()
    d["results"][0]["counters"]["values"][fx.L1]["kind"] = "guess"
    refused(d, "guess")
    d = fx.carveout()
    d["run"]["counters"]["status"] = "maybe"
    refused(d, "maybe")
    d = fx.carveout()
    del d["results"][3]["counters"]["passes"]
    refused(d, "passes")
    d = fx.carveout()
    d["results"][3]["counters"] = None      # a point that did not run: null
    reader.check(d)


@test
def the_reader_gives_values_and_none_where_null_or_missing():
    d = doc("carveout")
    g50, g60 = point(d, "gather", carveout_pct=50), point(d, "gather", carveout_pct=60)
    assert reader.counter(g50, fx.L1) == 89.0 and reader.counter(g60, fx.L1) == 41.0
    assert reader.counter(g60, fx.DRAM_R) == 3.28e7
    f0 = point(d, "footprint", carveout_pct=0)
    assert reader.counter(f0, fx.OCC) is None       # null in the file
    assert reader.counter(f0, "no_such.metric") is None
    assert reader.counters_run(d) == ("ok", None)
    assert reader.counters_run(doc("unavailable"))[0] == "unavailable"
    assert reader.counters_run(reader.load(fx.CARVEOUT)) == (None, None)
    assert reader.counters(point(doc("unavailable"), "gather", carveout_pct=60)) == {}


@test
def directions_come_from_one_table():
    lower = [fx.LD_WAVE, fx.LD_CONF, fx.LD_INST, fx.DRAM_R, fx.DRAM_W, fx.STALL_LONG,
             "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"]
    higher = [fx.L1, fx.L2, fx.OCC]
    assert all(smem_counters.better(n) == "lower" for n in lower), [smem_counters.better(n) for n in lower]
    assert all(smem_counters.better(n) == "higher" for n in higher), [smem_counters.better(n) for n in higher]
    assert smem_counters.better("sm__cycles_elapsed.avg") is None
    assert smem_counters.label(fx.STALL_LONG) == "long scoreboard stall"


@test
def to_dataframe_has_a_column_per_counter_with_its_unit():
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise Skip("pandas is not installed")
    import smembench
    df = smembench.to_dataframe(path("carveout"))
    col = "counter_l1tex__t_sector_hit_rate_pct"
    assert col in df.columns and str(df[col].dtype) == "float64", list(df.columns)
    assert df.attrs["units"][col] == "%" and df.attrs["better"][col] == "higher"
    assert df.attrs["counters"][col] == {"name": fx.L1, "kind": "ratio"}
    g = df[(df.bench == "gather") & (df.param_carveout_pct == 60)]
    assert float(g[col].iloc[0]) == 41.0
    occ = "counter_sm__warps_active_avg_pct_of_peak_sustained_active"
    assert df[df.bench == "footprint"][occ].isna().all()        # null: missing, not 0
    d = fx.carveout()
    for r in d["results"]:
        r["counters"]["values"][fx.OCC]["value"] = None
    every = smembench.to_dataframe(d)
    assert str(every[occ].dtype) == "float64" and every[occ].isna().all()
    assert df.attrs["units"]["counter_dram__bytes_read_sum"] == "bytes"
    assert str(df["counters_status"].dtype) == "category" and int(df["counters_passes"].iloc[0]) == 3
    assert list(df.columns)[-1].startswith("counter"), "the counters come after every metric"
    plain = smembench.to_dataframe(fx.CARVEOUT)
    assert not [c for c in plain.columns if c.startswith("counter")]
    assert list(plain.columns) == [c for c in df.columns if not c.startswith("counter")]
    assert "counters" not in plain.attrs
    u = smembench.to_dataframe(path("unavailable"))
    assert not [c for c in u.columns if c.startswith("counter")]


def export(files, fmt):
    inputs = [(p, reader.load(p)) for p in files]
    return {"gab-smaller": lambda: dashboards.gab(inputs, False), "gab-bigger": lambda: dashboards.gab(inputs, True),
            "bmf": lambda: dashboards.bmf(inputs), "openmetrics": lambda: dashboards.openmetrics(inputs),
            "csv": lambda: dashboards.to_csv(inputs)}[fmt]()


@test
def exports_carry_counters_with_unit_and_direction():
    d = fx.carveout()
    r = point(d, "gather", carveout_pct=60)
    r["counters"]["values"]["sm__cycles_elapsed.avg"] = fx.value(1234.0, "cycles", "counter")
    p = fx.write(d, TMP, "unknown.json")
    smaller = json.loads(export([p], "gab-smaller"))
    bigger = json.loads(export([p], "gab-bigger"))
    names_s, names_b = {e["name"] for e in smaller}, {e["name"] for e in bigger}
    key = "gather/carveout_pct=60,table_kib=96"
    assert f"{key} {fx.DRAM_R}" in names_s and f"{key} {fx.L1}" in names_b
    assert f"{key} {fx.L1}" not in names_s and f"{key} {fx.DRAM_R}" not in names_b
    assert not [n for n in names_s | names_b if "sm__cycles_elapsed" in n], "no direction: in neither list"
    e = next(e for e in bigger if e["name"] == f"{key} {fx.L1}")
    assert e["value"] == 41.0 and e["unit"] == "%"
    bmf = json.loads(export([p], "bmf"))
    assert bmf[key]["sm__cycles_elapsed.avg (cycles)"] == {"value": 1234.0}
    assert bmf[key][f"{fx.L1} (%)"] == {"value": 41.0}
    om = export([p], "openmetrics")
    line = next(x for x in om.splitlines() if "sm__cycles_elapsed" in x)
    assert "better=" not in line and line.endswith(" 1234.0"), line
    hit = next(x for x in om.splitlines() if f'metric="{fx.L1}"' in x and 'carveout_pct="60"' in x and
               "gather" in x)
    assert 'better="higher"' in hit and hit.endswith(" 0.41"), hit
    rows = list(csv.DictReader(io.StringIO(export([p], "csv"))))
    row = next(x for x in rows if x["metric"] == "sm__cycles_elapsed.avg")
    assert row["better"] == "" and row["unit"] == "cycles"
    assert next(x for x in rows if x["metric"] == fx.DRAM_R and x["point"] == key)["better"] == "lower"
    # a file without counters exports as it did
    plain = fx.write(fx.without_counters(fx.carveout()), TMP, "plain.json")
    for fmt in ("gab-smaller", "gab-bigger", "bmf", "openmetrics", "csv"):
        assert export([plain], fmt) == export([fx.CARVEOUT], fmt).replace(fx.CARVEOUT, plain), fmt
        assert "l1tex" not in export([plain], fmt)


@test
def asv_names_a_counter_without_direction_off_the_regressions_page():
    d = reader.load(path("carveout"))
    r = point(d, "gather", carveout_pct=60)
    r["counters"]["values"]["sm__cycles_elapsed.avg"] = fx.value(1234.0, "cycles", "counter")
    names = {n for n, *_ in dashboards.asv_benchmarks(r, "x")}
    assert "gather.higher_is_better.l1tex__t_sector_hit_rate_pct" in names, names
    assert "gather.dram__bytes_read_sum" in names
    assert "gather.no_direction.sm__cycles_elapsed_avg" in names
    assert any("no_direction" in k for k in dashboards.ASV_NO_REGRESSIONS)


@test
def explain_names_the_counters_that_moved_at_the_gathers_step():
    found = explain.steps(doc("carveout"))
    g = [s for s in found if s.bench == "gather"]
    step = next(s for s in g if s.a["params"]["carveout_pct"] == 50)
    assert step.b["params"]["carveout_pct"] == 60
    names = [m.name for m in step.moved]
    assert names[0] == fx.L1 and fx.DRAM_R in names, names
    text = step.text()
    assert text.startswith("gather: 183.6 -> 413 us (+125 %) from 50 % to 60 %: L1 hit rate 89 -> 41 % (-48 points)"), text
    assert "DRAM bytes read 8 M -> 32.8 M (x4.1)" in text, text
    # the flat stretches are no steps: nothing between 0 and 50 % for the gather
    assert all(s.a["params"]["carveout_pct"] >= 50 for s in g), [s.text() for s in g]
    # the footprint's steps are its residency: no counter moved, the blocks per SM said
    f = [s for s in found if s.bench == "footprint"]
    assert f and all(not s.moved for s in f)
    assert "1 -> 2 blocks per SM: no counter moved" in f[0].text(), f[0].text()


@test
def a_step_within_the_noise_is_not_explained():
    d = fx.carveout()
    a, b = point(d, "gather", carveout_pct=50), point(d, "gather", carveout_pct=60)
    b["time_ns"]["stats"]["median"] = int(a["time_ns"]["stats"]["median"] * 1.01)
    b["time_ns"]["stats"]["robust_spread"] = 0.001
    d = reader.check(d)
    assert not [s for s in explain.steps(d) if s.bench == "gather" and s.a["params"]["carveout_pct"] == 50]
    # a noisy point: 4 % is under 3 x its 2 % spread
    b["time_ns"]["stats"]["median"] = int(a["time_ns"]["stats"]["median"] * 1.04)
    b["time_ns"]["stats"]["robust_spread"] = 0.02
    assert not [s for s in explain.steps(d) if s.bench == "gather" and s.a["params"]["carveout_pct"] == 50]
    b["time_ns"]["stats"]["robust_spread"] = 0.001
    assert [s for s in explain.steps(d) if s.bench == "gather" and s.a["params"]["carveout_pct"] == 50]


@test
def explain_says_once_why_there_are_no_counters():
    lines = explain.lines(doc("unavailable"))
    assert lines[0] == f"no counters (unavailable): {fx.REASON}", lines[0]
    assert sum("no counters" in x for x in lines) == 1
    plain = explain.lines(reader.load(fx.CARVEOUT))
    assert plain[0] == "no counters: the file did not ask for them (smembench --counters)"
    assert not explain.asked(reader.load(fx.CARVEOUT))


@test
def the_bank_counters_follow_the_model_per_request():
    d = doc("bank")
    n = 0
    for r in reader.timed_points(d):
        model = r["metrics"]["wavefronts"]["value"]
        assert smem_counters.wavefronts_per_request(r) == model
        least = max(1, r["params"]["width_bytes"] // 4)
        assert smem_counters.conflicts_per_request(r) == model - least
        n += 1
    assert n == 99, n
    # the bank sweep's time is held constant by its iteration count: no step to explain
    assert not explain.steps(d)


def report(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report.py"), *args],
                          capture_output=True, text=True, timeout=120)


@test
def report_explain_prints_the_steps():
    p = report(path("carveout"), path("kernel"), fx.CARVEOUT, "--explain")
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == f"{path('carveout')}: NVIDIA H200, sweep carveout", out[0]
    assert any(x.startswith("  gather: 183.6 -> 413 us (+125 %) from 50 % to 60 %: L1 hit rate 89 -> 41 %")
               for x in out), out
    assert any("from 50 % to 60 %: DRAM bytes written" in x or "from 50 % to 60 %: L1 hit rate 59 -> 32 %" in x
               for x in out), out
    assert "  no counters: the file did not ask for them (smembench --counters)" in out
    p = report(path("carveout"))
    assert p.returncode == 2 and "-o/--output" in p.stderr, p.stderr
    p = report(path("carveout"), "--explain", "-o", os.path.join(TMP, "page"))
    assert p.returncode == 2 and "--explain writes no page" in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(TMP, "page"))


def plt_():
    try:
        from smembench import plot
        return plot, plot.pyplot()
    except Exception as e:  # noqa: BLE001 - no matplotlib: the figure tests skip
        raise Skip(f"matplotlib: {e}")


def figures_of(files):
    plot, plt = plt_()
    return plt, dict(plot.figures(plt, plot.make_series(plot.load(files, lambda t: None))))


def panels(fig):
    return [ax for ax in fig.axes if ax.get_title() or ax.get_ylabel()]


def close(plt, figs):
    for f in figs.values():
        plt.close(f)


@test
def the_carveout_figure_gains_l1_and_dram_panels():
    plt, with_c = figures_of([path("carveout")])
    _, plain = figures_of([fx.CARVEOUT])
    _, unav = figures_of([path("unavailable")])
    a, b, u = (len(panels(f["carveout"])) for f in (with_c, plain, unav))
    assert a == b + 2 and u == b, (a, b, u)
    titles = [ax.get_title() for ax in with_c["carveout"].axes]
    l1 = next(ax for ax in with_c["carveout"].axes if ax.get_title().startswith("L1 hit rate"))
    gather = next(line for line in l1.get_lines() if line.get_label().startswith("gather"))
    assert list(gather.get_ydata()) == [89.0] * 8 + [41.0] * 2 + [12.0] * 3, list(gather.get_ydata())
    assert any(t.startswith("DRAM bytes") for t in titles), titles
    head = unav["carveout"]._suptitle.get_text()
    assert f"no counters (unavailable): {fx.REASON}" in head, head
    assert "no counters" not in plain["carveout"]._suptitle.get_text()
    for figs in (with_c, plain, unav):
        close(plt, figs)


@test
def a_figure_without_counters_is_the_same_bytes():
    plot, plt = plt_()
    stripped = fx.write(fx.without_counters(fx.carveout()), TMP, "stripped.json")
    out = []
    for p in (fx.CARVEOUT, stripped):
        figs = dict(plot.figures(plt, plot.make_series(plot.load([p], lambda t: None))))
        buf = io.BytesIO()
        figs["carveout"].savefig(buf, format="svg", metadata={"Date": None})
        out.append(buf.getvalue().replace(b"stripped.json", b"x").replace(os.path.basename(fx.CARVEOUT).encode(), b"x"))
        close(plt, figs)
    assert out[0] == out[1]


@test
def the_kernel_figure_gains_the_counter_that_moved():
    plt, figs = figures_of([path("kernel")])
    _, plain = figures_of([fx.KERNEL])
    name = next(n for n in figs if n.startswith("kernel_"))
    titles = [ax.get_title() for ax in figs[name].axes if ax.get_title()]
    base = [ax.get_title() for ax in plain[name].axes if ax.get_title()]
    assert len(titles) == len(base) + 2, (titles, base)
    assert "L1 hit rate of one launch: the counter that moved most with the time" in titles[1], titles
    assert "no counter moved with the time here" in titles[3], titles
    close(plt, figs)
    close(plt, plain)


@test
def the_bank_figure_gains_a_per_request_panel():
    plt, figs = figures_of([path("bank")])
    d = copy.deepcopy(fx.without_counters(fx.bank()))
    _, plain = figures_of([fx.write(d, TMP, "bank_plain.json")])
    ax = next(a for a in figs["bank"].axes if a.get_title().startswith("Shared loads per request"))
    assert len(panels(figs["bank"])) == len(panels(plain["bank"])) + 1
    got = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    assert got["4-byte: wavefronts / instructions"] == got["4-byte: model's wavefronts"]
    assert got["16-byte: conflicts / instructions"][0] == 0.0
    close(plt, figs)
    close(plt, plain)


@test
def the_report_page_has_the_steps_or_why_not():
    plot, plt = plt_()
    from smembench import report as report_mod
    page = report_mod.render(plt, [(path("carveout"), doc("carveout"))])
    assert 'id="explain-carveout"' in page
    assert "gather: 183.6 -&gt; 413 us (+125 %) from 50 % to 60 %: L1 hit rate 89 -&gt; 41 %" in page
    # the footprint's residency steps (no counter moved) and the gather's last one folded, counted
    head, _, folded = page.partition('<details class="explain-rest"><summary>7 steps in time')
    assert folded and "footprint: 913.6" in folded and "footprint: 913.6" not in head
    page = report_mod.render(plt, [(path("unavailable"), doc("unavailable"))])
    assert f"<li>no counters (unavailable): {fx.REASON}</li>" in page.replace("&#x27;", "'")
    page = report_mod.render(plt, [(fx.CARVEOUT, reader.load(fx.CARVEOUT))])
    assert "explain-" not in page


if __name__ == "__main__":
    import shutil
    sys.exit(tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
