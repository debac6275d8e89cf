#!/usr/bin/env python3
"""Tests of smembench-catalog (TAP): add refuses each bad submission with one line naming the reason
(a predict file, unverified points, two GPU models in one file, a truncated file, a build with no
recorded commit, no recorded build, a failed point without a reason) and adds nothing; a good file is
stored by model and unit, the same file twice is one entry, --anonymize is a stable salted hash;
published.json's rows each held to the table core/arch.c cites; the site of a small catalog: a page
per question and per GPU, the published marks it draws equal to published.json's rows, the measured
medians equal to the files', every link resolving, and in headless Chromium at 1400 and 400 px no
text under 10 px and nothing wider than the screen; the committed catalog (results/catalog) one
entry per unit, each passing the checks.

  test_catalog.py SMEMBENCH        (SCREENSHOTS=DIR: every page's screenshots kept there)
"""
import copy
import gzip
import hashlib
import html as html_mod
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402
from smembench import catalog, reader  # noqa: E402

DRIVER = sys.argv[1] if len(sys.argv) > 1 else None
RESULTS = os.path.join(ROOT, "results")
SCRIPT = os.path.join(ROOT, "scripts", "catalog.py")
GOOD = os.path.join(RESULTS, "contract", "nvidia-h200_20261202_bandwidth-latency_37a9db0_sass.json")
CARVEOUT = os.path.join(RESULTS, "figures_35", "h200", "nvidia-h200_20261203_carveout_u1_p1.json")
PREDICT = [os.path.join(RESULTS, "predict", f) for f in ("nvidia-t4-model_20261130_carveout-dynamic.json",
                                                          "nvidia-geforce-rtx-4090-model_20261130_carveout-dynamic.json")]
TMP = tempfile.mkdtemp(prefix="smembench-catalog-")
SITE = {}


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def listing(d):
    return sorted(os.path.relpath(os.path.join(dp, f), d) for dp, _, fs in os.walk(d) for f in fs)


def mutated(name, edit):
    """A copy of GOOD, changed by edit(doc), under TMP."""
    doc = json.load(open(GOOD))
    edit(doc)
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def two_models(doc):
    other = copy.deepcopy(doc["device"])
    other.update(name="NVIDIA A100-SXM4-80GB", cc="8.0", ordinal=1, uuid="GPU-00000000-0000-0000-0000-000000000001")
    doc["devices"] = [dict(doc["device"]), other]
    for i, r in enumerate(doc["results"]):
        r["device_index"] = i % 2


def unverified(doc):
    next(r for r in doc["results"] if r["status"] == "ok")["verified"] = False


def failed_silently(doc):
    r = next(r for r in doc["results"] if r["status"] == "ok")
    r["status"], r["reason"] = "failed", None


def truncated():
    data = open(GOOD, "rb").read()
    path = os.path.join(TMP, "truncated.json")
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])
    return path


REFUSALS = [
    ("a predict file", lambda: PREDICT[0], 'refused: run.mode is "predict": the catalog holds measured GPUs'),
    ("unverified points", lambda: mutated("unverified.json", unverified),
     "refused: 1 of 5 finished points unverified (the first: "),
    ("two models in one file", lambda: mutated("two.json", two_models),
     "refused: 2 GPU models in one file (NVIDIA H200, NVIDIA A100-SXM4-80GB)"),
    ("a truncated file", truncated, "refused: not JSON ("),
    ("a build with no recorded commit", lambda: mutated("nocommit.json", lambda d: d["tool"].update(git="unknown")),
     'refused: no recorded commit (tool.git is "unknown")'),
    ("no recorded build", lambda: mutated("nobuild.json", lambda d: d["tool"].pop("build")),
     "refused: no recorded build (tool.build"),
    ("a failed point without its reason", lambda: mutated("failed.json", failed_silently), "failed with no reason"),
]


@test
def each_bad_submission_is_refused_with_one_line_naming_its_reason_and_nothing_is_added():
    cat = os.path.join(TMP, "refusals")
    rc, out, err = run("add", GOOD, "--catalog", cat)
    assert rc == 0, err
    before = listing(cat)
    for what, make, reason in REFUSALS:
        path = make()
        rc, out, err = run("add", path, "--catalog", cat)
        lines = err.splitlines()
        assert rc == 2 and out == "" and len(lines) == 1, (what, rc, out, err)
        assert lines[0].startswith(f"smembench: {path}: refused: ") and reason in lines[0], (what, lines[0])
        assert listing(cat) == before, what
        # with a good file beside it, nothing of either is added
        rc, out, err = run("add", CARVEOUT, path, "--catalog", cat)
        assert rc == 2 and listing(cat) == before and err.splitlines()[-1].startswith("smembench: nothing added"), \
            (what, err)
    # the reader's own refusal of a file that is no result file at all, in the same form
    rc, _, err = run("add", os.path.join(RESULTS, "schema.json"), "--catalog", cat)
    assert rc == 2 and "refused:" in err and len(err.splitlines()) == 1, err


