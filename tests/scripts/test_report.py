#!/usr/bin/env python3
"""Tests of smembench-report (TAP): the page made from the committed H200 files holds what it must
(a section per sweep with its figures, a table row per point, the points that did not run with their
reasons, the baseline comparison with compare's own verdicts) and nothing from the network; in
headless Chromium it loads without a console message, renders, and sorts every column of every
table (the page's #selftest); the committed page is current; bad input is one line and exit 2.

  test_report.py [SMEMBENCH]   the program, to make a predict-mode file (else that test skips)
"""
import html.parser
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
from smembench import cli  # noqa: E402
from smembench import compare  # noqa: E402
from smembench import gate  # noqa: E402
from smembench import reader  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
SESSION = [os.path.join(RESULTS, f"nvidia-h200_20261129_{k}.json")
           for k in ("bandwidth-latency-bank", "carveout", "dynamic", "tile", "reduction", "uninit")]
BASELINE = os.path.join(RESULTS, "nvidia-h200_20261129_bank-bandwidth_run1.json")
# the figures each sweep of the H200 session must show (plot.py's names)
FIGURES = {"bandwidth": ["bandwidth"], "latency": ["bandwidth"], "bank": ["bank"], "carveout": ["carveout"],
           "dynamic": ["occupancy"], "tile": ["tile", "memory"], "reduction": ["memory"], "uninit": ["bench_uninit"]}




class Page(html.parser.HTMLParser):
    """What a report page holds: sections, their figures and tables (rows of cell texts), and every
    attribute that could load something."""

    def __init__(self, text):
        super().__init__()
        self.sections, self.tables, self.loads, self.output = {}, {}, [], None
        self.elements = []            # (tag, attributes) of every element, in page order
        self.rows = []                # (table id, its row's attributes, cells) of every body row, in page order
        self.items = []               # (attributes, text) of every list item
        self._section = self._table = self._row = self._cell = None
        self._svg_depth = 0
        self._in_head = self._in_output = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if not self._svg_depth and tag != "svg":
            self.elements.append((tag, a))
        if tag == "br" and self._cell is not None:
            self._cell += "\n"
        if tag == "li":
            self.items.append([a, ""])
        for k in ("src", "href", "xlink:href", "data"):
            if k in a and not (a[k] or "").startswith("#"):
                self.loads.append((tag, k, a[k]))
        if tag in ("link", "iframe", "img", "object", "embed") or (tag == "script" and "src" in a):
            self.loads.append((tag, "", ""))
        if tag == "section":
            self._section = a.get("id")
            self.sections[self._section] = {"figures": [], "tables": []}
        elif tag == "figure" and self._section:
            self.sections[self._section]["figures"].append(a.get("id"))
        elif tag == "svg":
            self._svg_depth += 1
        elif tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = {"head": [], "rows": [], "sortable": "sortable" in (a.get("class") or "")}
            if self._section:
                self.sections[self._section]["tables"].append(self._table)
        elif tag in ("thead", "tbody"):
            self._in_head = tag == "thead"
        elif tag == "tr" and self._table:
            self._row = []
            self._row_attrs = a
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""
            self._value = a.get("data-v")
            if tag == "th":
                self.tables[self._table].setdefault("types", []).append(a.get("data-type"))
        elif tag == "output":
            self.output = dict(a, text="")
            self._in_output = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell.strip())
            if not self._in_head:
                self.tables[self._table].setdefault("values", []).append(
                    self._cell.strip() if self._value is None else self._value)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            t = self.tables[self._table]
            if self._in_head:
                t["head"] = self._row
            else:
                t["rows"].append(self._row)
                self.rows.append((self._table, self._row_attrs, self._row))
            self._row = None
        elif tag == "output":
            self._in_output = False
        elif tag == "table":
            self._table = None
        elif tag == "section":
            self._section = None
        elif tag == "svg":
            self._svg_depth -= 1

    def handle_data(self, data):
        if self._cell is not None and not self._svg_depth:
            self._cell += data
        if self.items and not self._svg_depth:
            self.items[-1][1] += data
        if self._in_output:
            self.output["text"] += data


def report(*args):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def make_session_report(d):
    rc, out, err = report(*SESSION, "--baseline", BASELINE, "-o", d)
    assert rc == 0, err
    path = os.path.join(d, "index.html")
    assert out.strip() == path, out
    return path


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise Skip("no Chromium (Debian package chromium; scripts/setup.sh --dev installs it)")


def browse(url, *args):
    """Runs headless Chromium on url: (rc, stdout, the console messages it logged)."""
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                            "--enable-logging=stderr", "--v=0", *args, url], capture_output=True, text=True,
                           timeout=120)
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
    return p.returncode, p.stdout, console


def without_svg(text):
    """The page but for its figures' SVG and their style sheet (matplotlib's output by version)."""
    text = re.sub(r"svg \.fs[0-9a-f]+ \{[^}]*\}\n", "", text)
    return re.sub(r"<svg.*?</svg>", "<svg/>", text, flags=re.S)


