"""The gate's outputs (compare and its callers): the report of one NEW file against its base or
history in text or Markdown, the two-GPU comparison (--across-devices), and a file's measured
figures beside the published ones of its generation (--published).
"""
import json
import re

from smembench import reader
from smembench.cli import Usage
from smembench.gate import by_key, gate, geomean, settings
from smembench.tables import fmt, number, pct, table

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
             ("build", *each(lambda d: reader.build_text(d))),
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


def us(r):
    return f"{reader.steady_median(r) / 1e3:.2f}" if r is not None and reader.timed(r) else "-"


def verdict_parts(row):
    """(verdict, what it rests on) of a row: the verdict word (slower, faster, same, uncertain,
    stopped, started, missing, new, not timed) and its reason and band, or the finding's text."""
    if row["kind"] == "timed":
        notes = [row["reason"]] if row["reason"] else []
        if row.get("band"):
            notes.append(f"band ±{100 * row['band']:.1f} %" + (" between units" if row.get("unit") else ""))
        return row["verdict"], "; ".join(notes)
    if row["kind"] == "status":
        return ("stopped" if row["lost"] else "started"), row["text"]
    if row["kind"] == "metric":
        return "metric " + row["verdict"], row["text"]
    return {"missing": "missing", "new": "new", "untimed": "not timed"}[row["kind"]], row["text"]


def verdict_text(row):
    word, why = verdict_parts(row)
    if row["kind"] in ("timed", "metric"):
        return word + (f" ({why})" if why else "")
    return f"{word}: {why}"


def point_row(row):
    if row["kind"] == "metric":
        return (row["name"], number(row["base_value"]) if row["base_value"] is not None else "-",
                number(row["new_value"]) if row["new_value"] is not None else "-", pct(row.get("change")), "-",
                verdict_text(row))
    noise = row.get("noise")
    nstr = (f"{100 * noise[0]:.2f} / {100 * noise[1]:.2f}" if noise and None not in noise else "-")
    base = f"{row['center'] / 1e3:.2f}" if row.get("center") else us(row["base"])
    return (row["name"], base, us(row["new"]), pct(row.get("change")), nstr, verdict_text(row))


POINT_HEADERS = ["point", "base (us)", "new (us)", "change", "noise (%)", "verdict"]
GROUP_HEADERS = ["benchmark", "points", "change", "verdict", "reason"]
NUMBER = re.compile(r"\d+(?:\.\d+)?")
# the order of the verdicts in the comment: what fails the gate first
OPEN_POINTS = 10         # a failing group's points are unfolded up to this many
VERDICT_ORDER = ("slower", "metric lost", "metric worse", "stopped", "missing", "new", "uncertain", "metric uncertain",
                 "faster", "metric better", "started", "same", "metric same", "not gated", "not timed")


def cause(texts):
    """The reason of a group of points whose reasons differ in their numbers alone, said once: each
    number as the range the group's reasons hold there ("band ±5.1-5.3 % > 5 %")."""
    nums = [NUMBER.findall(t) for t in texts]
    pieces = NUMBER.split(texts[0])
    out = pieces[0]
    for i, piece in enumerate(pieces[1:]):
        vals = sorted({n[i] for n in nums}, key=float)
        out += (vals[0] if len(vals) == 1 else f"{vals[0]}-{vals[-1]}") + piece
    return out


def group_rows(rows):
    """The rows by benchmark and cause: [(benchmark, verdict, reason said once, rows)], a group per
    benchmark, verdict and reason that differ in their numbers alone, in VERDICT_ORDER then by name."""
    groups = {}
    for r in rows:
        word, why = verdict_parts(r)
        if why.startswith("band ±") and "; band ±" in why:      # the band said twice: once is enough
            why = why[:why.rindex("; band ±")]
        groups.setdefault((r["bench"], word, NUMBER.sub("#", why)), []).append((why, r))
    out = [(bench, word, cause([why for why, _ in members]), [r for _, r in members])
           for (bench, word, _), members in groups.items()]
    return sorted(out, key=lambda g: (VERDICT_ORDER.index(g[1]), g[0], g[2]))


def change_range(rows):
    changes = sorted(r["change"] for r in rows if r.get("change") is not None)
    if not changes:
        return "-"
    return pct(changes[0]) if len(changes) == 1 or pct(changes[0]) == pct(changes[-1]) else \
        f"{pct(changes[0])} to {pct(changes[-1])}"