@test
def a_good_file_is_stored_by_model_and_unit_once_and_said():
    cat = os.path.join(TMP, "good")
    rc, out, err = run("add", GOOD, "--catalog", cat)
    assert rc == 0 and out.startswith(f"added: {GOOD} -> nvidia-h200/GPU-53e5ebc9-0cc6-f406-8dfe-1658d734ea6a/"), out
    assert "commit 37a9db0, driver 580.159.04, 2026-12-02, 5 points" in out, out
    files = listing(cat)
    assert len(files) == 2 and all(f.startswith("nvidia-h200/GPU-53e5ebc9-0cc6-f406-8dfe-1658d734ea6a/")
                                   for f in files), files
    (entry, stored), = catalog.entries(cat)
    data = open(GOOD, "rb").read()
    assert gzip.decompress(open(stored, "rb").read()) == data, "the file as it was submitted"
    assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["anonymized"] is False
    assert entry["commit"] == "37a9db0" and entry["build"]["nvcc"] == "13.0.88" and entry["started"].startswith(
        "2026-12-02") and entry["driver_release"] == "580.159.04", entry
    rc, out, err = run("add", GOOD, "--catalog", cat)
    assert rc == 0 and out.startswith("already there: ") and listing(cat) == files, out
    # a copy under another name is the same file: one entry
    copy_ = os.path.join(TMP, "renamed.json")
    shutil.copyfile(GOOD, copy_)
    rc, out, err = run("add", copy_, "--catalog", cat)
    assert rc == 0 and out.startswith("already there: ") and listing(cat) == files, out


@test
def anonymize_replaces_the_uuid_by_a_stable_salted_hash():
    cat = os.path.join(TMP, "anon")
    rc, out, err = run("add", GOOD, "--catalog", cat, "--anonymize")
    assert rc == 0, err
    (entry, stored), = catalog.entries(cat)
    salt = open(os.path.join(cat, "salt")).read().strip()
    uuid = "GPU-53e5ebc9-0cc6-f406-8dfe-1658d734ea6a"
    assert len(salt) == 32 and entry["unit"] == catalog.unit_hash(salt, uuid) and entry["anonymized"] is True
    assert entry["unit"].startswith("anon-") and "salted hash" in entry["unit_note"], entry
    text = gzip.decompress(open(stored, "rb").read()).decode()
    assert uuid not in text and "53e5ebc9" not in text and reader.parse(text)["device"]["uuid"] == entry["unit"]
    # another file of the same unit: the same name, in the same folder
    other = os.path.join(RESULTS, "contract", "nvidia-h200_20261202_bandwidth-latency_37a9db0_jit.json")
    rc, out, err = run("add", other, "--catalog", cat, "--anonymize")
    assert rc == 0 and f"unit {entry['unit']}, anonymized" in out, out
    units = {e["unit"] for e, _ in catalog.entries(cat)}
    assert units == {entry["unit"]} and len(catalog.entries(cat)) == 2, units
    # a salt of its own: another catalog's hash differs
    assert catalog.unit_hash("0" * 32, uuid) != entry["unit"]


