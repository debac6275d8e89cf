"""Compares smembench result files: the CI gate, GPU generations side by side, and a file beside
the published figures of its generation.

  compare.py BASE.json NEW.json [NEW2.json ...] [--threshold PCT] [--drift PCT] [--alpha A]
                                                [--allow KIND,...] [--markdown]
  compare.py --history DIR_OR_FILE [--history ...] [--window N] NEW.json [NEW2.json ...] [options]
  compare.py A.json B.json --across-devices [--markdown]
  compare.py FILE.json --published [--markdown]

THE GATE (the default). Points are matched by benchmark, parameters and, in several-device files,
the device's position; each NEW file is compared with BASE. A point's change is its new median
time over its base median time, minus 1. What the two runs themselves say about the point decides
how large a change it can tell from chance:
  noise s   the point's robust spread in each file, 1.4826 x MAD / median of its raw samples (the
            file's time_ns.stats.robust_spread where it has one; the stopping rule of the
            measurement uses the same definition); s is the larger of the two files'
  drift d   max(--drift, --drift-ns / median, 3 s): how far a point may move between two
            separate runs of one build although nothing changed. Two full bank+bandwidth runs on an H200 moved by up to 1.1 %
            on points of 0.03-0.5 % noise; in quick runs short kernels moved by about their own
            noise or more (uninit 12.5 % at 13.9 % noise, the 64 MiB copy 5.6 % at 4.5 %); two
            batched --sweep all runs moved the 13 us uninit kernels by 410-440 ns (3 %) at
            0.1-0.4 % noise: a fixed part per launch, hence --drift-ns
  error e   1.2533 x sqrt(s_base^2 / n_base + s_new^2 / n_new): the standard error of the
            difference of two medians of n_base and n_new samples
  z         the one-sided normal quantile of --alpha (2.33 at 0.01)
  declared  the benchmark's measured variation (the result record's between_run, from its descriptor
            in bench/bench.h; NEW's, else BASE's): run_pct when both files ran on one unit (same
            uuid), unit_pct on another unit of the same recorded GPC layout, layout_pct (the cluster
            benchmarks) on a unit whose layout differs or is unknown. It is a floor of the drift, and
            the point's threshold widens to declared + z e: a change inside is the unit or the run,
            not the code ("same (band ±X % between units)"). Files without it: --drift alone
Each point is then one of:
  slower, faster  |change| >= --threshold, and the raw samples confirm a change beyond the drift:
                  a one-sided Mann-Whitney U test (SciPy; exact for small samples without ties) of the
                  new samples against the base samples moved by d has p < --alpha
  same            |change| < --threshold, and the point could have seen a change of the threshold:
                  d + z e <= --threshold
  uncertain       neither, with the reason: "noise X % > Y %" when the point's noise is above the
                  largest noise Y at which its sample counts judge a change of the threshold,
                  "too short: N ns of run-to-run drift is X % of T us" when --drift-ns alone is
                  past the threshold, or
                  "not confirmed (p P)" when the samples do not bear the change out, or
                  "every sample throttled" (time_ns.throttled.used: the SM clock was low
                  throughout), or "band ±X % > Y %" when what widened the point's band (its
                  declared variation, or the range of its trials' medians in either file: the
                  levels a fresh setup landed on) is past --max-band (5 %): a band that wide says
                  nothing, and calling the point same would hide a regression. Uncertain points
                  are listed; they do not fail the gate unless --uncertain fail
Nothing passes by being absent. Each of these is reported and fails the gate unless --allow names
its kind:
  missing   a point of BASE that NEW does not have
  new       a point that only NEW has
  status    a point that stopped running: ok in BASE and failed, invalid, skipped or without a
            timing in NEW, verified in BASE and not in NEW, or newly failed or invalid (a point
            that started running is reported and does not fail)
  device    another GPU: name, compute capability, SM count, shared-memory sizes, or a model
            (--predict) against a real device; another number of devices
  driver    another driver or CUDA runtime version, or NVIDIA driver release string (where both
            files recorded it: device.driver_release)
  clock     another rated SM clock, or measured SM clocks further apart than --threshold
  settings  another run.settings: cold, quick, seed, no_optin, min/max samples, max noise,
            timeout
Another unit of the same model (device.uuid) and its GPC layout (device.gpc.layout) are said in a
line and do not fail the gate: they choose the declared variation.
Output: a header with both files' device, commit, date, host and settings; a line per point
(median time per launch in microseconds, change in %, noise in %, verdict); the missing, new,
status and mismatch findings; the geometric mean of the change per benchmark and overall.
--markdown writes a compact pull-request comment: the header, only what changed (slower, faster,
missing, new, status, mismatches), the uncertain points folded away, and the summary.
It is capped at 60,000 characters (GitHub takes 65,536): every heading, verdict and summary stays,
the smallest tables whole, and the rows of a table that do not fit are folded into a line saying
how many were left out.

HISTORY (--history). Earlier result files (or directories of them, by the rules of smembench.inputs:
each file once, what is no result file skipped with one line) of the same GPU model, driver and
settings judge each positional NEW file; others are left out, each with a line (none left: exit 2).
--window N takes the newest N of them by their recorded date (run.started): each file's header (the
fields before its points) is read to order and sift them, and only the N taken are read whole, so
files older than the window are never read past their header ("N older files not read").
Each point is judged against the median of its history (the newest --window files; 0: all): with
three or more runs of NEW's own unit there, those alone (declared run_pct), else all of them (the
unit or layout variation as the floor); but where the history's units sit on levels further apart
than --threshold (each unit's median of its runs), fewer than three runs of NEW's unit cannot say
which level is NEW's: the point is uncertain, never same and never slower. The band is a one-sided Student's t prediction bound of the
history's spread at --alpha: t(k - 1) x spread x sqrt(1 + 1/k) over k medians, the spread 1.4826
MAD / median (below 8 files never less than the sample standard deviation / median), never under
the declared variation, the widest range of trial medians in any of the files or --drift, plus z
times the new median's standard error; past --max-band, uncertain. Past the band
(and the threshold): slower or faster; inside: same. Under three files the newest is the base, as
above. Missing, new and stopped points are judged against the newest record of each point.

GENERATIONS (--across-devices). Two files of different GPUs, on purpose: compares what is
comparable across hardware instead of times: bytes per clock per SM, cycles, blocks per SM
(measured, else API, else predicted; predict-mode files work), % of each device's own ceiling,
% of cuBLAS or of the copy, slowdowns and conflict passes. Says which side is ahead at each point
and by how much (within --threshold: even), the geometric mean per benchmark and figure, and the
published figures of each generation where the files carry them. Never a regression: exit 0.

PUBLISHED (--published). One file's measured figures beside the published ones of its generation
(the "published" block of its device record): load latency in cycles, bytes per clock per SM,
banks, bank width, shared memory per SM and per block. Also shown by the other two modes.

Exit status: 0 no point slower, missing, new or stopped and no mismatch (or each allowed), and
with --uncertain fail none uncertain; 1 any of these; 2 unusable input: a file that cannot be read
or is not a valid result file, a file without timed points (predict mode) in the gate, files with no point in common, a bad
option, out of memory; 128+N a signal (SIGINT 130, SIGHUP 129, SIGTERM 143); 70 an internal error
(a bug). When the output is cut short (piped into head), the status is still the gate's.
Needs SciPy and NumPy (Debian: python3-scipy).
"""
import argparse
import math
import os
import sys

from smembench import inputs
from smembench import tool
from smembench import reader

