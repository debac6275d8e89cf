#!/usr/bin/env python3
"""The gate's rules on real H200 files with levels, unit offsets and clock dips (TAP):
results/gate/trials_20261201/ (three units, NOTES.md says what ran). The A/B rule on the same binary
of two units, on the 3 % test build, and on copies of the same-binary rounds with a slowdown planted
(2 % on bandwidth/width_bytes=4, 5 % on one cluster point) over 20 splits of the rounds into base and
head; the widest band and --uncertain; the single-base gate on one unit's two --sweep all processes
(the landed main, whose swizzle x4 points switch levels, and the build with trials and the lead-in);
the history gate on units that sit on levels."""
import copy
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
import tap  # noqa: E402
from tap import test  # noqa: E402
from smembench import ab, ab_rule, reader  # noqa: E402

G = os.path.join(ROOT, "results", "gate", "trials_20261201")
# one build (66201af) on three more units, 2026-12-02: NOTES.md there
S3 = os.path.join(ROOT, "results", "gate", "session3_20261202")
TMP = tempfile.mkdtemp(prefix="smem-ab-rule.")
BANDWIDTH = "bandwidth/width_bytes=4"
ALL_FILES = sorted(os.path.join(G, f) for f in os.listdir(G) if f.startswith("nvidia-h200_20261201_all_"))
S3_FILES = sorted(os.path.join(S3, f) for f in os.listdir(S3) if f.startswith("nvidia-h200_20261202_all_"))
# the same-binary rounds of four units, with the --sweep all processes of their session as history
SAME = ((G, "ab_same_unitA", ALL_FILES), (G, "ab_same_unitB", ALL_FILES),
        (S3, "ab_same_unitG", S3_FILES), (S3, "ab_same_unitH", S3_FILES))
CLUSTER = "dsm_bandwidth/cluster_size=2,path=0,width_bytes=16"


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script), *args], capture_output=True,
                       text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def verdicts(out, word):
    return [line.split()[0] for line in out.splitlines()
            if "/" in line.split(" ")[0] and re.search(rf"\s{word}( \(|$)", line)]


def opts(*argv):
    return ab.parse_args(["--files", "x", *argv])


def scaled(r, f):
    """A copy of a record f times slower: samples, statistics and trial medians."""
    r = copy.deepcopy(r)
    t = r["time_ns"]
    t["raw"] = [round(x * f) for x in t["raw"]]
    for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
        if isinstance(t["stats"].get(k), (int, float)):
            t["stats"][k] = t["stats"][k] * f
    for x in (r.get("trials") or {}).get("runs", []):
        x["median_ns"] = round(x["median_ns"] * f)
    return r


def rounds_of(d):
    return [(reader.load(b), reader.load(h)) for b, h in ab.rounds_in(d)]


@test
def the_same_binary_on_four_units_has_no_point_slower_or_faster():
    for where, unit, _ in SAME:
        rc, out, err = run("ab.py", "--files", os.path.join(where, unit))
        assert rc == 0, (unit, err, out[-2000:])
        assert verdicts(out, "slower") == [] and verdicts(out, "faster") == [], unit
        assert "gate: pass (exit 0)" in out


@test
def the_three_percent_build_has_exactly_its_24_points_slower_on_two_units():
    for d in (os.path.join(G, "ab_slow3pct_unitB"), os.path.join(S3, "ab_slow3pct_unitG")):
        rc, out, err = run("ab.py", "--files", d)
        assert rc == 1, (d, err, out[-2000:])
        slow = verdicts(out, "slower")
        assert len(slow) == 24 and all(p.split("/")[0] in ("bandwidth", "bank") for p in slow), (d, slow)
        assert verdicts(out, "faster") == [], d


@test
def a_planted_slowdown_is_found_in_19_of_20_splits_with_no_false_point():
    """8 processes of one binary per unit, run as 4 ABBA rounds: each round's two processes ran back to
    back, so either can be the base. 10 of the 16 ways of choosing per unit (seeded), the head's
    bandwidth point 2 % and one cluster point 5 % slower; 20 splits on units A and B, 20 on G and H."""
    for sessions in (SAME[:2], SAME[2:]):
        planted_in_20_splits(sessions)