def archs():
    if DRIVER is None:
        raise tap.Skip("no driver given")
    p = subprocess.run([DRIVER, "--list", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return {a["cc"]: a for a in json.loads(p.stdout)["archs"]}


@test
def every_published_value_is_its_cited_tables_row():
    papers, rows = catalog.published_rows()
    assert rows, "published.json has rows"
    by_cc = archs()
    for row in rows:
        for k in ("quantity", "unit", "value", "gpu", "cc", "paper", "table", "row", "column"):
            assert row.get(k) not in (None, ""), (k, row)
        paper = papers[row["paper"]]
        assert re.fullmatch(r"\d{4}\.\d{5}(v\d+)?", paper["arxiv"]) and re.fullmatch(r"Table \d+", row["table"]), row
        # the table core/arch.c cites for this generation: the same paper, table, GPU and value
        pub = by_cc[row["cc"]]["published"][row["quantity"]]
        src = pub["source"]
        assert paper["arxiv"] in src and f"{row['table']}," in src and row["gpu"].split()[0] in src, (row, src)
        assert pub["value"] == row["value"] and pub["unit"] == row["unit"], (row, pub)


def site():
    """The site of a small catalog (three H200 files of three units) with two predicted models, built once."""
    if not SITE:
        cat = os.path.join(TMP, "site-catalog")
        other_unit = os.path.join(RESULTS, "figures_35", "h200", "nvidia-h200_20261203_carveout_u2_p1.json")
        rc, out, err = run("add", GOOD, CARVEOUT, other_unit, "--catalog", cat)
        assert rc == 0, err
        d = os.path.join(TMP, "site")
        args = ["site", d, "--catalog", cat]
        for p in PREDICT:
            args += ["--predicted", p]
        rc, out, err = run(*args)
        assert rc == 0, err
        SITE.update(dir=d, pages=out.split(), values=json.load(open(os.path.join(d, "values.json"))),
                    docs=[reader.load(p) for p in (GOOD, CARVEOUT, other_unit)])
    return SITE


@test
def the_site_has_a_page_per_question_and_per_gpu_and_every_link_resolves():
    s = site()
    names = sorted(os.path.basename(p) for p in s["pages"])
    assert names == sorted(["index.html", "gpu-nvidia-h200.html"] + [q[0] + ".html" for q in catalog.QUESTIONS]), names
    for p in s["pages"]:
        text = open(p, encoding="utf-8").read()
        for href in re.findall(r'<a href="([^"]+)"', text):
            target = href.split("#")[0]
            assert "://" not in href and os.path.isfile(os.path.join(s["dir"], html_mod.unescape(target))), (p, href)
    # the package's figures: the carveout and dynamic pages with the generations figure (the units
    # measured beside the predicted models), each other page with its sweep's
    for page, figs in (("carveout", ("carveout", "generations")), ("dynamic", ("generations",)),
                       ("bandwidth-latency", ("bandwidth",))):
        text = open(os.path.join(s["dir"], page + ".html"), encoding="utf-8").read()
        assert all(f'<figure id="fig-{f}">' in text for f in figs), (page, re.findall(r'figure id="[^"]*"', text))
    gpu = open(os.path.join(s["dir"], "gpu-nvidia-h200.html"), encoding="utf-8").read()
    # each unit with its provenance: uuid, commit, driver, date, build
    for doc in s["docs"]:
        for want in (doc["device"]["uuid"], doc["tool"]["git"], doc["device"]["driver_release"],
                     doc["run"]["started"], doc["tool"]["build"]["nvcc"]):
            assert html_mod.escape(want) in gpu, want
    assert "3 units of the NVIDIA H200 (cc 9.0), 3 files" in gpu, gpu[:2000]


@test
def the_site_draws_the_published_rows_and_the_units_medians():
    s = site()
    papers, rows = catalog.published_rows()
    marks = [v for v in s["values"]["bandwidth-latency"] if v["method"] == "published" and "arXiv" in v["source"]]
    want = sorted((catalog.cite(papers, r), r["value"]) for r in rows if r["quantity"] == "smem_load_latency_cycles")
    assert sorted({(m["source"], m["value"]) for m in marks}) == want and len(marks) == 2 * len(want), marks
    page = open(os.path.join(s["dir"], "bandwidth-latency.html"), encoding="utf-8").read()
    for source, value in want:
        assert html_mod.escape(source) in page and f"<td class=\"num\">{catalog._fmt(value)}</td>" in page, source
    # the measured latency: the one unit that ran it, its file's lowest chase
    lat = [v for v in s["values"]["bandwidth-latency"] if v["key"] == "latency_address" and v["method"] == "measured"]
    doc = s["docs"][0]
    best = min(reader.metric(r, "latency_cycles") for r in doc["results"] if r["bench"] == "latency" and
               r["status"] == "ok" and r["params"]["index_chase"] == 0)
    assert len(lat) == 1 and lat[0]["value"] == best and lat[0]["units"] == 1, lat
    # the carveout: two units, a median with their range; the predicted models beside it
    cv = [v for v in s["values"]["carveout"] if v["key"] == "footprint_blocks_100"]
    measured = [v for v in cv if v["method"] == "measured"]
    per_unit = [max(r["occupancy"]["measured"] for r in d["results"] if r["bench"] == "footprint" and
                    r["status"] == "ok" and r["params"]["carveout_pct"] == 100) for d in s["docs"][1:]]
    assert len(measured) == 1 and measured[0]["units"] == 2 and measured[0]["lo"] == min(per_unit) and \
        measured[0]["hi"] == max(per_unit), measured
    assert {v["gpu"] for v in cv if v["method"] == "predicted"} == {"NVIDIA T4 (model)",
                                                                    "NVIDIA GeForce RTX 4090 (model)"}, cv


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise tap.Skip("no Chromium (Debian package chromium; scripts/setup.sh --dev installs it)")


def browse(url, *args):
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                            "--enable-logging=stderr", "--v=0", *args, url], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, [ln for ln in p.stderr.splitlines() if ":CONSOLE" in ln]


MEASURE = """
var out = {};
Array.prototype.forEach.call(document.querySelectorAll("iframe"), function (f) {
  var w = f.contentWindow, d = f.contentDocument, least = 1e9, n = 0, wide = false;
  var walk = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    var t = walk.currentNode, e = t.parentElement;
    if (!t.textContent.trim() || e.closest("style")) continue;
    var px = parseFloat(w.getComputedStyle(e).fontSize);
    if (e.closest("svg")) { var m = e.getScreenCTM(); px *= Math.hypot(m.a, m.b); }
    least = Math.min(least, px); n++;
  }
  d.querySelectorAll("figure, .scroll").forEach(function (b) {
    var r = b.getBoundingClientRect(); if (r.left < 0 || r.right > d.documentElement.clientWidth + 0.5) wide = true;
  });
  out[f.getAttribute("src")] = {least: least, texts: n, width: d.scrollingElement.scrollWidth,
                                client: d.documentElement.clientWidth, wide: wide};
});
document.body.setAttribute("data-out", JSON.stringify(out));"""


def measure(d, pages, width):
    """{page: what Chromium lays out for it in a frame width px wide}, every page in one browser."""
    frame = os.path.join(d, f"measure-{width}.html")
    frames = "".join(f'<iframe src="{os.path.basename(p)}" style="width:{width}px;height:900px;border:0"></iframe>'
                     for p in pages)
    with open(frame, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html><html><body style="margin:0">{frames}<script>window.onload = function () '
                f'{{ {MEASURE} }};</script></body></html>')
    rc, dom, console = browse(f"file://{frame}", "--dump-dom", "--allow-file-access-from-files",
                              f"--window-size={width + 100},1000", "--virtual-time-budget=20000")
    m = re.search(r'data-out="([^"]*)"', dom)
    assert rc == 0 and m, (rc, dom[:300], console[:3])
    return json.loads(html_mod.unescape(m.group(1)))


@test
def chromium_renders_every_page_at_1400_and_400_px_with_no_text_under_10_px():
    chromium()
    s = site()
    for width in (1400, 400):
        got = measure(s["dir"], s["pages"], width)
        assert sorted(got) == sorted(os.path.basename(p) for p in s["pages"]), got.keys()
        for page, m in got.items():
            assert m["texts"] > 20 and m["least"] >= 9.95, (width, page, m)
            assert m["width"] <= m["client"] and not m["wide"], (width, page, m)
    keep = os.environ.get("SCREENSHOTS")
    shots = s["pages"] if keep else [p for p in s["pages"] if os.path.basename(p) in ("index.html", "carveout.html")]
    for p in shots:
        for width, height in ((1400, 1800), (400, 2400)):
            shot = os.path.join(keep or TMP, f"{os.path.basename(p)[:-5]}-{width}.png")
            rc, _, console = browse(f"file://{p}", f"--screenshot={shot}", f"--window-size={width},{height}")
            assert rc == 0 and os.path.getsize(shot) > 10000 and not console, (p, width, console[:3])


@test
def the_committed_catalog_holds_one_entry_per_h200_unit_each_passing_the_checks():
    cat = os.path.join(RESULTS, "catalog")
    found = catalog.entries(cat)
    units = [e["unit"] for e, _ in found]
    assert len(units) == len(set(units)) >= 4 and {e["model"] for e, _ in found} == {"NVIDIA H200"}, units
    for e, stored in found:
        data = gzip.decompress(open(stored, "rb").read())
        assert hashlib.sha256(data).hexdigest() == e["sha256"] and not e["anonymized"], e["source"]
        path = os.path.join(TMP, e["source"])
        with open(path, "wb") as f:
            f.write(data)
        doc, _ = catalog.check(path)
        assert doc["device"]["uuid"] == e["unit"] and doc["run"]["sweep"] == "all", e


@test
def the_ci_job_of_docs_catalog_md_passes_actionlint():
    exe = next((c for c in (shutil.which("actionlint"), "/usr/local/bin/actionlint") if c and os.access(c, os.X_OK)),
               None)
    if exe is None:
        raise tap.Skip("actionlint is not installed (scripts/setup.sh --dev installs it)")
    text = open(os.path.join(ROOT, "docs", "catalog.md"), encoding="utf-8").read()
    blocks = re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M)
    assert len(blocks) == 1 and "results/catalog/**" in blocks[0] and "catalog.py site" in blocks[0], blocks
    job = os.path.join(TMP, "catalog.yml")
    with open(job, "w") as f:
        f.write(blocks[0])
    p = subprocess.run([exe, job], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(job, "w") as f:       # and the lint is no lint that passes everything
        f.write(blocks[0].replace("steps.deploy.outputs", "steps.nope.outputs"))
    assert subprocess.run([exe, job], capture_output=True, text=True, timeout=120).returncode != 0


def cleanup():
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(tap.run(cleanup))
