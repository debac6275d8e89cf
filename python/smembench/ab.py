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

WHAT IS JUDGED. Only rounds this A/B ran, on a GPU. The executables run as given, by their absolute
paths (never one found on PATH), each run in a process group of its own and bounded by --run-timeout
(1800 s; 0: none): a run still going then is ended with its whole group, by its pid (SIGTERM, SIGKILL 3 s
later), and the A/B stops with the round reported as timed out (exit 2); a signal that ends ab.py ends
the running build's group too. ab.py holds a lock on DIR (.ab.lock, flock) while it runs: a second
ab.py on DIR is refused, and so is --files while the rounds are being written; the lock file is removed
when ab.py ends (passed, failed or interrupted); a round's file name already taken stops the run.
After each whole round DIR/ab-manifest.json records the run's id, the executables, the arguments,
and each round file with its SHA-256; --files judges only the rounds the
manifest names, byte for byte, and refuses a DIR without one, a round file it does not name or whose
bytes differ, a half round, fewer than 2 rounds, and a round without a timed point (a predict-mode
file, as compare.py refuses one: the driver falls back to predict mode where no GPU is usable). Each
round is read once and only what the rule reads of it is kept (no raw samples). The A/B directories
committed under results/ from before manifests carry one written when they were adopted (run id
"adopted:..."), which says so.

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
run, a run past --run-timeout, bad options, a manifest or round that is not a regular file (a FIFO),
unreadable files, a round without a timed point, rounds this A/B did not run or that cannot decide,
a directory another ab.py holds). Rounds that cannot decide are refused rather than judged all
uncertain: --uncertain pass lets an undecided point through a gate that decided the
others, never a gate that decided nothing.
Needs SciPy (python3-scipy).
"""
import argparse
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from smembench import cli
from smembench import gate
from smembench import gate_format
from smembench import history
from smembench import tables
from smembench import tool
from smembench import reader
from smembench.ab_rule import paired, undecided

Usage = cli.Usage


MANIFEST = "ab-manifest.json"
MANIFEST_SCHEMA = "smembench-ab/1"
LOCK = ".ab.lock"
ROUND_FILE = re.compile(r"^(base|head)_r([1-9][0-9]*)\.json$")
# the driver's whole stderr goes into the one line a failure says, up to this much of it
STDERR_KEPT = 4000


def driver_said(stderr):
    """The driver's stderr as one line: every line of it, joined with " / " (its message and its hint
    both), cut with a count past STDERR_KEPT characters."""
    text = " / ".join(line.strip() for line in stderr.splitlines() if line.strip())
    if len(text) > STDERR_KEPT:
        text = text[:STDERR_KEPT] + f" ... ({len(text) - STDERR_KEPT} more characters)"
    return text


def how_it_ended(rc):
    if rc < 0:
        try:
            return f"killed by signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exited {rc}"


# a run still going --run-timeout seconds after it started is ended: SIGTERM to its process group (the
# driver and anything it started, cuobjdump), and SIGKILL to the group where it is still there after
# this many seconds more
KILL_GRACE_S = 3.0
# --run-timeout's default: a --sweep all run took 40 s to 5 minutes on the H200 (results/gate/)
RUN_TIMEOUT_S = 1800


def end_group(p):
    """Ends the process p and its whole process group (its own: start_new_session), by its pid:
    SIGTERM, then SIGKILL after KILL_GRACE_S; waits for p. The signal that ended it, by name."""
    def signal_group(signo):
        try:
            os.killpg(p.pid, signo)
        except ProcessLookupError:
            pass
    signal_group(signal.SIGTERM)
    try:
        p.wait(timeout=KILL_GRACE_S)
        how = "SIGTERM"
    except subprocess.TimeoutExpired:
        how = "SIGKILL"
    signal_group(signal.SIGKILL)        # what of the group outlived the driver, or the driver itself
    p.wait()
    return how


def run_one(exe, args, path, timeout=None):
    """One run of exe writing path (a name not taken), in a process group of its own, given timeout
    seconds at most (None: no bound); its stderr. Usage, with all of the run's stderr, when it fails,
    writes no file or is still running at timeout (then ended with its group, end_group). A signal
    that ends ab.py meanwhile ends the run's group first."""
    if os.path.lexists(path):
        raise Usage(f"{path}: already exists: another process writes into {os.path.dirname(path)}; the A/B stops "
                    "(its manifest names the rounds it finished)")
    cmd = [exe] + args + ["-o", path, "--quiet"]
    what = f"{exe} {' '.join(args)}"
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, errors="replace", start_new_session=True)
    except OSError as e:
        raise Usage(f"cannot run {exe}: {e.strerror}") from None
    try:
        try:
            _, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            how = end_group(p)
            try:        # what the run said before it was ended (communicate keeps what it read)
                said = driver_said(p.communicate(timeout=KILL_GRACE_S)[1] or "")
            except subprocess.TimeoutExpired:      # a process outside its group holds the pipe
                said = ""
            raise Usage(f"{os.path.basename(path)}: timed out: {what} was still running after --run-timeout "
                        f"{timeout:g} s: ended with its process group (pid {p.pid}, {how}); the A/B stops (its "
                        "manifest names the rounds it finished)" + (f"; the run said: {said}" if said else "")) \
                from None
    except BaseException:
        if p.returncode is None:         # a signal to ab.py, or the timeout's own failure
            end_group(p)
        raise
    finally:
        if p.stderr:
            p.stderr.close()
    said = driver_said(stderr)
    if p.returncode not in (0, 1):             # 1: some point failed, the file is written
        raise Usage(f"{what} {how_it_ended(p.returncode)}: {said or '(nothing on stderr)'}")
    if not os.path.exists(path):
        raise Usage(f"{what} exited {p.returncode} but wrote no file ({path})" + (f": {said}" if said else ""))
    return said


