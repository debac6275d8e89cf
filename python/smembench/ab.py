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

THE PAIRED RULE. For each point timed in both builds in every round, d_r = ln(head median / base
median) in round r. The change is exp(mean d) - 1. With R rounds, the one-sided t test of mean d
(R - 1 degrees of freedom) says whether the rounds agree on a change:
  slower, faster  |change| >= --threshold and the t test gives p < --alpha
  same            |change| < --threshold and the rounds bound the change inside it: |mean d| plus
                  the t quantile times the standard error of mean d is below ln(1 + threshold)
  uncertain       neither (the rounds disagree, or fewer than 2 rounds timed the point)
A point that only one build has, or whose status differs, is reported and fails the gate as in
compare.py. Exit status: 0 no point slower, missing, new or stopped; 1 any of these; 2 unusable
input (an executable that does not run, a failed run, bad options, unreadable files).
Needs SciPy (python3-scipy).
"""
import argparse
import math
import os
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


def paired(rounds, opt):
    """Rows of the paired decision: dicts with name, kind, verdict, change, rounds, p, reason."""
    np, stats = compare.scipy_stats()
    t = opt.threshold / 100
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
        d = []
        for bm, hm in maps:
            b, h = bm.get(key), hm.get(key)
            if b is not None and h is not None and reader.timed(b) and reader.timed(h):
                d.append(math.log(reader.median_ns(h) / reader.median_ns(b)))
        if not reader.timed(b0):
            row.update(kind="untimed", text=b0["status"])
        elif len(d) < 2:
            row.update(kind="timed", verdict="uncertain", change=None, p=None, rounds=len(d), noise=None,
                       reason=f"timed in {len(d)} round{'s' if len(d) != 1 else ''} of {len(maps)} (2 at least)")
        else:
            r = len(d)
            mean = sum(d) / r
            sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (r - 1))
            se = sd / math.sqrt(r)
            change = math.exp(mean) - 1
            q = float(stats.t.ppf(1 - opt.alpha, r - 1))
            if se == 0:
                p = 0.0 if mean != 0 else 1.0
            else:
                tv = abs(mean) / se
                p = float(stats.t.sf(tv, r - 1))
            row.update(kind="timed", change=change, p=p, rounds=r, noise=(sd, None))
            if abs(change) >= t and p < opt.alpha:
                row.update(verdict="slower" if change > 0 else "faster", reason="")
            elif abs(change) < t and abs(mean) + q * se < math.log(1 + t):
                row.update(verdict="same", reason="")
            else:
                row.update(verdict="uncertain",
                           reason=f"rounds disagree: {100 * (math.exp(q * se) - 1):.2f} % at {r} rounds"
                           if abs(change) < t else f"not confirmed (p {p:.2g})")
        rows.append(row)
    return rows


def report(rounds, docs, opt):
    rows = paired(docs, opt)
    count = {}
    for r in rows:
        k = r["verdict"] if r["kind"] == "timed" else ("stopped" if r.get("lost") else
                                                        "started" if r["kind"] == "status" else r["kind"])
        count[k] = count.get(k, 0) + 1
    failing = [f"{count[k]} {k}" for k in ("slower", "missing", "new", "stopped") if count.get(k)]
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
               f"rounds' ln ratios; threshold {opt.threshold:g} %, alpha {opt.alpha:g}; files: "
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
    ap.add_argument("--markdown", action="store_true", help="compact Markdown: only what is not the same")
    a = ap.parse_args(mine)
    a.args = args
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


def run(argv):
    a = parse_args(argv)
    if a.files:
        rounds = rounds_in(a.files)
    else:
        if os.path.exists(a.out) and not os.path.isdir(a.out):
            raise Usage(f"{a.out}: exists and is not a directory")
        os.makedirs(a.out, exist_ok=True)
        if os.path.exists(os.path.join(a.out, "base_r1.json")) or os.path.exists(os.path.join(a.out, "head_r1.json")):
            raise Usage(f"{a.out}: already holds an A/B run (base_r1.json); choose an empty directory")
        rounds = []
        tty = sys.stderr.isatty()
        for r in range(1, a.rounds + 1):
            pair = (os.path.join(a.out, f"base_r{r}.json"), os.path.join(a.out, f"head_r{r}.json"))
            order = [(a.exes[0], pair[0]), (a.exes[1], pair[1])]
            if r % 2 == 0:
                order.reverse()
            for exe, path in order:
                if tty:
                    print(f"\rab: round {r}/{a.rounds}: {os.path.basename(path)}", end="", file=sys.stderr, flush=True)
                run_one(exe, a.args, path)
            rounds.append(pair)
        if tty:
            print("", file=sys.stderr)
    try:
        compare.scipy_stats()
    except Usage as e:      # the runs are kept: judge them where SciPy is
        raise Usage(f"{e}; the runs are in {a.files or a.out}: judge them there with ab.py --files") from None
    try:
        docs = [(reader.load(b), reader.load(h)) for b, h in rounds]
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    for b, h in docs:
        found = [(k, t) for k, t in compare.mismatches(b, h, a) if k in ("device", "settings")]
        if found:
            raise Usage(f"the builds ran differently: {found[0][0]} mismatch: {found[0][1]}")
    out, rc = report(rounds, docs, a)
    # a pull-request comment: within GitHub's limit, the heading and the gate's line kept
    return (compare.cap_markdown(out) if a.markdown else out), rc


def main(argv=None):
    # an interrupted A/B keeps the runs that finished in DIR
    return tool.run_tool(lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the A/B"),
                                (Usage,))