@test
def the_session_report_holds_every_sweep_point_and_reason():
    docs = [reader.load(f) for f in SESSION]
    with tempfile.TemporaryDirectory() as d:
        page = Page(open(make_session_report(d), encoding="utf-8").read())
    sweeps = {}
    for doc in docs:
        for r in doc["results"]:
            sweeps.setdefault(r["sweep"], []).append(r)
    assert set(FIGURES) == set(sweeps), sweeps.keys()
    for name, points in sweeps.items():
        sec = page.sections.get(f"sweep-{name}")
        assert sec, f"no section for the {name} sweep"
        assert sec["figures"] == [f"fig-{name}-{f}" for f in FIGURES[name]], (name, sec["figures"])
        table = page.tables[f"points-{name}"]
        assert table["sortable"] and len(table["rows"]) == len(points), (name, len(table["rows"]), len(points))
        assert table["head"][:4] == ["bench", "parameters", "status", "median (us)"], table["head"]
        medians = sorted(float(row[3].replace(",", "")) for row in table["rows"] if row[3] != "\u2013")
        assert medians == sorted(round(r["time_ns"]["stats"]["median"] / 1e3, 2) for r in points
                                 if r["time_ns"]["stats"]["median"] is not None), name
        bad = [r for r in points if r["status"] not in ("ok", "skipped")]
        if bad:
            rows = page.tables[f"notrun-{name}"]["rows"]
            assert [row[-1] for row in rows] == [r["reason"] for r in bad], rows
        skipped = [r for r in points if r["status"] == "skipped"]
        if skipped:
            rows = page.tables[f"skipped-{name}"]["rows"]
            assert sorted((row[1], int(row[0])) for row in rows) == sorted(
                (reason, sum(1 for r in skipped if r["reason"] == reason)) for reason in {r["reason"] for r in skipped})
    assert "skipped-dynamic" in page.tables and "48 KiB" in page.tables["skipped-dynamic"]["rows"][0][1]
    runs = page.tables["runs-table"]["rows"]
    assert [row[0] for row in runs] == [os.path.basename(f) for f in SESSION], runs
    assert all(row[1] == "NVIDIA H200" and row[3] == "132" for row in runs), runs
    base = reader.load(BASELINE)
    for f, doc in zip(SESSION, docs):
        want = gate.compare(base, doc, 0.02, 0.01)
        art = [a for t, a in page.elements if t == "article" and a.get("data-file") == os.path.basename(f)]
        if want:
            assert len(art) == 1, f
            i = art[0]["id"]
            got = {(row[0], row[-1]) for t, _, row in page.rows if t in (f"{i}-points", f"{i}-same")}
            judged = {(w[0], w[5]) for w in want if w[5] not in ("missing", "new")}
            assert {(n, v.split()[0].rstrip(":")) for n, v in got} == {(n, v.split()[0]) for n, v in judged}, f
        else:
            assert not art and any(a.get("data-file") == os.path.basename(f) and "shares no point" in text
                                   for a, text in page.items), f
    assert any(gate.compare(base, doc, 0.02, 0.01) for doc in docs), "the baseline shares points with a file"
    assert page.loads == [], f"the page loads something: {page.loads[:3]}"


TRIALS_FILE = os.path.join(RESULTS, "gate", "session2_20261201", "nvidia-h200_20261201_all_2de6d47_unitE_r1.json")


@test
def points_whose_trials_disagree_are_listed_with_each_trial_and_marked_in_the_points_table():
    doc = reader.load(TRIALS_FILE)
    split = {(r["sweep"], r["bench"], report_params(r)) for r in doc["results"]
             if isinstance(r.get("trials"), dict) and r["trials"].get("disagree")}
    assert split, "the H200 file has points whose trials disagree"
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = report(TRIALS_FILE, "-o", d)
        assert rc == 0, err
        page = Page(open(os.path.join(d, "index.html"), encoding="utf-8").read())
    got, marked = set(), set()
    for tid, table in page.tables.items():
        if tid.startswith("trials-"):
            assert table["head"][:3] == ["benchmark", "parameters", "trials: median per launch, SM clock"], table["head"]
            for row in table["rows"]:
                got.add((tid[len("trials-"):], row[0], row[1]))
                assert row[2].count(" us at ") == 3 and "MHz" in row[2], row   # three trials, each at its clock
        if tid.startswith("points-"):
            col = table["head"].index("trials (%)")
            marked |= {(tid[len("points-"):], row[0], row[1]) for row in table["rows"] if row[col].endswith("*")}
    assert got == split, (len(got), len(split))
    assert marked == split, (len(marked), len(split))


def report_params(r):
    return ", ".join(f"{k}={v}" for k, v in r["params"].items())


@test
def chromium_loads_renders_and_sorts_the_report_without_a_console_message():
    with tempfile.TemporaryDirectory() as d:
        path = make_session_report(d)
        rc, dom, console = browse(f"file://{path}#selftest", "--dump-dom")
        assert rc == 0 and dom, rc
        assert console == [], f"console: {console[:3]}"
        page = Page(dom)
        n_tables = len(Page(open(path, encoding="utf-8").read()).tables)
        assert page.output and page.output.get("data-result") == "pass", page.output
        m = re.match(r"selftest: pass, (\d+) tables, (\d+) sorts checked", page.output.get("text", ""))
        assert m and int(m.group(1)) == n_tables, page.output
        cols = sum(len(t["head"]) for t in page.tables.values())
        assert int(m.group(2)) == 2 * cols, (m.group(2), cols)
        # the self-test's last clicks sorted each table by its last column, descending: check that
        # order here, with Python's numbers
        for name, t in page.tables.items():
            width = len(t["head"])
            col = [t["values"][i * width + width - 1] for i in range(len(t["rows"]))]
            full = [v for v in col if v not in ("", "\u2013")]
            assert col[:len(full)] == full, f"{name}: empty cells come last"
            key = (lambda v: float(v.replace(",", ""))) if t["types"][-1] == "num" else (lambda v: v.lower())
            assert [key(v) for v in full] == sorted((key(v) for v in full), reverse=True), name
        assert dom.count('aria-sort="descending"') == len(page.tables)
        shot = os.path.join(d, "shot.png")
        rc, _, console = browse(f"file://{path}", f"--screenshot={shot}", "--window-size=1200,1600",
                                "--hide-scrollbars")
        assert rc == 0 and console == [], console[:3]
        import matplotlib.image
        img = matplotlib.image.imread(shot)
        assert img.shape[:2] == (1600, 1200), img.shape
        # rendered: text, tables and the first figures, not an empty or one-colour page
        assert img.std() > 0.1 and (img[..., :3].min(axis=2) < 0.3).mean() > 0.01, (img.std(),)