DRIFT_PER_NOISE = 3          # a point may drift between runs by this many times its noise
MEDIAN_SE = math.sqrt(math.pi / 2)   # standard error of a median over that of a mean (normal samples)
MIN_SAMPLES = 3              # fewer samples a side say nothing about the noise
HISTORY_MIN = 3              # fewer history files say nothing about a point's between-run spread
ALLOW_KINDS = ("missing", "new", "status", "device", "driver", "clock", "settings")
DEVICE_FIELDS = ("name", "cc", "sm_count", "smem_per_sm", "smem_per_block", "smem_per_block_optin",
                 "reserved_smem_per_block", "max_blocks_per_sm", "max_threads_per_sm", "regs_per_sm", "model")
DRIVER_FIELDS = ("driver_version", "runtime_version", "driver_release")
# settings an older file may lack, and the value it then ran with
SETTING_DEFAULTS = {"cold": False, "no_optin": False, "quick": False}
# settings that say how a point was sampled, not what it measures: every process draws its own order
# of the trials, and a file of one trial judges one of three (the trials pool the same samples)
SETTINGS_NOT_COMPARED = ("order_seed", "trials")
# units that mean the same on every GPU (per SM, per clock, or a share of the device's own ceiling)
CROSS_UNITS = ("B/clk/SM", "atomics/clk/SM", "cycles", "%", "x", "passes/request")
LOSS_STATUSES = ("failed", "invalid")


class Usage(Exception):
    """Unusable input: one line on stderr, exit 2."""


def scipy_stats():
    try:
        import numpy
        from scipy import stats
    except ImportError:
        raise Usage("compare.py needs SciPy and NumPy: install python3-scipy (scripts/setup.sh does)") from None
    return numpy, stats


# --- the decision rule -------------------------------------------------------------------------

def noise_limit(threshold, drift, z, nb, nn):
    """The largest noise (both files alike) at which nb and nn samples judge a change of the
    threshold: the s solving max(drift, 3 s) + z 1.2533 s sqrt(1/nb + 1/nn) = threshold."""
    if drift >= threshold:
        return 0.0
    b = z * MEDIAN_SE * math.sqrt(1 / nb + 1 / nn)
    s = (threshold - drift) / b if b > 0 else math.inf
    if DRIFT_PER_NOISE * s > drift:
        s = threshold / (DRIFT_PER_NOISE + b)
    return s


def throttled(r):
    """Every sample of the point ran below the run's clock (the measurement then keeps them)."""
    t = r["time_ns"].get("throttled")
    return isinstance(t, dict) and t.get("used") is True


def allowance(b, n, context):
    """The declared between-run variation of a point, as a fraction: the NEW record's descriptor (the
    build under test declares it), else BASE's. context: "run" (one unit), "unit" (another unit of the
    model) or "layout" (another unit whose GPC layout differs or was not recorded: the cluster
    benchmarks' layout_pct, the others' unit_pct). None for files written before descriptors declared
    it."""
    for r in (n, b):
        v = r.get("between_run") if r is not None else None
        if isinstance(v, dict):
            names = {"run": ("run_pct",), "unit": ("unit_pct",), "layout": ("layout_pct", "unit_pct")}[context]
            for name in names:
                x = v.get(name)
                if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0:
                    return x / 100
    return None


def max_band(opt):
    """The widest band (a fraction) at which a point is still judged: past it, uncertain."""
    return getattr(opt, "max_band", 5.0) / 100


def wide_band(band, opt, levels=None, allow=None, units=None, history=None):
    """The reason of a point whose band is past --max-band: what widened it. history: (spread, runs)
    of the history's medians."""
    why = []
    if history is not None:
        why.append(f"its history's medians spread {100 * history[0]:.1f} % over {history[1]} runs")
    if units is not None:
        why.append(f"its units sit on levels {100 * units:.1f} % apart")
    if levels is not None and levels > 0:
        why.append(f"its trials moved {100 * levels:.1f} % from setup to setup")
    if allow is not None:
        why.append(f"it is declared to move {100 * allow:.1f} %")
    return (f"band ±{100 * band:.1f} % > {max_band(opt) * 100:g} %" + (": " + ", ".join(why) if why else "") +
            "; a change inside it cannot be told from the unit or the run")


def unit_context(b_unit, b_layout, n_unit, n_layout):
    """How two records' GPUs relate: "run" the same unit, "unit" another unit of the same recorded GPC
    layout, "layout" another unit whose layout differs or is unknown."""
    if b_unit is not None and b_unit == n_unit:
        return "run"
    return "unit" if b_layout is not None and b_layout == n_layout else "layout"


def judge(b, n, opt, allow=None):
    """The verdict on one point timed in both files: a dict with verdict, change, noise, band, reason.
    allow: the point's declared between-run variation (a fraction) or None."""
    np, stats = scipy_stats()
    # each point at its top SM clock: a trial that ran while the clock dipped is not the code's time
    mb, rb, sb = reader.steady(b)
    mn, rn, sn = reader.steady(n)
    xb = np.array(rb, dtype=np.int64)
    xn = np.array(rn, dtype=np.int64)
    change = mn / mb - 1
    out = {"change": change, "noise": (sb, sn), "samples": (len(xb), len(xn)), "p": None, "band": None}
    hot = [side for side, r in (("base", b), ("new", n)) if throttled(r)]
    if hot:
        return dict(out, verdict="uncertain", reason=f"every sample throttled in {' and '.join(hot)}")
    if len(xb) < MIN_SAMPLES or len(xn) < MIN_SAMPLES or sb is None or sn is None:
        return dict(out, verdict="uncertain",
                    reason=f"too few samples ({len(xb)} and {len(xn)}; {MIN_SAMPLES} a side at least)")
    t, alpha = opt.threshold / 100, opt.alpha
    z = float(stats.norm.ppf(1 - alpha))
    s = max(sb, sn)
    se = MEDIAN_SE * math.sqrt(sb * sb / len(xb) + sn * sn / len(xn))
    # the point's declared movement between runs (or units) widens what it can call a change: a change
    # inside it is the unit or the run, not the code; so does the movement its trials showed from
    # setup to setup inside either process (a level a fresh setup can land on)
    levels = max([x for x in (reader.trial_range(b), reader.trial_range(n)) if x is not None], default=None)
    out["levels"] = levels
    for widen in (allow, levels):
        if widen is not None and widen + z * se > t:
            t = widen + z * se
            out["band"] = t
    if out["band"] is not None and out["band"] > max_band(opt):
        return dict(out, verdict="uncertain", reason=wide_band(out["band"], opt, levels, allow))
    # the least drift: a share of the time, or for a short kernel the fixed part of a launch
    floor = max(opt.drift / 100, opt.drift_ns / mb, allow or 0, levels or 0)
    drift = max(floor, DRIFT_PER_NOISE * s)
    limit = noise_limit(t, floor, z, len(xb), len(xn))
    out["limit"] = limit
    if floor >= t:
        if opt.drift_ns / mb >= t:
            noisy = (f"too short: {opt.drift_ns:g} ns of run-to-run drift is {100 * opt.drift_ns / mb:.1f} % of "
                     f"{mb / 1e3:.1f} us")
        else:   # another program's threshold under the drift (the command line refuses it)
            noisy = f"--drift {opt.drift:g} % is not below the {100 * t:g} % threshold: nothing can be judged"
    else:
        noisy = f"noise {100 * s:.2f} % > {100 * limit:.2f} %"
    if abs(change) >= t:
        if change > 0:
            p = stats.mannwhitneyu(xn, xb * (1 + drift), alternative="greater").pvalue
        else:
            p = stats.mannwhitneyu(xn, xb / (1 + drift), alternative="less").pvalue
        out["p"] = float(p)
        if p < alpha:
            return dict(out, verdict="slower" if change > 0 else "faster", reason="")
        if s > limit:
            return dict(out, verdict="uncertain", reason=noisy)
        if len(xb) + len(xn) < 40 and 1 / math.comb(len(xb) + len(xn), len(xb)) >= alpha:   # the least p
            return dict(out, verdict="uncertain",
                        reason=f"{len(xb)} and {len(xn)} samples cannot reach alpha {alpha:g}")
        return dict(out, verdict="uncertain", reason=f"not confirmed (p {p:.2g})")
    if drift + z * se <= t:
        return dict(out, verdict="same", reason="")
    return dict(out, verdict="uncertain", reason=noisy)