def fails(word, opt):
    """Whether a group of this verdict fails the gate (what a reader of the comment must read)."""
    allowed = set(opt.allow)
    return (word == "slower" or (word == "stopped" and "status" not in allowed) or
            (word in ("metric lost", "metric worse") and "metric" not in allowed) or
            (word in ("missing", "new") and word not in allowed) or
            (word == "uncertain" and getattr(opt, "uncertain", "pass") == "fail"))


def grouped_markdown(rows, opt):
    """The rows as a Markdown table of their groups (GROUP_HEADERS; the verdicts that fail the gate
    in bold), then each group's points in a <details> of its own, open where the group fails the gate
    and has OPEN_POINTS points or fewer (past that its row says enough: 99 rows of one cause are a
    wall), folded otherwise."""
    groups = group_rows(rows)
    out = table(GROUP_HEADERS, [(bench, len(members), change_range(members),
                                 f"**{word}**" if fails(word, opt) else word, why or "-")
                                for bench, word, why, members in groups], (1, 2), True)
    for bench, word, why, members in groups:
        n = len(members)
        opened = fails(word, opt) and n <= OPEN_POINTS
        out += ["", f"<details{' open' if opened else ''}><summary>{bench}: {plural(n, 'point')} {word}"
                    f"{', ' + change_range(members) if change_range(members) != '-' else ''}</summary>", ""]
        out += table(POINT_HEADERS, [point_row(r) for r in members], (1, 2, 3, 4), True)
        out += ["", "</details>"]
    return out, len(groups)


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def gate_report(base_path, new_path, base, new, opt, history=None, history_lines=(), judged=None):
    """The comparison of one NEW file with BASE (or with a history: see history_base): (lines, exit
    status). judged, a list, is given the gate's rows (for the change chart)."""
    rows, found, count, failing, rc = gate(base_path, new_path, base, new, opt, history)
    if judged is not None:
        judged.extend(rows)
    allowed = set(opt.allow)
    md = opt.markdown

    by_bench = {}
    for r in rows:
        if r["kind"] == "timed" and r["verdict"] != "not gated" and r.get("change") is not None:
            by_bench.setdefault(r["bench"], []).append(r["change"] + 1)
    summary = [(b, len(v), pct(geomean(v))) for b, v in sorted(by_bench.items())]
    every = [x for v in by_bench.values() for x in v]
    summary.append(("all", len(every), pct(geomean(every))))
    timed_rows = [r for r in rows if r["kind"] == "timed"]
    counts = ", ".join(f"{count.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain", "not gated"))
    metric_rows = [r for r in rows if r["kind"] == "metric"]
    counts += "; " + ", ".join(f"{count.get('metric ' + k, 0)} metrics {k}" for k in ("lost", "worse", "better",
                                                                                     "uncertain"))
    ungated = not_gated_lines(rows)
    if opt_json(opt):
        return [json.dumps(gate_json(base_path, new_path, rows, found, count, failing, rc, ungated, history_lines),
                           indent=1, default=str)], rc
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
        out += ["", f"**Not gated on time** ({plural(len(ungated), 'benchmark')}; their descriptors say why, their "
                    "counts and gate metrics are judged):", ""] + [f"- {line}" for line in ungated] if ungated else []
        changed = [r for r in rows if (r["kind"] == "timed" and r["verdict"] in ("slower", "faster", "uncertain"))
                   or r["kind"] in ("missing", "new", "status") or (r["kind"] == "metric" and r["verdict"] != "same")]
        failing_rows = [r for r in changed if fails(verdict_parts(r)[0], opt)]
        if failing_rows:
            table_lines, n = grouped_markdown(failing_rows, opt)
            out += ["", f"**What fails the gate** ({plural(len(failing_rows), 'point')} in {plural(n, 'group')} by "
                        f"benchmark and cause; median time per launch, noise = robust spread base / new, threshold "
                        f"{opt.threshold:g} %; a group's points unfolded where it has {OPEN_POINTS} or fewer):", ""]
            out += table_lines
        passing = [r for r in changed if r["verdict" if r["kind"] == "timed" else "kind"] != "uncertain" and
                   not fails(verdict_parts(r)[0], opt)]
        unsure = [r for r in changed if r["kind"] == "timed" and r["verdict"] == "uncertain" and
                  not fails("uncertain", opt)]
        for part, noun, what in ((passing, "point", " changed without failing the gate (faster, started, or allowed "
                                                    "by --allow)"),
                                 (unsure, "uncertain point", f": their noise, samples or band cannot judge a "
                                                             f"{opt.threshold:g} % change (they do not fail the gate "
                                                             "unless --uncertain fail)")):
            if part:
                table_lines, n = grouped_markdown(part, opt)
                out += ["", f"<details><summary>{plural(len(part), noun)} in {plural(n, 'group')} by benchmark and "
                            f"cause{what}</summary>", ""]
                out += table_lines
                out += ["", "</details>"]
        out += ["", f"**Summary**: {len(timed_rows)} points compared: {counts}; {others}."]
        g = geomean(every)
        largest = max(summary[:-1], key=lambda s: abs(geomean(by_bench[s[0]]) or 0), default=None)
        slower = bool(count.get("slower"))
        out += ["", f"<details{' open' if slower else ''}><summary>Geometric mean of the change of the median time "
                    f"per benchmark: {pct(g)} over all {len(every)} points" +
                    (f", the largest {largest[2]} ({largest[0]})" if largest else "") + "</summary>", ""]
        out += table(["benchmark", "points", "change"], summary, (1, 2), True)
        out += ["", "</details>"]
        out += published_report([new], True, fold=True)
        return out, rc

    out += header([base_path, new_path], [base, new], False)
    out += list(history_lines)
    out.append("times: median per launch in microseconds; change: new / base - 1; noise: robust spread "
               "(1.4826 MAD / median) base / new" + (" (base: the history's median, its noise the spread of the "
                                                       "history's medians)" if history is not None else "") +
               f"; threshold {opt.threshold:g} %, drift {opt.drift:g} % or {opt.drift_ns:g} ns, alpha {opt.alpha:g}")
    out.append("")
    out += table(POINT_HEADERS, [point_row(r) for r in rows], (1, 2, 3, 4), False)
    if ungated:
        out += ["", "not gated on time (their descriptors say why; their counts and gate metrics are judged):"]
        out += ["  " + line for line in ungated]
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