def sha256_of(path):
    h = hashlib.sha256()
    with reader.open_regular(path, "an A/B round file", encoding=None) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def light(doc):
    """The document without its raw samples, each timed point keeping what the paired rule and the
    table read: its statistics, its trials (median, spread, clock) and its steady median at the top
    SM clock (reader.steady_median, under time_ns.steady_median_ns). A round of 200 MB then costs
    kilobytes once read: the peak is one round being parsed (four pairs of 200 MB: 5.1 GB -> 1.1 GB)."""
    for r in doc["results"]:
        t = r.get("time_ns")
        if isinstance(t, dict) and "steady_median_ns" not in t:
            steady = reader.steady_median(r) if reader.timed(r) else None
            r["time_ns"] = {"stats": t.get("stats"), "raw": [], "steady_median_ns": steady}
    return doc


def steady_of(r):
    """A point's steady median (ns): the one light() kept, else reader.steady_median of the record."""
    s = r["time_ns"].get("steady_median_ns")
    return s if s is not None else reader.steady_median(r)


def us(r):
    return f"{steady_of(r) / 1e3:.2f}" if r is not None and reader.timed(r) else "-"


def check_timed(doc, path, said=""):
    """compare.py's refusal of a file without timed points (a predict-mode file): the A/B compares
    times, and a round that timed nothing would make every point absent from the rule."""
    mode = doc["run"].get("mode")
    if mode != "measure" or not reader.timed_points(doc):
        raise Usage(f"{path}: no timed point (a {mode}-mode file); the A/B compares times measured on a GPU"
                    + (f"; the run said: {said}" if said else ""))


def read_round(path, sha=None, said=""):
    """(light document, SHA-256) of a round file, read once: its bytes hashed as read and checked
    against sha where given, then parsed and checked, its raw samples dropped."""
    try:
        with reader.open_regular(path, "an A/B round file", encoding=None) as f:
            data = f.read()
    except OSError as e:
        raise Usage(f"{path}: {e.strerror or e}") from None
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    except MemoryError:
        raise Usage(f"{path}: too large to read into memory") from None
    got = hashlib.sha256(data).hexdigest()
    if sha is not None and got != sha:
        raise Usage(f"{path}: not the file this A/B run wrote (its SHA-256 is not the one {MANIFEST} records): "
                    "changed or replaced since; --files judges only the rounds ab.py ran itself")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Usage(f"{path}: not text") from None
    del data
    try:
        doc = reader.parse(text, path)
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    del text
    check_timed(doc, path, said)
    return light(doc), got


def new_run_id():
    return f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}-{os.urandom(4).hex()}"


def write_manifest(d, m):
    """DIR/ab-manifest.json: the run's id, executables, arguments and each whole round's files with
    their SHA-256 (written whole, by rename)."""
    tool.write_text(os.path.join(d, MANIFEST), json.dumps(m, indent=1) + "\n")


