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
from smembench import compare  # noqa: E402
from smembench import reader  # noqa: E402

SMEMBENCH = sys.argv[1] if len(sys.argv) > 1 else None
SESSION = [os.path.join(RESULTS, f"nvidia-h200_20261129_{k}.json")
           for k in ("bandwidth-latency-bank", "carveout", "dynamic", "tile", "reduction", "uninit")]
BASELINE = os.path.join(RESULTS, "nvidia-h200_20261129_bank-bandwidth_run1.json")
# the figures each sweep of the H200 session must show (plot.py's names)
FIGURES = {"bandwidth": ["bandwidth"], "latency": ["bandwidth"], "bank": ["bank"], "carveout": ["carveout"],
           "dynamic": ["occupancy"], "tile": ["tile", "memory"], "reduction": ["memory"], "uninit": []}




class Page(html.parser.HTMLParser):
    """What a report page holds: sections, their figures and tables (rows of cell texts), and every
    attribute that could load something."""

    def __init__(self, text):
        super().__init__()
        self.sections, self.tables, self.loads, self.output = {}, {}, [], None
        self._section = self._table = self._row = self._cell = None
        self._svg_depth = 0
        self._in_head = self._in_output = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
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
        bad = [r for r in points if r["status"] != "ok"]
        if bad:
            rows = page.tables[f"notrun-{name}"]["rows"]
            assert [row[-1] for row in rows] == [r["reason"] for r in bad], rows
    assert "notrun-dynamic" in page.tables and "48 KiB" in page.tables["notrun-dynamic"]["rows"][0][-1]
    runs = page.tables["runs-table"]["rows"]
    assert [row[0] for row in runs] == [os.path.basename(f) for f in SESSION], runs
    assert all(row[1] == "NVIDIA H200" and row[3] == "132" for row in runs), runs
    base = reader.load(BASELINE)
    for i, (f, doc) in enumerate(zip(SESSION, docs)):
        want = compare.compare(base, doc, 0.02, 0.01)
        if want:
            rows = page.tables[f"baseline-{i}"]["rows"]
            assert [(row[0], row[-1]) for row in rows] == [(w[0], w[5]) for w in want], f
    assert any(compare.compare(base, doc, 0.02, 0.01) for doc in docs), "the baseline shares points with a file"
    assert page.loads == [], f"the page loads something: {page.loads[:3]}"


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
            key = (lambda v: float(v)) if t["types"][-1] == "num" else (lambda v: v.lower())
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
    for row, w in zip(rows, want.rows):
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
        assert "Outliers (1)" in text and re.search(r'<li class="bad">n2 gpu0 at bandwidth/width_bytes=8: \+4\.\d\d % '
                                                    r"against the fleet median, beyond its allowance of 2\.00 % "
                                                    r"\(threshold\)</li>", text), text[:200]
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
        rc, _, err = report(os.path.join(RESULTS, "schema.json"), "-o", d)
        assert rc == 2 and "nothing to report" in err and "Traceback" not in err, err
        assert sorted(os.listdir(d)) == ["afile"], os.listdir(d)
        p = subprocess.run([sys.executable, "-S", os.path.join(SCRIPTS, "report.py"), SESSION[1], "-o", d],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 3 and "python3-matplotlib" in p.stderr and len(p.stderr.strip().splitlines()) == 1, \
            p.stderr


def main():
    return tap.run()

if __name__ == "__main__":
    sys.exit(main())