def planted_in_20_splits(sessions):
    found = {BANDWIDTH: 0, CLUSTER: 0}
    false, trials = [], 0
    # the history: every --sweep all process of the session's units, where gather at carveout 100 %
    # shows its two levels (1194 and 1529 us on unit A); without it four rounds cannot know them
    o = opts(*[x for f in sessions[0][2] for x in ("--history", f)])
    hist = ab.load_history(o.history)
    for where, unit, _ in sessions:
        pairs = rounds_of(os.path.join(where, unit))
        for roles in random.Random(unit).sample(range(16), 10):
            base, head = [], []
            for i, (b, h) in enumerate(pairs):
                if roles >> i & 1:
                    b, h = h, b
                base.append(b)
                head.append(h)
            planted = []
            for doc in head:
                doc = copy.deepcopy(doc)
                doc = copy.deepcopy(doc)
                doc["results"] = [scaled(r, 1.02) if reader.point_name(r) == BANDWIDTH else
                                  scaled(r, 1.05) if reader.point_name(r) == CLUSTER else r for r in doc["results"]]
                planted.append(doc)
            rows = ab_rule.paired(list(zip(base, planted)), o, hist)
            trials += 1
            for row in rows:
                if row["kind"] != "timed" or row["verdict"] not in ("slower", "faster"):
                    continue
                if row["name"] in found and row["verdict"] == "slower":
                    found[row["name"]] += 1
                else:
                    false.append((unit, row["name"], row["verdict"], row.get("change")))
    assert trials == 20
    print(f"# planted slowdowns found in 20 splits of {[u for _, u, _ in sessions]}: {found}; "
          f"false points: {len(false)}")
    assert all(v >= 19 for v in found.values()), found
    assert false == [], false[:10]


@test
def a_band_wider_than_the_widest_is_uncertain_and_fails_only_when_asked():
    rounds = rounds_of(os.path.join(G, "ab_same_unitB"))
    # one point's head rounds alternate 0 and +8 %: the rounds disagree by more than the widest band
    noisy = []
    for i, (b, h) in enumerate(rounds):
        h = copy.deepcopy(h)
        h["results"] = [scaled(r, 1.08 if i % 2 else 1.0) if reader.point_name(r) == BANDWIDTH else r
                        for r in h["results"]]
        noisy.append((b, h))
    row = [r for r in ab_rule.paired(noisy, opts()) if r["name"] == BANDWIDTH][0]
    assert row["verdict"] == "uncertain" and row["reason"].startswith("band ±"), row
    assert row["band"] > 0.05
    o = opts("--uncertain", "fail")
    out, rc = ab.report([("b", "h")] * len(noisy), noisy, o)
    assert rc == 1 and "uncertain (--uncertain fail)" in out[-1], out[-2:]
    out, rc = ab.report([("b", "h")] * len(noisy), noisy, opts())
    assert rc == 0, out[-2:]


@test
def one_unit_two_processes_gate_clean_with_trials_and_the_lead_in_but_not_before():
    old = [os.path.join(G, f"nvidia-h200_20261201_all_aa5fed3_unitC_r{r}.json") for r in (1, 2)]
    new = [os.path.join(G, f"nvidia-h200_20261201_all_d1261f6_unitB_r{r}.json") for r in (1, 2)]
    rc, out, _ = run("compare.py", *old)
    assert rc == 1, out[-1500:]
    moved = verdicts(out, "slower") + verdicts(out, "faster")
    assert moved and all(p.split("/")[0] in ("swizzle_ldmatrix", "swizzle_stmatrix") for p in moved), moved
    for a, b in ((new[0], new[1]), (new[1], new[0])):
        rc, out, err = run("compare.py", a, b)
        assert rc == 0, (err, out[-1500:])
        assert verdicts(out, "slower") == [] and verdicts(out, "faster") == []
        # uninit moves by tens of percent: never "same (band ±36 %)"
        assert all("uncertain (band ±" in line for line in out.splitlines() if line.startswith("uninit/")), out


