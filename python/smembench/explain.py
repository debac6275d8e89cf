"""Why a configuration costs what it costs: each step in time between neighbouring points of a
sweep axis (carveout_pct, dyn_smem_bytes, block, any axis a benchmark varies) that is larger than
the points' noise, with the hardware counters that moved with it (smembench --counters, issue 48):

    gather: 183.6 -> 413 us (+125 %) from 50 % to 60 %: L1 hit rate 89 -> 41 % (-48 points), DRAM
    bytes read 8 M -> 32.8 M (x4.1)

The report prints these under each sweep, and `smembench-report --explain FILES` on stdout.
A step is past the noise when the change of the median is more than NOISE_FLOOR and more than
NOISE_TIMES x the larger of the two points' noise (each point's robust spread or, larger where the
file has trials, the range of its trials' medians: what one setup to the next moves it). A counter
moved when a percentage changed by PCT_MOVED points or more, any other value by COUNT_MOVED or more
of itself and by more than its floor (RATIO_MOVED warps per issue for a stall, BYTES_MOVED of DRAM
traffic, PER_REQUEST_MOVED per request); the percentages are named first (by the points they moved), then the others (by the factor);
the per-request quantities (conflicts and wavefronts per shared-memory request) are
derived from the counters (smembench.counters.derived).
"""
import math

from smembench import counters as smem_counters
from smembench import reader

NOISE_FLOOR = 0.02
NOISE_TIMES = 3.0
PCT_MOVED = 2.0
COUNT_MOVED = 0.10
# floors below which a move is the counter's own noise, whatever its factor (measured on the H200:
# a stall reason of 0.0003 warps per issue tripled between neighbouring carveouts of the layernorm
# with its time unchanged; an L2-resident kernel's DRAM bytes went from 0 to 768 and back)
RATIO_MOVED = 0.5        # warps per issue, for the stall ratios
BYTES_MOVED = 1 << 20    # bytes of DRAM traffic in one launch
PER_REQUEST_MOVED = 0.05  # wavefronts or conflicts per shared-memory request
# the counters named at a step, the largest moves first
MOST = 4


def noise(r):
    """The point's relative noise: the larger of its robust spread and its trials' range (0 where
    the file has neither)."""
    vals = [v for v in (reader.robust_spread(r), reader.trial_range(r)) if v is not None]
    return max(vals) if vals else 0.0


def axis_text(axis, v):
    """An axis value as a person reads it: "60 %", "default" (carveout -1: no hint), "48 KiB"."""
    if axis == "carveout_pct":
        return "default" if v < 0 else f"{v} %"
    if axis.endswith("_bytes"):
        return f"{v // 1024} KiB" if v and v % 1024 == 0 else f"{v} B"
    if axis.endswith("_kib"):
        return f"{v} KiB"
    return f"{axis} {v}"


def amount(v):
    """A count in few characters: 8 M, 32.8 M, 1.05 G, 950, 0.25."""
    a = abs(v)
    for scale, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if a >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"


class Moved:
    """One counter (or derived quantity) that moved between two points."""

    def __init__(self, name, label, unit, before, after):
        self.name, self.label, self.unit, self.before, self.after = name, label, unit, before, after
        # the order they are named in: percentages (hit rates, occupancy) first by the points they
        # moved, then every other value by the factor it moved
        if unit == "%":
            self.order = (0, -abs(after - before))
        elif before == 0 or after == 0:
            self.order = (1, -math.inf)
        else:
            self.order = (1, -abs(math.log(after / before)))

    def text(self):
        b, a = self.before, self.after
        if self.unit == "%":
            return f"{self.label} {b:.3g} -> {a:.3g} % ({a - b:+.3g} points)"
        unit = "" if self.unit in ("", "ratio", "bytes", "inst", "wavefronts", "conflicts") else f" {self.unit}"
        if b != 0 and a != 0 and (a / b >= 2 or a / b <= 0.5):
            how = f"x{a / b:.2g}" if a / b >= 2 else f"/{b / a:.2g}"
        elif b != 0:
            how = f"{(a / b - 1) * 100:+.0f} %"
        else:
            how = "from none"
        return f"{self.label} {amount(b)} -> {amount(a)}{unit} ({how})"


def _moved(before, after, name, label, unit):
    if before is None or after is None:
        return None
    if unit == "%":
        return Moved(name, label, unit, before, after) if abs(after - before) >= PCT_MOVED else None
    if before == after:
        return None
    floor = {"ratio": RATIO_MOVED, "bytes": BYTES_MOVED, "": PER_REQUEST_MOVED}.get(unit, 0)
    if abs(after - before) < floor:
        return None
    if before == 0 or after == 0 or abs(after / before - 1) >= COUNT_MOVED:
        return Moved(name, label, unit, before, after)
    return None


