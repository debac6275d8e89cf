"""A/B on one GPU: two builds of smembench run interleaved on the same GPU, and a paired decision.

  ab.py BASE_EXE HEAD_EXE -o DIR [--rounds N] [--threshold PCT] [--alpha A] [--markdown] -- ARGS...
  ab.py --files DIR [--threshold PCT] [--alpha A] [--markdown]

A pull request is compared with main on the GPU unit its job got, at the same time: what differs
between units (their GPC layout, their DRAM) and what drifts over minutes (clocks, temperature) is the
same for both builds. Each round runs both executables with the same ARGS (one --sweep or --bench
run, one --device), by round and in ABBA order (round 1 base then head, round 2 head then base, ...),
so a drift during the session weighs on both alike. Every run's file is kept in DIR as
base_rN.json and head_rN.json (never hidden; a DIR that already holds such files is refused), and
--files DIR judges such a directory again.

THE PAIRED RULE. For each point timed in both builds in every round, each round's median is taken at
one SM clock: the point's trials (each a fresh setup, src/stats.h) give the slope of ln(time) on
ln(clock) within each build (about -1 where the SM clock paces the kernel, 0 where DRAM does), and
every trial's median moves along it to the rounds' median clock (single trials ran 1-7 % slow at a
dipped clock on the H200). d_r = ln(head / base) of round r; the change is exp(mean d) - 1. Its
standard error is the larger of the rounds' (sd of d / sqrt(R)) and what one build moves between its
own processes (the pooled spread of each build's rounds, x sqrt(2 / R)); t the one-sided quantile at
--alpha. The floor: --drift (0.5 %), and with --history what one build moved between processes on one
unit there (each unit's runs and every run's trials: the largest change, and z sqrt(2) x their
pooled spread): a level the history has seen is never a regression. With lo and hi the change's
bounds and band = floor + (hi - lo) / 2:
  uncertain       band > --max-band (5 %): the point cannot be judged, whatever its change
  slower, faster  lo > floor and hi >= --threshold (mirrored for faster): beyond what one build does,
                  and possibly as large as the threshold
  same            both bounds within max(--threshold, floor)
  uncertain       otherwise ("not confirmed"), or fewer than 2 rounds timed the point
With --max-rounds N above --rounds, two more rounds (an ABBA pair) run while any point is uncertain
for want of rounds (not for a wide band), up to N, as Pinpoint adds attempts.
A point that only one build has, or whose status differs, is reported and fails the gate as in
compare.py. Exit status: 0 no point slower, missing, new or stopped; 1 any of these (and, with
--uncertain fail, any point uncertain); 2 unusable input (an executable that does not run, a failed
run, bad options, unreadable files).
Needs SciPy (python3-scipy).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

from smembench import compare
from smembench import tool
from smembench import reader

Usage = compare.Usage


def run_one(exe, args, path):
    """One run of exe writing path; Usage with the run's last line when it fails."""
    cmd = [exe] + args + ["-o", path, "--quiet"]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace")
    except OSError as e:
        raise Usage(f"cannot run {exe}: {e.strerror}") from None
    if p.returncode not in (0, 1) or not os.path.exists(path):   # 1: some point failed, the file is written
        last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise Usage(f"{os.path.basename(exe)} {' '.join(args)} exited {p.returncode}: {last}")


def rounds_in(d):
    """The rounds of a directory written by ab.py: [(base path, head path)] by round number."""
    out, r = [], 1
    while os.path.exists(os.path.join(d, f"base_r{r}.json")) and os.path.exists(os.path.join(d, f"head_r{r}.json")):
        out.append((os.path.join(d, f"base_r{r}.json"), os.path.join(d, f"head_r{r}.json")))
        r += 1
    if not out:
        raise Usage(f"{d}: no base_r1.json and head_r1.json (a directory written by ab.py)")
    return out


def same_build(meds):
    """(pooled standard deviation of ln medians within each build, its degrees of freedom, the
    largest change between two rounds of one build) of {build: [median per round]}: how far one
    build moves from process to process on this unit."""
    ss, dof, largest = 0.0, 0, 0.0
    for m in meds.values():
        if len(m) < 2:
            continue
        logs = [math.log(x) for x in m]
        mean = sum(logs) / len(logs)
        ss += sum((x - mean) ** 2 for x in logs)
        dof += len(logs) - 1
        largest = max(largest, max(m) / min(m) - 1)
    return (math.sqrt(ss / dof) if dof else 0.0), dof, largest