ROBUST_FROM = 8              # history files from which the MAD alone estimates the between-run spread


def robust_center(values):
    """(median, relative spread) of a list of medians. The spread is 1.4826 MAD / median, robust to a
    bad run; under ROBUST_FROM values the MAD of a few can be near zero by chance (three runs, two
    alike), so the sample standard deviation over the median is taken where it is larger."""
    m = sorted(values)
    k = len(m)
    c = m[k // 2] if k % 2 else (m[k // 2 - 1] + m[k // 2]) / 2
    if c <= 0:
        return c, math.inf
    dev = sorted(abs(x - c) for x in m)
    mad = dev[k // 2] if k % 2 else (dev[k // 2 - 1] + dev[k // 2]) / 2
    spread = 1.4826 * mad / c
    if k < ROBUST_FROM and k > 1:
        mean = sum(m) / k
        spread = max(spread, math.sqrt(sum((x - mean) ** 2 for x in m) / (k - 1)) / c)
    return c, spread


def unit_levels(hist):
    """(range of the units' medians over their median, units) of a point's history, or None under
    two units: each unit's median of its runs' medians. Units sit on levels (stable within a unit,
    a few levels across units), which only a history of several units shows."""
    by_unit = {}
    for u, _, r in hist:
        if u is not None:
            by_unit.setdefault(u, []).append(reader.steady_median(r))
    if len(by_unit) < 2:
        return None
    meds = sorted(robust_center(v)[0] for v in by_unit.values())
    mid = robust_center(meds)[0]
    return ((meds[-1] - meds[0]) / mid if mid > 0 else math.inf), len(meds)


def judge_history(hist, n, opt, b, unit):
    """The verdict on a point of NEW against its history: hist is the list of the point's (uuid,
    layout, record) in the history files (timed, oldest first), unit NEW's (uuid, layout). With
    HISTORY_MIN runs of NEW's own unit in the history, those alone are its history (a history of
    several units has several levels, and its spread says nothing of one unit); else every run, and
    the point may move as between units. The between-run spread is measured: the spread of the
    history's medians (robust_center); the point may move by a one-sided t prediction bound of it (Student's t at
    --alpha over k - 1 degrees of freedom, times sqrt(1 + 1/k): a new run of the same build falls
    inside with probability 1 - alpha), never by less than its declared variation or --drift. A change
    beyond that band plus the new median's own uncertainty (z x its standard error) is slower or
    faster; inside it, same. Under HISTORY_MIN runs the newest is the base, as with one base file."""
    np, stats = scipy_stats()
    order = ("run", "unit", "layout")
    own = [h for h in hist if unit[0] is not None and h[0] == unit[0]]
    if len(own) >= HISTORY_MIN:
        hist, ctx = own, "run"
    elif len(hist) >= HISTORY_MIN:
        others = [h for h in hist if h not in own] or hist
        ctx = min((unit_context(u, lay, *unit) for u, lay, _ in others), key=order.index)
        levels = unit_levels(hist)
        if levels is not None and levels[0] > opt.threshold / 100:
            # units sit on levels: a history of several units cannot say which this unit's is
            mn, rn, sn = reader.steady(n)
            return {"change": mn / robust_center([reader.steady_median(r) for _, _, r in hist])[0] - 1,
                    "noise": (None, sn), "samples": (len(hist), len(rn)),
                    "p": None, "band": None, "history": len(hist), "unit": True, "verdict": "uncertain",
                    "reason": f"its {levels[1]} units sit on levels {100 * levels[0]:.1f} % apart, more than the "
                              f"{opt.threshold:g} % threshold; {HISTORY_MIN} runs of this unit "
                              f"({len(own)} in the history) judge it"}
    if len(hist) < HISTORY_MIN:
        u, lay, last = hist[-1]
        ctx = unit_context(u, lay, *unit)
        out = judge(last, n, opt, allowance(b, n, ctx))
        return dict(out, history=len(hist), unit=ctx != "run")
    allow = allowance(b, n, ctx)
    meds = [reader.steady_median(r) for _, _, r in hist]
    c, spread = robust_center(meds)
    mn, rn, sn = reader.steady(n)
    xn = np.array(rn, dtype=np.int64)
    change = mn / c - 1
    out = {"change": change, "noise": (spread, sn), "samples": (len(hist), len(xn)), "p": None, "band": None,
           "history": len(hist), "center": c, "unit": ctx != "run"}
    if throttled(n):
        return dict(out, verdict="uncertain", reason="every sample throttled in new")
    if len(xn) < MIN_SAMPLES or sn is None:
        return dict(out, verdict="uncertain", reason=f"too few samples in new ({len(xn)}; {MIN_SAMPLES} at least)")
    k = len(meds)
    z = float(stats.norm.ppf(1 - opt.alpha))
    q = float(stats.t.ppf(1 - opt.alpha, k - 1))
    # the setup-to-setup movement the trials of any of these runs showed is a floor too
    trials = [x for x in [reader.trial_range(r) for _, _, r in hist] + [reader.trial_range(n)] if x is not None]
    levels = max(trials) if trials else None
    floor = max(opt.drift / 100, opt.drift_ns / c, allow or 0, levels or 0)
    band = max(floor, q * spread * math.sqrt(1 + 1 / k))
    se = MEDIAN_SE * sn / math.sqrt(len(xn))
    limit = max(opt.threshold / 100, band + z * se)
    out["band"] = limit if limit > opt.threshold / 100 else None
    if limit > max_band(opt):
        return dict(out, verdict="uncertain",
                    reason=wide_band(limit, opt, levels, allow if allow and allow >= band - 1e-12 else None,
                                     history=(spread, k)))
    if abs(change) >= limit:
        return dict(out, verdict="slower" if change > 0 else "faster", reason="")
    return dict(out, verdict="same", reason="")


# --- matching points and runs ------------------------------------------------------------------

def status_text(r):
    if r["status"] == "ok" and not reader.timed(r):
        return "ok without a timing"
    return r["status"] + ("" if r.get("verified", True) or r["status"] != "ok" else ", not verified")


def status_change(b, n):
    """None, or (lost, text) for a point whose status changed between the files."""
    tb, tn = reader.timed(b), reader.timed(n)
    vb, vn = b.get("verified") is True, n.get("verified") is True
    if tb and tn and vb == vn:
        return None
    if not tb and not tn and b["status"] == n["status"]:
        return None
    text = f"{status_text(b)} -> {status_text(n)}"
    reason = n.get("reason")
    if isinstance(reason, str) and reason and n["status"] != "ok":
        text += f" ({reason[:120]})"
    lost = (tb and not tn) or (vb and not vn) or (n["status"] in LOSS_STATUSES and b["status"] != n["status"])
    return lost, text


def by_key(doc, path):
    """The points of a file by what identifies them; a point twice is unusable input (which of the
    two would the other file's point be compared with?)."""
    out = {}
    for r in doc["results"]:
        key = reader.point_key(r)
        if key in out:
            raise Usage(f"{path}: point {reader.point_name(r)} appears twice; the comparison needs each "
                        "point once")
        out[key] = r
    return out


def uuid_of(doc, r):
    u = reader.device_of(doc, r).get("uuid") if r is not None else None
    return u if isinstance(u, str) and u else None


def layout_of(doc, r):
    return gpc_layout(reader.device_of(doc, r)) if r is not None else None


def compare_points(base, new, opt, paths=("base", "new"), history=None):
    """Every point of either file: a list of dicts with name, bench, kind and the judgement. history:
    None, or {point key: [(uuid, layout, record), ...] oldest first} of the history files' timed points
    (BASE is then the newest record of each point)."""
    bmap, nmap = by_key(base, paths[0]), by_key(new, paths[1])
    rows = []
    for key in list(bmap) + [k for k in nmap if k not in bmap]:
        b, n = bmap.get(key), nmap.get(key)
        r = b if b is not None else n
        row = {"name": reader.point_name(r), "bench": r["bench"], "base": b, "new": n}
        if n is None:
            row.update(kind="missing", text=f"{status_text(b)} in base, absent from new")
        elif b is None:
            row.update(kind="new", text=f"absent from base, {status_text(n)} in new")
        else:
            sc = status_change(b, n)
            if sc is not None:
                row.update(kind="status", lost=sc[0], text=sc[1])
            elif reader.timed(b) and history is not None and history.get(key):
                row.update(kind="timed", **judge_history(history[key], n, opt, b, (uuid_of(new, n), layout_of(new, n))))
            elif reader.timed(b):
                ctx = unit_context(uuid_of(base, b), layout_of(base, b), uuid_of(new, n), layout_of(new, n))
                row.update(kind="timed", unit=ctx != "run", **judge(b, n, opt, allowance(b, n, ctx)))
            else:
                row.update(kind="untimed", text=b["status"])
        rows.append(row)
    return rows


def compare(base, new, threshold, alpha, drift=1.0):
    """The gate's decision per point for another program (the report): rows of (name, base median
    ns, new median ns, change, p, verdict) in BASE's order, then NEW's own points. threshold is a
    fraction (0.02), drift in percent. verdict: slower, faster, same, "uncertain (reason)",
    "stopped (ok -> failed ...)", "started (...)", missing, new; points timed in neither are left out;
    no row at all when the files have no point in common."""
    class Opt:
        pass
    opt = Opt()
    opt.threshold, opt.alpha, opt.drift, opt.drift_ns = 100 * threshold, alpha, drift, 500.0
    try:
        points = compare_points(base, new, opt)
    except Usage as e:              # a point listed twice: the caller reports unusable files
        raise reader.ResultError(str(e)) from None
    if not any(r["kind"] in ("timed", "status", "untimed") for r in points):
        return []                   # nothing in common: nothing to compare
    rows = []
    for r in points:
        b, n = r["base"], r["new"]
        mb = reader.steady_median(b) if b is not None and reader.timed(b) else None
        mn = reader.steady_median(n) if n is not None and reader.timed(n) else None
        if r["kind"] == "timed":
            verdict = r["verdict"] + (f" ({r['reason']})" if r["reason"] else "")
            rows.append((r["name"], mb, mn, r["change"], r["p"], verdict))
        elif r["kind"] == "status":
            rows.append((r["name"], mb, mn, None, None, f"{'stopped' if r['lost'] else 'started'} ({r['text']})"))
        elif r["kind"] in ("missing", "new"):
            rows.append((r["name"], mb, mn, None, None, r["kind"]))
    return rows


def fmt(v):
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return "{...}" if isinstance(v, dict) else "[...]"
    return str(v)[:60]


def mismatches(base, new, opt):
    """(kind, text) for every way the two runs differ beyond the points."""
    out = []
    db, dn = reader.devices(base), reader.devices(new)
    if len(db) != len(dn):
        out.append(("device", f"{len(db)} device(s) -> {len(dn)}"))
    for i, (x, y) in enumerate(zip(db, dn)):
        tag = f"GPU {i}: " if max(len(db), len(dn)) > 1 else ""
        for kind, fields in (("device", DEVICE_FIELDS), ("driver", DRIVER_FIELDS)):
            # the driver's release string is compared where both files recorded it (older ones did not)
            diffs = [f"{f} {fmt(x.get(f))} -> {fmt(y.get(f))}" for f in fields if x.get(f) != y.get(f) and
                     (f != "driver_release" or (x.get(f) is not None and y.get(f) is not None))]
            if diffs:
                out.append((kind, tag + ", ".join(diffs)))
        if x.get("uuid") and y.get("uuid") and x["uuid"] != y["uuid"] and x.get("name") == y.get("name"):
            out.append(("unit", f"{tag}uuid {x['uuid']} -> {y['uuid']}"))
            lx, ly = gpc_layout(x), gpc_layout(y)
            deps = sorted({r["bench"] for r in new["results"] if (r.get("between_run") or {}).get("gpc_layout")})
            if deps and (lx is None or lx != ly):
                out.append(("layout", f"{tag}GPC layout {lx or 'not recorded'} -> {ly or 'not recorded'} (SMs x "
                                      f"GPCs): the points of {', '.join(deps)} depend on it (clusters fit per GPC) "
                                      "and are judged with their variation between layouts"))
            elif deps:
                out.append(("layout", f"{tag}the same GPC layout {lx}: the points of {', '.join(deps)} are judged "
                                      "with their variation between units of one layout"))
        if x.get("clock_khz") != y.get("clock_khz"):
            out.append(("clock", f"{tag}rated clock_khz {fmt(x.get('clock_khz'))} -> {fmt(y.get('clock_khz'))}"))
        cb, cn = x.get("measured_clock_mhz"), y.get("measured_clock_mhz")
        if (isinstance(cb, (int, float)) and isinstance(cn, (int, float)) and cb > 0 and
                abs(cn / cb - 1) * 100 > opt.threshold):
            out.append(("clock", f"{tag}measured clock {cb:.0f} -> {cn:.0f} MHz ({100 * (cn / cb - 1):+.1f} %, "
                                 f"beyond the {opt.threshold:g} % threshold)"))
    sb, sn = settings(base), settings(new)
    diffs = [f"{k} {fmt(sb.get(k, '(absent)'))} -> {fmt(sn.get(k, '(absent)'))}"
             for k in sorted(set(sb) | set(sn)) if sb.get(k, "(absent)") != sn.get(k, "(absent)")
             and k not in SETTINGS_NOT_COMPARED]
    if diffs:
        out.append(("settings", ", ".join(diffs)))
    return out


def gpc_layout(dev):
    g = dev.get("gpc")
    return g.get("layout") if isinstance(g, dict) and isinstance(g.get("layout"), str) else None


def settings(doc):
    s = doc["run"].get("settings")
    s = dict(s) if isinstance(s, dict) else {}
    for k, v in SETTING_DEFAULTS.items():
        s.setdefault(k, v)
    return s


def geomean(ratios):
    ratios = [x for x in ratios if x > 0 and math.isfinite(x)]
    if not ratios:
        return None
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)) - 1


