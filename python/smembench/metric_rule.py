"""The gate's rules for what a point reports besides its time: every metric that has a direction
(results[].metrics: value, unit, better) and the deterministic counters (results[].counters, issue 48,
values of kind "counter"), and the benchmarks whose time is not gated (their descriptor's
between_run.time_gated false, with its reason).

  time-derived   a metric computed from the point's median time (a throughput, a share of a peak or
                 of a reference point's time, a per-clock figure, a slowdown): it moves with the time,
                 which is judged; it is checked for presence only, except a benchmark's gate_metric
                 (a time not gated: judged in the time's place with the history's levels)
  count          any other metric (stale words, clusters, SMs, bytes allocated, conflict passes
                 predicted or counted): judged as such, a change in its worse direction past the
                 tolerance is worse (fails), past it the other way better (listed)
  counter        an exact count (instructions, wavefronts: the file's "exact", else EXACT_WORDS): the
                 same on any unit, any change beyond COUNTER_TOLERANCE
                 is a change (an added bank conflict per request is one)
A metric (or counter) the base has and the new record lacks, has as null, or has newly as 0 where the
base had a value far from 0, is lost: it fails the gate (--allow metric accepts it), whatever the time
says. That is how a pooled result taken from a trial that never ran its check (0 stale words,
0 clusters measured) fails.
"""
import math

from smembench import levels
from smembench import reader

# units of metrics derived from the median time (smembench's own, bench/*.c)
TIME_UNITS = {"ns", "us", "ms", "s", "cycles", "x", "GB/s", "MB/s", "B/s", "G/s", "GFLOP/s", "TFLOP/s",
              "Gatomics/s", "B/clk/SM", "FLOP/clk/SM", "atomics/clk/SM"}
COUNT_TOLERANCE = 0.02       # a count may move this much (a share of stale words between processes)
# exact counters: instructions were equal on three H200 units at every bank point, shared-load
# wavefronts within 7.1e-6 (a few hundred of 158 million); one more wavefront per request is +11 %
# or more (results/counters/NOTES.md)
COUNTER_TOLERANCE = 1e-4
FAR_FROM_ZERO = 1e-9
# counters' directions (the Python side declares them: COUNTERS_JSON), by the words in their names
COUNTER_HIGHER = ("hit_rate", "warps_active")


def metric_kind(name, unit):
    """"time" (derived from the median time) or "count"."""
    if name.startswith("predicted_"):
        return "count"
    if name.startswith("pct_of_") or unit in TIME_UNITS:
        return "time"
    return "count"


def counter_better(name):
    return "higher" if any(w in name for w in COUNTER_HIGHER) else "lower"


def not_gated(b, n):
    """(reason, gate metric or None) where the point's benchmark declares its time not gated (the NEW
    record's descriptor, else BASE's), else None."""
    for r in (n, b):
        v = r.get("between_run") if r is not None else None
        if isinstance(v, dict) and "time_gated" in v:
            if v.get("time_gated") is False:
                why = v.get("not_gated")
                gm = v.get("gate_metric")
                return (why if isinstance(why, str) and why else "declared not gated"), (gm if isinstance(gm, str) and gm else None)
            return None
    return None


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# the counts that are the same on every unit and run, for files written before each counter said so
# ("exact"): instructions and wavefronts. The bank-conflict counter and DRAM bytes are counts that
# move: on two H200 units the conflicts of one bank point differed by 14.5 % with equal wavefronts
# (results/counters/NOTES.md)
EXACT_WORDS = ("wavefronts", "inst_executed")


def exact(name, entry):
    """Whether a counter is an exact signal: the file's word, else EXACT_WORDS."""
    e = entry.get("exact") if isinstance(entry, dict) else None
    if isinstance(e, bool):
        return e
    return entry.get("kind") == "counter" and any(w in name for w in EXACT_WORDS)


def counter_values(r):
    """{name: (value or None, kind, unit)} of a record's counters, {} where it has none (not asked
    for); kind is "exact" for an exact count (exact())."""
    c = r.get("counters") if r is not None else None
    vals = c.get("values") if isinstance(c, dict) else None
    if not isinstance(vals, dict):
        return {}
    out = {}
    for name, e in vals.items():
        if isinstance(e, dict):
            v = e.get("value")
            out[name] = (float(v) if _number(v) else None, "exact" if exact(name, e) else e.get("kind"),
                         e.get("unit"))
    return out


def _finding(point, bench, what, verdict, vb, vn, text, unit=""):
    change = (vn / vb - 1) if _number(vb) and _number(vn) and vb else None
    return {"kind": "metric", "name": f"{point} {what}", "point": point, "bench": bench, "metric": what,
            "verdict": verdict, "base_value": vb, "new_value": vn, "change": change, "text": text, "unit": unit}


def lost(vb, vn, better=None):
    """Why a metric is lost between base and new, or None. A metric that is better lower (a
    mismatch, a count of conflicts) reaching 0 is not lost: it is better (the clusters' mismatch
    read 0 once the probe's count came back, where the trials' zeros had made it the API's count)."""
    if not _number(vb):
        return None
    if vn is None:
        return "absent or null in new"
    if not _number(vn):
        return "not a number in new"
    if vn == 0 and abs(vb) > FAR_FROM_ZERO and better != "lower":
        return f"newly 0 (base {vb:.6g})"
    return None


