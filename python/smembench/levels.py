"""Units' levels, measured from a history of files (the history gate and the fleet view): each
unit's level per point (the median of its runs), the spread of runs around their own unit's level
(the within-unit band), the classes the units fall into (units whose levels sit together across
benchmarks), and the rule that judges a new value against its own unit's level, its class's
levels or the spread of every unit's levels.

Units sit on levels: stable within a unit, a few levels across units of one model (three of nine
H200s sit 2.4-4 % slower on the DRAM-streaming benchmarks and 1.2-1.6 % faster on global_read,
reduction and staging_bulk, at the same clock). A history of several units shows them; a new run
of a unit the history holds is judged against that unit's level with the within-unit band, a unit
it does not hold against the levels of its class (or of every unit), the band then reaching from
the fastest level to the slowest, widened by the within-unit band. A change past the band is a
change, whatever its width; inside a band wider than --max-band it is uncertain.
"""
import math

from smembench import reader

# units whose per-benchmark deviation vectors are closer than this (root mean square of the log
# ratios over the benchmarks) are one class: within a class the H200 units' vectors lie 0.2-0.5 %
# apart, the two classes 1.1-1.6 % (lab/pool_sim.py prints them)
CLASS_CUTOFF = 0.009
CLASS_MIN_UNITS = 3          # fewer units with a point say nothing about which levels are classes
WITHIN_MIN_DF = 3            # fewer degrees of freedom of the within-unit spread: the declared floor