def history_floor(hist, key):
    """(pooled sd, largest same-unit change) of a point in the --history files: what one build
    moved between processes on one unit there (each unit's runs, and every run's trials); None where
    the history has no two runs of a unit."""
    by_unit = {}
    trials = 0.0
    for doc, bmap in hist:
        r = bmap.get(key)
        if r is None or not reader.timed(r):
            continue
        unit = reader.device_of(doc, r).get("uuid") or "?"
        by_unit.setdefault((unit, doc["tool"].get("git")), []).append(reader.median_ns(r))
        trials = max(trials, reader.trial_range(r) or 0.0)
    sd, dof, largest = same_build(by_unit)
    if not dof and not trials:
        return None
    return sd, max(largest, trials)


def clock_slope(trials_by_build):
    """The slope of ln(time) on ln(SM clock) over a point's trials, fitted within each build (the
    builds' own levels do not bias it): about -1 for a kernel the SM clock paces (time goes as one
    over the clock), about 0 for one that DRAM paces; clamped to [-1.2, 0.2]; 0 with too few trials
    or one clock. trials_by_build: {build: [(median_ns, clock_mhz), ...]}."""
    sxy = sxx = 0.0
    n = 0
    for t in trials_by_build.values():
        pts = [(math.log(c), math.log(m)) for m, c in t if c]
        if len(pts) < 2:
            continue
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        sxy += sum((x - mx) * (y - my) for x, y in pts)
        sxx += sum((x - mx) ** 2 for x, _ in pts)
        n += len(pts)
    if n < 6 or sxx < 1e-8:
        return 0.0
    return min(0.2, max(-1.2, sxy / sxx))


