"""The comparison gate's rules and decisions, for compare, ab, trend, report and fleet: how a point
timed in two files (or against a history of them) is judged slower, faster, same or uncertain, how
points and runs are matched, and what about two runs fails the gate. compare.py's --help says the
rules in words; its text, Markdown and JSON forms are gate_format's.
"""
import argparse
import dataclasses
import math

from smembench import levels
from smembench import metric_rule
from smembench import reader
from smembench.cli import Usage
from smembench.tables import fmt

DRIFT_PER_NOISE = 3          # a point may drift between runs by this many times its noise


MEDIAN_SE = math.sqrt(math.pi / 2)   # standard error of a median over that of a mean (normal samples)
MIN_SAMPLES = 3              # fewer samples a side say nothing about the noise
HISTORY_MIN = 3              # fewer history files say nothing about a point's between-run spread
ALLOW_KINDS = ("missing", "new", "status", "device", "driver", "clock", "settings", "metric")
MISMATCH_KINDS = ("device", "driver", "clock", "settings")
DEVICE_FIELDS = ("name", "cc", "sm_count", "smem_per_sm", "smem_per_block", "smem_per_block_optin",
                 "reserved_smem_per_block", "max_blocks_per_sm", "max_threads_per_sm", "regs_per_sm", "model")
DRIVER_FIELDS = ("driver_version", "runtime_version", "driver_release")
# settings an older file may lack, and the value it then ran with
SETTING_DEFAULTS = {"cold": False, "no_optin": False, "quick": False}
# settings that say how a point was sampled, not what it measures: every process draws its own order
# of the trials, and a file of one trial judges one of three (the trials pool the same samples)
SETTINGS_NOT_COMPARED = ("order_seed", "trials")
LOSS_STATUSES = ("failed", "invalid")


def scipy_stats():
    try:
        import numpy
        from scipy import stats
    except ImportError:
        raise Usage("compare.py needs SciPy and NumPy: install python3-scipy (scripts/setup.sh does)") from None
    return numpy, stats


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
    trial_levels = max([x for x in (reader.trial_range(b), reader.trial_range(n)) if x is not None], default=None)
    out["levels"] = trial_levels
    for widen in (allow, trial_levels):
        if widen is not None and widen + z * se > t:
            t = widen + z * se
            out["band"] = t
    # a band wider than --max-band cannot resolve a change inside it; a change past it is a change
    if out["band"] is not None and out["band"] > max_band(opt) and abs(change) < out["band"]:
        return dict(out, verdict="uncertain", reason=wide_band(out["band"], opt, trial_levels, allow))
    # the least drift: a share of the time, or for a short kernel the fixed part of a launch
    floor = max(opt.drift / 100, opt.drift_ns / mb, allow or 0, trial_levels or 0)
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


def judge_history(hist, n, opt, b, unit, members=None):
    """The verdict on a point of NEW against its history: hist is the list of the point's (uuid,
    layout, record) in the history files (timed, oldest first), unit NEW's (uuid, layout), members
    the units of NEW's class (levels.unit_classes; None: none). The history's units sit on levels:
    each unit's level is the median of its runs, and the run-to-run band of one unit is measured
    from the runs around their own unit's level (levels.within_spread). Where the history holds
    NEW's unit, NEW is judged against that unit's level with the within-unit band; where it does
    not, against the levels of NEW's class (else every unit's levels), from the fastest to the
    slowest widened by the within-unit band (levels.judge_levels). The declared variation is the
    floor only where the history is too short to measure it. Past the band: slower or faster,
    whatever its width; inside a band wider than --max-band: uncertain. Under HISTORY_MIN runs the
    newest is the base, as with one base file."""
    np, stats = scipy_stats()
    own = [h for h in hist if unit[0] is not None and h[0] == unit[0]]
    if len(hist) < HISTORY_MIN:
        u, lay, last = hist[-1]
        ctx = unit_context(u, lay, *unit)
        out = judge(last, n, opt, allowance(b, n, ctx))
        return dict(out, history=len(hist), unit=ctx != "run")
    order = ("run", "unit", "layout")
    others = [h for h in hist if h not in own] or hist
    ctx = "run" if own else min((unit_context(u, lay, *unit) for u, lay, _ in others), key=order.index)
    mn, rn, sn = reader.steady(n)
    out = {"change": None, "noise": (None, sn), "samples": (len(hist), len(rn)), "p": None, "band": None,
           "history": len(hist), "unit": ctx != "run"}
    if throttled(n):
        return dict(out, change=mn / levels.median([reader.steady_median(r) for _, _, r in hist]) - 1,
                    verdict="uncertain", reason="every sample throttled in new")
    if len(rn) < MIN_SAMPLES or sn is None:
        return dict(out, change=mn / levels.median([reader.steady_median(r) for _, _, r in hist]) - 1,
                    verdict="uncertain", reason=f"too few samples in new ({len(rn)}; {MIN_SAMPLES} at least)")
    se = MEDIAN_SE * sn / math.sqrt(len(rn))
    declared = {"run": allowance(b, n, "run"), "unit": allowance(b, n, ctx if ctx != "run" else "unit")}
    res = levels.judge_levels([(u, reader.steady_median(r)) for u, _, r in hist], mn, unit[0], opt, se, stats,
                              declared, members)
    out.update(res)
    out["noise"] = (res["within"][0], sn)
    return out


