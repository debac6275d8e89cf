"""The A/B's paired rule (smembench-ab, whose --help says it in words): two builds' rounds on one
GPU judged point by point from the per-round ratios of their medians, each taken at one SM clock,
against the floor one build moves by between its own processes (and, given a history, on one unit
there); and which undecided points more rounds can decide.
"""
import math

from smembench import gate
from smembench import reader


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
    np, stats = gate.scipy_stats()
    t = opt.threshold / 100
    z = float(stats.norm.ppf(1 - opt.alpha))
    maps = [(gate.by_key(b, "base"), gate.by_key(h, "head")) for b, h in rounds]
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
        sc = gate.status_change(b0, h0)
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
        if band > gate.max_band(opt):
            row.update(verdict="uncertain", reason=gate.wide_band(band, opt, levels or None) +
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
            r.get("floor") is not None and r["floor"] <= gate.max_band(opt)]