@test
def the_committed_report_is_current():
    committed = os.path.join(RESULTS, "report", "index.html")
    assert os.path.exists(os.path.join(RESULTS, "report", "screenshot.png")), "the screenshot beside it"
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(["bash", os.path.join(SCRIPTS, "figures.sh"), d, "report"], capture_output=True,
                           text=True, timeout=600, env=dict(os.environ, PYTHON=sys.executable, NO_SCREENSHOT="1"))
        assert p.returncode == 0, p.stderr
        fresh = open(os.path.join(d, "report", "index.html"), encoding="utf-8").read()
    old = open(committed, encoding="utf-8").read()
    # the figures' SVG bytes depend on the matplotlib version (test_plot compares the figures)
    assert without_svg(fresh) == without_svg(old), "results/report/index.html is stale: run scripts/figures.sh"
    assert fresh.count("<svg") == old.count("<svg")


@test
def a_predict_file_reports_its_predicted_points():
    if not SMEMBENCH:
        raise Skip("no smembench program given")
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "t4.json")
        p = subprocess.run([SMEMBENCH, "--predict", "t4", "--sweep", "carveout,dynamic", "-q", "-o", f],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        rc, out, err = report(f, "-o", d)
        assert rc == 0, err
        page = Page(open(os.path.join(d, "index.html"), encoding="utf-8").read())
        doc = json.load(open(f))
        rows = page.tables["points-dynamic"]["rows"]
        assert len(rows) == sum(1 for r in doc["results"] if r["sweep"] == "dynamic")
        assert {row[2] for row in rows} == {"predicted", "skipped"}, {row[2] for row in rows}
        assert page.sections["sweep-carveout"]["figures"] == ["fig-carveout-carveout"]


def fleet_files(d, slower=None):
    """The two committed full H200 runs as the files of nodes n1 and n2 (run.node), the second with
    one point's samples `slower` times slower."""
    paths = []
    for node, name in (("n1", "all"), ("n2", "all_run2")):
        doc = json.load(open(os.path.join(RESULTS, f"nvidia-h200_20261130_{name}.json")))
        doc["run"]["node"] = node
        if slower and node == "n2":
            r = [r for r in doc["results"] if r["bench"] == "bandwidth" and r["params"] == {"width_bytes": 8}][0]
            r["time_ns"]["raw"] = [round(v * slower) for v in r["time_ns"]["raw"]]
            for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
                r["time_ns"]["stats"][k] = round(r["time_ns"]["stats"][k] * slower)
        paths.append(os.path.join(d, f"{node}.json"))
        json.dump(doc, open(paths[-1], "w"))
    return paths


@test
def several_units_of_one_model_get_the_fleet_section():
    from smembench import fleet
    x2 = os.path.join(RESULTS, "nvidia-h200-x2_20261129_bandwidth-latency-bank.json")
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = report(x2, "-o", d)
        assert rc == 0, err
        page = Page(open(os.path.join(d, "index.html"), encoding="utf-8").read())
    assert page.sections["fleet-0"]["figures"] == ["fig-fleet-0"], page.sections.get("fleet-0")
    units = page.tables["fleet-0-units"]["rows"]
    assert [(row[0], row[4], row[5]) for row in units] == [("vm gpu0", "0000:00:06.0", "not recorded"),
                                                           ("vm gpu1", "0000:00:07.0", "not recorded")], units
    want = fleet.Fleet(fleet.units_of([(x2, reader.load(x2))]), 2.0)
    rows = page.tables["fleet-0-points"]["rows"]
    assert page.tables["fleet-0-points"]["head"] == ["point", "fleet median (us)", "spread (%)", "vm gpu0 (%)",
                                                     "vm gpu1 (%)"]
    assert len(rows) == len(want.rows) == 104
    for row, w in zip(rows, want.ranked()):      # the points farthest from normal first
        assert row[0] == w["name"] and float(row[2]) == round(100 * w["spread"], 2), (row, w)
        assert [float(c.rstrip(" *")) for c in row[3:]] == [round(100 * w["cells"][u]["dev"], 2)
                                                            for u in ("vm gpu0", "vm gpu1")], row
    # two runs on one GPU (no uuid, one host and bus) are not a fleet; two nodes are, with the
    # injected 10 % slower point their one outlier
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = report(os.path.join(RESULTS, "nvidia-h200_20261130_all.json"),
                            os.path.join(RESULTS, "nvidia-h200_20261130_all_run2.json"), "-o", d)
        assert rc == 0 and "fleet-0" not in Page(open(os.path.join(d, "index.html")).read()).sections, err
        rc, _, err = report(*fleet_files(d, 1.10), "-o", d)
        assert rc == 0, err
        path = os.path.join(d, "index.html")
        text = open(path, encoding="utf-8").read()
        page = Page(text)
        # the outliers one table, the rule said once above it
        (out,) = page.tables["fleet-0-outliers"]["rows"]
        assert "Outliers (1)" in text and out[:2] == ["n2 gpu0", "bandwidth/width_bytes=8"] and \
            re.fullmatch(r"\+4\.\d\d", out[2]) and out[3:] == ["2.00", f"{float(out[2]) / 2:.2f}", "threshold", "one run"], out
        starred = [row for row in page.tables["fleet-0-points"]["rows"] if any(c.endswith(" *") for c in row)]
        assert [row[0] for row in starred] == ["bandwidth/width_bytes=8"] and starred[0][4].endswith(" *"), starred


@test
def chromium_renders_and_sorts_the_fleet_section():
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = report(*fleet_files(d, 1.10), "-o", d)
        assert rc == 0, err
        path = os.path.join(d, "index.html")
        rc, dom, console = browse(f"file://{path}#selftest", "--dump-dom")
        assert rc == 0 and console == [], console[:3]
        page = Page(dom)
        assert {"fleet-0-units", "fleet-0-points"} <= set(page.tables), list(page.tables)
        m = re.match(r"selftest: pass, (\d+) tables", page.output.get("text", "")) if page.output else None
        assert m and int(m.group(1)) == len(page.tables), page.output


@test
def bad_input_is_one_line_and_exit_2():
    with tempfile.TemporaryDirectory() as d:
        afile = os.path.join(d, "afile")
        open(afile, "w").write("x")
        cases = ((["--baseline", os.path.join(d, "none.json"), "-o", d], "No such file"),
                 (["-o", afile], "is not a directory"),
                 (["--threshold", "-1", "-o", d], "--threshold"))
        for args, needle in cases:
            rc, out, err = report(SESSION[1], *args)
            lines = err.strip().splitlines()
            assert rc == 2 and len(lines) == 1 and needle in lines[0] and "Traceback" not in err, (args, rc, err)
        # JSON that is no result file is skipped (smembench.inputs); with nothing left, one line
        rc, _, err = report(os.path.join(RESULTS, "schema.json"), "-o", d)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "no result file among the inputs" in err and \
            "Traceback" not in err, err
        assert sorted(os.listdir(d)) == ["afile"], os.listdir(d)
        p = subprocess.run([sys.executable, "-S", os.path.join(SCRIPTS, "report.py"), SESSION[1], "-o", d],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 3 and "python3-matplotlib" in p.stderr and len(p.stderr.strip().splitlines()) == 1, \
            p.stderr


# the H200 files of one day as the issue viewed them: two `--sweep all` runs, a `--sweep all --quick`
# run, the cluster and staging sweeps and the runs with extra --axis values (results/day/README.md);
# the second full run the baseline (also among the inputs: it must not be compared with itself)
DAY = [os.path.join(RESULTS, f) for f in (
    "nvidia-h200_20261130_all.json", "nvidia-h200_20261130_all_run2.json", "day/nvidia-h200_20261130_quick.json",
    "nvidia-h200_20261130_cluster.json", "nvidia-h200_20261130_staging.json",
    "day/nvidia-h200_20261130_footprint_tile_bytes.json", "day/nvidia-h200_20261130_cluster_3_5_12.json",
    "day/nvidia-h200_20261130_staging_bulk.json", "day/nvidia-h200_20261130_carveout_4.json")]
DAY_BASE = DAY[1]
_day = {}


def day_report():
    """(path, text, Page) of the day's report, made once for the tests that read it."""
    if not _day:
        d = tempfile.mkdtemp(prefix="smembench-report-")
        rc, out, err = report(*DAY, "--baseline", DAY_BASE, "-o", d)
        assert rc == 0, err
        path = out.strip()
        text = open(path, encoding="utf-8").read()
        _day.update(path=path, text=text, page=Page(text))
    return _day["path"], _day["text"], _day["page"]


def gate_exit(base, new):
    """What `smembench-compare BASE NEW` decides: 0 pass, 1 fail, None no point in common."""
    try:
        _, rc = compare.run([base, new])
    except cli.Usage as e:
        assert "no point in common" in str(e), e
        return None
    return rc


def item(page, ident):
    return next((a, text) for a, text in page.items if a.get("id") == ident)


@test
def the_headline_counts_gpus_points_and_gives_the_gates_verdict():
    _, _, page = day_report()
    docs = [reader.load(f) for f in DAY]
    # GPUs: by uuid where every run of a model records one, else by host and PCI bus
    by_model = {}
    for doc in docs:
        for dev in doc.get("devices") or [doc["device"]]:
            by_model.setdefault(dev["name"], []).append((dev.get("uuid"), doc["run"].get("node") or doc["run"]["host"],
                                                         dev.get("pci_bus_id")))
    gpus = sum(len({u for u, _, _ in devs}) if all(u for u, _, _ in devs) else len({(h, b) for _, h, b in devs})
               for devs in by_model.values())
    points = sum(len(doc["results"]) for doc in docs)
    timed = sum(1 for doc in docs for r in doc["results"]
                if r["status"] == "ok" and (r["time_ns"]["stats"].get("median") or 0) > 0)
    a, text = item(page, "headline-devices")
    assert int(a["data-count"]) == gpus and re.search(f"{gpus} GPUs?: .*NVIDIA H200", text), (a, text, gpus)
    a, text = item(page, "headline-points")
    assert (int(a["data-count"]), int(a["data-timed"])) == (points, timed), (a, points, timed)
    assert f"{points} in {len(DAY)} files: {timed} timed" in text, text
    exits = {f: gate_exit(DAY_BASE, f) for f in DAY if f != DAY_BASE}
    failing = [f for f, rc in exits.items() if rc == 1]
    a, text = item(page, "headline-verdict")
    assert failing and a["data-verdict"] == "fail", (a, exits)
    judged = [f for f, rc in exits.items() if rc is not None]
    assert f"gate fail: {len(failing)} of {len(judged)} files fail" in text, text
    assert all(os.path.basename(f) in text for f in failing), text
    # the headline comes first: before the baseline section and the first table
    tags = [t for t, _ in page.elements]
    assert tags.index("ul") < tags.index("section") and tags.index("ul") < tags.index("table")


@test
def every_baseline_file_gets_the_gates_verdict_and_the_baseline_is_not_compared_with_itself():
    _, _, page = day_report()
    arts = {a["data-file"]: a for t, a in page.elements if t == "article"}
    for f in DAY:
        name = os.path.basename(f)
        if f == DAY_BASE:
            assert name not in arts, "the baseline compared with itself"
            assert any(a.get("class") == "self" and a.get("data-file") == name for a, _ in page.items)
            continue
        rc = gate_exit(DAY_BASE, f)
        if rc is None:
            # shares no point: one line, no table, no verdict
            lines = [text for a, text in page.items if a.get("class") == "skip" and a.get("data-file") == name]
            assert name not in arts and len(lines) == 1 and "shares no point" in lines[0], (name, lines)
        else:
            assert arts[name]["data-verdict"] == ("fail" if rc else "pass"), (name, rc, arts[name])
    # the quick run's settings mismatch is shown, as failing the gate; its missing points are one line
    quick = arts[os.path.basename(DAY[2])]["id"]
    text = open(day_report()[0], encoding="utf-8").read()
    art = text[text.index(f'id="{quick}"'):text.index("</article>", text.index(f'id="{quick}"'))]
    assert re.search(r'<li class="bad">settings mismatch: [^<]*quick false -&gt; true \(fails the gate', art), art[:600]
    rows = gate.compare(reader.load(DAY_BASE), reader.load(DAY[2]), 0.02, 0.01)
    missing = sum(1 for w in rows if w[5] == "missing")
    assert missing > 100 and f"{missing} points of the baseline missing from this file" in art, missing
    assert art.count("<tr") < len(rows) - missing + 10, art.count("<tr")
    assert not [r for t, a, r in page.rows if t.startswith(quick) and a.get("data-verdict") == "missing"]
    # without the baseline among the inputs there is nothing to leave out
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = report(DAY[0], DAY[2], "--baseline", DAY_BASE, "-o", d)
        assert rc == 0, err
        p = Page(open(os.path.join(d, "index.html"), encoding="utf-8").read())
    assert [a["data-file"] for t, a in p.elements if t == "article"] == [os.path.basename(DAY[0]),
                                                                        os.path.basename(DAY[2])]
    assert not any(a.get("class") == "self" for a, _ in p.items)


@test
def a_changed_point_comes_before_the_unchanged_ones():
    with tempfile.TemporaryDirectory() as d:
        doc = json.load(open(DAY[0]))
        r = [r for r in doc["results"] if r["bench"] == "bandwidth" and r["params"] == {"width_bytes": 8}][0]
        r["time_ns"]["raw"] = [round(v * 1.10) for v in r["time_ns"]["raw"]]
        for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
            r["time_ns"]["stats"][k] = round(r["time_ns"]["stats"][k] * 1.10)
        slow = os.path.join(d, "slow.json")
        json.dump(doc, open(slow, "w"))
        # the baseline's points in reverse: uninit's points, which the noise cannot judge, come first
        # in the gate's order, and the page must still put the slower point above them
        base = json.load(open(DAY_BASE))
        base["results"].reverse()
        rev = os.path.join(d, "base.json")
        json.dump(base, open(rev, "w"))
        assert gate_exit(rev, slow) == 1
        assert [w[5].split()[0] for w in gate.compare(base, doc, 0.02, 0.01)][:2] == ["uncertain"] * 2
        rc, _, err = report(slow, "--baseline", rev, "-o", d)
        assert rc == 0, err
        text = open(os.path.join(d, "index.html"), encoding="utf-8").read()
        page = Page(text)
    art = [a for t, a in page.elements if t == "article"]
    assert len(art) == 1 and art[0]["data-verdict"] == "fail", art
    rows = [(a.get("data-verdict"), row[0]) for t, a, row in page.rows if t.startswith(art[0]["id"] + "-")]
    assert rows[0] == ("slower", "bandwidth/width_bytes=8"), rows[:3]
    verdicts = [v for v, _ in rows]
    assert "same" in verdicts and verdicts.index("same") > 0 and verdicts.count("slower") == 1, verdicts[:5]
    assert all(v != "same" for v in verdicts[:verdicts.index("same")]), verdicts
    assert "uncertain" in verdicts[1:verdicts.index("same")], verdicts[:6]
    assert text.count("gate fail (exit 1): 1 slower") == 1, text[:300]


@test
def noise_is_the_robust_spread_everywhere():
    _, text, page = day_report()
    docs = [reader.load(f) for f in DAY]
    checked = 0
    # the points tables of the sweeps that one file ran (no device column): each row is its point
    for tid, t in page.tables.items():
        if not tid.startswith("points-") or "device" in t["head"]:
            continue
        sweep = tid[len("points-"):]
        points = {(r["bench"], ", ".join(f"{k}={v}" for k, v in r["params"].items())): r
                  for doc in docs for r in doc["results"] if (r.get("sweep") or r["bench"]) == sweep}
        col = t["head"].index("noise (%)")
        for row in t["rows"]:
            r = points[(row[0], row[1])]
            if row[col] == "\u2013":
                assert not reader.timed(r) or reader.robust_spread(r) is None, row
                continue
            assert float(row[col]) == round(100 * reader.robust_spread(r), 2), (row, reader.robust_spread(r))
            checked += 1
    assert checked > 50, checked
    # the gate's tables: the baseline's and the file's robust spread
    base = {reader.point_name(r): r for r in reader.load(DAY_BASE)["results"]}
    new = {reader.point_name(r): r for r in docs[0]["results"]}
    art = next(a["id"] for t, a in page.elements if t == "article" and a["data-file"] == os.path.basename(DAY[0]))
    col = page.tables[f"{art}-same"]["head"].index("noise base / file (%)")
    for row in page.tables[f"{art}-same"]["rows"]:
        want = f"{100 * reader.robust_spread(base[row[0]]):.2f} / {100 * reader.robust_spread(new[row[0]]):.2f}"
        assert row[col] == want, (row, want)
        checked += 1
    # stdev/mean differs from it on these points: the check tells the two apart
    timed = [r for doc in docs for r in doc["results"] if reader.timed(r)]
    assert checked > 300 and any(round(100 * r["time_ns"]["stats"]["stdev"] / r["time_ns"]["stats"]["mean"], 2) !=
                                 round(100 * reader.robust_spread(r), 2) for r in timed)
    assert "stdev / mean" not in text and "stdev/mean" not in text


@test
def arrows_only_on_metrics_that_measure_speed():
    _, _, page = day_report()
    docs = [reader.load(f) for f in DAY]
    meta = {}
    for doc in docs:
        for r in doc["results"]:
            for name in r["metrics"]:
                meta.setdefault((r["bench"], name), r)
    seen = {"arrow": set(), "none": set()}
    for tid, t in page.tables.items():
        if not tid.startswith("points-"):
            continue
        mcol, pcol, bcol = t["head"].index("metrics"), t["head"].index("parameters"), t["head"].index("bench")
        for row in t["rows"]:
            assert not re.search("[\u2191\u2193]", row[pcol]), row[pcol]
            for line in row[mcol].split("\n"):
                if line in ("", "\u2013"):
                    continue
                name = line.split()[0]
                r = meta[(row[bcol], name)]
                want = reader.performance(r, name) and reader.better(r, name)
                got = line.endswith(("\u2191", "\u2193"))
                assert got == bool(want), (row[bcol], line)
                if want:
                    assert line.endswith({"higher": "\u2191", "lower": "\u2193"}[want]), line
                seen["arrow" if got else "none"].add(name)
    # descriptive quantities have none; speed has one (else the check above proves nothing)
    assert {"alloc_bytes", "stages", "sms", "wavefronts"} <= seen["none"], seen["none"]
    assert not {"alloc_bytes", "stages", "sms", "wavefronts"} & seen["arrow"]
    assert {"gbytes_per_s", "bytes_per_clk_sm", "latency_cycles"} <= seen["arrow"], seen["arrow"]


@test
def every_point_table_has_a_filter_box_and_a_csv_link():
    _, _, page = day_report()
    points = [tid for tid in page.tables if tid.startswith("points-")]
    inputs = {a["data-table"] for t, a in page.elements if t == "input" and "filter" in a.get("class", "")}
    links = {a["data-table"]: a for t, a in page.elements if t == "a" and "csv" in a.get("class", "")}
    assert len(points) >= 5 and set(points) <= inputs and set(points) <= set(links), (points, inputs)
    assert all(links[tid]["download"] == f"{tid}.csv" for tid in points)
    # and they work: the page's self-test filters every table and exports what is shown (chromium)
    path = day_report()[0]
    rc, dom, console = browse(f"file://{path}#selftest", "--dump-dom")
    assert rc == 0 and console == [], console[:3]
    out = Page(dom).output
    m = re.match(r"selftest: pass, (\d+) tables, \d+ sorts checked, (\d+) filters checked", out.get("text", ""))
    assert m and int(m.group(2)) == len(inputs), out


@test
def the_days_report_is_under_a_megabyte():
    path, text, _ = day_report()
    size = os.path.getsize(path)
    svg = sum(map(len, re.findall(r"<svg.*?</svg>", text, re.S)))
    print(f"# the day's report: {size:,} bytes, of which SVG {svg:,}")
    assert size < 1_000_000, size
    assert '"raw"' not in text and "data:image" not in text
    # made smaller, the figures still draw what they drew: every marker, clip path and hatch they (or
    # the style sheet) refer to is in the page, once, and every figure style is used
    ids = re.findall(r' id="([^"]+)"', text)
    refs = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', text))
    assert refs and not refs - set(ids) and len(ids) == len(set(ids)), (refs - set(ids), len(ids) - len(set(ids)))
    assert len(re.findall(r"<pattern id=", text)) >= 3 and "fill: url(#" in text
    classes = set(re.findall(r"svg \.(fs[0-9a-f]+) \{", text))
    assert classes and classes <= set(re.findall(r' class="(fs[0-9a-f]+)"', text))


# a PTX build's swizzle sweep (24 points need sm_90 code the build does not carry) beside the JIT
# file (all run) and a user kernel whose 28 points fail (a race): skips muted and grouped, failures red
PTX_FILES = [os.path.join(RESULTS, "contract", "nvidia-h200_20261202_bandwidth-latency_37a9db0_jit.json"),
             os.path.join(RESULTS, "swizzle", "nvidia-h200_20261130_swizzle_ptx80.json"),
             os.path.join(RESULTS, "kernel", "nvidia-h200_20261202_coresident_race.json")]


@test
def expected_skips_are_muted_and_grouped_by_reason_and_failures_stay_red():
    docs = [reader.load(f) for f in PTX_FILES]
    skipped = [r for d in docs for r in d["results"] if r["status"] == "skipped"]
    failed = [r for d in docs for r in d["results"] if r["status"] == "failed"]
    assert len(skipped) == 24 and len(failed) == 28, (len(skipped), len(failed))
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = report(*PTX_FILES, "-o", d)
        assert rc == 0, err
        text = open(os.path.join(d, "index.html"), encoding="utf-8").read()
    page = Page(text)
    # the skips: one folded block per sweep, a row per reason with its count; nothing of them red
    blocks = [a for t, a in page.elements if t == "details" and "skips" in (a.get("class") or "")]
    assert [b["id"] for b in blocks] == ["skips-swizzle"] and int(blocks[0]["data-count"]) == 24, blocks
    assert "open" not in blocks[0], "the skips are folded"
    rows = page.tables["skipped-swizzle"]["rows"]
    want = {}
    for r in skipped:
        want[r["reason"]] = want.get(r["reason"], 0) + 1
    assert {row[1]: int(row[0]) for row in rows} == want and len(rows) == 3, rows
    assert [int(row[0]) for row in rows] == sorted(want.values(), reverse=True), "the largest group first"
    sec = re.search(r'<section id="sweep-swizzle">.*?</section>', text, re.S).group(0)
    assert 'class="bad"' not in without_svg(sec) and "notrun-swizzle" not in sec, "a skip shown as a failure"
    # in the points table a skipped point's row is muted, its status cell too
    skip_rows = [a for t, a, row in page.rows if t == "points-swizzle" and row[2] == "skipped"]
    assert len(skip_rows) == 24 and all(a.get("class") == "skip" for a in skip_rows), skip_rows[:2]
    assert len(re.findall(r'<td class="muted">skipped</td>', sec)) == 24
    # the failures: their own table, every row, red
    kernel = re.search(r'<section id="kernel-[^"]*">.*?</section>', text, re.S).group(0)
    fails = re.search(r'<table class="sortable" id="(notrun-kernel-[^"]*)"', kernel).group(1)
    assert len(page.tables[fails]["rows"]) == 28 and '<h3 class="bad">Failed points (28)</h3>' in kernel
    assert kernel.count('<td class="bad">failed</td>') == 2 * 28, "red in the points table and the failures"
    assert "skips-kernel" not in kernel


def measure(page_path, width):
    """What Chromium lays out for the page in a frame `width` px wide: the page's scroll width, the
    smallest drawn size of a figure's text (its font size times the figure's scale), every figure's box
    within the screen, and per points table the headings whose right edge is inside its scroll box."""
    frame = os.path.join(os.path.dirname(page_path), f"measure-{width}.html")
    script = """
var w = this.contentWindow, d = this.contentDocument, out = {width: d.scrollingElement.scrollWidth,
  client: d.documentElement.clientWidth, least: 1e9, texts: 0, boxes: true, visible: {}};
d.querySelectorAll("figure svg text").forEach(function (t) {
  var m = t.getScreenCTM(), px = parseFloat(w.getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
  if (t.textContent.trim()) { out.least = Math.min(out.least, px); out.texts++; }
});
d.querySelectorAll("figure").forEach(function (f) {
  var r = f.getBoundingClientRect();
  if (r.left < 0 || r.right > out.client + 0.5) out.boxes = false;
});
d.querySelectorAll("table[id^=points-]").forEach(function (t) {
  var box = t.parentNode.getBoundingClientRect();
  out.visible[t.id] = Array.prototype.filter.call(t.tHead.rows[0].cells, function (th) {
    return th.getBoundingClientRect().right <= box.right + 0.5; }).map(function (th) {
    return th.textContent.trim(); });
});
document.body.setAttribute("data-out", JSON.stringify(out));"""
    with open(frame, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{os.path.basename(page_path)}" '
                f'style="width:{width}px;height:1200px;border:0"></iframe><script>document.getElementById("f").onload ='
                f" function () {{ {script} }};</script></body></html>")
    rc, dom, console = browse(f"file://{frame}", "--dump-dom", "--allow-file-access-from-files",
                              "--window-size=1500,1400", "--virtual-time-budget=20000")
    m = re.search(r'data-out="([^"]*)"', dom)
    assert rc == 0 and m, (rc, dom[:300], console[:3])
    import html as html_mod
    return json.loads(html_mod.unescape(m.group(1)))


# the H200 --sweep all file and another unit's (the contract's unit B): the page the issue measured
TWO_UNITS = [os.path.join(RESULTS, "nvidia-h200_20261130_all.json"),
             os.path.join(RESULTS, "contract", "nvidia-h200_20261202_all_37a9db0_unitB_p1.json")]


@test
def at_400_px_the_page_fits_and_figure_text_is_at_least_10_px_and_at_1400_the_columns_that_matter_show():
    chromium()
    d = tempfile.mkdtemp(prefix="smembench-report-")
    try:
        rc, out, err = report(*TWO_UNITS, "-o", d)
        assert rc == 0, err
        path = out.strip()
        narrow, wide = measure(path, 400), measure(path, 1400)
        # the text the issue saw at about 5 px: no figure's text under 10 px at either width
        for m in (narrow, wide):
            assert m["texts"] > 500 and m["least"] >= 9.95, (m["texts"], m["least"])
            assert m["boxes"], "a figure's box past the screen"
        assert narrow["width"] <= 400 and narrow["client"] <= 400, narrow["width"]
        # at 1400 px the points table shows, without scrolling, the columns a reader compares
        shown = wide["visible"]["points-all"]
        need = ["bench", "parameters", "device", "status", "median (us)", "noise (%)", "of ceiling (%)", "measured",
                "API", "predicted", "limiter", "carveout (%)", "config (KiB)"]
        assert shown[:len(need)] == need, shown
        assert narrow["visible"]["points-all"][0] == "bench", narrow["visible"]
        # the carveout and configuration columns hold the file's values
        page = Page(open(path, encoding="utf-8").read())
        t = page.tables["points-all"]
        head = t["head"]
        docs = [reader.load(f) for f in TWO_UNITS]
        want = sorted((r["bench"], report_params(r), (r.get("occupancy") or {}).get("effective_carveout"),
                       (r.get("occupancy") or {}).get("smem_config_predicted_bytes")) for doc in docs
                      for r in doc["results"] if r.get("sweep") == "all")
        cv, cf = head.index("carveout (%)"), head.index("config (KiB)")
        got = sorted((row[0], row[1], None if row[cv] == "\u2013" else int(row[cv]),
                      None if row[cf] == "\u2013" else round(float(row[cf]) * 1024)) for row in t["rows"])
        assert got == want, [(g, w) for g, w in zip(got, want) if g != w][:3]
        assert sum(1 for g in got if g[2] is not None) >= 80 and sum(1 for g in got if g[3] is not None) >= 600
        # the L1 left: the H200's unified 256 KiB (core/arch.c) less the configuration, where there is one
        l1 = head.index("L1 left (KiB)")
        for row in t["rows"]:
            if row[cf] == "\u2013":
                assert row[l1] == "\u2013", row
            else:
                assert abs(float(row[l1]) - (256 - float(row[cf]))) < 0.11, (row[cf], row[l1])
        assert any(row[cf] == "164" and row[l1] == "92" for row in t["rows"]), "no 164 KiB point leaving 92 KiB"
    finally:
        shutil.rmtree(d)


# the 15 --sweep all files of four H200 units (results/units/, results/contract/): the fleet section's
# heatmap of 758 points by 15 runs was drawn as a 2,900 x 15,000 px raster inside the page's SVG
FIFTEEN = sorted(os.path.join(RESULTS, "units", f) for f in os.listdir(os.path.join(RESULTS, "units"))
                 if f.endswith(".json")) + \
    sorted(os.path.join(RESULTS, "contract", f) for f in os.listdir(os.path.join(RESULTS, "contract"))
           if f.startswith("nvidia-h200_20261202_all_") and f.endswith(".json"))


@test
def the_15_files_report_in_bounded_memory_and_time_with_the_heatmap_at_its_datas_size():
    import base64
    import resource
    import struct
    import time
    assert len(FIFTEEN) == 15, FIFTEEN
    with tempfile.TemporaryDirectory() as d:
        # the report's own process, waited for with its resource use (os.wait4): not Chromium's or
        # another test's children
        wall = time.monotonic()
        with open(os.path.join(d, "err"), "w+") as errf:
            p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "report.py"), *FIFTEEN, "-o", d],
                                 stdout=subprocess.DEVNULL, stderr=errf)
            _, status, use = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            wall = time.monotonic() - wall
            errf.seek(0)
            assert p.returncode == 0, errf.read()
        cpu = use.ru_utime + use.ru_stime
        peak_mb = use.ru_maxrss / 1024
        print(f"# the 15 files' report: {cpu:.1f} s of CPU, {wall:.1f} s wall, {peak_mb:.0f} MB peak RSS")
        # 1.44 GB before (the heatmap's raster); 0.44 GB after
        assert peak_mb < 500, peak_mb
        # 33 s of CPU before on the 2-core build machine, under load: a bound that catches a return of
        # the raster or a quadratic step, not the issue's 10 s (the figures' and the heatmap's drawing)
        assert cpu < 45, cpu
        text = open(os.path.join(d, "index.html"), encoding="utf-8").read()
    fleet = re.search(r'<section id="fleet-0">.*?</section>', text, re.S).group(0)
    images = re.findall(r'<image[^>]*?href="data:image/png;base64,([^"]+)"', fleet)
    sizes = [struct.unpack(">II", base64.b64decode(re.sub(r"\s", "", png))[16:24]) for png in images]
    rows = len(Page(fleet).tables["fleet-0-points"]["rows"])
    units = len(Page(fleet).tables["fleet-0-units"]["rows"])
    # the heatmap a pixel per cell of the points it draws, the farthest from normal first (it was
    # 2,051 x 15,105 px); no image a large raster
    from smembench import fleet_units
    drawn = min(rows, fleet_units.HEATMAP_ROWS)
    assert (units, drawn) in sizes and all(w * h < 100_000 for w, h in sizes), (sizes, units, drawn)