# --- output ------------------------------------------------------------------------------------

def table(headers, rows, right, md):
    """Lines of an aligned text table or a Markdown table; right: the right-aligned columns."""
    if md:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"]
        return lines + ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]

    def line(cells):
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def device_text(dev):
    parts = [str(dev.get("name")), f"cc {dev.get('cc')}", f"{dev.get('sm_count')} SMs"]
    if dev.get("pci_bus_id"):
        parts.append(f"PCI {dev['pci_bus_id']}")
    return ", ".join(parts)


def header(files, docs, md, names=("base", "new")):
    """Rows naming each file's device, commit, date, host, sweep, settings and clocks."""
    def each(f):
        return [f(d) for d in docs]
    rows = [("file", *files)]
    ndev = max(len(reader.devices(d)) for d in docs)
    for i in range(ndev):
        label = "device" if ndev == 1 else f"GPU {i}"
        rows.append((label, *each(lambda d: device_text(reader.devices(d)[i])
                                  if i < len(reader.devices(d)) else "-")))
    rows += [("driver / runtime", *each(lambda d: f"{fmt(d['device'].get('driver_version'))} / "
                                                  f"{fmt(d['device'].get('runtime_version'))}")),
             ("commit", *each(lambda d: fmt(d["tool"].get("git")))),
             ("date", *each(lambda d: fmt(d["run"].get("started")))),
             ("host", *each(lambda d: fmt(d["run"].get("host")))),
             ("mode, sweep", *each(lambda d: f"{fmt(d['run'].get('mode'))}, {fmt(d['run'].get('sweep'))}")),
             ("settings", *each(lambda d: " ".join(f"{k}={fmt(v)}" for k, v in sorted(settings(d).items())))),
             ("measured clock", *each(lambda d: clock_text(d["device"])))]
    if md:   # compact: a value equal to the base's is "same"
        rows = [(r[0], r[1], *("same" if c == r[1] and i else c for i, c in enumerate(r[2:], 1))) for r in rows]
    return table(["", *names], rows, (), md)