def history_classes(history, new):
    """(classes, NEW's class name or None, its members or None) of a history ({key: [(uuid,
    layout, record)]}) and NEW: the units clustered by their levels (levels.unit_classes), NEW's the
    class its unit belongs to, else the nearest by its own times."""
    lv = levels.point_levels(history)
    classes = levels.unit_classes(lv)
    uuid = reader.devices(new)[0].get("uuid")
    nvals = {reader.point_key(r): reader.steady_median(r) for r in new["results"] if reader.timed(r)}
    name = levels.class_of(classes, levels.bench_vector(lv, nvals), uuid)
    members = next((m for c, m, _ in classes if c == name), None)
    if members is not None and uuid not in members:
        # a unit the history has not seen is named with its nearest class but judged against every
        # unit's levels: one file places it only roughly (on three new H200 units, judging within
        # the nearest class made dsm_latency's 3.5 % between-unit level a slower point)
        members = None
    return classes, name, members


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
    members = history_classes(history, new)[2] if history else None
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
                row.update(kind="timed", **judge_history(history[key], n, opt, b, (uuid_of(new, n), layout_of(new, n)),
                                                        members))
            elif reader.timed(b):
                ctx = unit_context(uuid_of(base, b), layout_of(base, b), uuid_of(new, n), layout_of(new, n))
                row.update(kind="timed", unit=ctx != "run", **judge(b, n, opt, allowance(b, n, ctx)))
            else:
                row.update(kind="untimed", text=b["status"])
        ng = metric_rule.not_gated(b, n) if b is not None and n is not None else None
        if ng and row["kind"] == "timed":
            # the benchmark's time is not its result (its descriptor says why): listed, never judged
            row.update(verdict="not gated", reason=ng[0], band=None, judged=row["verdict"])
        rows.append(row)
        if b is not None and n is not None and row["kind"] in ("timed", "status"):
            hist = history.get(key) if history else None
            stats = scipy_stats()[1] if ng and ng[1] else None
            rows += [m for m in metric_rule.judge_metrics(b, n, row["name"], opt, hist, uuid_of(new, n), stats,
                                                          members) if m["verdict"] != "same" or m.get("gate_metric")]
    return rows


def compare(base, new, threshold, alpha, drift=1.0):
    """The gate's decision per point for another program (the report): rows of (name, base median
    ns, new median ns, change, p, verdict) in BASE's order, then NEW's own points. threshold is a
    fraction (0.02), drift in percent. verdict: slower, faster, same, "uncertain (reason)",
    "stopped (ok -> failed ...)", "started (...)", missing, new; points timed in neither are left out;
    no row at all when the files have no point in common."""
    opt = Options(threshold=100 * threshold, alpha=alpha, drift=drift)
    try:
        points = compare_points(base, new, opt)
    except Usage as e:              # a point listed twice: the caller reports unusable files
        raise reader.ResultError(str(e)) from None
    if not any(r["kind"] in ("timed", "status", "untimed") for r in points):
        return []                   # nothing in common: nothing to compare
    rows = []
    for r in points:
        b, n = r.get("base"), r.get("new")
        mb = reader.steady_median(b) if b is not None and reader.timed(b) else None
        mn = reader.steady_median(n) if n is not None and reader.timed(n) else None
        if r["kind"] == "timed":
            verdict = r["verdict"] + (f" ({r['reason']})" if r["reason"] else "")
            rows.append((r["name"], mb, mn, r["change"], r["p"], verdict))
        elif r["kind"] == "status":
            rows.append((r["name"], mb, mn, None, None, f"{'stopped' if r['lost'] else 'started'} ({r['text']})"))
        elif r["kind"] in ("missing", "new"):
            rows.append((r["name"], mb, mn, None, None, r["kind"]))
        elif r["kind"] == "metric" and r["verdict"] in ("lost", "worse"):
            rows.append((r["name"], None, None, r["change"], None, f"metric {r['verdict']} ({r['text']})"))
    return rows


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
        if r["kind"] == "metric":
            k = "metric " + r["verdict"]
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
    for key, word in (("metric lost", "lost"), ("metric worse", "worse")):
        if count.get(key) and "metric" not in allowed:
            failing.append(f"{count[key]} metric{'s' if count[key] != 1 else ''} {word}")
    for kind in MISMATCH_KINDS:
        if any(k == kind for k, _ in found) and kind not in allowed:
            failing.append(f"{kind} mismatch")
    return rows, found, count, failing, 1 if failing else 0


def allow_list(text):
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    for k in kinds:
        if k not in ALLOW_KINDS + ("all",):
            raise argparse.ArgumentTypeError(f'invalid kind "{k}"; expected {",".join(ALLOW_KINDS)} or all')
    return list(ALLOW_KINDS) if "all" in kinds else kinds


def add_verdict_options(ap):
    """--max-band and --uncertain, the same in the gate and in A/B."""
    ap.add_argument("--max-band", type=float, default=DEFAULTS.max_band, metavar="PCT",
                    help="the widest band a point is judged at, in percent (5): a point whose band (its measured "
                         "variation between runs, units or setups) is wider is uncertain, never same or slower")
    ap.add_argument("--uncertain", choices=("pass", "fail"), default=DEFAULTS.uncertain,
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


@dataclasses.dataclass
class Options:
    """The gate's options with compare's defaults: threshold, drift and max_band in percent, drift_ns
    in nanoseconds, alpha the U test's level, allow the findings that do not fail the gate (ALLOW_KINDS),
    uncertain "pass" or "fail", window the newest history files taken (0: all), markdown the output's
    form."""
    threshold: float = 2.0
    drift: float = 1.0
    drift_ns: float = 500.0
    alpha: float = 0.01
    allow: list = dataclasses.field(default_factory=list)
    max_band: float = 5.0
    uncertain: str = "pass"
    window: int = 0
    markdown: bool = False
    json: bool = False


DEFAULTS = Options()


def options(**values):
    """Options with the given values, checked as compare's command line checks them (Usage for a
    value it refuses): what another program (the report) judges with is the gate's own."""
    opt = Options(**values)
    check_rule_options(opt)
    check_max_band(opt)
    return opt
