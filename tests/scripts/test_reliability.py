#!/usr/bin/env python3
"""The result tools' fifth round of bad input (issue 53), as TAP: a FIFO named directly to the library
or as ab.py's manifest (refused in one line, never waited on), ab.py with a driver that hangs (the run
bounded by --run-timeout, ended with its process group, the round reported; .ab.lock never left),
two exports of one unit and commit into one asv tree (merged), the asv interval of the median on
100 000 samples (the exact and the fast rule agreeing), smembench.samples() of a 200 MB file (time
and memory), a point twice in the BMF and OpenMetrics exports, an ok point without statistics, and
--format asv outside a git clone. Every process a test starts is bounded by a timeout.

  test_reliability.py
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
PYDIR = os.path.join(ROOT, "python")
sys.path.insert(0, HERE)
sys.path.insert(0, PYDIR)
import tap  # noqa: E402
from tap import Skip, test  # noqa: E402

R = os.path.join(ROOT, "results")
CARVEOUT = os.path.join(R, "nvidia-h200_20261129_carveout.json")
AB_QUICK = os.path.join(R, "gate", "nvidia-h200_20261130_quick_lease4_c1e362d.json")
TMP = tempfile.mkdtemp(prefix="smem-reliability.")
WAIT_S = 60


def py(code, *args, timeout=WAIT_S, env=None):
    """python3 -c code with the package on sys.path: (status, stdout, stderr); a hang fails the test
    (subprocess's TimeoutExpired) instead of holding it."""
    p = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {PYDIR!r}); " + code, *args],
                       capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def tool(name, *args, timeout=WAIT_S, env=None, cwd=None):
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *args], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def one_line(rc, err, needle, status=2):
    lines = err.strip().splitlines()
    assert rc == status and len(lines) == 1 and needle in lines[0], (rc, err[-2000:])
    return lines[0]


# ---- 1. a FIFO named directly ----------------------------------------------------------------------

@test
def a_fifo_named_to_the_library_is_refused_not_waited_on():
    """smembench.load("fifo.json") on a FIFO named directly waited for a writer for ever: refused in
    one line naming it, as are the reader's other ways in (a glob, not_results, the header)."""
    d = os.path.join(TMP, "fifo")
    os.makedirs(d)
    fifo = os.path.join(d, "fifo.json")
    os.mkfifo(fifo)
    rc, out, err = py("import smembench\ntry:\n smembench.load(sys.argv[1])\nexcept smembench.InvalidResult as e:\n"
                      " print(e)", fifo, timeout=20)
    assert rc == 0 and out.strip() == f"{fifo}: a FIFO, not a regular file; expected a result file", (rc, out, err)
    rc, out, err = py("from smembench import reader, inputs\nprint(reader.not_results(sys.argv[1]), "
                      "inputs.header(sys.argv[1]))\nimport smembench\ntry:\n smembench.to_dataframe(sys.argv[2])\n"
                      "except smembench.InvalidResult as e:\n print(e)", fifo, os.path.join(d, "*.json"), timeout=20)
    assert rc == 0 and out.splitlines() == ["False None", f"{fifo}: a FIFO, not a regular file; expected a result "
                                            "file"], (rc, out, err)
    # a folder and a device named to load() are no result files either
    rc, out, err = py("from smembench import reader\nfor p in sys.argv[1:]:\n try:\n  reader.load(p)\n"
                      " except reader.ResultError as e:\n  print(e)", os.devnull, timeout=20)
    assert out.strip() == f"{os.devnull}: a character device, not a regular file; expected a result file", out


@test
def a_fifo_as_the_ab_manifest_is_refused_not_waited_on():
    d = os.path.join(TMP, "fifo_ab")
    os.makedirs(d)
    for r in (1, 2):
        for b in ("base", "head"):
            shutil.copy(AB_QUICK, os.path.join(d, f"{b}_r{r}.json"))
    os.mkfifo(os.path.join(d, "ab-manifest.json"))
    rc, out, err = tool("ab.py", "--files", d, timeout=20)
    one_line(rc, err, f"{d}/ab-manifest.json: a FIFO, not a regular file; expected the A/B manifest")
    assert out == ""


# ---- 2. ab.py and a driver that hangs ----------------------------------------------------------------