def read_manifest(d):
    """The manifest of an A/B directory, checked; Usage saying what is wrong and what would be right."""
    path = os.path.join(d, MANIFEST)
    try:
        with reader.open_regular(path, "the A/B manifest ab.py wrote") as f:
            m = json.load(f)
    except reader.ResultError as e:      # a FIFO (opened without waiting), a folder, a device
        raise Usage(f"{e}; --files needs the one ab.py wrote") from None
    except FileNotFoundError:
        raise Usage(f"{d}: no {MANIFEST}: these rounds were not run by ab.py (it records its run id and each "
                    f"round's SHA-256 there); run the builds with ab.py BASE HEAD -o DIR -- ARGS") from None
    except (OSError, ValueError) as e:
        raise Usage(f"{path}: not an A/B manifest ({getattr(e, 'strerror', None) or e}); "
                    "--files needs the one ab.py wrote") from None
    files = m.get("files") if isinstance(m, dict) else None
    if not (isinstance(m, dict) and m.get("schema") == MANIFEST_SCHEMA and isinstance(m.get("run_id"), str)
            and m["run_id"] and isinstance(files, dict)
            and all(isinstance(k, str) and ROUND_FILE.match(k) and isinstance(v, str)
                    and re.fullmatch("[0-9a-f]{64}", v) for k, v in files.items())):
        raise Usage(f"{path}: not an A/B manifest (schema {MANIFEST_SCHEMA}, a run_id and files by name with "
                    "their SHA-256); --files needs the one ab.py wrote")
    return m


def rounds_in(d):
    """The rounds of a directory written by ab.py, as its manifest names them: [(base path, head
    path)] by round number. Usage for a directory without them, a round file the manifest does not
    name or that is missing, a half round, or fewer than 2 rounds."""
    if not os.path.isdir(d):
        raise Usage(f"{d}: {'not a directory' if os.path.exists(d) else 'no such directory'}; --files takes the "
                    "directory ab.py -o wrote")
    try:
        present = sorted(f for f in os.listdir(d) if ROUND_FILE.match(f))
    except OSError as e:
        raise Usage(f"{d}: {e.strerror}") from None
    if not present and not os.path.lexists(os.path.join(d, MANIFEST)):
        raise Usage(f"{d}: no base_r1.json and head_r1.json (a directory written by ab.py)")
    m = read_manifest(d)
    named = m["files"]
    for f in present:
        if f not in named:
            raise Usage(f"{os.path.join(d, f)}: not a round of the A/B run {m['run_id']} ({MANIFEST} does not name "
                        "it): a round the run did not finish, or a file from elsewhere; move it out of the directory "
                        "to judge the rounds the manifest names")
    n = max((int(ROUND_FILE.match(f).group(2)) for f in named), default=0)
    out = []
    for r in range(1, n + 1):
        pair = (f"base_r{r}.json", f"head_r{r}.json")
        for f in pair:
            if f not in named:
                raise Usage(f"{d}: round {r} is half there ({MANIFEST} names {pair[0] if f == pair[1] else pair[1]} "
                            f"without {f}); a round is a base and a head run")
            if not os.path.exists(os.path.join(d, f)):
                raise Usage(f"{os.path.join(d, f)}: missing ({MANIFEST} of the A/B run {m['run_id']} names it); "
                            "put it back, or judge a directory whose rounds are whole")
        out.append(tuple(os.path.join(d, f) for f in pair))
    if len(out) < 2:
        raise Usage(f"{d}: {len(out)} round{'s' if len(out) != 1 else ''} (the A/B run {m['run_id']}); the paired rule "
                    "needs 2 at least and never passes on rounds that cannot decide: run ab.py with --rounds 2 or more")
    return out