def not_gated_lines(rows):
    """A line per benchmark whose time is not gated: its points and its descriptor's reason."""
    by = {}
    for r in rows:
        if r["kind"] == "timed" and r["verdict"] == "not gated":
            by.setdefault(r["bench"], [0, r["reason"]])[0] += 1
    return [f"{bench} ({plural(n, 'point')}): {why}" for bench, (n, why) in sorted(by.items())]


def opt_json(opt):
    return getattr(opt, "json", False)


def gate_json(base_path, new_path, rows, found, count, failing, rc, ungated, history_lines):
    """The gate's decision as a JSON document (compare.py --json)."""
    def point(r):
        word, why = verdict_parts(r)
        d = {"point": r.get("point", r["name"]), "bench": r["bench"], "kind": r["kind"], "verdict": word, "reason": why or None,
             "change": r.get("change")}
        if r["kind"] == "timed":
            d.update(band=r.get("band"), how=r.get("how"))
        if r["kind"] == "metric":
            d.update(metric=r["metric"], base=r["base_value"], new=r["new_value"], unit=r.get("unit"))
        return d
    return {"base": base_path, "new": new_path, "exit": rc, "verdict": "fail" if rc else "pass", "failing": failing,
            "counts": count, "mismatches": [{"kind": k, "text": t} for k, t in found],
            "not_gated": [{"bench": line.split(" (", 1)[0], "text": line} for line in ungated],
            "history": list(history_lines), "points": [point(r) for r in rows]}


# units that mean the same on every GPU (per SM, per clock, or a share of the device's own ceiling)
CROSS_UNITS = ("B/clk/SM", "atomics/clk/SM", "cycles", "%", "x", "passes/request")


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


def published_value(v):
    if isinstance(v, list):
        return ", ".join(number(x) for x in v)
    return "-" if v is None else number(v)


def published_report(docs, md, required=None, fold=False):
    """The measured figures of each distinct device beside its generation's published ones; fold
    (Markdown): each table in a <details>, its title the summary."""
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
            if md and fold:
                out += ["", f"<details><summary>{title} ({plural(len(rows), 'figure')})</summary>", ""]
            else:
                out += ["", f"**{title}**" if md else title, ""]
            out += table(["figure", "published", "unit", "measured", "vs published", "measured how", "source"],
                         rows, (1, 3, 4), md)
            if md and fold:
                out += ["", "</details>"]
    if required and not out:
        raise Usage(f"{required}: no device record has a \"published\" block of reference figures (files "
                    "written before the published table, or of a GPU it does not know)")
    return out
