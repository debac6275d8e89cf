#!/usr/bin/env python3
"""export --format asv for real (TAP): the asv results tree of committed H200 files of three commits
and three GPU units, built by the real `asv publish` (asv from PyPI), served on 127.0.0.1 by
`python3 -m http.server` and loaded in headless Chromium, whose page must fetch each machine's
graph of a benchmark and show its series; the values asv publishes equal the files' medians. Bad
input (a predicted file, a commit the clone lacks, one point of one unit twice, a directory that
is no asv tree, a path through a file, stdout, a signal) is one line, status 2 (143 for SIGTERM)
and nothing written. Every process the test starts it stops by its pid; every wait is bounded.

  test_asv.py

asv is installed with pip where it is missing (python3 -m pip install asv); the page's scripts,
which asv 0.6 loads from CDNs, come from asv 0.5.1's sdist (its www/vendor: jQuery 3.3.1 and flot
0.8.3, the versions 0.6 names), fetched by pip download once into ~/.cache/smembench. Where either
cannot be had, or the source tree is no git clone holding the files' commits, the tests that need
it are TAP skips that say why.
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402

EXPORT = os.path.join(ROOT, "scripts", "export.py")
R = os.path.join(ROOT, "results")
# three commits on the first-parent history, three GPU units (one file without a uuid)
FILES = [os.path.join(R, "gate", "nvidia-h200_20261130_quick_lease4_c1e362d.json"),
         os.path.join(R, "gate", "nvidia-h200_20261130_quick_lease5_d8fc80d.json"),
         os.path.join(R, "contract", "nvidia-h200_20261202_all_37a9db0_unitB_p1.json")]
TMP = tempfile.mkdtemp(prefix="smem-asv-test.")
OUT = os.path.join(ROOT, "results", "figures_35", "asv_site.png")
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "smembench")
WAIT_S = 60
state = {}


def run(*args, env=None, timeout=300):
    p = subprocess.run([sys.executable, EXPORT, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def git_ok():
    for c in ("c1e362d", "d8fc80d", "37a9db0"):
        p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", c + "^{commit}"], capture_output=True)
        if p.returncode:
            raise Skip(f"the source tree is no git clone holding commit {c} of the exported files")


def asv_cmd():
    """The asv command line, installing asv from PyPI where it is missing."""
    if "asv" in state:
        return state["asv"]
    probe = [sys.executable, "-c", "import asv"]
    if subprocess.run(probe, capture_output=True).returncode:
        for extra in ([], ["--break-system-packages"]):
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", *extra, "asv"], capture_output=True,
                           timeout=600)
            if subprocess.run(probe, capture_output=True).returncode == 0:
                break
        else:
            raise Skip("asv is not installed and python3 -m pip install asv failed (no PyPI here)")
    state["asv"] = [sys.executable, "-m", "asv"]
    return state["asv"]


def vendor_dir():
    """asv 0.5.1's www/vendor (the scripts asv 0.6 loads from CDNs, same versions), from its sdist."""
    d = os.path.join(CACHE, "asv-0.5.1-vendor")
    if os.path.isfile(os.path.join(d, "jquery.flot-0.8.3.min.js")):
        return d
    os.makedirs(CACHE, exist_ok=True)
    sdist = os.path.join(CACHE, "asv-0.5.1.tar.gz")
    if not os.path.isfile(sdist):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "asv==0.5.1", "-d", CACHE], capture_output=True, timeout=300)
    if not os.path.isfile(sdist):
        raise Skip("no copy of the asv page's scripts (jQuery, flot 0.8.3): pip download asv==0.5.1 failed; "
                   "scripts/setup.sh --dev fetches it")
    tmp = tempfile.mkdtemp(dir=CACHE)
    with tarfile.open(sdist) as t:
        members = [m for m in t.getmembers() if "/asv/www/vendor/" in m.name and m.isfile()]
        for m in members:
            m.name = os.path.basename(m.name)
            t.extract(m, tmp)
    os.replace(tmp, d) if not os.path.exists(d) else shutil.rmtree(tmp)
    return d