def clock_text(dev):
    c = dev.get("measured_clock_mhz")
    return f"{c:.0f} MHz" if isinstance(c, (int, float)) else "-"


def pct(x, signed=True):
    if x is None:
        return "-"
    return f"{100 * x:+.2f} %" if signed else f"{100 * x:.2f} %"


def us(r):
    return f"{reader.steady_median(r) / 1e3:.2f}" if r is not None and reader.timed(r) else "-"


def verdict_text(row):
    if row["kind"] == "timed":
        notes = [row["reason"]] if row["reason"] else []
        if row.get("band"):
            notes.append(f"band ±{100 * row['band']:.1f} %" + (" between units" if row.get("unit") else ""))
        return row["verdict"] + (f" ({'; '.join(notes)})" if notes else "")
    if row["kind"] == "status":
        return ("stopped: " if row["lost"] else "started: ") + row["text"]
    return {"missing": "missing: ", "new": "new: ", "untimed": "not timed: "}[row["kind"]] + row["text"]


def point_row(row):
    noise = row.get("noise")
    nstr = (f"{100 * noise[0]:.2f} / {100 * noise[1]:.2f}" if noise and None not in noise else "-")
    base = f"{row['center'] / 1e3:.2f}" if row.get("center") else us(row["base"])
    return (row["name"], base, us(row["new"]), pct(row.get("change")), nstr, verdict_text(row))


POINT_HEADERS = ["point", "base (us)", "new (us)", "change", "noise (%)", "verdict"]


def gate(base_path, new_path, base, new, opt, history=None):
    """The gate's decision on one NEW file against BASE: (rows, mismatches, count per verdict,
    what fails the gate, exit status 0 or 1); rows as compare_points makes them. Usage when the
    files have no point in common."""
    rows = compare_points(base, new, opt, (base_path, new_path), history)
    if not any(r["kind"] in ("timed", "status", "untimed") for r in rows):
        raise Usage(f"{base_path} and {new_path} have no point in common: nothing to compare")
    found = mismatches(base, new, opt)
    allowed = set(opt.allow)
    count = {}
    for r in rows:
        k = r["verdict"] if r["kind"] == "timed" else r["kind"]
        if r["kind"] == "status":
            k = "stopped" if r["lost"] else "started"
        count[k] = count.get(k, 0) + 1
    failing = []
    if count.get("slower"):
        failing.append(f"{count['slower']} slower")
    if count.get("uncertain") and getattr(opt, "uncertain", "pass") == "fail":
        failing.append(f"{count['uncertain']} uncertain (--uncertain fail)")
    for kind, key in (("missing", "missing"), ("new", "new"), ("status", "stopped")):
        if count.get(key) and kind not in allowed:
            failing.append(f"{count[key]} {key}")
    for kind in ALLOW_KINDS[3:]:
        if any(k == kind for k, _ in found) and kind not in allowed:
            failing.append(f"{kind} mismatch")
    return rows, found, count, failing, 1 if failing else 0


def gate_report(base_path, new_path, base, new, opt, history=None, history_lines=()):
    """The comparison of one NEW file with BASE (or with a history: see history_base): (lines, exit
    status)."""
    rows, found, count, failing, rc = gate(base_path, new_path, base, new, opt, history)
    allowed = set(opt.allow)
    md = opt.markdown

    by_bench = {}
    for r in rows:
        if r["kind"] == "timed":
            by_bench.setdefault(r["bench"], []).append(r["change"] + 1)
    summary = [(b, len(v), pct(geomean(v))) for b, v in sorted(by_bench.items())]
    every = [x for v in by_bench.values() for x in v]
    summary.append(("all", len(every), pct(geomean(every))))
    timed_rows = [r for r in rows if r["kind"] == "timed"]
    counts = ", ".join(f"{count.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain"))
    others = ", ".join(f"{count.get(k, 0)} {k}" for k in ("missing", "new", "stopped", "started"))
    if count.get("untimed"):
        others += f"; {count['untimed']} timed in neither (skipped or failed in both)"
    verdict = (f"gate: fail (exit 1): {', '.join(failing)}" if rc else "gate: pass (exit 0)")
    allowed_note = [f"another GPU of the same model: {text} (does not fail the gate: each point is judged with "
                    "its declared between-unit variation, where the files carry it)" if kind == "unit" else
                    f"layout: {text} (does not fail the gate)" if kind == "layout" else
                    f"{kind} mismatch: {text} " + ("(allowed by --allow)" if kind in allowed else
                                                   f"(fails the gate; --allow {kind} accepts it" +
                                                   (", --across-devices compares two GPUs)" if kind == "device" else ")"))
                    for kind, text in found]

    out = []
    if md:
        out.append(f"### smembench: {base['device']['name']} -> {new['device']['name']}: "
                   f"{'**' + verdict + '**' if rc else verdict}")
        out.append("")
        out += header([f"`{base_path}`", f"`{new_path}`"], [base, new], True)
        out.append("")
        out += [f"- {line}" for line in history_lines]
        for line in allowed_note:
            out.append(f"- {line}")
        changed = [r for r in rows if (r["kind"] == "timed" and r["verdict"] in ("slower", "faster")) or
                   r["kind"] in ("missing", "new", "status")]
        if changed:
            out += ["", f"**What changed** ({len(changed)} points; median time per launch, noise = robust spread "
                        f"base / new, threshold {opt.threshold:g} %):", ""]
            out += table(POINT_HEADERS, [point_row(r) for r in changed], (1, 2, 3, 4), True)
        unsure = [r for r in timed_rows if r["verdict"] == "uncertain"]
        if unsure:
            out += ["", f"<details><summary>{len(unsure)} uncertain points (their noise or samples cannot judge a "
                        f"{opt.threshold:g} % change)</summary>", ""]
            out += table(POINT_HEADERS, [point_row(r) for r in unsure], (1, 2, 3, 4), True)
            out += ["", "</details>"]
        out += ["", f"**Summary**: {len(timed_rows)} points compared: {counts}; {others}. "
                    "Geometric mean of the change of the median time:", ""]
        out += table(["benchmark", "points", "change"], summary, (1, 2), True)
        out += published_report([new], True)
        return out, rc

    out += header([base_path, new_path], [base, new], False)
    out += list(history_lines)
    out.append("times: median per launch in microseconds; change: new / base - 1; noise: robust spread "
               "(1.4826 MAD / median) base / new" + (" (base: the history's median, its noise the spread of the "
                                                       "history's medians)" if history is not None else "") +
               f"; threshold {opt.threshold:g} %, drift {opt.drift:g} % or {opt.drift_ns:g} ns, alpha {opt.alpha:g}")
    out.append("")
    out += table(POINT_HEADERS, [point_row(r) for r in rows], (1, 2, 3, 4), False)
    if allowed_note:
        out.append("")
        out += allowed_note
    out += ["", "geometric mean of the change of the median time:"]
    out += ["  " + line for line in table(["benchmark", "points", "change"], summary, (1, 2), False)]
    out += published_report([new], False)
    out.append("")
    out.append(f"{len(timed_rows)} points compared: {counts}; {others}")
    out.append(verdict)
    return out, rc