def compare_count(vb, vn, better, tol):
    """"worse", "better" or "same" of a count."""
    if vb == 0:
        if vn == 0:
            return "same"
        up = vn > 0
    else:
        d = vn / vb - 1
        if abs(d) <= tol:
            return "same"
        up = d > 0
    return "better" if up == (better == "higher") else "worse"


def history_values(hist, name, getter):
    """[(unit, value)] of a metric in a point's history ([(uuid, layout, record)])."""
    out = []
    for u, _, r in hist or ():
        v = getter(r, name)
        if _number(v):
            out.append((u, v))
    return out


def metric_value(r, name):
    return reader.metric(r, name) if isinstance(r.get("metrics"), dict) else None


def judge_metrics(b, n, point, opt, hist=None, new_unit=None, stats=None, members=None):
    """The findings (list of dicts, kind "metric") of one point's metrics and counters, BASE record b
    against NEW record n (hist: the point's history, [(uuid, layout, record)], where the gate has one)."""
    out = []
    bench = n["bench"]
    ng = not_gated(b, n)
    gate_metric = ng[1] if ng else None
    bm = b.get("metrics") if isinstance(b.get("metrics"), dict) else {}
    for name in bm:
        better = reader.better(b, name)
        if better is None:
            continue
        unit = reader.unit(b, name)
        vb = metric_value(b, name)
        vn = metric_value(n, name)
        why = lost(vb, vn, better)
        if why:
            out.append(_finding(point, bench, name, "lost", vb, vn, f"metric {name} ({unit}) {why}", unit))
            continue
        if vb is None:
            continue
        kind = metric_kind(name, unit)
        if name == gate_metric and stats is not None:
            out.append(judge_gate_metric(b, n, point, name, better, unit, opt, hist, new_unit, stats, members))
            continue
        if kind != "count":
            continue
        tol = COUNT_TOLERANCE
        hv = [v for _, v in history_values(hist, name, metric_value)]
        if len(hv) >= 2:
            c = levels.median(hv)
            spread = (max(hv) - min(hv)) / abs(c) if c else 0.0
            tol = max(tol, spread)
            ref = c
        else:
            ref = vb
        verdict = compare_count(ref, vn, better, tol)
        if verdict != "same":
            out.append(_finding(point, bench, name, verdict, ref, vn,
                                f"count {name} ({unit}) {ref:.6g} -> {vn:.6g}, past ±{100 * tol:.1f} % "
                                f"({better} is better)", unit))
        else:
            out.append(_finding(point, bench, name, "same", ref, vn, "", unit))
    cb, cn = counter_values(b), counter_values(n)
    for name, (vb, kind, unit) in cb.items():
        if kind != "exact" or vb is None:
            continue
        vn = cn.get(name, (None, None, None))[0]
        why = lost(vb, vn)
        if why:
            out.append(_finding(point, bench, name, "lost", vb, vn, f"counter {name} {why}", unit or ""))
            continue
        better = counter_better(name)
        verdict = compare_count(vb, vn, better, COUNTER_TOLERANCE)
        moved = f"{100 * (vn / vb - 1):+.2f} %" if vb else "from 0"
        text = "" if verdict == "same" else (f"counter {name} {vb:.10g} -> {vn:.10g} ({moved}, exact on any unit; "
                                             f"{better} is better)")
        out.append(_finding(point, bench, name, verdict, vb, vn, text, unit or ""))
    for f in out:
        f["base"], f["new"] = b, n
    return out


def judge_gate_metric(b, n, point, name, better, unit, opt, hist, new_unit, stats, members):
    """A benchmark's gate_metric in its time's place: the history's levels of it (levels.judge_levels,
    no standard error: one value per record), else BASE's value with the declared variation as the band."""
    vb, vn = metric_value(b, name), metric_value(n, name)

    def worse_up(v):        # larger is worse, as judge_levels takes it
        return v if better == "lower" else 1 / v
    hv = [(u, worse_up(v)) for u, v in history_values(hist, name, metric_value) if v > 0]
    if len(hv) >= 3 and vn > 0:
        declared = {"run": (n.get("between_run") or {}).get("run_pct", 0) / 100,
                    "unit": (n.get("between_run") or {}).get("unit_pct", 0) / 100}
        res = levels.judge_levels(hv, worse_up(vn), new_unit, opt, 0.0, stats, declared, members, time=False)
        ref = 1 / res["center"] if better == "higher" else res["center"]
        verdict = {"slower": "worse", "faster": "better"}.get(res["verdict"], res["verdict"])
        text = res["reason"] and f"gate metric {name} ({unit}): {res['reason']}"
    else:
        allow = max(opt.threshold / 100, ((n.get("between_run") or {}).get("unit_pct") or 0) / 100)
        ref = vb
        verdict = compare_count(vb, vn, better, allow)
        text = "" if verdict == "same" else f"gate metric {name} ({unit}) past ±{100 * allow:.1f} %"
    f = _finding(point, bench_of(n), name, verdict, ref, vn, text, unit)
    f["gate_metric"] = True
    return f


def bench_of(r):
    return r["bench"]
