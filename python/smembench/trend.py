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


def figure(bench, keys, names, files, verdicts, path, part):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(keys)
    cols = min(5, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows + 0.8), squeeze=False)
    x_labels = [f"{d['run'].get('started', '')[5:10]}\n{str(d['tool'].get('git'))[:7]}" for _, d in files]
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        xs, ys = [], []
        for i, (_, d) in enumerate(files):
            r = d["_by_key"].get(key)
            if r is not None and reader.timed(r):
                xs.append(i)
                ys.append(reader.median_ns(r) / 1e3)
        ax.plot(xs, ys, "o-", color="#1565c0", ms=3, lw=1)
        for i, judged in enumerate(verdicts):
            if not judged or key not in judged:
                continue
            verdict, center, band = judged[key]
            c = center / 1e3
            ax.fill_between([i - 0.4, i + 0.4], c * (1 - band), c * (1 + band), color="#90a4ae", alpha=0.35, lw=0)
            if verdict in COLORS:
                r = files[i][1]["_by_key"][key]
                ax.plot([i], [reader.median_ns(r) / 1e3], "v" if verdict == "slower" else "^",
                        color=COLORS[verdict], ms=8)
        # y given: matplotlib places the title without measuring the axis below it on every draw
        # (a quarter of trend's time on 44 figures of 30 panels)
        ax.set_title(names[key], fontsize=7, y=1.0, pad=3)
        ax.tick_params(labelsize=6)
        ax.set_xlim(-0.5, len(files) - 0.5)
        ax.set_xticks(range(len(files)))
        ax.set_xticklabels(x_labels if ax in axes[-1] or n <= cols else [""] * len(files), fontsize=5)
        ax.grid(alpha=0.3)
    width, height = fig.get_size_inches()
    fig.supylabel("median time per launch (us)", fontsize=8, x=0.08 / width, ha="left")
    title = f"{bench}" + (f" ({part[0]}/{part[1]})" if part[1] > 1 else "")
    fig.suptitle(f"{title}: median per launch by file (date, commit); grey: the gate's band; "
                 "red: slower, green: faster", fontsize=9, y=1 - 0.08 / height, va="top")
    # margins in inches for the texts of these sizes, not fig.tight_layout(): it measured every text
    # of every panel once more before the figure was drawn, a third of trend's time on a --sweep all
    # history (44 figures, 778 panels)
    left, right, top, bottom, gap_w, gap_h = 0.7, 0.1, 0.5, 0.4, 0.55, 0.4
    axes_w = (width - left - right - (cols - 1) * gap_w) / cols
    axes_h = (height - top - bottom - (rows - 1) * gap_h) / rows
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height, bottom=bottom / height,
                        wspace=gap_w / axes_w, hspace=gap_h / axes_h)

    def render(f):
        fig.savefig(f, format="png", dpi=90)
    write_atomically(path, render)
    plt.close(fig)


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
        benches = {}
        for _, d in files:
            for key, r in d["_by_key"].items():
                if reader.timed(r):
                    benches.setdefault(r["bench"], {})[key] = short(r)
        for bench in sorted(benches):
            keys = list(benches[bench])
            parts = [keys[i:i + PANELS] for i in range(0, len(keys), PANELS)]
            for j, part in enumerate(parts, 1):
                name = f"{slug(label)}_{bench}" + (f"_{j}" if len(parts) > 1 else "") + ".png"
                figure(bench, part, benches[bench], files, verdicts, os.path.join(a.out, name), (j, len(parts)))
                body.append(f"<figure><img src='{name}' alt='{html.escape(bench)} trend'>"
                            f"<figcaption>{html.escape(bench)}" + (f" ({j}/{len(parts)})" if len(parts) > 1 else "") +
                            "</figcaption></figure>")
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