def lock_dir(d, exclusive):
    """flock on DIR/.ab.lock, not waiting: exclusive while ab.py writes rounds, shared while --files
    reads them. Returns the open file (the lock lasts as long as it); None where --files finds no lock
    file (no ab.py ever wrote there) or cannot make one. Usage when another ab.py holds it."""
    path = os.path.join(d, LOCK)
    for _ in range(100):
        f = _lock_once(d, path, exclusive)
        if f is None or not exclusive:
            return f
        # the file locked must still be the one named .ab.lock: the ab.py that held it unlinks it when it
        # ends, and a lock on the unlinked file would keep no other ab.py out
        try:
            same = os.path.samestat(os.fstat(f.fileno()), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return f
        f.close()
    raise Usage(f"cannot lock {d} ({LOCK}): the lock file keeps being replaced; is another ab.py starting there?")


def unlock_dir(a):
    """Ends this ab.py's lock on its directory (a.lock, from lock_dir exclusive): the lock file is
    unlinked while still locked, then closed, so that no .ab.lock stays behind, whether the A/B
    passed, failed or was interrupted."""
    f = getattr(a, "lock", None)
    a.lock = None
    if f is None or f.closed:
        return
    try:
        if getattr(f, "smem_exclusive", False):
            path = os.path.join(f.smem_dir, LOCK)
            try:
                if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                    os.unlink(path)
            except OSError:
                pass
    finally:
        f.close()


def _lock_once(d, path, exclusive):
    try:
        fd = os.open(path, (os.O_RDWR | os.O_CREAT if exclusive else os.O_RDONLY) | os.O_CLOEXEC, 0o666)
    except OSError as e:
        if not exclusive:
            return None
        raise Usage(f"cannot lock {d} ({LOCK}): {e.strerror}") from None
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError as e:
        holder = ""
        try:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            pass
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise Usage(f"cannot lock {d} ({LOCK}): {e.strerror}") from None
        who = f"ab.py (pid {holder})" if holder.isdigit() else "ab.py"
        raise Usage(f"{d}: another {who} is writing its rounds there; " +
                    ("wait for it to end or choose another -o DIR" if exclusive else "judge them when it has ended"))
    if exclusive:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    f = os.fdopen(fd, "rb", buffering=0)
    f.smem_exclusive, f.smem_dir = exclusive, d
    return f


def report(rounds, docs, opt, hist=None, run_id=None):
    if len(docs) < 2:     # what --files refuses first: one round decides nothing, and passes nothing
        raise Usage(f"{len(docs)} round{'s' if len(docs) != 1 else ''}; the paired rule needs 2 at least")
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
           f"{len(docs)} rounds, base {base['tool'].get('git')} / head {head['tool'].get('git')}"
           + (f", run {run_id}" if run_id else "")]
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
            table_rows.append((r["name"], us(r["base"]), us(r["new"]), tables.pct(r["change"]),
                               f"{100 * sd:.2f}" if sd is not None else "-", str(r["rounds"]), v))
        else:
            table_rows.append((r["name"], us(r["base"]), us(r["new"]), "-", "-", "-",
                               gate_format.verdict_text(r)))
    out += tables.table(["point", "base r1 (us)", "head r1 (us)", "change", "spread (%)", "rounds", "verdict"],
                         table_rows, (1, 2, 3, 4, 5), md)
    out.append("")
    out.append(", ".join(f"{count.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain", "missing",
                                                             "new", "stopped", "started")))
    out.append(f"gate: fail (exit 1): {', '.join(failing)}" if rc else "gate: pass (exit 0)")
    return out, rc


def begin(a):
    """Makes a.out ready for this A/B's rounds: created where it is not, locked (a.lock), refused where
    it holds an earlier A/B, and given the manifest of this run (a.manifest, no round yet)."""
    d = a.out
    if os.path.lexists(d) and not os.path.isdir(d):
        raise Usage(f"{d}: exists and is not a directory" + (" (a symbolic link to nothing)" if os.path.islink(d)
                                                             and not os.path.exists(d) else "")
                    + "; -o takes a directory for the rounds")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise Usage(f"cannot create {d}: {e.strerror}") from None
    # the lock first where its file is there (an ab.py writing here is named as such), else the earlier
    # rounds are refused before the lock file is made (their directory stays as it was); and again once
    # the lock is held (another ab.py may have written in between)
    def taken():
        t = sorted(f for f in os.listdir(d) if ROUND_FILE.match(f) or f == MANIFEST)
        if t:
            raise Usage(f"{d}: already holds an A/B run ({t[0]}); choose an empty directory")
    if not os.path.exists(os.path.join(d, LOCK)):
        taken()
    a.lock = lock_dir(d, exclusive=True)
    taken()
    a.manifest = {"schema": MANIFEST_SCHEMA, "run_id": new_run_id(),
                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "base": a.exes[0], "head": a.exes[1], "args": a.args, "files": {}}
    write_manifest(d, a.manifest)


def check_pair(b, h, a):
    found = [(k, t) for k, t in gate.mismatches(b, h, a) if k in ("device", "settings")]
    if found:
        raise Usage(f"the builds ran differently: {found[0][0]} mismatch: {found[0][1]}")


def run_rounds(a, rounds, docs, n):
    """n more rounds into a.out, in ABBA order from the rounds so far (round r: base first when r is
    odd), each build a process of its own; each file read (docs, light) and checked as it is written,
    and the manifest rewritten after each whole round."""
    tty = sys.stderr.isatty()
    for r in range(len(rounds) + 1, len(rounds) + n + 1):
        pair = (os.path.join(a.out, f"base_r{r}.json"), os.path.join(a.out, f"head_r{r}.json"))
        order = [(a.exes[0], pair[0]), (a.exes[1], pair[1])]
        if r % 2 == 0:
            order.reverse()
        got = {}
        for exe, path in order:
            if tty:
                print(f"\rab: round {r}/{max(a.rounds, r)}: {os.path.basename(path)}", end="", file=sys.stderr,
                      flush=True)
            said = run_one(exe, a.args, path, a.run_timeout or None)
            got[path] = read_round(path, said=said)
        (bdoc, bsha), (hdoc, hsha) = got[pair[0]], got[pair[1]]
        check_pair(bdoc, hdoc, a)
        rounds.append(pair)
        docs.append((bdoc, hdoc))
        a.manifest["files"].update({os.path.basename(pair[0]): bsha, os.path.basename(pair[1]): hsha})
        write_manifest(a.out, a.manifest)
    if tty:
        print("", file=sys.stderr)


