"""The trend of smembench results over commits and days: a page and a figure per benchmark, from a
history of result files (one per commit or per day), for a project without Bencher or
github-action-benchmark.

  trend.py FILE_OR_DIR... -o DIR [--window N] [--threshold PCT] [--alpha A] [--drift PCT]

Inputs are files and folders of them, by the rules of smembench.inputs (every tool's: a folder's
*.json, each file once, what is no result file skipped with one line, a FIFO or a link to nothing
refused). Files are grouped by GPU model and settings (a --quick run and a full run, an H200 and an A100, are
kept apart) and ordered by the date they ran. Each file is judged by the gate's history rule
(compare.py --history) against the files before it in its group (the newest --window of them, 8 by
default): each point's median against the median of its history, within a band measured from the
history's spread and never narrower than the point's declared variation between runs or units.
What the gate would call slower is marked as a regression, faster as an improvement.

DIR gets index.html (a headline, per group the files with their commit, date, unit and verdicts,
the regressions and improvements, and the figures) and one PNG per benchmark and group: a panel per
point, its absolute median time per launch in microseconds against the files in order (never
divided by anything: a slowdown shows as a step), the gate's band around the history's median, and
regressions (red) and improvements (green) marked. A benchmark with many points is split over
several figures of at most 30 panels.

Exit status: 0 written, no regression in the newest file of any group; 1 written, and the newest
file of a group has a regression; 2 unusable input or output (one line on stderr).
"""
import html
import math
import os
import sys
from types import SimpleNamespace

from smembench import cli
from smembench import gate
from smembench import history
from smembench import inputs
from smembench import tool
from smembench import reader

Usage = cli.Usage
PANELS = 30     # panels per figure
COLORS = {"slower": "#c62828", "faster": "#2e7d32"}


def load_all(specs):
    """[(path, document of one device)] of the timed files among specs, by the scanner's rules
    (smembench.inputs)."""
    paths = inputs.paths(specs, "the inputs", inputs.warn())
    docs = []
    for p in paths:
        doc = inputs.load(p)
        if doc["run"].get("mode") != "measure" or not reader.timed_points(doc):
            continue    # predict mode: nothing timed to trend
        for i, part in enumerate(reader.split_devices(doc)):
            docs.append((p if "devices" not in doc else f"{p}#gpu{i}", part))
    if not docs:
        raise Usage("none of the inputs has a timed point (predict-mode files have no trend)")
    return docs


def group_key(doc):
    dev = doc["device"]
    s = gate.settings(doc)
    return (dev.get("name"), dev.get("cc"), dev.get("sm_count"), s.get("quick"), s.get("cold"), s.get("no_optin"))


def group_label(key):
    name, cc, sms, quick, cold, no_optin = key
    name = name.split(" #")[0]
    extra = [x for x, on in (("--quick", quick), ("cold", cold), ("--no-optin", no_optin)) if on]
    return f"{name} (cc {cc}, {sms} SMs)" + (f", {' '.join(extra)}" if extra else "")


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()[:60]


def judge_group(files, opt):
    """For each file (oldest first): {key: (verdict, center ns, band)} against the files before it."""
    out = [{}]
    for i in range(1, len(files)):
        hist = files[max(0, i - opt.window):i]
        new = files[i][1]
        try:
            base, points, _ = history.history_base(new, hist, opt)
            rows = gate.compare_points(base, new, opt, ("history", files[i][0]), points)
        except Usage:
            out.append(None)    # no comparable history (another driver, say): not judged
            continue
        judged = {}
        for r in rows:
            if r["kind"] == "timed":
                key = reader.point_key(r["new"])
                center = r.get("center") or reader.median_ns(r["base"])
                band = r.get("band") or opt.threshold / 100
                judged[key] = (r["verdict"], center, band)
        out.append(judged)
    return out


def short(r):
    p = r.get("params") or {}
    return ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in p.items()) or r["bench"]


# A light background per GPU unit (the files of one unit read as one span; a change of unit is a
# change of background), one colour per unit, repeated past eight
UNIT_TINTS = ("#e3f2fd", "#fff3e0", "#f3e5f5", "#e0f2f1", "#fffde7", "#efebe9", "#fce4ec", "#eceff1")
LABEL_PT = 5.5      # the x labels' font size
DPI = 80