def moved(a, b):
    """[Moved] of the counters and derived quantities that moved from point a to point b, the
    largest first (at most MOST)."""
    ca, cb = reader.counters(a), reader.counters(b)
    out = []
    for name in ca:
        if name in cb:
            m = _moved(ca[name]["value"], cb[name]["value"], name, smem_counters.label(name),
                       cb[name]["unit"] or ca[name]["unit"])
            if m:
                out.append(m)
    da, db = smem_counters.derived(a), smem_counters.derived(b)
    for name in da:
        if name in db:
            m = _moved(da[name][0], db[name][0], name, name, "")
            if m:
                out.append(m)
    out.sort(key=lambda m: m.order)
    return out[:MOST]


class Step:
    """A step in time between two neighbouring points of one axis, with what moved."""

    def __init__(self, bench, axis, fixed, a, b):
        self.bench, self.axis, self.fixed, self.a, self.b = bench, axis, fixed, a, b
        self.before, self.after = reader.median_ns(a), reader.median_ns(b)
        self.change = self.after / self.before - 1
        self.moved = moved(a, b)
        self.has_counters = bool(reader.counters(a)) and bool(reader.counters(b))

    def where(self):
        return f" ({', '.join(f'{k}={v}' for k, v in self.fixed)})" if self.fixed else ""

    def text(self, said=False):
        """The step in one line; said: the file's lack of counters is already said (no word here)."""
        head = (f"{self.bench}{self.where()}: {self.before / 1e3:.4g} -> {self.after / 1e3:.4g} us "
                f"({self.change * 100:+.0f} %) from {axis_text(self.axis, self.a['params'][self.axis])} to "
                f"{axis_text(self.axis, self.b['params'][self.axis])}")
        ra, rb = blocks(self.a), blocks(self.b)
        if ra is not None and rb is not None and ra != rb:
            head += f", {ra:g} -> {rb:g} blocks per SM"
        if not self.has_counters and said:
            return head
        if not self.has_counters:
            why = [x for x in (reader.counter_status(self.a), reader.counter_status(self.b)) if x[0] not in (None, "ok")]
            return head + (f": no counters at the point ({why[0][0]}: {why[0][1] or 'no reason given'})" if why
                           else ": no counters at these points")
        if not self.moved:
            return head + f": no counter moved (by {PCT_MOVED:g} points or {COUNT_MOVED * 100:g} %)"
        return head + ": " + ", ".join(m.text() for m in self.moved)


def blocks(r):
    occ = r.get("occupancy") or {}
    for k in ("measured", "api"):
        if isinstance(occ.get(k), (int, float)):
            return occ[k]
    return None


def steps(doc):
    """[Step] of the document: for each benchmark (and device) and each axis its points vary, the
    lines of points equal in every other parameter, sorted by the axis; each neighbouring pair
    whose time changed past the noise (see the module's docstring)."""
    groups = {}
    for r in reader.timed_points(doc):
        groups.setdefault((r["bench"], r.get("device_index", 0)), []).append(r)
    out = []
    for (bench, _), pts in groups.items():
        names = list(dict.fromkeys(k for r in pts for k in r["params"]))
        varying = [k for k in names if len({r["params"].get(k) for r in pts}) > 1]
        for axis in varying:
            lines = {}
            for r in pts:
                if axis in r["params"]:
                    rest = tuple((k, r["params"].get(k)) for k in names if k != axis)
                    lines.setdefault(rest, []).append(r)
            for rest, line in lines.items():
                line.sort(key=lambda r: r["params"][axis])
                fixed = tuple((k, v) for k, v in rest if k in varying)
                for a, b in zip(line, line[1:]):
                    if a["params"][axis] == b["params"][axis]:
                        continue
                    change = abs(reader.median_ns(b) / reader.median_ns(a) - 1)
                    if change > max(NOISE_FLOOR, NOISE_TIMES * max(noise(a), noise(b))):
                        out.append(Step(bench, axis, fixed, a, b))
    return out


def header(doc):
    """Why the document has no counters, one line ([] where it has them): it did not ask for them,
    or it asked and could not have them."""
    if not asked(doc):
        return ["no counters: the file did not ask for them (smembench --counters)"]
    why = smem_counters.status_line(doc)
    return [why] if why else []


def lines(doc):
    """The explanation of one document as lines of text: header(), then one line per step in time,
    or one saying there is none."""
    out = header(doc)
    found = steps(doc)
    if not found:
        return out + [f"no step in time past the noise ({NOISE_FLOOR * 100:g} % and {NOISE_TIMES:g} x the "
                      "points' noise)"]
    return out + [s.text(said=bool(out)) for s in found]


def asked(doc):
    """True for a file that asked for counters (run.counters), whatever it got."""
    return reader.counters_run(doc)[0] is not None