def load_rounds(rounds, a):
    """The rounds of --files, each read once (light) and checked against the manifest's SHA-256."""
    files = read_manifest(os.path.dirname(rounds[0][0]) or ".")["files"]
    docs = []
    for b, h in rounds:
        pair = tuple(read_round(p, files[os.path.basename(p)])[0] for p in (b, h))
        check_pair(*pair, a)
        docs.append(pair)
    return docs


def load_history(specs):
    """[(doc, {key: record})] of the --history files, measured ones only."""
    if not specs:
        return None
    out = []
    try:
        for path in history.history_paths(specs):
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
    ap = cli.parser("ab.py", __doc__)
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
    ap.add_argument("--run-timeout", type=float, default=RUN_TIMEOUT_S, metavar="SEC",
                    help=f"seconds one run of a build may take ({RUN_TIMEOUT_S:g}; 0: no bound): a run still going "
                         "then is ended with its process group, the round reported as timed out, exit 2")
    ap.add_argument("--history", action="append", default=[], metavar="PATH",
                    help="earlier result files (files or directories) of this GPU model: a point's floor is never below "
                         "what one build moved between processes on one unit there")
    gate.add_verdict_options(ap)
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
    gate.check_max_band(a)
    if not (0 <= a.run_timeout <= 7 * 86400) or a.run_timeout != a.run_timeout:
        raise Usage(f"invalid value {a.run_timeout:g} for --run-timeout; expected 0 (no bound) or seconds up to "
                    f"{7 * 86400} (a week)")
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
    # run exactly these files: a name without a slash would be looked up on PATH by the exec
    a.exes = [os.path.abspath(e) for e in a.exes]
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
    begin(b)
    rounds, docs = [], []
    try:
        run_rounds(b, rounds, docs, a.rounds)
    finally:
        unlock_dir(b)
    out, rc = report(rounds, docs, b, hist, b.manifest["run_id"])
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
    try:
        tool.output_dir(a.out, "the bisect's builds and runs")
    except tool.OutputError as e:
        raise Usage(str(e)) from None
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
                "--max-band", str(a.max_band), "--run-timeout", str(a.run_timeout), "--build", a.build, "--exe", a.exe]
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
    try:
        return _run(a)
    finally:          # passed, failed or interrupted: no .ab.lock left (a --files lock is only closed)
        unlock_dir(a)


def _run(a):
    if a.bisect_step:
        sys.exit(bisect_step(a))
    if a.bisect:
        return bisect(a)
    # a bad --history is refused before any round runs, and read once
    hist = load_history(a.history)
    if a.files:
        # not while an ab.py writes there (a shared lock; none where no ab.py ever wrote)
        a.lock = lock_dir(a.files, exclusive=False) if os.path.isdir(a.files) else None
        rounds = rounds_in(a.files)
        run_id = read_manifest(a.files)["run_id"]
        try:
            gate.scipy_stats()
        except Usage as e:
            raise Usage(f"{e}; the runs are in {a.files}: judge them there with ab.py --files") from None
        docs = load_rounds(rounds, a)
    else:
        begin(a)
        run_id = a.manifest["run_id"]
        rounds, docs = [], []
        run_rounds(a, rounds, docs, a.rounds)
        try:
            gate.scipy_stats()
        except Usage as e:      # the runs are kept: judge them where SciPy is
            raise Usage(f"{e}; the runs are in {a.out}: judge them there with ab.py --files") from None
        # more rounds while points are uncertain for want of them, up to --max-rounds
        while len(rounds) + 2 <= a.max_rounds and undecided(paired(docs, a, hist), a):
            run_rounds(a, rounds, docs, 2)
    out, rc = report(rounds, docs, a, hist, run_id)
    # a pull-request comment: within GitHub's limit, the heading and the gate's line kept
    return (tables.cap_markdown(out) if a.markdown else out), rc


def main(argv=None):
    # an interrupted A/B keeps the runs that finished in DIR
    return tool.run_tool(lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the A/B"),
                                (Usage,))