@test
def trials_that_land_on_levels_widen_the_band_and_past_it_are_uncertain():
    base = reader.load(os.path.join(G, "nvidia-h200_20261201_all_d1261f6_unitB_r1.json"))
    new = copy.deepcopy(base)
    r = [x for x in new["results"] if reader.point_name(x) == BANDWIDTH][0]
    runs = r["trials"]["runs"]
    runs[1]["median_ns"] = round(runs[0]["median_ns"] * 1.07)   # a trial 7 % up at the same clock
    runs[1]["clock_mhz"] = runs[0]["clock_mhz"]
    assert abs(reader.trial_range(r) - 0.07) < 0.002
    path = os.path.join(TMP, "levels.json")
    json.dump(new, open(path, "w"))
    rc, out, _ = run("compare.py", os.path.join(G, "nvidia-h200_20261201_all_d1261f6_unitB_r1.json"), path)
    line = [x for x in out.splitlines() if x.startswith(BANDWIDTH + " ")][0]
    assert "uncertain (band ±" in line and "trials moved 7.0 %" in line, line
    # the same 7 % at a clock 3 % lower is the clock's, not a level
    runs[1]["clock_mhz"] = runs[0]["clock_mhz"] * 0.97
    assert reader.trial_range(r) < 0.01, reader.trial_range(r)


@test
def history_of_units_on_levels_is_uncertain_for_a_new_unit_never_same_or_slower():
    """The files of unit A, B and C's --sweep all as a history; a new file from another unit (B's
    second run relabelled) of gather at carveout 100 %, which sits at 1194 / 1529 us by unit and
    process: uncertain with the levels named (inside their band, wider than --max-band)."""
    hist = [os.path.join(G, f) for f in sorted(os.listdir(G)) if f.startswith("nvidia-h200_20261201_all_")
            and "unitB_r2" not in f]
    new = reader.load(os.path.join(G, "nvidia-h200_20261201_all_d1261f6_unitB_r2.json"))
    new["device"]["uuid"] = "GPU-00000000-new-unit"
    path = os.path.join(TMP, "new_unit.json")
    json.dump(new, open(path, "w"))
    args = [x for h in hist for x in ("--history", h)]
    rc, out, err = run("compare.py", *args, path, "--allow", "settings")
    assert "Traceback" not in err, err[-2000:]
    line = [x for x in out.splitlines() if x.startswith("gather/carveout_pct=100,table_kib=96 ")][0]
    # the unit the history has not seen: judged against the levels of its class (or of every unit),
    # a band wider than --max-band that the change lies inside
    assert "uncertain (inside a band" in line and "the levels of" in line, line
    assert verdicts(out, "slower") == [], verdicts(out, "slower")


@test
def bad_verdict_options_are_one_line_errors():
    for args, needle in ((["--max-band", "0"], "--max-band"), (["--max-band", "1"], "below the threshold"),
                         (["--uncertain", "maybe"], "--uncertain")):
        rc, out, err = run("compare.py", os.path.join(G, "nvidia-h200_20261201_all_d1261f6_unitB_r1.json"),
                           os.path.join(G, "nvidia-h200_20261201_all_d1261f6_unitB_r2.json"), *args)
        assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1, (args, err)
    rc, out, err = run("ab.py", "--files", os.path.join(G, "ab_same_unitB"), "--max-rounds", "2")
    assert rc == 2 and "--max-rounds" in err, err


STAND_IN = r"""#!{python}
# a stand-in smembench for the orchestration: a real quick round; as the head, the bandwidth point
# alternately 1 % and 5 % slower from call to call (the rounds cannot agree), logging each call
import json, os, sys
args = sys.argv[1:]
out = args[args.index("-o") + 1]
calls = {log!r} + ".{name}"
n = len(open(calls).read().split()) if os.path.exists(calls) else 0
open(calls, "a").write("x ")
open({log!r}, "a").write({name!r} + "\n")
doc = json.load(open({template!r}))
f = 1.0 if {name!r} == "base" else (1.01 if n % 2 else 1.05)
for r in doc["results"]:
    if r["bench"] == "bandwidth" and r["params"].get("width_bytes") == 4:
        t = r["time_ns"]
        t["raw"] = [round(x * f) for x in t["raw"]]
        t["stats"]["median"] = round(t["stats"]["median"] * f)
        for x in (r.get("trials") or {{}}).get("runs", []):
            x["median_ns"] = round(x["median_ns"] * f)
json.dump(doc, open(out, "w"))
"""