def scroll_width(page_path, width):
    """(scrollWidth, clientWidth) of the page in a frame `width` px wide, read by Chromium (its own
    window cannot be narrower than 500 px)."""
    frame = os.path.join(os.path.dirname(page_path), f"frame-{width}.html")
    with open(frame, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{os.path.basename(page_path)}" '
                f'style="width:{width}px;height:1200px;border:0"></iframe><script>document.getElementById("f").onload ='
                ' function () { var d = this.contentDocument.documentElement; document.body.setAttribute('
                '"data-width", d.scrollWidth + "," + d.clientWidth); };</script></body></html>')
    rc, dom, console = browse(f"file://{frame}", "--dump-dom", "--allow-file-access-from-files",
                              "--window-size=1000,1400")
    m = re.search(r'data-width="(\d+),(\d+)"', dom)
    assert rc == 0 and m, (rc, dom[:300], console[:3])
    return int(m.group(1)), int(m.group(2))


@test
def the_page_is_no_wider_than_a_400_px_screen_and_renders_at_400_and_1400():
    path, _, _ = day_report()
    chromium()
    scroll, client = scroll_width(path, 400)
    assert client <= 400 and scroll <= client, (scroll, client)
    # the check sees a page that is too wide
    wide = os.path.join(os.path.dirname(path), "wide.html")
    text = open(path, encoding="utf-8").read()
    open(wide, "w").write(text.replace("<body>", '<body><div style="width:620px">x</div>'))
    assert scroll_width(wide, 400)[0] >= 620
    import matplotlib.image
    for w in (400, 1400):
        shot = os.path.join(os.path.dirname(path), f"shot-{w}.png")
        rc, _, console = browse(f"file://{path}", f"--screenshot={shot}", f"--window-size={w},2000",
                                "--hide-scrollbars")
        assert rc == 0 and console == [], console[:3]
        img = matplotlib.image.imread(shot)
        assert img.shape[:2] == (2000, w), img.shape
        dark = img[..., :3].min(axis=2) < 0.5
        # text down the page, and something near the right edge at 400 px (the page fills the screen)
        assert dark.mean() > 0.01 and dark[:, int(0.7 * w):].mean() > 0.002, (w, dark.mean())
    _, text, page = day_report()
    assert not re.search(r'<svg[^>]* width="[\d.]+pt"', text), "a figure with a fixed width"


def main():
    return tap.run(cleanup=lambda: shutil.rmtree(os.path.dirname(_day["path"])) if _day else None)

if __name__ == "__main__":
    sys.exit(main())