# --- GPU generations ---------------------------------------------------------------------------

def cross_figures(r):
    """The figures of a point that compare across GPUs: (figure, unit, better, value)."""
    out = []
    for name in sorted(r["metrics"]):
        u = reader.unit(r, name)
        v = reader.metric(r, name)
        b = reader.better(r, name)
        if u in CROSS_UNITS and v is not None and b is not None:
            out.append((name, u, b, v))
    occ = r.get("occupancy") if isinstance(r.get("occupancy"), dict) else {}
    for source in ("measured", "api", "predicted"):
        v = occ.get(source)
        if isinstance(v, int) and not isinstance(v, bool):
            out.append((f"blocks_per_sm ({source})", "blocks/SM", "higher", v))
            break
    return out


def across_report(a_path, b_path, a, b, opt):
    amap, bmap = by_key(a, a_path), by_key(b, b_path)
    common = [k for k in amap if k in bmap]
    if not common:
        raise Usage(f"{a_path} and {b_path} have no point in common: nothing to compare")
    t = opt.threshold / 100
    rows, ratios = [], {}
    for k in common:
        fa = {f[0].split(" (")[0]: f for f in cross_figures(amap[k])}
        fb = {f[0].split(" (")[0]: f for f in cross_figures(bmap[k])}
        for name in [n for n in fa if n in fb]:
            (label_a, u, better, va), (label_b, _, _, vb) = fa[name], fb[name]
            if va <= 0 or vb <= 0:
                ahead, text = None, "-"
            else:
                ahead = vb / va - 1 if better == "higher" else va / vb - 1
                text = "even" if abs(ahead) < t else (f"B ahead by {100 * ahead:.1f} %" if ahead > 0 else
                                                      f"A ahead by {100 * (1 / (1 + ahead) - 1):.1f} %")
                ratios.setdefault((amap[k]["bench"], name), []).append(1 + ahead)
            src = label_a[len(name):].strip() if label_a == label_b else \
                f"A {label_a[len(name):].strip()} B {label_b[len(name):].strip()}".strip()
            rows.append((reader.point_name(amap[k]), name + (f" {src}" if src else ""), u,
                         number(va), number(vb), f"{better} is better", text))
    only_a = sum(1 for k in amap if k not in bmap)
    only_b = sum(1 for k in bmap if k not in amap)
    md = opt.markdown
    out = []
    title = f"{a['device']['name']} (A) against {b['device']['name']} (B), figures that compare across GPUs"
    out += [f"### smembench: {title}", ""] if md else [title]
    out += header([a_path, b_path], [a, b], md, ("A", "B"))
    out.append("")
    if not rows:
        out.append("no figure that compares across GPUs is in both files")
    else:
        out += table(["point", "figure", "unit", "A", "B", "direction", "ahead"], rows, (3, 4), md)
    summary = []
    for (bench, name), v in sorted(ratios.items()):
        g = geomean(v)
        summary.append((bench, name, len(v), "even" if g is not None and abs(g) < t else
                        (f"B ahead by {100 * g:.1f} %" if g is not None and g > 0 else
                         f"A ahead by {100 * (1 / (1 + g) - 1):.1f} %" if g is not None else "-")))
    if summary:
        out += ["", "geometric mean per benchmark and figure:" if not md else "**Geometric mean per benchmark "
                                                                             "and figure:**", ""]
        out += table(["benchmark", "figure", "points", "ahead"], summary, (2,), md)
    out += published_report([a, b], md)
    out += ["", f"{len(common)} points in both files, {only_a} only in A, {only_b} only in B; "
                "a comparison of two GPUs reports no regression (exit 0)"]
    return out


# --- published figures ------------------------------------------------------------------------

def measured_figure(doc, index, name):
    """(value, how it was found) for a published figure's name, or None where the file has nothing."""
    dev = reader.devices(doc)[index]
    pts = [r for r in doc["results"] if r["status"] == "ok" and r.get("device_index", 0) == index]

    def values(bench, metric, **params):
        return [(reader.metric(r, metric), r) for r in pts if r["bench"] == bench and
                reader.metric(r, metric) is not None and
                all(r["params"].get(k) == v for k, v in params.items())]
    if name == "smem_load_latency_cycles":
        v = values("latency", "latency_cycles")
        if v:
            best = min(v, key=lambda x: x[0])
            return best[0], f"lowest of {len(v)} latency points ({reader.point_name(best[1])})"
    if name in ("smem_bytes_per_clock_per_sm", "bank_width_bytes"):
        v = values("bandwidth", "bytes_per_clk_sm") or values("bank", "bytes_per_clk_sm", stride_elems=1)
        if v and name == "smem_bytes_per_clock_per_sm":
            best = max(v, key=lambda x: x[0])
            return best[0], f"best of {len(v)} conflict-free points ({reader.point_name(best[1])})"
        banks = measured_figure(doc, index, "banks")
        if v and banks:
            return max(x[0] for x in v) / round(banks[0]), "bytes per clock per SM over the banks measured"
    if name == "banks":
        v = values("bank", "slowdown", width_bytes=4)
        if v:
            best = max(v, key=lambda x: x[0])
            return best[0], f"largest 4-byte conflict slowdown ({reader.point_name(best[1])})"
    source = "the built-in model's" if dev.get("model") is True else "reported by the runtime"
    if name == "smem_per_sm_bytes" and isinstance(dev.get("smem_per_sm"), int):
        return dev["smem_per_sm"], source
    if name == "smem_per_block_optin_bytes" and isinstance(dev.get("smem_per_block_optin"), int):
        return dev["smem_per_block_optin"], source
    return None


def number(v):
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def published_value(v):
    if isinstance(v, list):
        return ", ".join(number(x) for x in v)
    return "-" if v is None else number(v)


def published_report(docs, md, required=None):
    """The measured figures of each distinct device beside its generation's published ones."""
    out, seen = [], set()
    for doc in docs:
        for i, dev in enumerate(reader.devices(doc)):
            pub = reader.published(dev)
            ident = (dev.get("name"), dev.get("cc"), doc["tool"].get("git"), doc["run"].get("started"), i)
            if not pub or ident in seen:
                continue
            seen.add(ident)
            rows = []
            for name, e in pub.items():
                m = measured_figure(doc, i, name)
                pv = e.get("value")
                ratio = (f"{100 * (m[0] / pv - 1):+.1f} %" if m and isinstance(pv, (int, float)) and
                         not isinstance(pv, bool) and pv else "-")
                rows.append((name, published_value(pv), e.get("unit", ""), number(m[0]) if m else "-", ratio,
                             m[1] if m else "not measured in this file", e.get("source", "")))
            title = f"{dev.get('name')} (cc {dev.get('cc')}): measured beside the published figures of its generation"
            out += ["", f"**{title}**" if md else title, ""]
            out += table(["figure", "published", "unit", "measured", "vs published", "measured how", "source"],
                         rows, (1, 3, 4), md)
    if required and not out:
        raise Usage(f"{required}: no device record has a \"published\" block of reference figures (files "
                    "written before the published table, or of a GPU it does not know)")
    return out