@test
def rounds_are_added_in_abba_pairs_while_points_are_uncertain_up_to_max_rounds():
    log = os.path.join(TMP, "rounds.log")
    exes = []
    for name in ("base", "head"):
        path = os.path.join(TMP, f"stand_in_{name}")
        open(path, "w").write(STAND_IN.format(python=sys.executable, log=log, name=name,
                                              template=os.path.join(G, "ab_same_unitB", "base_r1.json")))
        os.chmod(path, 0o755)
        exes.append(path)
    out_dir = os.path.join(TMP, "more_rounds")
    rc, out, err = run("ab.py", *exes, "-o", out_dir, "--rounds", "2", "--max-rounds", "6", "--", "--sweep", "all")
    assert rc in (0, 1) and "Traceback" not in err, (rc, err[-2000:])
    order = open(log).read().split()
    assert order == ["base", "head", "head", "base"] * 3, order
    assert sorted(os.listdir(out_dir)) == sorted(["ab-manifest.json"] +   # no .ab.lock once ab.py ended
                                                 [f"{b}_r{r}.json" for b in ("base", "head") for r in range(1, 7)])
    assert len(json.load(open(os.path.join(out_dir, "ab-manifest.json")))["files"]) == 12
    row = [x for x in out.splitlines() if x.startswith(BANDWIDTH + " ")][0]
    assert re.search(r"\s6\s+(uncertain|slower)", row), row


GENERATOR = r"""#!{python}
# a stand-in smembench: a real quick round with the bandwidth and bank points scaled by this commit's
# slow.txt, and a tiny deterministic jitter per process
import json, os, sys
args = sys.argv[1:]
out = args[args.index("-o") + 1]
factor = float(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "slow.txt")).read())
doc = json.load(open({template!r}))
for r in doc["results"]:
    t = r["time_ns"]
    if not t["raw"]:
        continue
    f = (factor if r["bench"] in ("bandwidth", "bank") else 1.0) * (1 + 0.0005 * (sum(map(ord, out)) % 7 - 3) / 3)
    t["raw"] = [round(x * f) for x in t["raw"]]
    for k in ("min", "q1", "median", "q3", "max", "mean", "stdev"):
        if isinstance(t["stats"].get(k), (int, float)):
            t["stats"][k] = round(t["stats"][k] * f)
    for x in (r.get("trials") or {{}}).get("runs", []):
        x["median_ns"] = round(x["median_ns"] * f)
json.dump(doc, open(out, "w"))
"""


@test
def bisect_names_the_commit_that_made_the_points_slower():
    """A scratch repository of 8 commits, the fifth making the bandwidth and bank points 3 % slower;
    the build copies a stand-in smembench (a real quick round, scaled) into $BUILD: --bisect names
    the fifth commit, through git bisect run, with its A/B table."""
    repo = os.path.join(TMP, "repo")
    os.makedirs(repo)
    git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True, text=True).stdout
    git("init", "-q")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "t")
    open(os.path.join(repo, "gen.py"), "w").write(GENERATOR.format(
        python=sys.executable, template=os.path.join(G, "ab_same_unitB", "base_r1.json")))
    for i in range(1, 9):
        open(os.path.join(repo, "slow.txt"), "w").write("1.03" if i >= 5 else "1.00")
        open(os.path.join(repo, "n.txt"), "w").write(str(i))
        git("add", "-A")
        git("commit", "-qm", f"commit {i}")
    shas = git("rev-list", "--reverse", "HEAD").split()
    out = os.path.join(TMP, "bisect")
    build = 'mkdir -p "$BUILD" && cp gen.py "$BUILD/smembench" && cp slow.txt "$BUILD/" && chmod +x "$BUILD/smembench"'
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "ab.py"), "--bisect", shas[0], shas[-1],
                        "-o", out, "--rounds", "2", "--build", build, "--", "--sweep", "all", "--quick"],
                       cwd=repo, capture_output=True, text=True, timeout=600)
    assert p.returncode == 1, (p.returncode, p.stderr[-3000:], p.stdout[-2000:])
    first = p.stdout.splitlines()[0]
    assert first == f"first slower commit: {shas[4][:7]} commit 5", (first, p.stderr[-2000:])
    assert "24 points slower from" in p.stdout and "gate: fail (exit 1): 24 slower" in p.stdout, p.stdout[-2000:]
    log = open(os.path.join(out, "bisect.log")).read()
    assert shas[4] in log and "is the first bad commit" in log, log[-2000:]
    assert git("worktree", "list").count("\n") == 1, "the bisect's worktree is removed"
    assert not os.path.exists(os.path.join(repo, ".git", "BISECT_LOG")), "the bisect is reset"


if __name__ == "__main__":
    sys.exit(tap.run())