def steady_median(r, slope, ref_clock):
    """A round's median time at the reference clock: each trial's median moved along the point's
    clock slope from the clock it ran at to ref_clock (the SM clock dips by 1-7 % for single trials on
    the H200, and a kernel the clock paces follows it), the median of those; the file's median where
    the trials or their clocks are not recorded."""
    t = [(m, c) for m, _, c in reader.trials(r, clock=True)]
    if not t or not slope or not ref_clock or any(c is None for _, c in t):
        return reader.median_ns(r)
    adj = sorted(m * (ref_clock / c) ** slope for m, c in t)
    k = len(adj)
    return adj[k // 2] if k % 2 else (adj[k // 2 - 1] + adj[k // 2]) / 2


def paired(rounds, opt, hist=None):
    """Rows of the paired decision: dicts with name, kind, verdict, change, rounds, p, band, reason.
    hist: [(doc, {key: record})] of --history files, or None."""
    np, stats = compare.scipy_stats()
    t = opt.threshold / 100
    z = float(stats.norm.ppf(1 - opt.alpha))
    maps = [(compare.by_key(b, "base"), compare.by_key(h, "head")) for b, h in rounds]
    keys = list(maps[0][0]) + [k for k in maps[0][1] if k not in maps[0][0]]
    rows = []
    for key in keys:
        b0, h0 = maps[0][0].get(key), maps[0][1].get(key)
        r0 = b0 if b0 is not None else h0
        row = {"name": reader.point_name(r0), "bench": r0["bench"], "base": b0, "new": h0}
        if h0 is None or b0 is None:
            row.update(kind="missing" if h0 is None else "new",
                       text="in base, absent from head" if h0 is None else "absent from base, in head")
            rows.append(row)
            continue
        sc = compare.status_change(b0, h0)
        if sc is not None:
            row.update(kind="status", lost=sc[0], text=sc[1])
            rows.append(row)
            continue
        both = [(bm.get(key), hm.get(key)) for bm, hm in maps]
        both = [(b, h) for b, h in both if b is not None and h is not None and reader.timed(b) and reader.timed(h)]
        # the SM clock as a measured covariate: each round's median at the rounds' median clock
        by_build = {"base": [], "head": []}
        for b, h in both:
            by_build["base"] += [(m, c) for m, _, c in reader.trials(b, clock=True)]
            by_build["head"] += [(m, c) for m, _, c in reader.trials(h, clock=True)]
        slope = clock_slope(by_build)
        clocks = sorted(c for t in by_build.values() for _, c in t if c)
        ref_clock = clocks[len(clocks) // 2] if clocks else None
        d, meds, levels = [], {"base": [], "head": []}, 0.0
        for b, h in both:
            mb, mh = steady_median(b, slope, ref_clock), steady_median(h, slope, ref_clock)
            d.append(math.log(mh / mb))
            meds["base"].append(mb)
            meds["head"].append(mh)
            levels = max(levels, reader.trial_range(b) or 0.0, reader.trial_range(h) or 0.0)
        if not reader.timed(b0):
            row.update(kind="untimed", text=b0["status"])
            rows.append(row)
            continue
        if len(d) < 2:
            row.update(kind="timed", verdict="uncertain", change=None, p=None, rounds=len(d), noise=None, band=None,
                       reason=f"timed in {len(d)} round{'s' if len(d) != 1 else ''} of {len(maps)} (2 at least)")
            rows.append(row)
            continue
        r = len(d)
        mean = sum(d) / r
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (r - 1))
        # each build's own movement between its processes on this unit: the pooled spread of its
        # rounds (2 (R - 1) degrees of freedom where the paired differences have R - 1) widens the
        # standard error of the change, and holds the levels its trials landed on (each round pools
        # them); the history's movement of one build on one unit (its runs and their trials) is the
        # floor: a change inside what one build does by itself is not the code
        s_proc, dof_proc, largest = same_build(meds)
        se = max(sd / math.sqrt(r), s_proc * math.sqrt(2 / r))
        dof = dof_proc if s_proc * math.sqrt(2 / r) >= sd / math.sqrt(r) else r - 1
        q = float(stats.t.ppf(1 - opt.alpha, max(dof, 1)))
        floor = opt.drift / 100
        if hist:
            hf = history_floor(hist, key)
            if hf is not None:
                floor = max(floor, hf[1], z * math.sqrt(2) * hf[0])
        change = math.exp(mean) - 1
        lo, hi = math.exp(mean - q * se) - 1, math.exp(mean + q * se) - 1
        band = floor + (hi - lo) / 2
        p = (0.0 if mean != 0 else 1.0) if se == 0 else float(stats.t.sf(abs(mean) / se, max(dof, 1)))
        row.update(kind="timed", change=change, p=p, rounds=r, noise=(sd, None), band=band, floor=floor,
                   clock_slope=slope)
        if band > compare.max_band(opt):
            row.update(verdict="uncertain", reason=compare.wide_band(band, opt, levels or None) +
                       f" (rounds of one build {100 * largest:.1f} % apart)")
        elif lo > floor and hi >= t:
            row.update(verdict="slower", reason="")
        elif hi < -floor and lo <= -t:
            row.update(verdict="faster", reason="")
        elif max(abs(lo), abs(hi)) < max(t, floor):
            row.update(verdict="same", reason="" if floor < t else f"band ±{100 * floor:.1f} %")
        else:
            row.update(verdict="uncertain",
                       reason=f"not confirmed: {100 * lo:+.2f} .. {100 * hi:+.2f} % at {r} rounds, "
                              f"one build moves {100 * floor:.2f} %")
        rows.append(row)
    return rows


def undecided(rows, opt):
    """Points that more rounds can decide: uncertain, with a floor (what one build moves by itself)
    inside --max-band, so that only the rounds' own uncertainty keeps them undecided."""
    return [r for r in rows if r["kind"] == "timed" and r["verdict"] == "uncertain" and
            r.get("floor") is not None and r["floor"] <= compare.max_band(opt)]


def report(rounds, docs, opt, hist=None):
    rows = paired(docs, opt, hist)
    count = {}
    for r in rows:
        k = r["verdict"] if r["kind"] == "timed" else ("stopped" if r.get("lost") else
                                                        "started" if r["kind"] == "status" else r["kind"])
        count[k] = count.get(k, 0) + 1
    failing = [f"{count[k]} {k}" for k in ("slower", "missing", "new", "stopped") if count.get(k)]
    if count.get("uncertain") and opt.uncertain == "fail":
        failing.append(f"{count['uncertain']} uncertain (--uncertain fail)")
    rc = 1 if failing else 0
    base, head = docs[0]
    dev = base["device"]
    md = opt.markdown
    out = [("### " if md else "") + f"smembench A/B on {dev.get('name')} ({dev.get('uuid') or 'uuid not recorded'}): "
           f"{len(docs)} rounds, base {base['tool'].get('git')} / head {head['tool'].get('git')}"]
    if any(h["device"].get("uuid") != dev.get("uuid") for _, h in docs) or any(
            b["device"].get("uuid") != dev.get("uuid") for b, _ in docs):
        out.append("warning: the rounds did not all run on one GPU unit")
    out.append(f"change: exp(mean over rounds of ln(head / base median)) - 1; spread: standard deviation of the "
               f"rounds' ln ratios; floor: what one build moved between its own rounds and trials"
               f"{' and in the history' if hist else ''}; threshold {opt.threshold:g} %, widest band "
               f"{opt.max_band:g} %, alpha {opt.alpha:g}; files: "
               f"{', '.join(os.path.basename(p) for pair in rounds for p in pair)}")
    out.append("")
    shown = [r for r in rows if not md or r["kind"] != "timed" or r["verdict"] != "same"]
    table_rows = []
    for r in shown:
        if r["kind"] == "timed":
            v = r["verdict"] + (f" ({r['reason']})" if r["reason"] else "")
            sd = r["noise"][0] if r.get("noise") else None
            table_rows.append((r["name"], compare.us(r["base"]), compare.us(r["new"]), compare.pct(r["change"]),
                               f"{100 * sd:.2f}" if sd is not None else "-", str(r["rounds"]), v))
        else:
            table_rows.append((r["name"], compare.us(r["base"]), compare.us(r["new"]), "-", "-", "-",
                               compare.verdict_text(r)))
    out += compare.table(["point", "base r1 (us)", "head r1 (us)", "change", "spread (%)", "rounds", "verdict"],
                         table_rows, (1, 2, 3, 4, 5), md)
    out.append("")
    out.append(", ".join(f"{count.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain", "missing",
                                                             "new", "stopped", "started")))
    out.append(f"gate: fail (exit 1): {', '.join(failing)}" if rc else "gate: pass (exit 0)")
    return out, rc