# --- main --------------------------------------------------------------------------------------

def allow_list(text):
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    for k in kinds:
        if k not in ALLOW_KINDS + ("all",):
            raise argparse.ArgumentTypeError(f'invalid kind "{k}"; expected {",".join(ALLOW_KINDS)} or all')
    return list(ALLOW_KINDS) if "all" in kinds else kinds


def add_verdict_options(ap):
    """--max-band and --uncertain, the same in the gate and in A/B."""
    ap.add_argument("--max-band", type=float, default=5.0, metavar="PCT",
                    help="the widest band a point is judged at, in percent (5): a point whose band (its measured "
                         "variation between runs, units or setups) is wider is uncertain, never same or slower")
    ap.add_argument("--uncertain", choices=("pass", "fail"), default="pass",
                    help="what uncertain points do to the exit status: pass (the default: listed, exit 0) or fail "
                         "(exit 1)")


def check_max_band(a):
    if not 0 < a.max_band <= 1000:
        raise Usage(f"invalid value {a.max_band:g} for --max-band; expected more than 0 and at most 1000")
    if a.max_band < a.threshold:
        raise Usage(f"--max-band {a.max_band:g} % is below the threshold {a.threshold:g} %: no point could be "
                    "judged; expected a --max-band of at least --threshold")


def check_rule_options(a):
    """--threshold, --drift, --drift-ns and --alpha as the gate takes them, the same in compare and
    trend (and their defaults where a tool has no such option): Usage for a value it refuses."""
    for name, v, lo, hi in (("--threshold", a.threshold, 0, 1000), ("--drift", a.drift, 0, 1000),
                            ("--drift-ns", getattr(a, "drift_ns", 500.0), 0, 1e9), ("--alpha", a.alpha, 0, 1)):
        if not (lo < v < hi) and not (name.startswith("--drift") and v == 0):
            raise Usage(f"invalid value {v:g} for {name}; expected more than {lo:g} and less than {hi:g}")
    if a.drift >= a.threshold:
        raise Usage(f"--drift {a.drift:g} % is not below the threshold {a.threshold:g} %: no change could be told from "
                    "drift; expected a --drift under --threshold")


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are Usage (one line, status 2) pointing at the command's own --help
    (compare, ab and trend use it)."""

    def error(self, message):
        raise Usage(f"{message}; see {self.prog} --help")


def parse_args(argv):
    ap = Parser(prog=reader.command("compare.py"),
                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    reader.add_version(ap)
    ap.add_argument("base", help="the base result file (the one file of --published)")
    ap.add_argument("new", nargs="*", help="result files compared with the base")
    ap.add_argument("--threshold", type=float, default=2.0, metavar="PCT",
                    help="smallest change of a median time that counts, in percent (2)")
    ap.add_argument("--drift", type=float, default=1.0, metavar="PCT",
                    help="least run-to-run drift allowed to any point, in percent (1); a point's own is 3x its noise")
    ap.add_argument("--drift-ns", type=float, default=500.0, metavar="NS",
                    help="least run-to-run drift of one launch, in nanoseconds (500): what short kernels move by")
    ap.add_argument("--alpha", type=float, default=0.01, help="significance level of the U test (0.01)")
    ap.add_argument("--allow", type=allow_list, default=[], metavar="KIND,...",
                    help=f"findings that do not fail the gate: {','.join(ALLOW_KINDS)} or all")
    ap.add_argument("--markdown", action="store_true", help="compact Markdown for a pull-request comment")
    add_verdict_options(ap)
    ap.add_argument("--history", action="append", default=[], metavar="PATH",
                    help="earlier result files (files or directories of them) of the same GPU model and settings: "
                         "every positional file is then a NEW file judged against their between-run spread")
    ap.add_argument("--window", type=int, default=0, metavar="N",
                    help="with --history, only the newest N matching files by run.started, the others read no "
                         "further than their header (0, the default: all, each read whole)")
    ap.add_argument("--across-devices", action="store_true",
                    help="compare two GPUs on what compares across hardware; never a regression")
    ap.add_argument("--published", action="store_true",
                    help="one file's measured figures beside the published ones of its generation")
    a = ap.parse_args(argv)
    check_rule_options(a)
    if a.published and a.new:
        raise Usage("--published takes one file; see compare.py --help")
    if a.published and a.across_devices:
        raise Usage("--published and --across-devices cannot be combined; see compare.py --help")
    check_max_band(a)
    if a.history and (a.published or a.across_devices):
        raise Usage("--history is for the gate; it cannot be combined with --published or --across-devices")
    if a.window < 0:
        raise Usage(f"invalid value {a.window} for --window; expected 0 (all) or more")
    if a.window and not a.history:
        raise Usage("--window chooses among the --history files; expected it with --history")
    if a.history:
        a.new = [a.base] + a.new
        return a
    if not a.published and not a.new:
        raise Usage("compare.py needs a base file and at least one new file (or --published FILE); "
                    "see compare.py --help")
    return a


def history_paths(specs, note=None):
    """The result files named by --history, by the scanner's rules (smembench.inputs: files as given,
    folders' *.json by name, each file once, what is no result file skipped with one line)."""
    try:
        return inputs.paths(specs, "--history", note if note is not None else inputs.warn())
    except inputs.InputError as e:
        raise Usage(str(e)) from None


def left_out(doc, new, opt, timed=True):
    """Why a history file cannot judge NEW (another GPU model, driver or settings; not measured; with
    timed, no timed point), or None."""
    if doc["run"].get("mode") != "measure" or (timed and not reader.timed_points(doc)):
        return f"no timed point ({doc['run'].get('mode')} mode)"
    found = [(k, t) for k, t in mismatches(doc, new, opt) if k in ("device", "driver", "settings")]
    return f"{found[0][0]} mismatch: {found[0][1]}" if found else None


def windowed_history(paths, new, opt, loaded):
    """The newest opt.window history files that can judge NEW, newest first by their recorded date
    (run.started) as (path, doc), and the lines of the files left out on the way. Each file's header
    is read (inputs.header(): the fields before its points) to order and sift them; only the files
    taken are read whole (loaded: path -> document, shared between NEW files), so a window of 8 over
    2,000 files reads 8 and a few headers' KiB of the rest. A file whose header cannot be read so is
    read whole; a header's date that is not its document's falls back to reading every file."""
    heads = []
    for p in paths:
        h = loaded.get(p) or inputs.header(p)
        if h is None:
            h = loaded[p] = inputs.load(p)
        heads.append((h["run"].get("started") or "", p, h))
    heads.sort(key=lambda x: x[0])      # stable: files of one date in the order given, as without --window
    # the header's first device against NEW's first: never stricter than left_out() on the whole files
    # (the driver writes "devices" after the points; "device" is the first of them)
    new0 = dict(new, device=reader.devices(new)[0], results=[])
    new0.pop("devices", None)
    taken, lines = [], []
    for k, (started, p, h) in enumerate(reversed(heads)):
        if len(taken) == opt.window:
            if len(heads) > k:
                lines.append(f"history: {len(heads) - k} older file{'s' if len(heads) - k != 1 else ''} not read "
                             f"(--window {opt.window})")
            break
        light = dict(h, results=[])
        light.pop("devices", None)
        why = left_out(light, new0, opt, timed=False)
        if why is None:
            doc = loaded.get(p) or inputs.load(p)
            loaded[p] = doc
            if (doc["run"].get("started") or "") != started:
                return None, []
            why = left_out(doc, new, opt)
            if why is None:
                taken.append((p, doc))
                continue
        lines.append(f"history: {inputs.shown(p)} left out: {why}")
    return taken[::-1], lines