HANG = """#!/bin/sh
# a driver that hangs, with a child of its own; it ignores SIGTERM where told to
[ "$1" = stubborn ] && trap '' TERM
sleep 600 &
echo $! >> "{pids}"
echo $$ >> "{pids}"
echo "smembench: measuring" >&2
sleep 600
"""

COPY = """#!{python}
import json, sys, time
args = sys.argv[1:]
out = args[args.index("-o") + 1]
time.sleep(float({delay!r}))
json.dump(json.load(open({template!r})), open(out, "w"))
"""


def alive(pid):
    """True while pid is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone(pids, within=10):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def stand_ins(d, delay=0.0):
    os.makedirs(d, exist_ok=True)
    pids = os.path.join(d, "pids")
    hang = os.path.join(d, "hang")
    with open(hang, "w") as f:
        f.write(HANG.format(pids=pids))
    good = os.path.join(d, "good")
    with open(good, "w") as f:
        f.write(COPY.format(python=sys.executable, template=AB_QUICK, delay=delay))
    for p in (hang, good):
        os.chmod(p, 0o755)
    return hang, good, pids


def pids_in(path):
    with open(path) as f:
        return [int(x) for x in f.read().split()]


@test
def ab_ends_a_hung_driver_with_its_group_and_reports_the_round():
    """A driver that never returns: the run is ended --run-timeout seconds after it started (SIGTERM
    to its process group, SIGKILL where it ignores that), the round is reported as timed out in one
    line, exit 2, and neither the driver, its child nor .ab.lock is left."""
    for how in ("plain", "stubborn"):
        d = os.path.join(TMP, "hang_" + how)
        hang, good, pids = stand_ins(d)
        out_dir = os.path.join(d, "out")
        t0 = time.monotonic()
        args = [good, hang, "-o", out_dir, "--rounds", "2", "--run-timeout", "1", "--"]
        rc, out, err = tool("ab.py", *args, *(["stubborn"] if how == "stubborn" else []), "--sweep", "bank")
        took = time.monotonic() - t0
        line = one_line(rc, err, "head_r1.json: timed out: ")
        assert "still running after --run-timeout 1 s: ended with its process group (pid " in line, line
        assert ("SIGKILL" if how == "stubborn" else "SIGTERM") in line and "smembench: measuring" in line, line
        assert took < 20, took
        assert gone(pids_in(pids)), "the hung driver or its child is still running"
        assert sorted(os.listdir(out_dir)) == ["ab-manifest.json", "base_r1.json"], os.listdir(out_dir)
        assert json.load(open(os.path.join(out_dir, "ab-manifest.json")))["files"] == {}


@test
def ab_leaves_no_lock_when_it_passes_fails_or_is_signalled():
    """.ab.lock stayed in DIR after every run: gone after a pass, a failure, SIGTERM and SIGINT (the
    hung driver's group ended with it), and a second ab.py is still kept out while one runs."""
    d = os.path.join(TMP, "lock")
    hang, good, pids = stand_ins(d)
    ok_dir = os.path.join(d, "ok")
    rc, out, err = tool("ab.py", good, good, "-o", ok_dir, "--rounds", "2", "--", "--sweep", "bank", timeout=120)
    assert rc == 0 and "gate: pass (exit 0)" in out, (rc, err[-2000:])
    assert ".ab.lock" not in os.listdir(ok_dir), os.listdir(ok_dir)
    bad_dir = os.path.join(d, "bad")
    rc, out, err = tool("ab.py", good, os.path.join(d, "nonexec"), "-o", bad_dir, "--", "--sweep", "bank")
    assert rc == 2 and not os.path.exists(os.path.join(bad_dir, ".ab.lock"))
    rc, out, err = tool("ab.py", good, "/bin/true", "-o", bad_dir, "--", "--sweep", "bank")
    assert rc == 2 and "wrote no file" in err and ".ab.lock" not in os.listdir(bad_dir), (rc, err)
    for signo in (signal.SIGTERM, signal.SIGINT):
        open(pids, "w").close()
        sig_dir = os.path.join(d, f"sig{signo}")
        p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "ab.py"), hang, good, "-o", sig_dir, "--",
                              "--sweep", "bank"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + WAIT_S
            while len(pids_in(pids)) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(pids_in(pids)) == 2, "the driver did not start"
            assert os.path.exists(os.path.join(sig_dir, ".ab.lock"))
            rc, out, err = tool("ab.py", good, good, "-o", sig_dir, "--", "--sweep", "bank")
            one_line(rc, err, f"another ab.py (pid {p.pid}) is writing its rounds there")
            p.send_signal(signo)
            out, err = p.communicate(timeout=WAIT_S)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == 128 + signo and err.strip().splitlines()[-1].endswith(
            f"interrupted by {signal.Signals(signo).name}"), (p.returncode, err)
        assert gone(pids_in(pids)), "the driver's group outlived ab.py"
        assert ".ab.lock" not in os.listdir(sig_dir), os.listdir(sig_dir)