# what the page's CDN addresses are in asv 0.5.1's vendor folder
VENDOR = {"jquery-3.3.1.min.js": "jquery-3.3.1.min.js", "jquery.flot.min.js": "jquery.flot-0.8.3.min.js",
          "jquery.flot.time.min.js": "jquery.flot-0.8.3.time.min.js",
          "jquery.flot.selection.min.js": "jquery.flot-0.8.3.selection.min.js",
          "jquery.flot.categories.min.js": "jquery.flot-0.8.3.categories.min.js",
          "jquery.flot.orderBars.js": "jquery.flot.orderBars.js", "stupidtable.min.js": "stupidtable.js",
          "md5.min.js": "md5.js", "bootstrap.min.js": "bootstrap-3.1.0.min.js",
          "bootstrap.min.css": "bootstrap-3.1.0.min.css"}


def offline_page(html):
    """The published index.html with its CDN scripts and style sheet served from html/_vendor (this
    machine reaches no CDN; a published site loads them from the CDNs as asv wrote it)."""
    src = vendor_dir()
    os.makedirs(os.path.join(html, "_vendor"), exist_ok=True)
    page = open(os.path.join(html, "index.html"), encoding="utf-8").read()
    missing = []

    def local(m):
        base = m.group(3).rsplit("/", 1)[1]
        if base not in VENDOR:
            missing.append(base)
            return m.group(0)
        shutil.copy(os.path.join(src, VENDOR[base]), os.path.join(html, "_vendor", VENDOR[base]))
        return f'{m.group(1)}{m.group(2)}="_vendor/{VENDOR[base]}"'
    page = re.sub(r'(<(?:script|link)[^>]*?)(src|href)="(https://[^"]+)"', local, page)
    page = re.sub(r'\s(integrity|crossorigin|referrerpolicy)="[^"]*"', "", page)
    assert not missing, f"the asv page loads scripts this test has no copy of: {missing}"
    open(os.path.join(html, "index.html"), "w", encoding="utf-8").write(page)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    raise Skip("no headless Chromium (apt-get install chromium; scripts/setup.sh --dev)")


def browse(url, *how, size="1400,900"):
    prof = tempfile.mkdtemp(dir=TMP)
    p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={prof}", f"--window-size={size}", "--virtual-time-budget=15000", *how, url],
                       capture_output=True, text=True, timeout=WAIT_S)
    return p