def history_base(new, hist, opt):
    """The history files that can judge NEW (same GPU model, driver, settings; measured), the newest
    --window of them, as (base, {key: [(uuid, record)]}, lines). base is a document holding the newest
    record of every point of the history, for what is missing, new or stopped. Usage when none fits."""
    lines, fit = [], []
    for path, doc in hist:
        why = left_out(doc, new, opt)
        if why is not None:
            lines.append(f"history: {inputs.shown(path)} left out: {why}")
            continue
        fit.append((doc["run"].get("started") or "", path, doc))
    if not fit:
        raise Usage("no history file has the GPU model, driver and settings of the new file: "
                    + "; ".join(line.split(": ", 1)[1] for line in lines[:3]))
    fit.sort(key=lambda x: x[0])
    if opt.window:
        fit = fit[-opt.window:]
    points, newest = {}, {}
    for _, path, doc in fit:
        for r in doc["results"]:
            key = reader.point_key(r)
            if key in newest and newest[key][0] is doc:
                raise Usage(f"{inputs.shown(path)}: point {reader.point_name(r)} appears twice; the comparison needs each "
                            "point once")
            newest[key] = (doc, r)
            if reader.timed(r) and r.get("verified", True):
                points.setdefault(key, []).append((uuid_of(doc, r), layout_of(doc, r), r))
    base = dict(fit[-1][2])
    base["results"] = [r for _, r in newest.values()]
    units = {u for v in points.values() for u, _, _ in v if u}
    nunits = f"{len(units)} GPU unit{'s' if len(units) != 1 else ''}" if units else "GPU units not recorded"
    lines.insert(0, f"history: {len(fit)} files from {fit[0][0][:10]} to {fit[-1][0][:10]}, {nunits}; each point against the median of its history, with "
                    f"its between-run spread measured there ({HISTORY_MIN} files at least, else the newest file "
                    "is its base)")
    return base, points, lines


# a pull-request comment GitHub accepts (it takes 65,536 characters), with room for what CI adds
MARKDOWN_CAP = 60000


def cap_markdown(lines, limit=None):
    """The Markdown lines within limit characters: every table keeps its header, the smallest tables
    and bulleted lists stay whole, and the rows (items) that do not fit are folded into a line under
    their table (list) saying how many were left out; every other line (headings, verdicts) is kept.
    compare, ab and fleet --markdown all go through it."""
    limit = MARKDOWN_CAP if limit is None else limit
    if sum(len(line) + 1 for line in lines) <= limit:
        return lines
    tables = []     # (first foldable line, end, what) of each table's rows after its header and rule, each list
    for mark, skip, what in (("|", 2, "rows"), ("- ", 0, "items")):
        start = None
        for i, line in enumerate(lines + [""]):
            if line.startswith(mark) and start is None:
                start = i
            elif not line.startswith(mark) and start is not None:
                if i - start > max(skip, 1):
                    tables.append((start + skip, i, what))
                start = None
    fold = ("", "*{} more {} left out: the comment is capped at {:,} characters (GitHub takes 65,536); "
                "without --markdown every row is listed*", "")
    reserve = sum(len(f) + 1 for f in fold) + 10
    rows = {i for a, b, _ in tables for i in range(a, b)}
    budget = limit - sum(len(line) + 1 for i, line in enumerate(lines) if i not in rows) - reserve * len(tables)
    keep = set()
    for a, b, _ in sorted(tables, key=lambda t: sum(len(lines[i]) + 1 for i in range(t[0], t[1]))):
        for i in range(a, b):
            if len(lines[i]) + 1 > budget:
                break
            budget -= len(lines[i]) + 1
            keep.add(i)
    out = []
    for i, line in enumerate(lines):
        if i not in rows or i in keep:
            out.append(line)
        for a, b, what in tables:
            if i == b - 1 and any(j not in keep for j in range(a, b)):
                left = sum(1 for j in range(a, b) if j not in keep)
                out += [fold[0], fold[1].format(left, what, limit), fold[2]]
    if sum(len(line) + 1 for line in out) > limit:
        # more files than tables can make room for: the text itself is cut, and says so
        text = "\n".join(out)[:limit - 200]
        out = text[:text.rfind("\n")].split("\n") + ["", f"*the rest is left out: the comment is capped at "
                                                         f"{limit:,} characters (GitHub takes 65,536)*"]
    return out


def run(argv):
    """(output lines, exit status); raises Usage for unusable input."""
    a = parse_args(argv)
    out, rc = compare_files(a)
    return (cap_markdown(out) if a.markdown else out), rc


def compare_files(a):
    """(output lines, exit status) of the parsed arguments."""
    if a.history:
        scipy_stats()
        try:
            news = [(f, inputs.load_named(f)) for f in a.new]
            paths = history_paths(a.history)
            news_ids = {(st.st_dev, st.st_ino) for st in map(os.stat, a.new)}
            paths = [p for p in paths if (os.stat(p).st_dev, os.stat(p).st_ino) not in news_ids]
            if not paths:
                raise Usage("no history file besides the new files; --history needs earlier result files")
            loaded = {}
            if not a.window:
                hist = [(p, inputs.load(p)) for p in paths]
        except reader.ResultError as e:
            raise Usage(str(e)) from None
        out, worst = [], 0
        for path, new in news:
            if not reader.timed_points(new):
                raise Usage(f"{inputs.shown(path)}: no timed point (a {new['run'].get('mode')}-mode file); the gate "
                            "compares times")
        for path, new in news:
            extra = []
            if a.window:
                try:
                    hist, extra = windowed_history(paths, new, a, loaded)
                    if hist is None:     # a header's date was not its file's: every file read whole
                        hist, extra = [(p, loaded.get(p) or inputs.load(p)) for p in paths], []
                except reader.ResultError as e:
                    raise Usage(str(e)) from None
                if not hist:
                    raise Usage("no history file has the GPU model, driver and settings of the new file: " +
                                "; ".join(line.split(": ", 1)[1] for line in extra[:3]))
            base, points, lines = history_base(new, hist, a)
            lines += extra
            name = inputs.shown(path)
            if len(news) > 1:
                out += ["", f"## {name}", ""] if a.markdown else [f"== {name}"]
            report, rc = gate_report("history", name, base, new, a, points, lines)
            out += report
            worst = max(worst, rc)
        return out, worst
    gate = not a.published and not a.across_devices
    if gate:
        scipy_stats()

    def load(path):
        doc = inputs.load_named(path)
        if gate and not reader.timed_points(doc):    # refused at once, before the next file is read
            raise Usage(f"{inputs.shown(path)}: no timed point (a {doc['run'].get('mode')}-mode file); the gate compares "
                        "times (--across-devices compares occupancy)")
        return doc
    try:
        base = load(a.base)
        news = [(f, load(f)) for f in a.new]
    except reader.ResultError as e:
        raise Usage(str(e)) from None
    if a.published:
        return published_report([base], a.markdown, required=inputs.shown(a.base)), 0
    out, worst = [], 0
    base_name = inputs.shown(a.base)
    for path, new in news:
        path = inputs.shown(path)
        if len(news) > 1:
            out += ["", f"## {path}", ""] if a.markdown else [f"== {path}"]
        if a.across_devices:
            out += across_report(base_name, path, base, new, a)
        else:
            lines, rc = gate_report(base_name, path, base, new, a)
            out += lines
            worst = max(worst, rc)
    return out, worst


def main(argv=None):
    return tool.run_tool(
        lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the comparison"), (Usage,),
        [(RecursionError, 2, "a result file is nested too deeply to compare")])