@test
def ab_run_timeout_is_checked():
    for bad in ("-1", "nan", "1e9"):
        rc, out, err = tool("ab.py", "/bin/true", "/bin/true", "-o", os.path.join(TMP, "x"), "--run-timeout", bad,
                            "--", "--sweep", "bank")
        one_line(rc, err, f"invalid value {bad if bad != '1e9' else '1e+09'} for --run-timeout")
    assert not os.path.exists(os.path.join(TMP, "x"))


# ---- 3. two exports of one unit and commit into one asv tree ----------------------------------------

ALL_U1 = os.path.join(R, "figures_35", "h200", "nvidia-h200_20261203_all_u1.json")


def asv_results(d):
    """{relative path: JSON} of the tree's result files (not machine.json)."""
    out = {}
    for root, _, names in os.walk(os.path.join(d, "results")):
        for n in names:
            if n.endswith(".json") and n not in ("machine.json", "benchmarks.json"):
                out[os.path.relpath(os.path.join(root, n), d)] = json.load(open(os.path.join(root, n)))
    return out


def asv_values(res):
    """{(benchmark, params): value} of an asv result file."""
    import itertools
    out = {}
    for name, row in res["results"].items():
        for combo, v in zip(itertools.product(*row[1]), row[0]):
            if v is not None:
                out[(name, combo)] = v
    return out