def unit_of(doc):
    return reader.unit_label(doc["device"]) or "unit not recorded"


def commit_labels(files, shown, per_file_in):
    """[(position, label)]: the commit (its first 7 characters) and date where the commit changes
    among the shown files (the first always), thinned to what fits: a label is kept only where it
    is at least its own width (at LABEL_PT) from the last one kept; per_file_in: the inches between
    two files on the axis."""
    out, last_commit, last_end = [], None, -1e9
    for p, i in enumerate(shown):
        d = files[i][1]
        commit = str(d["tool"].get("git"))[:7]
        if commit == last_commit:
            continue
        last_commit = commit
        label = f"#{i} {commit}\n{str(d['run'].get('started', ''))[5:10]}"
        width = max(len(x) for x in label.split("\n")) * LABEL_PT * 0.62 / 72 + 0.06
        x = p * per_file_in
        if x - width / 2 >= last_end:
            out.append((p, label))
            last_end = x + width / 2
    return out


def y_ticks(lo, hi):
    """Up to 4 round values in [lo, hi] and their labels, with the decimals their step needs."""
    from matplotlib.ticker import MaxNLocator
    ticks = [t for t in MaxNLocator(3).tick_values(lo, hi) if lo <= t <= hi]
    step = ticks[1] - ticks[0] if len(ticks) > 1 else abs(hi) or 1
    digits = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return [(t, f"{t:,.{digits}f}") for t in ticks]