def median(xs):
    m = sorted(xs)
    k = len(m)
    return m[k // 2] if k % 2 else (m[k // 2 - 1] + m[k // 2]) / 2


def by_unit(values):
    """{unit: [values]} of (unit, value) pairs; a run without a unit is a unit of its own."""
    out = {}
    for i, (u, v) in enumerate(values):
        out.setdefault(u if u is not None else ("run", i), []).append(v)
    return out


def within_spread(units):
    """(relative standard deviation, degrees of freedom) of the runs around their own unit's mean
    (log ratios), pooled over the units with two runs or more: the run-to-run band of one unit,
    measured. (None, 0) where no unit has two runs."""
    ss, df = 0.0, 0
    for vals in units.values():
        if len(vals) >= 2:
            logs = [math.log(v) for v in vals]
            m = sum(logs) / len(logs)
            ss += sum((x - m) ** 2 for x in logs)
            df += len(logs) - 1
    return (math.sqrt(ss / df) if df else None), df


def point_levels(history):
    """{point key: {unit: level}} of a history ({key: [(uuid, layout, record)]}): each unit's median
    of its runs' medians at their top clock."""
    out = {}
    for key, hist in history.items():
        units = by_unit([(u, reader.steady_median(r)) for u, _, r in hist])
        out[key] = {u: median(v) for u, v in units.items() if not isinstance(u, tuple)}
    return out


def bench_vector(levels, values):
    """{benchmark: median log ratio of values to the median level of the units} over the points
    values has (values: {key: time}); the shape a unit's levels have across the benchmarks."""
    per = {}
    for key, v in values.items():
        lv = levels.get(key)
        if not lv or len(lv) < CLASS_MIN_UNITS or v is None or v <= 0:
            continue
        per.setdefault(key[0], []).append(math.log(v / median(list(lv.values()))))
    return {b: median(x) for b, x in per.items()}


def distance(a, b):
    common = [k for k in a if k in b]
    if not common:
        return math.inf
    return math.sqrt(sum((a[k] - b[k]) ** 2 for k in common) / len(common))


def centroid(vectors):
    keys = set().union(*vectors)
    return {k: median([v[k] for v in vectors if k in v]) for k in keys}


def unit_classes(levels):
    """[(name, [units], centroid)]: the units clustered by the shape of their levels across the
    benchmarks (average linkage, joined while the classes are closer than CLASS_CUTOFF), the
    largest class first, named A, B, ... Units of a class sit on one level on every benchmark."""
    units = sorted({u for lv in levels.values() for u in lv})
    vec = {u: bench_vector(levels, {k: lv[u] for k, lv in levels.items() if u in lv}) for u in units}
    groups = [[u] for u in units if vec[u]]
    while len(groups) > 1:
        best = None
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                d = [distance(vec[a], vec[b]) for a in groups[i] for b in groups[j]]
                d = sum(d) / len(d)
                if best is None or d < best[0]:
                    best = (d, i, j)
        if best[0] >= CLASS_CUTOFF:
            break
        _, i, j = best
        groups[i] += groups.pop(j)
    groups.sort(key=lambda g: (-len(g), g))
    return [(chr(ord("A") + i), g, centroid([vec[u] for u in g])) for i, g in enumerate(groups)]


def class_of(classes, vector, unit=None):
    """The class a unit belongs to: its own where the history holds it, else the nearest class
    whose centroid lies within CLASS_CUTOFF of its vector, else None (a level no class shows)."""
    for name, members, _ in classes:
        if unit is not None and unit in members:
            return name
    near = [(distance(vector, c), name) for name, _, c in classes if len(c)]
    near = [x for x in near if x[0] < CLASS_CUTOFF]
    return min(near)[1] if near else None


def judge_levels(values, new, unit, opt, se, stats, declared=None, members=None, time=True):
    """The verdict on a new value against a history's values of one point (values: [(unit, value)],
    larger is worse, a time or the inverse of a higher-is-better metric): a dict with verdict,
    change, band, center, reason, how ("own unit", "class X", "units"). unit: the new file's unit;
    se: the new value's relative standard error (0 where it has none); declared: {"run": x,
    "unit": y} fractions, floors where the history is too short to measure; members: the units of
    the new unit's class (None: no class); time: the values are times (--drift-ns floors the band),
    else a metric's.
      own unit in the history: center its level, band the within-unit band (a one-sided t bound of
        the pooled within-unit spread, sqrt(1 + 1/k) over its k runs) + z se, at least --threshold,
        --drift and --drift-ns
      else: the levels of its class's units there (else every unit's), the band from the fastest
        level less the within-unit band to the slowest plus it
    Past the band (and --threshold from the center): slower or faster; inside: same, or uncertain
    where the band is wider than --max-band (a change inside cannot be resolved)."""
    units = by_unit(values)
    levels = {u: median(v) for u, v in units.items()}
    sd, df = within_spread(units)
    z = float(stats.norm.ppf(1 - opt.alpha))
    t_threshold = opt.threshold / 100
    own = units.get(unit) if unit is not None else None
    declared = declared or {}
    if own:
        center, k, how = levels[unit], len(own), "own unit"
        lo = hi = center
    else:
        pick = [u for u in levels if members is not None and u in members]
        how = "class" if pick else "units"
        pick = pick or list(levels)
        lv = [levels[u] for u in pick]
        center, k = median(lv), 1
        lo, hi = min(lv), max(lv)
        if len(pick) < CLASS_MIN_UNITS and declared.get("unit") is not None:   # too few units to show levels
            lo, hi = min(lo, center * (1 - declared["unit"])), max(hi, center * (1 + declared["unit"]))
    if sd is not None and df >= WITHIN_MIN_DF:
        w = float(stats.t.ppf(1 - opt.alpha, df)) * sd * math.sqrt(1 + 1 / k)
        measured = True
    else:
        w = declared.get("run") or 0.0
        measured = False
    w = max(w + z * se, opt.drift / 100, getattr(opt, "drift_ns", 500.0) / center if time else 0.0)
    upper, lower = hi * (1 + w), lo * (1 - w)
    change = new / center - 1
    band = max(upper / center - 1, 1 - lower / center, t_threshold)
    out = {"change": change, "center": center, "band": band if band > t_threshold else None, "how": how,
           "within": (sd, df), "levels": (lo, hi, len(levels))}
    where = {"own unit": f"its unit's level over {k} run{'s' if k != 1 else ''}",
             "class": "the levels of its class's units", "units": f"the levels of {len(levels)} units"}[how]
    wsrc = f"within-unit band ±{100 * w:.1f} % ({'measured, ' + str(df) + ' df' if measured else 'declared'})"
    if new > upper and change >= t_threshold:
        return dict(out, verdict="slower", reason=f"past {where} and the {wsrc}")
    if new < lower and change <= -t_threshold:
        return dict(out, verdict="faster", reason=f"past {where} and the {wsrc}")
    widest = getattr(opt, "max_band", 5.0)     # another program's options (trend) may lack it
    if band > widest / 100:
        return dict(out, verdict="uncertain",
                    reason=f"inside a band ±{100 * band:.1f} % > {widest:g} % ({where}, {wsrc}): a change "
                           "inside it cannot be told from the unit or the run")
    return dict(out, verdict="same", reason="")