def tree():
    """The asv tree of FILES, written in two exports (the first two files, then the third into the
    same tree), and `asv publish` of it."""
    if "tree" in state:
        return state["tree"]
    git_ok()
    d = os.path.join(TMP, "asv")
    rc, _, err = run(*FILES[:2], "--format", "asv", "-o", d, "--repo", ROOT)
    assert rc == 0, err
    rc, _, err = run(FILES[2], "--format", "asv", "-o", d, "--repo", ROOT)
    assert rc == 0, err
    p = subprocess.run(asv_cmd() + ["publish", "--config", os.path.join(d, "asv.conf.json")], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    state["tree"] = d
    return d


def medians(path, bench):
    doc = json.load(open(path))
    return {r["params"]["width_bytes"]: r["time_ns"]["stats"]["median"] / 1e9 for r in doc["results"]
            if r["bench"] == bench and r["status"] == "ok"}


@test
def tree_is_what_asv_reads():
    d = tree()
    conf = json.load(open(os.path.join(d, "asv.conf.json")))
    assert conf["dvcs"] == "git" and os.path.samefile(os.path.join(d, conf["repo"]), ROOT), conf
    machines = sorted(os.path.basename(os.path.dirname(p))
                      for p in glob.glob(os.path.join(d, "results/*/machine.json")))
    assert machines == ["nvidia-h200-gpu-53e5ebc9", "nvidia-h200-gpu-cf20f41c", "nvidia-h200-vm-gpu0"], machines
    res = sorted(os.path.relpath(p, d) for p in glob.glob(os.path.join(d, "results/*/*.json"))
                 if not p.endswith("machine.json"))
    assert res == ["results/nvidia-h200-gpu-53e5ebc9/37a9db03-smembench-sass.json",
                   "results/nvidia-h200-gpu-cf20f41c/d8fc80d6-smembench.json",
                   "results/nvidia-h200-vm-gpu0/c1e362df-smembench.json"], res
    bench = json.load(open(os.path.join(d, "results", "benchmarks.json")))
    assert bench["version"] == 2
    b = bench["bandwidth.time"]
    assert (b["type"], b["unit"], b["param_names"], b["params"]) == ("time", "seconds", ["width_bytes"],
                                                                     [["4", "8", "16"]]), b
    hb = bench["bandwidth.higher_is_better.bytes_per_clk_sm"]
    assert (hb["type"], hb["unit"]) == ("track", "B/clk/SM") and "higher is better" in hb["pretty_name"], hb
    assert bench["latency.latency_cycles"]["unit"] == "cycles"
    # the unit B file: its timed points, each the median in seconds with the quartiles as stats
    doc = json.load(open(FILES[2]))
    r = json.load(open(os.path.join(d, res[0])))
    assert r["commit_hash"] == subprocess.run(["git", "-C", ROOT, "rev-parse", "37a9db0"], capture_output=True,
                                              text=True).stdout.strip()
    cols = r["result_columns"]
    row = r["results"]["bandwidth.time"]
    pts = {x["params"]["width_bytes"]: x for x in doc["results"] if x["bench"] == "bandwidth"}
    for i, w in enumerate((4, 8, 16)):
        s = pts[w]["time_ns"]["stats"]
        assert row[cols.index("result")][i] == s["median"] / 1e9
        assert row[cols.index("stats_q_25")][i] == s["q1"] / 1e9 and row[cols.index("stats_q_75")][i] == s["q3"] / 1e9
        lo, hi = row[cols.index("stats_ci_99_a")][i], row[cols.index("stats_ci_99_b")][i]
        assert lo <= s["median"] / 1e9 <= hi, (lo, s["median"], hi)
        assert row[cols.index("stats_repeat")][i] == s["count"]
    timed = sum(1 for x in doc["results"] if x["status"] == "ok" and x.get("time_ns"))
    assert sum(1 for v in r["results"].values() if v for x in v[0] if x is not None) >= timed


@test
def publish_gives_each_unit_its_series():
    d = tree()
    index = json.load(open(os.path.join(d, "html", "index.json")))
    assert sorted(index["params"]["machine"]) == ["nvidia-h200-gpu-53e5ebc9", "nvidia-h200-gpu-cf20f41c",
                                                  "nvidia-h200-vm-gpu0"]
    assert len(index["revision_to_hash"]) == 3
    assert not json.load(open(os.path.join(d, "html", "regressions.json")))["regressions"] or all(
        ".higher_is_better." not in x[0] for x in json.load(open(os.path.join(d, "html", "regressions.json")))[
            "regressions"])
    rev = {h[:7]: int(r) for r, h in index["revision_to_hash"].items()}
    for f, c in zip(FILES, ("c1e362d", "d8fc80d", "37a9db0")):
        graph = glob.glob(os.path.join(d, "html", "graphs", "branch-*", "*", "*", "*",
                                       f"machine-*{'vm-gpu0' if 'lease4' in f else ''}*", "*", "bandwidth.time.json"))
        want = medians(f, "bandwidth")
        found = [json.load(open(g)) for g in graph]
        got = [pt for data in found for pt in data if pt[0] == rev[c]]
        assert got and got[0][1] == [want[4], want[8], want[16]], (c, got, want)


@test
def chromium_shows_the_series():
    d = tree()
    html = os.path.join(d, "html")
    offline_page(html)
    port = free_port()
    log = open(os.path.join(TMP, "http.log"), "w")
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=html,
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "http.server did not start"
                time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/index.html#bandwidth.time?x-axis-scale=even"
        p = browse(url, "--dump-dom")
        dom = p.stdout
        assert "bandwidth.time" in dom, dom[-2000:]
        # the y axis (asv picks milliseconds for these times) spans every unit's medians
        ticks = [float(x) for x in re.findall(r'class="[^"]*tickLabel[^"]*"[^>]*>([0-9.]+)<', dom)]
        ms = [v * 1e3 for f in FILES for v in medians(f, "bandwidth").values()]
        assert ticks and min(ticks) <= min(ms) and max(ticks) >= max(ms), (ticks, ms)
        # flot's legend: one entry per unit and width (3 x 3), each unit by its machine name
        legend = re.findall(r'<td class="legendLabel">([^<]*)</td>', dom)
        assert len(legend) == 9, legend
        for m in ("nvidia-h200-gpu-53e5ebc9", "nvidia-h200-gpu-cf20f41c", "nvidia-h200-vm-gpu0"):
            assert sum(m in x for x in legend) == 3, (m, legend)
        # the page fetched every unit's graph of the benchmark, the files whose values are the medians
        log.flush()
        got = [urllib.parse.unquote(x) for x in re.findall(r'"GET (/graphs/[^ ?]*bandwidth\.time\.json)',
                                                           open(log.name).read())]
        assert len([g for g in got if "/machine-" in g]) == 3, got
        os.makedirs(os.path.dirname(OUT), exist_ok=True)
        p = browse(url, f"--screenshot={OUT}")
        assert os.path.getsize(OUT) > 20000, p.stderr[-1000:]
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def refused(args, rc_want=2):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    assert rc == rc_want and len(lines) == 1 and lines[0].startswith("smembench: "), (rc, err)
    return lines[0]


@test
def bad_input_is_one_line_and_nothing_written():
    git_ok()
    d = os.path.join(TMP, "bad")
    predicted = os.path.join(R, "predict", "nvidia-a100-sxm4-model_20261130_carveout-dynamic.json")
    assert "no timed point" in refused([predicted, "--format", "asv", "-o", d, "--repo", ROOT])
    assert not os.path.exists(d)
    unit_a = os.path.join(R, "contract", "nvidia-h200_20261202_all_156b33a_unitA_p1.json")
    assert '"9c0f2e1x"' in refused([FILES[0], unit_a, "--format", "asv", "-o", d, "--repo", ROOT])
    assert not os.path.exists(d)
    runs = [os.path.join(R, "units", f"nvidia-h200_20261130_all_gpu0_r{i}.json") for i in (1, 2)]
    assert "in both" in refused([*runs, "--format", "asv", "-o", d, "--repo", ROOT])
    assert not os.path.exists(d)
    assert "no git repository" in refused([FILES[0], "--format", "asv", "-o", d, "--repo", TMP])
    assert "give -o DIR" in refused([FILES[0], "--format", "asv"])
    os.makedirs(os.path.join(TMP, "notasv"))
    open(os.path.join(TMP, "notasv", "keep.txt"), "w").write("mine\n")
    assert "no asv tree" in refused([FILES[0], "--format", "asv", "-o", os.path.join(TMP, "notasv"), "--repo", ROOT])
    assert os.listdir(os.path.join(TMP, "notasv")) == ["keep.txt"]
    assert "is not a directory" in refused([FILES[0], "--format", "asv", "-o",
                                            os.path.join(TMP, "notasv", "keep.txt", "sub"), "--repo", ROOT])


@test
def sigterm_leaves_no_tree():
    git_ok()
    d = os.path.join(TMP, "killed")
    env = dict(os.environ, SMEM_TEST_WRITE_DELAY_MS="3000")
    p = subprocess.Popen([sys.executable, EXPORT, FILES[0], "--format", "asv", "-o", d, "--repo", ROOT],
                         stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + WAIT_S
    line = p.stderr.readline()      # the first file held in its temporary
    assert "smembench-test: write" in line and time.monotonic() < deadline, line
    p.send_signal(signal.SIGTERM)
    err = p.stderr.read()
    assert p.wait(timeout=WAIT_S) == 143, err
    assert not os.path.exists(d), os.listdir(d)


if __name__ == "__main__":
    sys.exit(tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