def run_rounds(a, rounds, n):
    """n more rounds into a.out, in ABBA order from the rounds so far (round r: base first when r is
    odd), each build a process of its own."""
    tty = sys.stderr.isatty()
    for r in range(len(rounds) + 1, len(rounds) + n + 1):
        pair = (os.path.join(a.out, f"base_r{r}.json"), os.path.join(a.out, f"head_r{r}.json"))
        order = [(a.exes[0], pair[0]), (a.exes[1], pair[1])]
        if r % 2 == 0:
            order.reverse()
        for exe, path in order:
            if tty:
                print(f"\rab: round {r}/{max(a.rounds, r)}: {os.path.basename(path)}", end="", file=sys.stderr,
                      flush=True)
            run_one(exe, a.args, path)
        rounds.append(pair)
    if tty:
        print("", file=sys.stderr)


def load_rounds(rounds, a):
    try:
        docs = [(reader.load(b), reader.load(h)) for b, h in rounds]
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    for b, h in docs:
        found = [(k, t) for k, t in compare.mismatches(b, h, a) if k in ("device", "settings")]
        if found:
            raise Usage(f"the builds ran differently: {found[0][0]} mismatch: {found[0][1]}")
    return docs


def load_history(specs):
    """[(doc, {key: record})] of the --history files, measured ones only."""
    if not specs:
        return None
    out = []
    try:
        for path in compare.history_paths(specs):
            doc = reader.load(path)
            if doc["run"].get("mode") == "measure":
                out.append((doc, {reader.point_key(r): r for r in doc["results"]}))
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    return out