@test
def asv_exports_of_one_unit_and_commit_merge():
    """Two sweeps' files of one unit and commit exported one after the other into one tree: the
    second export replaced the first's result file (5 benchmarks left of 97, said as "(1 replaced)").
    Now the tree holds the union, equal to exporting both files at once; a point in both (the
    carveout file's points, in the --sweep all file too) takes the later export's value, and the
    line says how many were kept and replaced."""
    git = json.load(open(ALL_U1))["tool"]["git"].replace("-dirty", "")
    if not (shutil.which("git") and git_has(git)):
        raise Skip(f"the source tree is no git clone holding {git}")
    doc = json.load(open(ALL_U1))
    benches = sorted({r["bench"] for r in doc["results"]})
    half = set(benches[:len(benches) // 2])
    parts = []
    for i, keep in enumerate((lambda b: b in half, lambda b: b not in half)):
        part = dict(doc, results=[r for r in doc["results"] if keep(r["bench"])])
        path = os.path.join(TMP, f"all_u1_part{i}.json")
        json.dump(part, open(path, "w"))
        parts.append(path)
    d, both = os.path.join(TMP, "asv_merge"), os.path.join(TMP, "asv_both")
    for p in parts:
        rc, out, err = tool("export.py", p, "--format", "asv", "-o", d, "--repo", ROOT, timeout=120)
        assert rc == 0, err
    assert "(1 merged with the tree's: " in err and "replaced" not in err, err
    rc, out, e2 = tool("export.py", *parts, "--format", "asv", "-o", both, "--repo", ROOT, timeout=120)
    assert rc == 0, e2
    merged, once = asv_results(d), asv_results(both)
    assert list(merged) == list(once) and len(merged) == 1, (list(merged), list(once))
    (rel, m), (_, o) = next(iter(merged.items())), next(iter(once.items()))
    assert asv_values(m) == asv_values(o) and len({b for b, _ in asv_values(m)}) > 40, rel
    assert json.load(open(os.path.join(d, "results", "benchmarks.json"))) == \
        json.load(open(os.path.join(both, "results", "benchmarks.json")))
    # the carveout file of the same unit and commit: its points replace the --sweep all file's
    carve = os.path.join(R, "figures_35", "h200", "nvidia-h200_20261203_carveout_u1_p1.json")
    rc, out, err = tool("export.py", carve, "--format", "asv", "-o", d, "--repo", ROOT, timeout=120)
    assert rc == 0 and "replaced by this export's" in err, err
    after = asv_values(asv_results(d)[rel])
    alone = os.path.join(TMP, "asv_carve")
    rc, out, err = tool("export.py", carve, "--format", "asv", "-o", alone, "--repo", ROOT, timeout=120)
    assert rc == 0, err
    carve_values = asv_values(next(iter(asv_results(alone).values())))
    assert any(k in asv_values(m) for k in carve_values), "the carveout file shares no point with the other"
    assert after == {**asv_values(m), **carve_values}


# ---- 4. the asv interval of the median on many samples ----------------------------------------------

CARVEOUT26 = os.path.join(R, "figures_35", "h200", "nvidia-h200_20261203_carveout_u1_p1.json")


def git_has(commit):
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", commit + "^{commit}"], capture_output=True)
    return p.returncode == 0


@test
def asv_interval_exact_and_fast_ranks_agree():
    """The interval's rank in exact integers (up to 1000 samples) and from log probabilities summed
    from the normal approximation (above): the same on every n from 8 to 2000, and the fast one
    where SciPy's binomial says, P(B <= k - 1) <= 0.005 < P(B <= k), up to 100 000 samples."""
    from smembench import dashboards
    bad = [n for n in range(8, 2001) if dashboards._ci_rank_exact(n) != dashboards._ci_rank_fast(n)]
    assert not bad, bad[:10]
    assert dashboards.ci_rank(8) == 1 and dashboards.ci_rank(1000) == 459 and dashboards.ci_rank(100000) == 49593
    try:
        from scipy.stats import binom
    except ImportError:
        return
    for n in (1001, 5000, 20000, 54321, 100000):
        k = dashboards.ci_rank(n)
        assert binom.cdf(k - 1, n, 0.5) <= 0.005 < binom.cdf(k, n, 0.5), n


@test
def asv_export_of_26_points_of_100000_samples_takes_seconds():
    """The 99 % interval of the median took 61 s a point at 20 000 samples (exact binomials, n^3):
    a 26-point carveout file (a committed H200 file, each point's raw samples repeated to 100 000,
    --max-samples' ceiling) goes through the asv tree in seconds, every interval holding its median;
    and through export.py --format asv where the clone holds the file's commit."""
    from smembench import dashboards, reader
    doc = json.load(open(CARVEOUT26))
    assert len(doc["results"]) == 26
    for r in doc["results"]:
        raw = r["time_ns"]["raw"]
        r["time_ns"]["raw"] = (raw * (100000 // len(raw) + 1))[:100000]
    path = os.path.join(TMP, "carveout26.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    doc = reader.load(path)
    git = doc["tool"]["git"]
    t0 = time.process_time()
    files = dashboards.asv_tree([(path, doc)], {git: ("0" * 40, 0)})
    took = time.process_time() - t0
    assert took < 10, f"asv tree of 26 x 100 000 samples: {took:.1f} s of processor time"
    res = next(v for k, v in files.items() if k.endswith("-smembench.json") or "-smembench-" in k)
    cols = res["result_columns"]
    for name, row in res["results"].items():
        if name.endswith(".time"):
            for v, lo, hi in zip(row[0], row[cols.index("stats_ci_99_a")], row[cols.index("stats_ci_99_b")]):
                assert v is None or lo <= v <= hi, (name, lo, v, hi)
    if shutil.which("git") and git_has(git.replace("-dirty", "")):
        t0 = time.monotonic()
        rc, out, err = tool("export.py", path, "--format", "asv", "-o", os.path.join(TMP, "asv26"), "--repo", ROOT,
                            timeout=120)
        assert rc == 0, err
        assert time.monotonic() - t0 < 30, time.monotonic() - t0


# ---- 5. smembench.samples() of a 200 MB file ----------------------------------------------------------

def big_file(src, target_bytes, out):
    """A result file of about target_bytes made from the committed file src, each point's raw samples
    repeated (its stats' count with them): the text written directly, as json.dumps of 25 million
    integers would take long itself."""
    doc = json.load(open(src))
    total = sum(len(r["time_ns"]["raw"]) * 8 for r in doc["results"])
    factor = target_bytes // max(1, total) + 1
    chunks = []
    for i, r in enumerate(doc["results"]):
        raw = r["time_ns"]["raw"]
        chunks.append(", ".join(map(str, raw)) if raw else "")
        r["time_ns"]["raw"] = [i]
        if r["time_ns"].get("stats") and raw:
            r["time_ns"]["stats"]["count"] = len(raw) * factor
        if isinstance(r.get("trials"), dict):
            for t in r["trials"].get("runs") or []:
                t["samples"] = t.get("samples", 0) * factor
    parts = json.dumps(doc).split('"raw": [')
    with open(out, "w") as f:
        f.write(parts[0])
        for p in parts[1:]:
            i, rest = p.split("]", 1)
            c = chunks[int(i)]
            f.write('"raw": [')
            if c:
                f.write(", ".join([c] * factor))
            f.write("]" + rest)
    return sum(len(r["time_ns"]["raw"]) and 1 for r in doc["results"]), factor


@test
def samples_of_a_200_mb_file_within_30_s_and_2_gb():
    """smembench.samples() of a 200 MB file (the committed carveout file's samples repeated: 25
    million) did not finish in 300 s (a Python list a column, 6.6 GB when stopped at 150 s): in a
    process of its own it must take under 30 s of processor time and 2 GB at its peak (reading the
    file included), with one row a sample and each point's samples in order."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise Skip("no pandas (python3-pandas)")
    big = os.path.join(TMP, "big200.json")
    _, factor = big_file(CARVEOUT, 200_000_000, big)
    assert os.path.getsize(big) > 200e6, os.path.getsize(big)
    doc = json.load(open(CARVEOUT))
    want = sum(len(r["time_ns"]["raw"]) for r in doc["results"]) * factor
    first = next(r for r in doc["results"] if r["time_ns"]["raw"])
    code = (f"import sys; sys.path.insert(0, {PYDIR!r}); import smembench\n"
            "s = smembench.samples(sys.argv[1])\n"
            "p = s['point'].iloc[0]\n"
            "print(len(s), p, list(s['time_ns'].iloc[:5]), s['sample'].iloc[-1], s['time_ns'].dtype)")
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-c", code, big], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)      # this process's children: the largest is this one
    assert p.returncode == 0, err[-2000:]
    from smembench import reader
    assert out.startswith(f"{want} {reader.point_name(first)} "), (out, want)
    assert f"{first['time_ns']['raw'][:5]}" in out and out.strip().endswith("int64"), out
    cpu = ru.ru_utime + ru.ru_stime
    peak = ru.ru_maxrss * 1024
    print(f"# samples() of {os.path.getsize(big) / 1e6:.0f} MB: {want} rows, {cpu:.1f} s of processor time, "
          f"{wall:.1f} s wall, peak {peak / 2 ** 30:.2f} GiB")
    assert cpu < 30, f"{cpu:.1f} s of processor time"
    assert peak < 2e9, f"peak {peak / 2 ** 30:.2f} GiB"
    os.unlink(big)


# ---- 6. one point twice in the dashboards' exports --------------------------------------------------

X2 = os.path.join(R, "nvidia-h200-x2_20261129_bandwidth-latency-bank.json")


@test
def one_point_twice_in_one_file_is_refused_naming_both_places():
    """A file holding one point twice: BMF, OpenMetrics, gab and asv refuse it in one line naming the
    point and both places in the file (results[i] and results[j]; the line said "in both F and F"),
    exit 2, nothing written; CSV, a row per point, takes it."""
    import copy
    for src, name in ((CARVEOUT, "footprint/carveout_pct=0,mib=256,tile_bytes=31744"),
                      (X2, "bandwidth/width_bytes=4@gpu0")):
        doc = json.load(open(src))
        n = len(doc["results"])
        doc["results"].append(copy.deepcopy(doc["results"][0]))
        path = os.path.join(TMP, "twice_" + os.path.basename(src))
        json.dump(doc, open(path, "w"))
        for fmt in ("bmf", "openmetrics", "gab", "gab-bigger", "asv"):
            out = os.path.join(TMP, f"twice_out_{fmt}")
            args = [path, "--format", fmt, "-o", out] + (["--repo", ROOT] if fmt == "asv" else [])
            rc, stdout, err = tool("export.py", *args)
            line = one_line(rc, err, f" is twice in {path} (results[0] and results[{n}]: ")
            assert name.split("@")[0] in line and "Traceback" not in err and not os.path.exists(out), (fmt, line)
        rc, stdout, err = tool("export.py", path, "--format", "csv")
        assert rc == 0 and stdout.count("\n") > n, err


# ---- 7. an ok point without statistics -----------------------------------------------------------

@test
def an_ok_point_without_a_time_is_refused_by_every_tool():
    """plot drew an ok point whose statistics were null and exited 0: the reader refuses it with its
    JSON path, exit 2 in every tool; a --check run's ok points (verified, never timed) still read."""
    doc = json.load(open(CARVEOUT))
    stats = doc["results"][12]["time_ns"]["stats"]
    nulls = dict({k: None for k in stats}, count=0)
    cases = []
    for tag, value, where in (("nullmedian", nulls, "results[12].time_ns.stats.median: null for an ok point"),
                              ("nullstats", None, "results[12].time_ns.stats: null for an ok point")):
        d = json.loads(json.dumps(doc))
        d["results"][12]["time_ns"].update(stats=value, raw=[])
        path = os.path.join(TMP, tag + ".json")
        json.dump(d, open(path, "w"))
        cases.append((path, where))
    try:
        import matplotlib  # noqa: F401
        draw = True
    except ImportError:
        draw = False
    for path, where in cases:
        runs = [("compare.py", [path, CARVEOUT]), ("export.py", [path, "--format", "csv"])]
        if path == cases[0][0]:
            runs += [("fleet.py", [path]), ("trend.py", [path, "-o", os.path.join(TMP, "t")])]
        if draw and path == cases[0][0]:
            runs += [("plot.py", [path, "-o", os.path.join(TMP, "p")]),
                     ("report.py", [path, "-o", os.path.join(TMP, "r")])]
        for name, args in runs:
            rc, out, err = tool(name, *args, timeout=120)
            one_line(rc, err, f"{path}: {where}")
            assert not any(os.path.exists(os.path.join(TMP, x)) for x in "tpr"), name
        rc, out, err = py("import smembench\ntry:\n smembench.load(sys.argv[1])\nexcept smembench.InvalidResult as e:\n"
                          " print(e)", path)
        assert out.startswith(f"{path}: {where}"), out
    from smembench import reader
    checked = os.path.join(R, "figures_35", "h200", "ncu", "keep", "checked.json")
    doc = reader.load(checked)
    assert reader.is_check_run(doc) and not reader.timed_points(doc) and reader.ok(doc)


# ---- 8. --format asv outside a git clone ---------------------------------------------------------

@test
def asv_outside_a_clone_says_what_is_needed():
    """export --format asv from a source tarball (no .git) and of a file a tarball build wrote
    (tool.git "unknown"): one line saying what asv needs, exit 2, nothing written."""
    tarball = os.path.join(TMP, "smembench-0.1.0")
    os.makedirs(tarball)
    shutil.copy(CARVEOUT, os.path.join(tarball, "r.json"))
    out = os.path.join(TMP, "asv_tar")
    rc, _, err = tool("export.py", "r.json", "--format", "asv", "-o", out, cwd=tarball)
    line = one_line(rc, err, "--repo . is no git repository (git: fatal: not a git repository")
    assert "a source tarball or a copy of the tree without its .git has no commits" in line and \
        "give --repo that clone" in line, line
    assert not os.path.exists(out)
    doc = json.load(open(CARVEOUT))
    doc["tool"]["git"] = "unknown"
    unknown = os.path.join(TMP, "unknown.json")
    json.dump(doc, open(unknown, "w"))
    if not shutil.which("git") or not git_has("HEAD"):
        raise Skip("the source tree is no git clone")
    rc, _, err = tool("export.py", unknown, "--format", "asv", "-o", out, "--repo", ROOT)
    line = one_line(rc, err, f'{unknown}: tool.git is "unknown", no commit: the build that wrote it was made outside')
    assert "SMEM_GIT_REV" in line and not os.path.exists(out), line


if __name__ == "__main__":
    sys.exit(tap.run(lambda: shutil.rmtree(TMP, ignore_errors=True)))