def figure(bench, keys, names, files, shown, verdicts, path, part):
    """One benchmark's panels (keys), each over the files that hold the benchmark (shown, their
    indices in files; other files are left out of its x axis, not drawn empty): per panel the
    median per launch, the gate's band and verdicts, a background per GPU unit and a dashed line
    where the commit changes, the commits named under the bottom panels where they fit and all of
    them once under the legend.

    The panels are drawn on one canvas in inches, not as a matplotlib Axes each: an Axes with its
    ticks costs some 40 ms to make and draw, and a --sweep all history has near 800 panels (trend of
    15 files took 49 s of processor time that way, about 6 now)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    n = len(keys)
    cols = min(5, n)
    rows = math.ceil(n / cols)
    m = len(shown)
    legend_h = 0.75
    width, height = 3.2 * cols, 2.3 * rows + 0.9 + legend_h
    left, right, top, bottom, gap_w, gap_h = 0.75, 0.1, 0.5, 0.45 + legend_h, 0.6, 0.45
    axes_w = (width - left - right - (cols - 1) * gap_w) / cols
    axes_h = (height - top - bottom - (rows - 1) * gap_h) / rows
    fig = plt.figure(figsize=(width, height), dpi=DPI)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    units = [unit_of(files[i][1]) for i in shown]
    tints = {}
    for u in units:
        tints.setdefault(u, UNIT_TINTS[len(tints) % len(UNIT_TINTS)])
    runs = []           # (first position, last position, tint) of each run of one unit
    start = 0
    for p in range(1, m + 1):
        if p == m or units[p] != units[start]:
            runs.append((start, p - 1, tints[units[start]]))
            start = p
    commits = [str(files[i][1]["tool"].get("git")) for i in shown]
    changes = [p - 0.5 for p in range(1, m) if commits[p] != commits[p - 1]]
    labels = commit_labels(files, shown, axes_w / max(m, 1))
    spans, span_colors, frames, grid, dashed, ticks_xy = [], [], [], [], [], []
    series, dots, bands, marks = [], [], [], {"slower": [], "faster": []}
    for k, key in enumerate(keys):
        r_, c_ = divmod(k, cols)
        x0 = left + c_ * (axes_w + gap_w)
        y0 = height - top - (r_ + 1) * axes_h - r_ * gap_h

        def x_of(p, x0=x0):
            return x0 + (p + 0.5) / m * axes_w
        pts, lows, highs = [], [], []
        for i in shown:
            r = files[i][1]["_by_key"].get(key)
            if r is not None and reader.timed(r):
                pts.append((shown.index(i), reader.median_ns(r) / 1e3, i))
            judged = verdicts[i]
            if judged and key in judged:
                _, center, band = judged[key]
                lows.append(center / 1e3 * (1 - band))
                highs.append(center / 1e3 * (1 + band))
        values = [v for _, v, _ in pts]
        lo, hi = min(values + lows), max(values + highs)
        pad = (hi - lo) * 0.08 or abs(hi) * 0.01 or 1.0
        lo, hi = lo - pad, hi + pad

        def y_of(v, y0=y0, lo=lo, hi=hi):
            return y0 + (v - lo) / (hi - lo) * axes_h
        for first, last, tint in runs:
            xa, xb = x0 + first / m * axes_w, x0 + (last + 1) / m * axes_w
            spans.append([(xa, y0), (xb, y0), (xb, y0 + axes_h), (xa, y0 + axes_h)])
            span_colors.append(tint)
        frames.append([(x0, y0), (x0 + axes_w, y0), (x0 + axes_w, y0 + axes_h), (x0, y0 + axes_h)])
        for p in changes:
            dashed.append([(x_of(p), y0), (x_of(p), y0 + axes_h)])
        for t, text in y_ticks(lo, hi):
            grid.append([(x0, y_of(t)), (x0 + axes_w, y_of(t))])
            ticks_xy.append([(x0 - 0.04, y_of(t)), (x0, y_of(t))])
            ax.text(x0 - 0.06, y_of(t), text, ha="right", va="center", fontsize=6)
        for i in shown:
            judged = verdicts[i]
            if not judged or key not in judged:
                continue
            verdict, center, band = judged[key]
            p = shown.index(i)
            xa, xb = x_of(p - 0.4), x_of(p + 0.4)
            ya, yb = y_of(center / 1e3 * (1 - band)), y_of(center / 1e3 * (1 + band))
            bands.append([(xa, ya), (xb, ya), (xb, yb), (xa, yb)])
            if verdict in marks:
                marks[verdict].append((x_of(p), y_of(reader.median_ns(files[i][1]["_by_key"][key]) / 1e3)))
        series.append([(x_of(p), y_of(v)) for p, v, _ in pts])
        dots += series[-1]
        ax.text(x0 + axes_w / 2, y0 + axes_h + 0.05, names[key], ha="center", va="bottom", fontsize=7)
        if k + cols >= n:       # no panel below: the commit labels, once per column
            for p, text in labels:
                ticks_xy.append([(x_of(p), y0), (x_of(p), y0 - 0.04)])
                ax.text(x_of(p), y0 - 0.06, text, ha="center", va="top", fontsize=LABEL_PT, linespacing=1.1)
    ax.add_collection(PolyCollection(spans, facecolors=span_colors, linewidths=0, zorder=0))
    ax.add_collection(LineCollection(grid, colors="#e0e0e0", linewidths=0.5, zorder=1))
    ax.add_collection(LineCollection(dashed, colors="#424242", linestyles="--", linewidths=0.8, zorder=2))
    ax.add_collection(PolyCollection(bands, facecolors="#90a4ae", alpha=0.35, linewidths=0, zorder=2))
    ax.add_collection(LineCollection(series, colors="#1565c0", linewidths=1, zorder=3))
    if dots:
        ax.scatter(*zip(*dots), s=9, color="#1565c0", zorder=3, linewidths=0)
    for verdict, xy in marks.items():
        if xy:
            ax.scatter(*zip(*xy), s=50, marker="v" if verdict == "slower" else "^", color=COLORS[verdict], zorder=4)
    ax.add_collection(PolyCollection(frames, facecolors="none", edgecolors="#616161", linewidths=0.6, zorder=5))
    ax.add_collection(LineCollection(ticks_xy, colors="#616161", linewidths=0.6, zorder=5))
    fig.supylabel("median time per launch (us)", fontsize=8, x=0.08 / width, ha="left")
    title = f"{bench}" + (f" ({part[0]}/{part[1]})" if part[1] > 1 else "")
    held = f"the {m} of {len(files)} files that ran it" if m < len(files) else f"all {m} files"
    fig.suptitle(f"{title}: median per launch over {held}, in date order (#file commit, date where the commit changes)",
                 fontsize=9, y=1 - 0.08 / height, va="top")
    handles = [Patch(facecolor=t, edgecolor="#9e9e9e", lw=0.5, label=f"GPU unit {u}") for u, t in tints.items()]
    handles += [Line2D([], [], color="#424242", ls="--", lw=0.8, label="the commit changes"),
                Patch(facecolor="#90a4ae", alpha=0.35, label="the gate's band"),
                Line2D([], [], color=COLORS["slower"], marker="v", ls="", label="slower"),
                Line2D([], [], color=COLORS["faster"], marker="^", ls="", label="faster")]
    fig.legend(handles=handles, loc="lower center", ncols=min(len(handles), max(1, int(width / 1.9))), fontsize=7,
               frameon=False, bbox_to_anchor=(0.5, 0.22 / height))
    spans_of = []
    for p in range(m):
        if p == 0 or commits[p] != commits[p - 1]:
            spans_of.append([p, p, commits[p]])
        else:
            spans_of[-1][1] = p
    named = [f"#{shown[a]}" + (f"-{shown[b]}" if b > a else "") + f" {c}" for a, b, c in spans_of]
    fig.text(0.5, 0.06 / height, "commits: " + ", ".join(named), ha="center", va="bottom", fontsize=6.5, wrap=True)

    def render(f):
        # drawn once and written as RGB at zlib's fastest level: savefig's RGBA at its default level
        # took twice as long (a third of trend's time went to compressing its PNGs), for files a
        # fifth smaller
        from PIL import Image
        fig.canvas.draw()
        w, h = fig.canvas.get_width_height()
        Image.frombuffer("RGBA", (w, h), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB").save(
            f, format="png", compress_level=1)
    write_atomically(path, render)
    plt.close(fig)


JOBS = []


def draw_one(i):
    figure(*JOBS[i])


def draw_all(jobs):
    """The figures of jobs (figure()'s arguments), by two processes where two processors and fork
    are there (the figures are two thirds of trend's work, each independent of the others; the
    children share the parent's documents without copying them), else one after the other."""
    import multiprocessing
    JOBS[:] = jobs
    if len(jobs) < 4 or (os.cpu_count() or 1) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for i in range(len(jobs)):
            draw_one(i)
        return
    pool = multiprocessing.get_context("fork").Pool(2, initializer=tool.worker_signals)
    try:
        for _ in pool.imap_unordered(draw_one, range(len(jobs))):
            pass
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.close()
        pool.join()


def write_atomically(path, render):
    """By the tools' output rules (scripts/tool.py): whole or not at all, never over an input
    or a result file."""
    tool.write_file(path, render, inputs=INPUTS, force=False)


INPUTS = []


def run(argv):
    ap = cli.parser("trend.py", __doc__)
    ap.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR")
    ap.add_argument("-o", dest="out", required=True, metavar="DIR", help="directory for index.html and the figures")
    ap.add_argument("--window", type=int, default=8, help="files of history each file is judged against (8)")
    ap.add_argument("--threshold", type=float, default=2.0, metavar="PCT", help="smallest change that counts (2)")
    ap.add_argument("--alpha", type=float, default=0.01, help="significance level (0.01)")
    ap.add_argument("--drift", type=float, default=1.0, metavar="PCT", help="least drift between runs (1)")
    a = ap.parse_args(argv)
    if a.window < 1:
        raise Usage(f"invalid value {a.window} for --window; expected 1 or more")
    gate.check_rule_options(a)       # the values compare.py takes
    opt = SimpleNamespace(threshold=a.threshold, alpha=a.alpha, drift=a.drift, drift_ns=500.0, window=a.window,
                          markdown=False, allow=[])
    gate.scipy_stats()
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        raise Usage(f"{a.out} is not a directory; -o takes a directory for the page and its figures")
    docs = load_all(a.inputs)
    INPUTS[:] = sorted({p.split("#gpu")[0] for p, _ in docs})
    groups = {}
    for path, doc in docs:
        doc["_by_key"] = {reader.point_key(r): r for r in doc["results"]}
        groups.setdefault(group_key(doc), []).append((path, doc))
    try:
        os.makedirs(a.out, exist_ok=True)
    except OSError as e:
        raise Usage(f"cannot create {a.out}: {e.strerror}") from None
    body, worst, total_reg = [], 0, 0
    for gk in sorted(groups, key=lambda k: [str(x) for x in k]):
        files = sorted(groups[gk], key=lambda x: x[1]["run"].get("started") or "")
        verdicts = judge_group(files, opt)
        label = group_label(gk)
        body.append(f"<h2>{html.escape(label)}: {len(files)} files</h2>")
        body.append("<table><tr><th>#</th><th>date</th><th>commit</th><th>GPU unit</th><th>file</th>"
                    "<th>against its history</th></tr>")
        events = []
        for i, ((path, d), judged) in enumerate(zip(files, verdicts)):
            if i == 0:
                text = "first file"
            elif judged is None:
                text = "no comparable history (another driver or settings)"
            else:
                c = {}
                for key, (v, _, _) in judged.items():
                    c[v] = c.get(v, 0) + 1
                    if v in COLORS:
                        events.append((i, key, v, d))
                text = ", ".join(f"{c.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain"))
                if i == len(files) - 1 and c.get("slower"):
                    worst = 1
            body.append(f"<tr><td>{i}</td><td>{html.escape(str(d['run'].get('started')))}</td>"
                        f"<td>{html.escape(str(d['tool'].get('git')))}</td>"
                        f"<td>{html.escape(str(d['device'].get('uuid') or '-'))}</td>"
                        f"<td>{html.escape(inputs.shown(os.path.basename(path)))}</td><td>{html.escape(text)}</td></tr>")
        body.append("</table>")
        total_reg += sum(1 for e in events if e[2] == "slower")
        if events:
            body.append("<h3>Regressions and improvements</h3><ul>")
            for i, key, v, d in events:
                r = d["_by_key"][key]
                _, center, band = verdicts[i][key]
                change = reader.median_ns(r) / center - 1
                body.append(f"<li class='{v}'>file {i} ({html.escape(str(d['tool'].get('git')))}): "
                            f"{html.escape(reader.point_name(r))} {v}: {100 * change:+.2f} % against its "
                            f"history (band ±{100 * band:.1f} %)</li>")
            body.append("</ul>")
        benches, holding = {}, {}
        for i, (_, d) in enumerate(files):
            for key, r in d["_by_key"].items():
                if reader.timed(r):
                    benches.setdefault(r["bench"], {})[key] = short(r)
                    holding.setdefault(r["bench"], {})[i] = True
        jobs = []
        for bench in sorted(benches):
            keys = list(benches[bench])
            shown = sorted(holding[bench])
            parts = [keys[i:i + PANELS] for i in range(0, len(keys), PANELS)]
            for j, part in enumerate(parts, 1):
                name = f"{slug(label)}_{bench}" + (f"_{j}" if len(parts) > 1 else "") + ".png"
                jobs.append((bench, part, benches[bench], files, shown, verdicts, os.path.join(a.out, name),
                             (j, len(parts))))
                body.append(f"<figure><img src='{name}' alt='{html.escape(bench)} trend'>"
                            f"<figcaption>{html.escape(bench)}" + (f" ({j}/{len(parts)})" if len(parts) > 1 else "") +
                            "</figcaption></figure>")
        draw_all(jobs)
    head = (f"<p class='headline'>{len(docs)} files in {len(groups)} group{'s' if len(groups) != 1 else ''} "
            f"(GPU model and settings); {total_reg} regression{'s' if total_reg != 1 else ''} marked; newest "
            f"files: {'a regression' if worst else 'no regression'}</p>")
    page = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width, initial-scale=1'><title>smembench trend</title><style>"
            "body{font-family:sans-serif;margin:1em;max-width:1400px}table{border-collapse:collapse;font-size:13px;"
            "display:block;overflow-x:auto}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
            "img{max-width:100%;height:auto}li.slower{color:#c62828}li.faster{color:#2e7d32}"
            ".headline{font-size:1.1em;font-weight:bold}</style></head><body><h1>smembench trend</h1>"
            + head + "\n".join(body) + "</body></html>\n")
    write_atomically(os.path.join(a.out, "index.html"), lambda f: f.write(tool.encode_text(page)))
    return [f"trend: {len(docs)} files, {len(groups)} groups, {total_reg} regressions marked: "
            f"{inputs.shown(os.path.join(a.out, 'index.html'))}"], worst


def main(argv=None):
    return tool.run_tool(lambda: tool.emit(*run(sys.argv[1:] if argv is None else argv), "the trend"),
                                (Usage, reader.ResultError), [(OSError, 2, lambda e: f"cannot write the trend: {e.strerror or e}")])