def parse_args(argv):
    if "--" in argv:
        i = argv.index("--")
        mine, args = argv[:i], argv[i + 1:]
    else:
        mine, args = argv, []
    ap = compare.Parser(prog=reader.command("ab.py"),
                        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    reader.add_version(ap)
    ap.add_argument("exes", nargs="*", metavar="EXE", help="the base and the head smembench")
    ap.add_argument("-o", dest="out", metavar="DIR", help="directory for every run's file (created)")
    ap.add_argument("--files", metavar="DIR", help="judge the runs already in DIR")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of base and head (4)")
    ap.add_argument("--threshold", type=float, default=2.0, metavar="PCT", help="smallest change that counts (2)")
    ap.add_argument("--alpha", type=float, default=0.01, help="significance level of the paired t test (0.01)")
    ap.add_argument("--drift", type=float, default=0.5, metavar="PCT",
                    help="least movement of a point between two processes of one build, in percent (0.5)")
    ap.add_argument("--max-rounds", type=int, default=None, metavar="N",
                    help="rounds at most: while points are uncertain for want of rounds (not for a wide band), two "
                         "more rounds (an ABBA pair) run, as Pinpoint adds attempts (default: none added)")
    ap.add_argument("--history", action="append", default=[], metavar="PATH",
                    help="earlier result files (files or directories) of this GPU model: a point's floor is never below "
                         "what one build moved between processes on one unit there")
    compare.add_verdict_options(ap)
    ap.add_argument("--markdown", action="store_true", help="compact Markdown: only what is not the same")
    ap.add_argument("--bisect", nargs=2, metavar=("GOOD", "BAD"),
                    help="build commits of this repository and bisect (git bisect run) with the A/B verdict of the "
                         "points slower from GOOD to BAD: the first slower commit, with its table")
    ap.add_argument("--build", metavar="CMD", default=DEFAULT_BUILD,
                    help="with --bisect, the shell command that builds the commit checked out in $SRC into $BUILD "
                         "(default: a release meson build of smembench, tests off)")
    ap.add_argument("--exe", metavar="PATH", default="smembench",
                    help="with --bisect, the executable's path inside $BUILD (smembench)")
    ap.add_argument("--bisect-step", nargs=3, metavar=("GOOD_EXE", "POINTS", "DIR"), help=argparse.SUPPRESS)
    a = ap.parse_args(mine)
    a.args = args
    compare.check_max_band(a)
    if a.bisect or a.bisect_step:
        if a.files or a.exes:
            raise Usage("--bisect takes two commits, not executables or --files")
        if not args:
            raise Usage("ab.py --bisect needs the smembench arguments after --, e.g. -- --sweep bank")
        if not a.out and a.bisect:
            raise Usage("ab.py --bisect needs -o DIR for the builds and the runs; see ab.py --help")
        if a.max_rounds is None:
            a.max_rounds = a.rounds
        return a
    if not 0 <= a.drift < a.threshold:
        raise Usage(f"invalid value {a.drift:g} for --drift; expected 0 or more and below the threshold {a.threshold:g}")
    if a.max_rounds is None:
        a.max_rounds = a.rounds
    if a.max_rounds < a.rounds or a.max_rounds > 100:
        raise Usage(f"invalid value {a.max_rounds} for --max-rounds; expected --rounds ({a.rounds})..100")
    if not 0 < a.threshold < 1000:
        raise Usage(f"invalid value {a.threshold:g} for --threshold; expected more than 0 and less than 1000")
    if not 0 < a.alpha < 1:
        raise Usage(f"invalid value {a.alpha:g} for --alpha; expected more than 0 and less than 1")
    if a.files:
        if a.exes or args:
            raise Usage("--files judges a directory of earlier runs: it takes no executable and no run arguments")
        return a
    if len(a.exes) != 2:
        raise Usage("ab.py needs two executables, the base and the head (or --files DIR); see ab.py --help")
    if not 2 <= a.rounds <= 100:
        raise Usage(f"invalid value {a.rounds} for --rounds; expected 2..100 (the paired test needs two)")
    if not a.out:
        raise Usage("ab.py needs -o DIR for the runs' files; see ab.py --help")
    if not args:
        raise Usage("ab.py needs the smembench arguments after --, e.g. -- --sweep bank --device 0")
    if any(x in ("-o", "--output") or x.startswith("--output=") for x in args):
        raise Usage("the run arguments take no -o: ab.py names each run's file in DIR")
    for e in a.exes:
        if not (os.path.isfile(e) and os.access(e, os.X_OK)):
            raise Usage(f"{e}: not an executable file")
    return a


DEFAULT_BUILD = ('meson setup "$BUILD" "$SRC" -Dbuildtype=release -Dtests=disabled >"$BUILD.log" 2>&1 && '
                 'ninja -C "$BUILD" smembench >>"$BUILD.log" 2>&1')


def git(*args, cwd=None, check=True):
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and p.returncode:
        raise Usage(f"git {' '.join(args)} failed: {(p.stderr.strip().splitlines() or ['(no message)'])[-1]}")
    return p.stdout.strip()


def build_commit(a, src, sha):
    """Builds the tree at src (commit sha) into a.out/build-SHA; the executable's path."""
    build = os.path.join(os.path.abspath(a.out), f"build-{sha[:12]}")
    exe = os.path.join(build, a.exe)
    if not os.access(exe, os.X_OK):
        # the commit this build is of, recorded in its files (an SMEM_GIT_REV of the caller's, as on a
        # copy of the tree on a GPU host, would name every bisect build after the caller's commit)
        env = dict(os.environ, SRC=os.path.abspath(src), BUILD=build, SMEM_GIT_REV=sha[:7])
        p = subprocess.run(a.build, shell=True, cwd=src, env=env, stdin=subprocess.DEVNULL)
        if p.returncode or not os.access(exe, os.X_OK):
            return None
    return exe


def ab_dir(a, tag):
    d = os.path.join(os.path.abspath(a.out), f"ab-{tag}")
    if os.path.isdir(d):
        shutil.rmtree(d)
    return d


def decide(a, base_exe, head_exe, tag, hist):
    """The A/B of two executables into a.out/ab-TAG against the loaded --history hist: (rows, report
    lines, exit status)."""
    b = argparse.Namespace(**vars(a))
    b.out, b.exes, b.files = ab_dir(a, tag), [base_exe, head_exe], None
    os.makedirs(b.out)
    rounds = []
    run_rounds(b, rounds, a.rounds)
    docs = load_rounds(rounds, b)
    out, rc = report(rounds, docs, b, hist)
    with open(os.path.join(b.out, "report.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    return paired(docs, b, hist), out, rc


def bisect_step(a):
    """One step of git bisect run in the current checkout: build it, A/B it against GOOD's build,
    and judge only the points slower from GOOD to BAD: 1 any of them slower, 0 all of them same,
    125 (skip) otherwise or when the commit does not build."""
    good_exe, points_file, out = a.bisect_step
    a.out = out
    points = set(json.load(open(points_file)))
    sha = git("rev-parse", "HEAD")
    exe = build_commit(a, ".", sha)
    if exe is None:
        print(f"ab: {sha[:12]} does not build: skipped", file=sys.stderr)
        return 125
    rows, _, _ = decide(a, good_exe, exe, sha[:12], load_history(a.history))
    v = [r["verdict"] for r in rows if r["name"] in points and r["kind"] == "timed"]
    status = 1 if "slower" in v else 0 if v and all(x == "same" for x in v) else 125
    print(f"ab: {sha[:12]}: {', '.join(f'{v.count(k)} {k}' for k in ('slower', 'same', 'uncertain', 'faster'))} "
          f"of the {len(points)} points -> exit {status}", file=sys.stderr)
    return status


def bisect(a):
    """--bisect GOOD BAD: the first commit whose A/B against GOOD has a point slower that BAD has."""
    top = git("rev-parse", "--show-toplevel")
    good, bad = git("rev-parse", a.bisect[0] + "^{commit}", cwd=top), git("rev-parse", a.bisect[1] + "^{commit}", cwd=top)
    if subprocess.run(["git", "merge-base", "--is-ancestor", good, bad], cwd=top).returncode:
        raise Usage(f"{a.bisect[0]} is not an ancestor of {a.bisect[1]}; --bisect GOOD BAD needs GOOD before BAD")
    os.makedirs(a.out, exist_ok=True)
    if os.listdir(a.out):
        raise Usage(f"{a.out}: not empty; --bisect needs an empty directory for its builds and runs")
    hist = load_history(a.history)   # a bad --history is refused before anything is built
    tree = os.path.join(os.path.abspath(a.out), "tree")
    git("worktree", "add", "--detach", tree, good, cwd=top)
    try:
        good_exe = build_commit(a, tree, good)
        git("checkout", "-q", "--detach", bad, cwd=tree)
        bad_exe = build_commit(a, tree, bad)
        if good_exe is None or bad_exe is None:
            raise Usage(f"{a.bisect[0] if good_exe is None else a.bisect[1]} does not build (the logs are in {a.out})")
        rows, out, _ = decide(a, good_exe, bad_exe, "good-vs-bad", hist)
        slow = [r["name"] for r in rows if r["kind"] == "timed" and r["verdict"] == "slower"]
        if not slow:
            return ["no point is slower from " + a.bisect[0] + " to " + a.bisect[1] + ": nothing to bisect"] + out, 0
        points = os.path.join(os.path.abspath(a.out), "slower_points.json")
        json.dump(slow, open(points, "w"))
        git("bisect", "start", bad, good, cwd=tree)
        step = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); from smembench.ab import main; "
                "sys.exit(main())", os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                "--bisect-step", good_exe, points, os.path.abspath(a.out), "--rounds", str(a.rounds),
                "--threshold", str(a.threshold), "--alpha", str(a.alpha), "--drift", str(a.drift),
                "--max-band", str(a.max_band), "--build", a.build, "--exe", a.exe]
        step += [x for h in a.history for x in ("--history", os.path.abspath(h))] + ["--", *a.args]
        p = subprocess.run(["git", "bisect", "run", *step], cwd=tree, capture_output=True, text=True)
        first = git("rev-parse", "refs/bisect/bad", cwd=tree, check=False)
        log = git("bisect", "log", cwd=tree, check=False)
        with open(os.path.join(a.out, "bisect.log"), "w") as f:
            f.write(log + "\n" + p.stdout + p.stderr)
        git("bisect", "reset", cwd=tree, check=False)
        if p.returncode or not first:
            raise Usage(f"git bisect run did not name a commit (its log: {os.path.join(a.out, 'bisect.log')})")
        subject = git("log", "-1", "--format=%h %s", first, cwd=top)
        table = os.path.join(a.out, f"ab-{first[:12]}", "report.txt")
        lines = [f"first slower commit: {subject}",
                 f"{len(slow)} points slower from {a.bisect[0]} to {a.bisect[1]}: {', '.join(slow[:8])}"
                 f"{' ...' if len(slow) > 8 else ''}", ""]
        lines += open(table).read().splitlines() if os.path.exists(table) else [f"(no table at {table})"]
        return lines, 1
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=top, capture_output=True)


def run(argv):
    a = parse_args(argv)
    if a.bisect_step:
        sys.exit(bisect_step(a))
    if a.bisect:
        return bisect(a)
    # a bad --history is refused before any round runs, and read once
    hist = load_history(a.history)
    if a.files:
        rounds = rounds_in(a.files)
    else:
        if os.path.exists(a.out) and not os.path.isdir(a.out):
            raise Usage(f"{a.out}: exists and is not a directory")
        os.makedirs(a.out, exist_ok=True)
        if os.path.exists(os.path.join(a.out, "base_r1.json")) or os.path.exists(os.path.join(a.out, "head_r1.json")):
            raise Usage(f"{a.out}: already holds an A/B run (base_r1.json); choose an empty directory")
        rounds = []
        run_rounds(a, rounds, a.rounds)
    try:
        compare.scipy_stats()
    except Usage as e:      # the runs are kept: judge them where SciPy is
        raise Usage(f"{e}; the runs are in {a.files or a.out}: judge them there with ab.py --files") from None
    docs = load_rounds(rounds, a)
    # more rounds while points are uncertain for want of them, up to --max-rounds
    while not a.files and len(rounds) + 2 <= a.max_rounds and undecided(paired(docs, a, hist), a):
        run_rounds(a, rounds, 2)
        docs = load_rounds(rounds, a)
    out, rc = report(rounds, docs, a, hist)
    # a pull-request comment: within GitHub's limit, the heading and the gate's line kept
    return (compare.cap_markdown(out) if a.markdown else out), rc


def main(argv=None):
    # an interrupted A/B keeps the runs that finished in DIR
    return tool.run_tool(lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the A/B"),
                                (Usage,))
