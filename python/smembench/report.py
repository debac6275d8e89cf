"""One self-contained HTML page from a set of smembench result files, for people and CI artifacts.

  smembench-report FILES... -o DIR [--baseline BASE.json]   (in the tree: python3 scripts/report.py)
  smembench-report FILES... --explain                       the steps in time and their counters, on stdout

Writes DIR/index.html: a headline (the GPUs, the points, the verdict); with --baseline, per file
the gate's verdict, the decision smembench-compare BASE FILE takes (the same threshold and test,
its settings and device mismatches included), the changed points first, the missing and new ones a
line each; the baseline is not compared with itself and a file sharing no point with it is one
line; the devices and run settings of every file; for each sweep its figures (inline SVG, the same
as smembench-plot's) and a table of its points (median time, noise = the robust spread 1.4826
MAD/median as everywhere, the metrics, an arrow only on those that measure speed, how close the
first comes to its ceiling, samples, occupancy by API, calculator and measurement, the effective
carveout and the shared-memory configuration, verified) with a filter box and a CSV link; where a file
asked for hardware counters (smembench --counters), each step in time past the noise between
neighbouring points of a sweep axis with the counters that moved with it (smembench.explain), or the
one line saying why the file has none; a user kernel (smembench --kernel) a section of its own with its figure,
its code, resources and verification and a table of its points; the failed points with
their reasons, red; the skipped ones (expected: what the device or build cannot run) muted and
folded, a row per reason with its count; where the files hold several GPUs of one model told apart (by uuid, or node and PCI
bus) that share points, smembench-fleet's comparison of them (units, heatmap, outliers at
--threshold, a table of each unit's deviation from the fleet median). The page needs no network: CSS, figures and the small
script (sorting, filtering, CSV) are inline; it fits a 400 px screen. Click a column's heading to
sort by it; opened as index.html#selftest the page sorts every column of every table, tries every
filter box and its CSV, checks the outcome and writes it into the page (the test suite reads it).

index.html is written as smembench-export writes its file: whole or not at all (mode 0666 less the
umask), never over an input or a smembench result file (unless --force); the directory is made only
once the page is ready, and a signal leaves nothing hidden behind.

Exit status: 0 page written, 2 unusable input (out of memory included) or output directory, 3 a
Python module is missing, 128+N a signal (SIGINT 130, SIGHUP 129, SIGTERM 143), 70 an internal error
(a bug).
"""
import html
import importlib.resources
import math
import os
import re
import sys

from smembench import canvas
from smembench import cli
from smembench import explain
from smembench import figures
from smembench import gate
from smembench import gate_format
from smembench import fleet_units
from smembench import tool
from smembench import inputs
from smembench import l1split
from smembench import reader
from smembench import series as series_mod
from smembench.figures.common import occ

# the page's style and script, package data (assets/): the script sorts a table by the clicked column
# (numbers by their data-v value, empty cells last in either direction, ties in page order), filters a
# table's rows by the words typed in its box (every word somewhere in the row), gives the shown rows
# as a CSV file (made in the page); #selftest clicks every column twice and checks the order, then
# filters and exports each table
def asset(name):
    """The text of a file of the package's assets/ (report.css, report.js), installed beside it."""
    return (importlib.resources.files("smembench") / "assets" / name).read_text(encoding="utf-8")

# the columns of a sweep's point table: (heading, sort type). What a reader compares comes first and
# is narrow (the time, its noise, the share of the ceiling, blocks per SM three ways, the limiter, the
# carveout and configuration the driver gave); the wide metrics text and the trials come last; the
# first column stays in view when the table scrolls sideways (report.css)
POINT_COLUMNS = (("bench", "text"), ("parameters", "text"), ("status", "text"), ("median (us)", "num"),
                 ("noise (%)", "num"), ("of ceiling (%)", "num"), ("measured", "num"), ("API", "num"),
                 ("predicted", "num"), ("limiter", "text"), ("carveout (%)", "num"), ("config (KiB)", "num"),
                 ("L1 left (KiB)", "num"), ("n", "num"), ("verified", "text"), ("trials (%)", "num"), ("metrics", "num"))
# the point table's wide columns wrap instead of widening it; the metrics stay on one line (their
# <br> hidden; a copy or a page without the style keeps them); a style that starts with a space is a
# rule of its own on the cells' content
POINT_STYLES = {"parameters": ("white-space: normal; min-width: 12em; max-width: 20em",),
                "device": ("white-space: normal; min-width: 10em; max-width: 16em",),
                "limiter": ("white-space: normal; min-width: 7em; max-width: 11em",),
                "metrics": (" br { display: none }",)}
NOISE_TITLE = "robust spread: 1.4826 x MAD / median of the samples (reader.robust_spread), in %"
TRIALS_TITLE = ("the range of the point's trial medians over their median, in % (each trial a fresh setup, "
                "warm-up and sampling, in a shuffled order across the run); * where the trials disagree: their "
                "range is past the trials' own noise (src/stats.h, Trials)")
TITLES = {"noise (%)": NOISE_TITLE, "n": "samples timed", "trials (%)": TRIALS_TITLE,
          "API": "resident blocks per SM: cudaOccupancyMaxActiveBlocksPerMultiprocessor",
          "predicted": "resident blocks per SM: cuda_occupancy.h on the device's properties or the model",
          "measured": "resident blocks per SM: the residency probe's largest overlap on one SM",
          "limiter": "what limits the resident blocks",
          "metrics": "sorted by the first; \u2191 higher is better, \u2193 lower is better, on the metrics that "
                     "measure "
                     "speed; a metric that describes the point (a size, a count, a prediction) has no arrow",
          "of ceiling (%)": "the first metric with a physical ceiling, as a share of it (the cell's title: the "
                            "metric and its ceiling)",
          "carveout (%)": "the effective carveout: the share of the unified L1/shared memory the measured "
                          "residency implies the driver gave to shared memory (occupancy.effective_carveout)",
          "config (KiB)": "the shared-memory configuration per SM the driver picks for the point, by the rule "
                          "fitted to Nsight Compute (occupancy.smem_config_predicted_bytes), in KiB",
          "L1 left (KiB)": "the L1 the configuration leaves per SM: the unified L1 + shared size (the file's "
                           "device.published.unified_l1_smem_bytes, or core/arch.c's table for an older file) "
                           "less the configuration (smembench.l1split), in KiB"}
ARROWS = {"higher": " \u2191", "lower": " \u2193"}


def esc(v):
    return html.escape(str(v), quote=True)


def num_cell(v, fmt="{:g}"):
    if v is None:
        return '<td class="n" data-v="">&ndash;</td>'
    text = fmt.format(v)
    try:
        plain = float(text.replace(",", "")) == v
    except ValueError:
        plain = False
    if plain:                      # the text is the value (the page's script drops the commas)
        return f'<td class="n">{esc(text)}</td>'
    return f'<td class="n" data-v="{v:.6g}">{esc(text)}</td>'


def text_cell(v, cls=None):
    c = f' class="{cls}"' if cls else ""
    return f"<td{c}>{esc(v)}</td>" if v not in (None, "") else f'<td{c} data-v="">&ndash;</td>'


def fnum(v, digits=4):
    """A value to about `digits` significant figures, without exponent for everyday sizes."""
    if v is None:
        return "-"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        d = max(0, digits - 1 - int(f"{abs(v):e}".split("e")[1])) if v else 0
        return f"{v:,.{d}f}"
    return f"{v:.{digits - 1}e}"


def params_text(r):
    return ", ".join(f"{k}={v}" for k, v in r["params"].items())


def ceiling_of(r):
    """(percent, text) of the point's first metric that has a ceiling other than a plain 100 %."""
    for name, m in r["metrics"].items():
        v, c = reader.metric(r, name), m.get("ceiling") if isinstance(m, dict) else None
        if v is None or not isinstance(c, (int, float)) or isinstance(c, bool) or c <= 0:
            continue
        if m.get("unit") == "%" and c == 100 and len(r["metrics"]) > 1:
            continue
        return 100 * v / c, f"{100 * v / c:.1f} % of {fnum(c)} {m.get('unit', '')}"
    return None, None


def arrow(r, name):
    """The better-way arrow of a metric that measures speed (reader.performance); none for one that
    describes the point (alloc_bytes, stages, sms, wavefronts, predictions) or nothing directs."""
    return ARROWS.get(reader.better(r, name), "") if reader.performance(r, name) else ""


def noise_of(r):
    """The point's noise, the one definition every tool uses: reader.robust_spread, a fraction."""
    if not isinstance(r.get("time_ns"), dict):
        return None
    try:
        return reader.robust_spread(r)
    except (KeyError, TypeError):
        return None


def trials_of(r):
    """(range in %, disagree, count) of the point's trials as the file records them, or None."""
    t = r.get("trials")
    if not isinstance(t, dict) or not isinstance(t.get("runs"), list) or len(t["runs"]) < 2:
        return None
    spread = t.get("spread")
    return (100 * spread if isinstance(spread, (int, float)) else None, t.get("disagree") is True, len(t["runs"]))


def trials_cell(r):
    t = trials_of(r)
    if t is None or t[0] is None:
        return '<td class="n" data-v="">&ndash;</td>'
    mark = "*" if t[1] else ""
    return f'<td class="n{" warn" if t[1] else ""}" data-v="{t[0]:.4g}">{t[0]:.2f}{mark}</td>'


def disagreeing_rows(series, several):
    """Rows of the points whose trials disagree: each trial's median and SM clock, the range, the noise."""
    rows = []
    for s in series:
        for r in s.doc["results"]:
            t = trials_of(r)
            if t is None or not t[1]:
                continue
            runs = "; ".join(f"{x['median_ns'] / 1e3:,.2f} us at {x['clock_mhz']:.0f} MHz"
                             if isinstance(x.get("clock_mhz"), (int, float)) and x["clock_mhz"] > 0
                             else f"{x['median_ns'] / 1e3:,.2f} us" for x in r["trials"]["runs"]
                             if isinstance(x, dict) and isinstance(x.get("median_ns"), (int, float)))
            within = r["trials"].get("within")
            rows.append("<tr>" + "".join(([text_cell(s.label)] if several else []) +
                                         [text_cell(r["bench"]), text_cell(params_text(r)), text_cell(runs, "wrap"),
                                          num_cell(round(t[0], 2) if t[0] is not None else None, "{:.2f}"),
                                          num_cell(round(100 * within, 2) if isinstance(within, (int, float))
                                                   else None, "{:.2f}")]) + "</tr>")
    return rows


def kib(v):
    return v / 1024 if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def point_row(r, series_label=None, doc=None):
    """A point's row of its sweep's table: the columns of POINT_COLUMNS, the device after the
    parameters where the table shows several; a skipped point's row muted (class skip); doc, the
    point's file, gives the unified L1 + shared size of its L1 left."""
    stats = reader.stats(r)
    median, noise = stats.get("median"), noise_of(r)
    o = r.get("occupancy") or {}
    metrics = [(n, m) for n, m in r["metrics"].items() if isinstance(m, dict)]
    first = reader.metric(r, metrics[0][0]) if metrics else None
    # the metrics on one line, an em space apart (report.css hides the <br> between them, which a
    # copy or a reader without the style keeps): a row one line tall
    mtext = "<br>\u2003".join(esc(f"{n} {fnum(reader.metric(r, n))} {m.get('unit', '')}".rstrip()) + arrow(r, n)
                              for n, m in metrics if reader.metric(r, n) is not None)
    pct, ctext = ceiling_of(r)
    status = r["status"]
    # only what went wrong is coloured: on a day's page "ok" and "yes" are most of the cells; a skip
    # is what the point cannot do on this device or build (its reason says why), muted, never a failure
    cls = None if status in ("ok", "predicted") else "bad" if status in gate.LOSS_STATUSES else \
        "muted" if status == "skipped" else "warn"
    cells = [text_cell(r["bench"]), text_cell(params_text(r))]
    cells += [text_cell(series_label)] if series_label is not None else []
    config = kib(o.get("smem_config_predicted_bytes"))
    l1_left = l1split.split(doc, r)["l1_left_kib"] if doc is not None and config is not None else None
    cells += [text_cell(status, cls),
              num_cell(round(median / 1e3, 2) if isinstance(median, (int, float)) else None, "{:,.2f}"),
              num_cell(round(100 * noise, 2) if isinstance(noise, (int, float)) else None, "{:.2f}"),
              f'<td class="n" data-v="{pct:.4g}" title="{esc(ctext)}">{pct:.1f}</td>' if pct is not None
              else '<td class="n" data-v="">&ndash;</td>',
              num_cell(occ(r, "measured")), num_cell(occ(r, "api")), num_cell(occ(r, "predicted")),
              text_cell((o.get("limiter") or "").replace(",", ", ") +
                        ("; carveout hint overridden" if l1split.hint_overridden(r) else "")),
              num_cell(occ(r, "effective_carveout")),
              num_cell(round(config, 1) if config is not None else None, "{:g}"),
              num_cell(round(l1_left, 1) if l1_left is not None else None, "{:g}"),
              num_cell(stats.get("count")),
              text_cell("yes" if r.get("verified") else "no", None if r.get("verified") or status != "ok" else "warn"),
              trials_cell(r),
              f'<td data-v="{first:.6g}">{mtext}</td>' if first is not None
              else '<td data-v="">&ndash;</td>']
    return ('<tr class="skip">' if status == "skipped" else "<tr>") + "".join(cells) + "</tr>"


def table(table_id, columns, rows, tools=False, styles=None):
    """A sortable table in its own scrolling box; tools: a filter box and a CSV link above it; styles:
    {heading: CSS of its column's cells} (one rule each, not a class on every cell)."""
    head = "".join(f'<th data-type="{t}" scope="col"' + (f' title="{esc(TITLES[h])}"' if h in TITLES else "") +
                   f">{esc(h)}</th>" for h, t in columns)
    tid = esc(table_id)
    # a column whose every cell is a number is right-aligned by one rule (in the page's style sheet)
    # instead of a class on each of its cells: a tenth of a day's page
    opening = [re.findall(r"<td[^>]*>", row) for row in rows]
    numeric = [j + 1 for j in range(len(columns))
               if rows and all(j < len(o) and re.match(r'<td class="n[ "]', o[j]) for o in opening)]
    if numeric:
        rows = [re.sub(r'<td class="n( ?)([^"]*)"', lambda m: f'<td class="{m.group(2)}"' if m.group(2) else "<td",
                       row) for row in rows]
    rule = ",".join(f"#{tid} td:nth-child({j})" for j in numeric)
    # render() moves the rules into the page's style sheet
    css = [f"{rule} {{ text-align: right; font-variant-numeric: tabular-nums }}"] if numeric else []
    css += [f"#{tid} td:nth-child({j + 1}){css_} " if css_.startswith(" ") else
            f"#{tid} td:nth-child({j + 1}) {{ {css_} }}"
            for j, (h, _) in enumerate(columns) for css_ in (styles or {}).get(h, ())]
    t = ("".join(f'<style class="columns">{c}</style>' for c in css) +
         f'<table class="sortable" id="{tid}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')
    bar = ""
    if tools:
        bar = (f'<div class="tools"><input type="search" class="filter" data-table="{tid}" '
               f'placeholder="filter: words in the row" aria-label="filter the rows of {tid}">'
               f'<output data-table="{tid}">{len(rows)} rows</output>'
               f'<a class="csv" data-table="{tid}" download="{tid}.csv" hidden>CSV of the shown rows</a></div>')
    return f'{bar}<div class="scroll">{t}</div>'


def settings_text(settings):
    return ", ".join(f"{k}={v}" for k, v in (settings or {}).items())


def runs_section(loaded):
    cols = (("file", "text"), ("device", "text"), ("cc", "text"), ("SMs", "num"), ("SM clock (MHz)", "num"),
            ("smem/SM, opt-in/block (KiB)", "text"), ("driver / runtime", "text"),
            ("mode", "text"), ("sweep", "text"), ("started (UTC)", "text"), ("commit", "text"), ("build", "text"),
            ("points", "text"))
    rows, notes, spread = [], [], []
    for path, doc in loaded:
        run = doc["run"]
        for part in reader.split_devices(doc):
            d = part["device"]
            counts = {}
            for r in part["results"]:
                counts[r["status"]] = counts.get(r["status"], 0) + 1
            clock = d.get("measured_clock_mhz") or (d.get("clock_khz") or 0) / 1e3 or None
            smem = f"{(d.get('smem_per_sm') or 0) // 1024} / {(d.get('smem_per_block_optin') or 0) // 1024}"
            drv = f"{d.get('driver_version') or '-'} / {d.get('runtime_version') or '-'}"
            rows.append("<tr>" + "".join([
                text_cell(os.path.basename(path)), text_cell(d.get("name")), text_cell(d.get("cc")),
                num_cell(d.get("sm_count")), num_cell(clock, "{:.0f}"), text_cell(smem), text_cell(drv),
                text_cell(run.get("mode")), text_cell(run.get("sweep")),
                text_cell(str(run.get("started", "")).replace("T", " ").rstrip("Z")),
                text_cell(doc["tool"].get("git")), text_cell(reader.build_text(doc, d)),
                text_cell(", ".join(f"{v} {k}" for k, v in sorted(counts.items())))]) + "</tr>")
        extra = [f"<dt>host</dt><dd>{esc(run.get('host'))}</dd>",
                 f"<dt>command</dt><dd><code>{esc(' '.join(run.get('argv') or []))}</code></dd>",
                 f"<dt>settings</dt><dd>{esc(settings_text(run.get('settings')))}</dd>"]
        if run.get("interrupted") or run.get("incomplete_reason"):
            extra.append(f'<dt>incomplete</dt><dd class="bad">{esc(run.get("incomplete_reason") or "interrupted")}'
                         "</dd>")
        for d in doc.get("devices") or [doc["device"]]:
            nvml = d.get("nvml")
            if isinstance(nvml, dict):
                for when in ("start", "end"):
                    v = nvml.get(when) or {}
                    extra.append(f"<dt>NVML {esc(nvml.get('index'))} at the {when}</dt><dd>"
                                 f"{esc(v.get('temperature_c'))} C, {esc(v.get('power_w'))} W, "
                                 f"{esc(v.get('sm_clock_mhz'))} MHz, clock-event reasons: "
                                 f"{esc(v.get('clock_event_reasons'))}</dd>")
        notes.append(f"<h3>{esc(path)}</h3><dl class=\"settings\">{''.join(extra)}</dl>")
        sp = sorted((e for e in doc.get("spread") or [] if isinstance(e.get("spread_pct"), (int, float))),
                    key=lambda e: e["spread_pct"])
        if sp:
            worst = sp[-1]
            spread.append(f"<p>{esc(path)}: {len(doc['devices'])} GPUs ran the same points; the spread between the "
                          f"fastest and the slowest GPU is {sp[len(sp) // 2]['spread_pct']:.2f} % at the median point "
                          f"and {worst['spread_pct']:.2f} % at most ({esc(worst['bench'])}, "
                          f"{esc(', '.join(f'{k}={v}' for k, v in worst['params'].items()))}).</p>")
    return ('<section id="runs"><h2>Devices and runs</h2>' + table("runs-table", cols, rows) + "".join(spread) +
            "<details><summary>the command, settings and NVML readings of each file</summary>" + "".join(notes) +
            "</details></section>")


# the least size of a figure's text on the page, in CSS px: a figure's text is in its own units (pt,
# its viewBox), so its drawn size is the unit times the figure's drawn width over its width in pt
READABLE_PX = 10

# numbers in an SVG's geometry: a tenth of a point is finer than a screen shows
GEOMETRY = re.compile(r'( (?:d|x|y|x1|x2|y1|y2|width|height|transform|points|viewBox)=")([^"]*)"')
DECIMALS = re.compile(r"(\d\.\d)\d+")


def geometry(value, path):
    """Numbers to 0.1 pt without a trailing .0; a path's commands without the spaces around them."""
    value = re.sub(r"(\d)\.0(?!\d)", r"\1", DECIMALS.sub(r"\1", value))
    return re.sub(r"\s*([MLCQZz])\s*", r"\1", value).strip() if path else value


# while a page is made: the figures whose SVG is made at its end, [(token, figure, salt)], so that
# a forked copy of the process can make half of them (drawing them is most of the report's time)
_PENDING = None


def svg_small(fig, salt):
    """The figure as inline SVG, smaller: no metadata or indentation, geometry to 0.1 pt (a day's
    figures as SVG are about half the bytes of PNG at 100 dpi, and stay sharp when zoomed); its size
    a max-width, so it scales down with the page. While render() makes a page: a token in its place,
    the SVG made by make_pending (a closed figure is drawn the same)."""
    if _PENDING is not None:
        token = f"\x00svg{len(_PENDING)}\x00"
        _PENDING.append((token, fig, salt))
        return token
    return svg_made(fig, salt)


def make_pending(text, pending):
    """The page's text with each pending figure's token replaced by its SVG, half of them made by a
    forked copy where two CPUs are free (tool.in_two: the same figures, so the same bytes)."""
    svgs = tool.in_two(lambda p: svg_made(p[1], p[2]), pending, "the report's figures")
    made = {token: svg for (token, _, _), svg in zip(pending, svgs)}
    return re.sub("\x00svg\\d+\x00", lambda m: made[m.group(0)], text)


def svg_made(fig, salt):
    """svg_small's SVG of the figure, made now."""
    svg = canvas.svg_text(fig, salt)
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r">\s+<", "><", svg)
    svg = re.sub(r"\s*\n\s*", " ", svg)
    svg = GEOMETRY.sub(lambda m: m.group(1) + geometry(m.group(2), m.group(1) == ' d="') + '"', svg)
    svg = re.sub(r' transform="rotate\(-?0 [-\d. ]*\)"', "", svg)       # a text turned by 0 degrees
    m = re.match(r'<svg([^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if m:
        # the figure is never drawn so small that its smallest text is under READABLE_PX: on a narrow
        # screen it keeps that width and scrolls sideways in its own box (report.css)
        fonts = [float(f) for f in re.findall(r"font:(?: \w+)? ([\d.]+)px", svg)]
        least = ""
        if fonts and min(fonts) > 0:
            least = f"; min-width: {math.ceil(READABLE_PX * float(m.group(2)) / min(fonts))}px"
        svg = f'<svg{m.group(1)} style="max-width: {m.group(2)}pt; --w: {m.group(2)}pt{least}"' + svg[m.end():]
    return svg


def dots(path):
    """A hatch's path with its small circles (eight Bezier curves each, about 250 characters) as
    two arcs each (about 40): the dotted hatch of a bar is 80 kB otherwise."""
    def circle(m):
        xy = [float(v) for v in re.findall(r"-?[\d.]+", m.group(0))]
        xs, ys = xy[0::2], xy[1::2]
        w, h = max(xs) - min(xs), max(ys) - min(ys)
        if not (0 < w < 4 and abs(w - h) < 0.3):
            return m.group(0)
        r, cx, cy = (w + h) / 4, (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
        return f"M{cx - r:g} {cy:g}a{r:g} {r:g} 0 1 0 {2 * r:g} 0a{r:g} {r:g} 0 1 0 {-2 * r:g} 0z"
    return re.sub(r"M[-\d. ]+(?:C[-\d. ]+){4,}z", circle, path)


def shared_styles(text):
    """(text, css): the page's SVG figures made smaller together. Hatch patterns drawn the same are
    kept once; the ids something refers to (markers, clip paths, hatches) renamed short and unique
    over the page, the rest (matplotlib names every group) dropped; then the style attributes (the
    figure's own element aside) become classes of one style sheet, each distinct style once:
    matplotlib repeats a few dozen styles on thousands of elements, two fifths of a figure's bytes."""
    svg_re = re.compile(r"<svg.*?</svg>", re.S)
    alias, patterns = {}, {}

    def pattern(m):
        first = patterns.setdefault(m.group(2), m.group(1))
        if first == m.group(1):
            return m.group(0)
        alias[m.group(1)] = first
        return ""
    text = re.sub(r'<pattern id="([^"]+)"(.*?)</pattern>', pattern, text, flags=re.S)
    text = re.sub(r"<pattern .*?</pattern>", lambda m: re.sub(r' d="([^"]*)"', lambda d: f' d="{dots(d.group(1))}"',
                                                            m.group(0)), text, flags=re.S)
    ref = re.compile(r'(url\(#|href="#)([^)"]+)')
    used = {alias.get(r, r) for _, r in ref.findall(text)}
    names = {}

    def short_id(m):
        if m.group(1) not in used:
            return ""
        return ' id="%s"' % names.setdefault(m.group(1), f"i{len(names):x}")

    def figure_ids(m):
        svg = re.sub(r' id="([^"]*)"', short_id, m.group(0))
        return ref.sub(lambda r: r.group(1) + names.get(alias.get(r.group(2), r.group(2)), r.group(2)), svg)
    text = svg_re.sub(figure_ids, text)
    styles = {}

    def to_class(m):
        return ' class="%s"' % styles.setdefault(m.group(1), f"fs{len(styles):x}")

    def figure(m):
        svg = m.group(0)
        i = svg.index(">")
        return svg[:i] + re.sub(r' style="([^"]*)"', to_class, svg[i:])
    text = svg_re.sub(figure, text)
    # groups without attributes around elements without children say nothing
    bare = re.compile(r"<g>((?:<[^<>]*/>|<text[^<>]*>[^<>]*</text>)*)</g>")
    while True:
        text, n = bare.subn(r"\1", text)
        if not n:
            break
    return text, "".join(f"svg .{c} {{ {html.unescape(st)} }}\n" for st, c in styles.items())


# a user kernel's points (smembench --kernel) are a section of their own, every sweep of the kernel
# in it, whatever its sweeps are called: its figure draws them together
def section_of(doc, r):
    """The section a point is shown in: ("sweep", its sweep), or for a user kernel's point
    ("kernel", the function)."""
    return ("kernel", r["bench"]) if reader.user_point(doc, r) else ("sweep", r.get("sweep") or r["bench"])


def section_id(section):
    """The section's id, the base of its figures' and tables' ids: sweep-<sweep>, kernel-<function>
    (the function's characters an id and a CSS selector may hold)."""
    kind, name = section
    return f"sweep-{name}" if kind == "sweep" else "kernel-" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


def section_link(section):
    return section[1] if section[0] == "sweep" else f"kernel {section[1]}"


def kernel_lines(series):
    """The kernel records of a user kernel's section, one line each: the code, its resources, its
    description and what verification saw."""
    out = []
    for s in series:
        k = reader.kernel(s.doc)
        if k is None or any(k is x for x in out):
            continue
        out.append(k)
    lines = []
    for k in out:
        res = k.get("resources") or {}
        ver = k.get("verification") or {}
        most = res.get("max_threads_per_block")
        mism = ver.get("mismatches")
        lines.append(
            f"<li><code>{esc(k.get('file'))}</code> ({esc(k.get('kind'))}, sha256 "
            f"<code>{esc((k.get('sha256') or 'not computed')[:16])}</code>), function <code>{esc(k.get('function'))}"
            f"</code>: {esc(res.get('regs'))} registers, {esc(res.get('static_smem_bytes'))} B of static shared "
            f"memory, {esc(res.get('local_bytes'))} B local, "
            f"{esc(f'up to {most} threads per block' if most else 'no fixed block limit')} "
            f"({esc(res.get('source'))}); described by <code>{esc(k.get('description_file'))}</code>; verification: "
            f"{esc(ver.get('configurations'))} configurations in {esc(ver.get('groups'))} groups, "
            f'<span class="{"bad" if mism else "good"}">{esc(mism)} mismatch{"" if mism == 1 else "es"}</span>, '
            f"reference {esc(ver.get('reference'))}</li>")
    return '<ul class="kernel">' + "".join(lines) + "</ul>" if lines else ""


def skip_groups(series):
    """{reason: [(series, point)]} of the skipped points, in page order: a skip is a point the device or
    the build cannot run (a feature the cc lacks, code the build does not carry, a size past a limit),
    its reason written by the benchmark; expected, never a failure."""
    groups = {}
    for s in series:
        for r in s.doc["results"]:
            if r["status"] == "skipped":
                groups.setdefault(r.get("reason") or "no reason recorded", []).append((s, r))
    return groups


def skips_block(name, groups, several):
    """The skipped points, folded: a row per reason with its count, the benchmarks and the points'
    parameters, muted (a skip is expected: red is for failures)."""
    n = sum(len(v) for v in groups.values())
    cols = (("points", "num"), ("reason", "text"), ("benchmarks", "text")) + \
        ((("devices", "text"),) if several else ()) + (("parameters", "text"),)
    rows = []
    for reason, points in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        benches = ", ".join(dict.fromkeys(r["bench"] for _, r in points))
        devices = ", ".join(dict.fromkeys(s.label for s, _ in points))
        params = "; ".join(dict.fromkeys(params_text(r) for _, r in points))
        rows.append("<tr>" + num_cell(len(points)) + text_cell(reason, "wrap") + text_cell(benches) +
                    (text_cell(devices, "wrap") if several else "") + text_cell(params, "wrap") + "</tr>")
    return (f'<details class="skips" id="skips-{esc(name)}" data-count="{n}"><summary>{n} point'
            f'{"s" if n != 1 else ""} skipped, as expected on this device and build: {len(groups)} reason'
            f'{"s" if len(groups) != 1 else ""}</summary>' + table(f"skipped-{name}", cols, rows) + "</details>")


def sweep_section(plt, section, series):
    kind, what = section
    sid = section_id(section)
    name = what if kind == "sweep" else sid     # the base of its figures' and tables' ids
    if kind == "kernel":
        parts = [f'<section id="{esc(sid)}"><h2>Your kernel <code>{esc(what)}</code></h2>', kernel_lines(series)]
    else:
        parts = [f'<section id="{esc(sid)}"><h2>Sweep <code>{esc(what)}</code></h2>']
    for fig_name, fig in figures.figures(plt, series):
        svg = svg_small(fig, f"smembench-{name}-{fig_name}")
        plt.close(fig)
        parts.append(f'<figure id="fig-{esc(name)}-{esc(fig_name)}">{svg}<figcaption>smembench-plot: '
                     f"{esc(fig_name)}.svg</figcaption></figure>")
    several = len(series) > 1
    parts.append(explain_block(name, series, several))
    cols = POINT_COLUMNS[:2] + ((("device", "text"),) if several else ()) + POINT_COLUMNS[2:]
    rows = [point_row(r, s.label if several else None, s.doc) for s in series for r in s.doc["results"]]
    parts.append(f"<h3>Points ({len(rows)})</h3>")
    parts.append(table(f"points-{name}", cols, rows, tools=True, styles=POINT_STYLES))
    split = disagreeing_rows(series, several)
    if split:
        tcols = ((("device", "text"),) if several else ()) + (
            ("benchmark", "text"), ("parameters", "text"), ("trials: median per launch, SM clock", "text"),
            ("range (%)", "num"), ("noise within a trial (%)", "num"))
        parts.append(f"<h3>Points whose trials disagree ({len(split)})</h3>")
        parts.append("<p>Each trial is a fresh setup, warm-up and sampling of the point, its trials far apart in "
                     "the run: these moved between trials by more than their trials' own noise, so one process's "
                     "figure for them is one of the levels a setup lands on (src/stats.h, Trials).</p>")
        parts.append(table(f"trials-{name}", tcols, split))
    failed = [(s, r) for s in series for r in s.doc["results"] if r["status"] not in ("ok", "predicted", "skipped")]
    if failed:
        bcols = ((("device", "text"),) if several else ()) + (("benchmark", "text"), ("parameters", "text"),
                                                                ("status", "text"), ("reason", "text"))
        brows = ["<tr>" + "".join(([text_cell(s.label)] if several else []) +
                                  [text_cell(r["bench"]), text_cell(params_text(r)),
                                   text_cell(r["status"], "bad" if r["status"] in gate.LOSS_STATUSES else "warn"),
                                   text_cell(r.get("reason"), "wrap")]) + "</tr>" for s, r in failed]
        parts.append(f'<h3 class="bad">Failed points ({len(brows)})</h3>')
        parts.append(table(f"notrun-{name}", bcols, brows))
    skipped = skip_groups(series)
    if skipped:
        parts.append(skips_block(name, skipped, several))
    parts.append("</section>")
    return "".join(parts)


def explain_block(name, series, several):
    """The steps in time of the section's files that asked for counters, each with the counters
    that moved (smembench.explain), or why a file has none; "" where no file asked (an older file's
    section is as it was)."""
    items, rest, asked = [], [], False
    for s in series:
        if not explain.asked(s.doc):
            continue
        asked = True
        who = f"{s.label}: " if several else ""
        said = explain.header(s.doc)
        items += [f"<li>{esc(who + line)}</li>" for line in said]
        for step in explain.steps(s.doc):
            (items if step.moved else rest).append(f"<li>{esc(who + step.text(said=bool(said)))}</li>")
    if not asked:
        return ""
    out = (f'<h3 id="explain-{esc(name)}">Steps in time and the counters that moved</h3>'
           f"<p>Each step between neighbouring points of an axis larger than {explain.NOISE_FLOOR * 100:g} % and "
           f"{explain.NOISE_TIMES:g} x the points' noise, with the hardware counters (one launch, profiled after "
           f"the point was timed) that moved with it; the steps at which no counter moved folded below.</p>")
    out += '<ul class="explain">' + "".join(items) + "</ul>" if items else "<p>No counter moved at any step.</p>"
    if rest:
        out += (f'<details class="explain-rest"><summary>{len(rest)} step{"s" if len(rest) != 1 else ""} in time '
                f'where no counter moved or none was collected</summary><ul class="explain">' + "".join(rest) + "</ul></details>")
    return out


def explain_text(loaded):
    """--explain's lines: per file its name, device and sweep, then explain.lines() indented."""
    out = []
    for path, doc in loaded:
        out.append(f"{tool.shown(path)}: {doc['device'].get('name')}, sweep {doc['run'].get('sweep')}")
        out += ["  " + tool.shown(line) for line in explain.lines(doc)]
    return out


def gate_options(threshold, alpha):
    """The gate's options with --threshold T and --alpha A, its defaults for the rest, checked as
    smembench-compare checks them: the report's gate is that command's. cli.Usage for values it refuses."""
    return gate.options(threshold=threshold, alpha=alpha)


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


# the order of the gate table: what changed first, then what the noise could not judge, then the rest
ORDER = {"slower": 0, "stopped": 1, "faster": 2, "started": 3, "uncertain": 4, "same": 5}


def gate_verdicts(base_path, base, loaded, opt):
    """[(path, doc, outcome)] for every input against the baseline: outcome None for the baseline
    itself, a str for a file the gate cannot judge (why), else gate.gate's (rows, mismatches,
    counts, failing, rc)."""
    out = []
    for path, doc in loaded:
        if same_file(path, base_path) or doc is base:
            out.append((path, doc, None))
        elif not reader.timed_points(doc):
            out.append((path, doc, f"no timed point (a {doc['run'].get('mode')}-mode file): the gate compares times"))
        else:
            try:
                out.append((path, doc, gate.gate(base_path, path, base, doc, opt)))
            except cli.Usage as e:
                if "no point in common" not in str(e):
                    raise reader.ResultError(str(e)) from None     # a point twice: unusable, as for the gate
                out.append((path, doc, "shares no point with the baseline: not compared"))
    return out


def gate_key(row):
    if row["kind"] == "timed":
        return row["verdict"]
    if row["kind"] == "metric":
        return "metric " + row["verdict"]
    return ("stopped" if row["lost"] else "started") if row["kind"] == "status" else row["kind"]


def mismatch_text(kind, text, opt):
    if kind in ("unit", "layout"):
        return f"{kind}: {text} (does not fail the gate)", "warn"
    if kind in opt.allow:
        return f"{kind} mismatch: {text} (allowed by --allow)", "warn"
    return f"{kind} mismatch: {text} (fails the gate; smembench-compare --allow {kind} accepts it)", "bad"


def names_line(what, rows, cls):
    if not rows:
        return ""
    names = ", ".join(r["name"] for r in rows)
    what = what.format(s="" if len(rows) == 1 else "s", are="is" if len(rows) == 1 else "are")
    return f'<details><summary class="{cls}">{len(rows)} {esc(what)}</summary><p>{esc(names)}</p></details>'


def baseline_section(base_path, verdicts, opt):
    parts = [f'<section id="baseline"><h2>Against the baseline <code>{esc(base_path)}</code></h2>',
             f'<p class="sub">Per file the gate\'s verdict, the decision <code>smembench-compare BASE FILE</code> '
             f"takes (exit 1 = fail): a change of the median of {opt.threshold:g} % or more that a one-sided "
             f"Mann-Whitney U test (alpha {opt.alpha:g}) confirms beyond the point's run-to-run drift; points "
             "missing, new or stopped, and a device, driver, clock or settings mismatch fail it too. Noise: the "
             "robust spread (1.4826 MAD / median) of the baseline's and the file's samples.</p>"]
    cols = (("point", "text"), ("base median (us)", "num"), ("median (us)", "num"), ("change (%)", "num"),
            ("noise base / file (%)", "text"), ("verdict", "text"))
    skipped = []
    for i, (path, doc, outcome) in enumerate(verdicts):
        name = esc(os.path.basename(path))
        if outcome is None:
            skipped.append(f'<li class="self" data-file="{name}">{esc(path)}: the baseline itself, not compared '
                           "with itself</li>")
            continue
        if isinstance(outcome, str):
            skipped.append(f'<li class="skip" data-file="{name}">{esc(path)}: {esc(outcome)}</li>')
            continue
        rows, found, count, failing, rc = outcome
        verdict = "fail" if rc else "pass"
        parts.append(f'<article class="gate" id="gate-{i}" data-file="{name}" data-verdict="{verdict}">'
                     f"<h3>{esc(path)}: <span class=\"{'bad' if rc else 'good'}\">gate {verdict}"
                     f"{' (exit 1): ' + esc(', '.join(failing)) if rc else ' (exit 0)'}</span></h3>")
        if found:
            parts.append('<ul class="mismatch">' + "".join(
                f'<li class="{cls}">{esc(text)}</li>' for text, cls in (mismatch_text(k, t, opt) for k, t in found))
                + "</ul>")
        judged = sorted((r for r in rows if gate_key(r) in ORDER), key=lambda r: ORDER[gate_key(r)])
        counts = ", ".join(f"{count.get(k, 0)} {k}" for k in ("slower", "faster", "same", "uncertain"))
        others = ", ".join(f"{count[k]} {k}" for k in ("missing", "new", "stopped", "started", "untimed")
                           if count.get(k))
        parts.append(f"<p>{sum(1 for r in rows if r['kind'] == 'timed')} points compared: {esc(counts)}"
                     f"{'; ' + esc(others) if others else ''}.</p>")
        missing = [r for r in rows if r["kind"] == "missing"]
        new = [r for r in rows if r["kind"] == "new"]
        parts.append(names_line("point{s} of the baseline missing from this file", missing,
                                "bad" if "missing" not in opt.allow else "warn"))
        parts.append(names_line("point{s} new in this file (absent from the baseline)", new,
                                "bad" if "new" not in opt.allow else "warn"))
        trs, same = [], []
        for r in judged:
            k = gate_key(r)
            b, n = r["base"], r["new"]
            mb = reader.median_ns(b) if b is not None and reader.timed(b) else None
            mn = reader.median_ns(n) if n is not None and reader.timed(n) else None
            noise = r.get("noise")
            ntext = (f"{100 * noise[0]:.2f} / {100 * noise[1]:.2f}" if noise and None not in noise else "")
            text = gate_format.verdict_text(r)
            cls = "bad" if k in ("slower", "stopped", "metric lost", "metric worse") else "good" if k == "faster" else \
                "warn" if k in ("started", "uncertain") else None
            (same if k == "same" else trs).append(f'<tr data-verdict="{k}">' + text_cell(r["name"]) +
                       num_cell(mb / 1e3 if mb is not None else None, "{:,.2f}") +
                       num_cell(mn / 1e3 if mn is not None else None, "{:,.2f}") +
                       num_cell(100 * r["change"] if r.get("change") is not None else None, "{:+.2f}") +
                       text_cell(ntext) + text_cell(text, cls) + "</tr>")
        if trs:
            parts.append(f"<p>Changed, or not judged ({len(trs)}):</p>")
            parts.append(table(f"gate-{i}-points", cols, trs, tools=True))
        if same:
            parts.append(f"<details><summary>{len(same)} points the same</summary>" +
                         table(f"gate-{i}-same", cols, same, tools=True) + "</details>")
        parts.append("</article>")
    if skipped:
        parts.insert(2, "<ul class=\"skipped\">" + "".join(skipped) + "</ul>")
    parts.append("</section>")
    return "".join(parts)


def headline(loaded, verdicts, base_path):
    # GPUs as the fleet section counts them: by uuid where every run of the model records one, else
    # by node and PCI bus (two runs on one GPU are one GPU)
    models = {m: fleet_units.distinct_gpus(units) for m, units in fleet_units.by_model(loaded).items()}
    ngpus = sum(models.values())
    npoints = sum(len(doc["results"]) for _, doc in loaded)
    statuses = {}
    for _, doc in loaded:
        for r in doc["results"]:
            k = "timed" if reader.timed(r) else r["status"]
            statuses[k] = statuses.get(k, 0) + 1
    items = [f'<li id="headline-devices" data-count="{ngpus}"><b>devices</b> {ngpus} GPU'
             f"{'s' if ngpus != 1 else ''}: " +
             esc(", ".join(f"{n} x {m}" if n > 1 else m for m, n in models.items())) + "</li>",
             f'<li id="headline-points" data-count="{npoints}" data-timed="{statuses.get("timed", 0)}"><b>points</b> '
             f"{npoints} in {len(loaded)} file{'s' if len(loaded) != 1 else ''}: " +
             esc(", ".join(f"{v} {k}" for k, v in sorted(statuses.items(), key=lambda kv: (kv[0] != "timed", kv[0]))))
             + "</li>"]
    lost = sum(v for k, v in statuses.items() if k in gate.LOSS_STATUSES)
    if verdicts is None:
        state = "fail" if lost else "none"
        text = (f"{lost} point{'s' if lost != 1 else ''} failed; " if lost else "") + \
            "no baseline given (--baseline BASE.json judges every file as the gate does)"
        cls = "bad" if lost else ""
    else:
        judged = [(p, o) for p, _, o in verdicts if isinstance(o, tuple)]
        failed = [(p, o) for p, o in judged if o[4]]
        apart = sum(1 for _, _, o in verdicts if isinstance(o, str))
        itself = any(o is None for _, _, o in verdicts)
        state = "fail" if failed else "pass" if judged else "none"
        text = (f"against {os.path.basename(base_path)}: " +
                (f"gate fail: {len(failed)} of {len(judged)} files fail (" +
                 "; ".join(f"{os.path.basename(p)}: {', '.join(o[3])}" for p, o in failed[:3]) +
                 (f"; and {len(failed) - 3} more" if len(failed) > 3 else "") + ")" if failed else
                 f"gate pass: {len(judged)} file{'s pass' if len(judged) != 1 else ' passes'}" if judged else
                 "no file shares a point with the baseline") +
                (f"; {apart} not compared (no point in common, or no timed point)" if apart else "") +
                ("; the baseline itself not compared with itself" if itself else "") +
                (f"; {lost} point{'s' if lost != 1 else ''} failed" if lost else ""))
        cls = "bad" if failed else "good" if judged else ""
    items.append(f'<li id="headline-verdict" data-verdict="{state}"><b>verdict</b> '
                 f'<span class="{cls}">{esc(text)}</span></li>')
    return '<ul id="headline">' + "".join(items) + "</ul>"


OUTLIERS_SHOWN = 20      # the fleet section's outlier rows; the points table stars every outlier


def fleet_sections(plt, loaded, threshold):
    """[(id, html)]: per GPU model whose units the inputs tell apart (fleet_units.distinct_gpus) and that
    share a timed point, smembench-fleet's comparison: the units, the heatmap, the outliers and a
    table of each unit's deviation from the fleet median per point."""
    out = []
    for model, units in fleet_units.by_model(loaded).items():
        if len(units) < 2 or fleet_units.distinct_gpus(units) < 2:
            continue
        sid = f"fleet-{len(out)}"
        try:
            fl = fleet_units.Fleet(fleet_units.name_apart(units), threshold)
        except cli.Usage as e:
            out.append((sid, f'<section id="{sid}"><h2>Fleet: {esc(model)}</h2><p class="bad">not compared: '
                             f"{esc(e)}</p></section>"))
            continue
        if not any(len(row["cells"]) > 1 for row in fl.rows):
            continue
        parts = [f'<section id="{sid}"><h2>Fleet: {esc(model)}</h2>',
                 f'<p class="sub">{len(units)} units ({fleet_units.distinct_gpus(units)} GPUs told apart by uuid, or node '
                 f"and PCI bus; {sum(len(u.runs) for u in units)} runs, a unit's time the median of its runs'): each "
                 "unit's median time against the fleet median (the median of the units' medians, one vote per "
                 "unit) per point. An outlier is a unit slower than the fleet median by more than its "
                 f"allowance, the largest of {threshold:g} %, the variation the point declares for the unit's "
                 "relation to the others (between units of one GPC layout, or of different or unrecorded "
                 "layouts) and 3 x its noise (smembench-fleet's rule, the gate's on units).</p>"]
        ucols = (("unit", "text"), ("node", "text"), ("gpu", "num"), ("uuid", "text"), ("pci bus", "text"),
                 ("GPC layout", "text"), ("files", "text"), ("commit", "text"), ("runs", "num"), ("timed points", "num"))
        urows = ["<tr>" + text_cell(u.name) + text_cell(u.node) + num_cell(u.gpu) + text_cell(u.uuid) +
                 text_cell(u.pci) + text_cell(u.layout or "not recorded") + text_cell(u.files()) +
                 text_cell(u.commits()) + num_cell(len(u.runs)) + num_cell(len(u.points)) + "</tr>" for u in fl.units]
        parts.append(table(f"{sid}-units", ucols, urows))
        parts.append(f'<p class="sub">{esc(fleet_units.layout_note(fl.units))}</p>')
        parts.append(f"<h3>Outliers ({len(fl.outliers)}), the most over their allowance first</h3>")
        if fl.outliers:
            # the rule said once above; a row per outlier, the first OUTLIERS_SHOWN, the rest counted
            orows = fleet_units.outlier_rows(fl)
            texts = (0, 1, 5, 6)   # unit, point, allowance from, what (a unit difference or one run)
            ocols = tuple((h, "text" if i in texts else "num") for i, h in enumerate(fleet_units.OUTLIER_HEADS))
            parts.append(table(f"{sid}-outliers", ocols, ["<tr>" + "".join(
                text_cell(c) if i in texts else num_cell(float(c), "{:+.2f}" if i == 2 else "{:.2f}")
                for i, c in enumerate(row)) + "</tr>" for row in orows[:OUTLIERS_SHOWN]]))
            if len(orows) > OUTLIERS_SHOWN:
                parts.append(f'<p class="sub">and {len(orows) - OUTLIERS_SHOWN} more outliers, starred in the points '
                             "table below</p>")
            parts.append('<p class="sub">' + "<br>".join(esc(x.strip()) for x in fleet_units.declared_notes(fl, False))
                         + "</p>")
        else:
            parts.append('<p class="good">none</p>')
        if fl.lacking:
            by_unit = {}
            for u, name in fl.lacking:
                by_unit.setdefault(u.name, []).append(name)
            parts.append(f'<p class="warn">{len(fl.lacking)} points timed on one unit and not on another: ' +
                         esc("; ".join(f"{uname} lacks {len(names)} ({', '.join(names[:2])}"
                                       + (", ..." if len(names) > 2 else "") + ")" for uname, names in by_unit.items()))
                         + "</p>")
        top = fl.largest()
        if top:
            parts.append(f"<h3>The {len(top)} largest deviations (slower than the fleet median)</h3><ul>" + "".join(
                f"<li>{esc(uname)} at {esc(name)}: {100 * c['dev']:+.2f} %, allowance {100 * c['allow']:.2f} % "
                f"({esc(fleet_units.short_source(c['source']))})</li>" for uname, name, c in top) + "</ul>")
        # the verdict above, the heatmap (a row per point) after it
        fig = fleet_units.heatmap(plt, fl)
        # the heatmap's cells are its data's own pixels in the SVG, drawn sharp by the browser
        # (image-rendering: pixelated), not a raster at the figure's size: 15 units by 758 points are
        # a 15 x 758 image, not a 2,900 x 15,000 px one (1 GB and 8 s of the report of 15 files)
        for ax in fig.axes:
            for im in ax.get_images():
                im.set_interpolation("none")
        svg = svg_small(fig, f"smembench-{sid}")
        plt.close(fig)
        parts.append(f'<figure id="fig-{sid}">{svg}<figcaption>smembench-fleet: fleet.png</figcaption></figure>')
        pcols = (("point", "text"), ("fleet median (us)", "num"), ("spread (%)", "num")) + \
            tuple((f"{u.name} (%)", "num") for u in fl.units)
        prows = []
        for row in fl.ranked():
            cells = [text_cell(row["name"]), num_cell(row["median_ns"] / 1e3, "{:,.2f}"),
                     num_cell(100 * row["spread"], "{:.2f}")]
            for u in fl.units:
                c = row["cells"].get(u.name)
                if c is None:
                    cells.append('<td class="n" data-v="">absent</td>')
                else:
                    v = 100 * c["dev"]
                    cls = "n bad" if c["outlier"] else "n"
                    cells.append(f'<td class="{cls}" data-v="{v!r}">{esc(f"{v:+.2f}")}'
                                 f'{" *" if c["outlier"] else ""}</td>')
            prows.append("<tr>" + "".join(cells) + "</tr>")
        parts.append(f"<h3>Points ({len(prows)}): deviation from the fleet median, * an outlier, the farthest from "
                     "normal first</h3>")
        parts.append(table(f"{sid}-points", pcols, prows))
        parts.append("</section>")
        out.append((sid, "".join(parts)))
    return out


def generations_section(plt, series):
    """Where the files span two or more GPU models, their measured, predicted and published figures
    in one figure per question (smembench-plot's generations figure), whatever sweep each file ran;
    "" otherwise."""
    drawn = figures.across_models(plt, series)
    if not drawn:
        return ""
    how = {}
    for s in series:
        how.setdefault("predicted by the occupancy calculator" if s.doc["run"].get("mode") == "predict"
                       else "measured", []).append(s.model)
    parts = ['<section id="generations"><h2>Generations</h2><p class="sub">' +
             esc("; ".join(f"{what}: {', '.join(dict.fromkeys(m))}" for what, m in how.items())) +
             ". Each GPU one colour in every panel, the method its line style and marker, the values published for "
             "its generation (device.published) beside them with their source.</p>"]
    for name, fig, benches in drawn:
        svg = svg_small(fig, f"smembench-{name}")
        plt.close(fig)
        parts.append(f'<figure id="fig-{esc(name)}">{svg}<figcaption>smembench-plot: {esc(name)}.svg '
                     f"({esc(', '.join(benches))})</figcaption></figure>")
    return "".join(parts) + "</section>"


def render(plt, loaded, baseline=None, threshold=2.0, alpha=0.01):
    """The page, as text, for [(path, doc)] and an optional (path, doc) baseline."""
    global _PENDING
    _PENDING = []
    try:
        return page(plt, loaded, baseline, threshold, alpha)
    finally:
        _PENDING = None


def page(plt, loaded, baseline, threshold, alpha):
    """render()'s page, its figures made at the end (make_pending)."""
    series = series_mod.relabel(series_mod.make_series(loaded))
    sweeps = list(dict.fromkeys(section_of(s.doc, r) for s in series for r in s.doc["results"]))
    devices = list(dict.fromkeys(reader.device_label(s.doc) for s in series))
    dates = sorted({reader.run_date(s.doc) for s in series})
    opt = gate_options(threshold, alpha)
    verdicts = gate_verdicts(baseline[0], baseline[1], loaded, opt) if baseline else None
    body = [f"<h1>smembench report</h1><p class=\"sub\">{esc(', '.join(devices))}; {esc(', '.join(dates))}; "
            f"{len(loaded)} result file{'s' if len(loaded) != 1 else ''}</p>",
            headline(loaded, verdicts, baseline[0] if baseline else None)]
    links = (['<a href="#baseline">baseline</a>'] if baseline else []) + ['<a href="#runs">devices and runs</a>']
    links += [f'<a href="#{esc(section_id(w))}">{esc(section_link(w))}</a>' for w in sweeps]
    fleets = fleet_sections(plt, loaded, threshold)
    links += [f'<a href="#{sid}">fleet</a>' for sid, _ in fleets]
    generations = generations_section(plt, series)     # several GPU models: one figure for them all
    if generations:
        links.insert(links.index('<a href="#runs">devices and runs</a>') + 1, '<a href="#generations">generations</a>')
    body.append("<nav>" + "".join(links) + "</nav>")
    if baseline:
        body.append(baseline_section(baseline[0], verdicts, opt))
    body.append(runs_section(loaded))
    body += [generations] if generations else []
    for w in sweeps:
        in_sweep = [s.only(lambda r, w=w, doc=s.doc: section_of(doc, r) == w) for s in series]
        body.append(sweep_section(plt, w, [s for s in in_sweep if s.doc["results"]]))
    body += [section for _, section in fleets]
    body.append('<output id="selftest"></output>')
    title = f"smembench report: {', '.join(devices)}"
    text, figure_css = shared_styles(make_pending("\n".join(body), _PENDING))
    columns = re.compile(r'<style class="columns">(.*?)</style>')
    figure_css += "".join(rule + "\n" for rule in columns.findall(text))
    text = columns.sub("", text)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{asset('report.css')}{figure_css}</style></head>\n<body>\n" + text +
            f"\n<script>{asset('report.js')}</script>\n</body></html>\n")


def main(argv=None):
    p = cli.parser("report.py", __doc__)
    p.add_argument("results", nargs="+", help="smembench result files or folders of them (other JSON files are "
                   "skipped, with one line)")
    p.add_argument("-o", "--output", help="directory for index.html (created if missing); required without --explain")
    p.add_argument("--explain", action="store_true",
                   help="print, for each step in time past the noise between neighbouring points of a sweep axis, the "
                        "hardware counters that moved with it (smembench --counters), and write no page")
    p.add_argument("--baseline", help="a result file to compare every file with (as smembench-compare does)")
    p.add_argument("--threshold", type=float, default=2.0,
                   help="smallest change that counts, in percent (2); above smembench-compare's --drift of 1")
    p.add_argument("--alpha", type=float, default=0.01, help="significance level of the test (0.01)")
    p.add_argument("--force", action="store_true", help="replace a smembench result file named index.html")
    me = os.path.basename(sys.argv[0]) or "report.py"   # smembench-report installed, report.py in the tree

    def body():
        a = p.parse_args(argv)
        if not a.explain and a.output is None:
            p.error("the following arguments are required: -o/--output")
        if a.explain and (a.output is not None or a.baseline):
            p.error("--explain writes no page: it takes no -o or --baseline")
        try:
            gate_options(a.threshold, a.alpha)     # the values smembench-compare takes
        except cli.Usage as e:
            text = str(e) if "--alpha" in str(e) else (
                f"invalid value {a.threshold:g} for --threshold; expected more than 1 (smembench-compare's least "
                "drift) and less than 1000")
            print(f"{me}: {text.split('; see ')[0]}; see report.py --help", file=sys.stderr)
            return 2
        if not a.explain:
            plt = canvas.pyplot()
        loaded = canvas.load(a.results, lambda text: print(f"{me}: {text}", file=sys.stderr))
        if not loaded:
            print(f"{me}: no result files among the inputs: nothing to report", file=sys.stderr)
            return 2
        if a.explain:       # text only: no matplotlib needed
            return tool.emit(explain_text(loaded), 0, "the explanation")
        baseline = (a.baseline, inputs.load_named(a.baseline)) if a.baseline else None
        if os.path.exists(a.output) and not os.path.isdir(a.output):
            canvas.check_outdir(a.output)      # refused before the page is made
        page = render(plt, loaded, baseline, a.threshold, a.alpha)
        # the directory is made only once there is a page to put in it
        canvas.check_outdir(a.output)
        path = os.path.join(a.output, "index.html")
        protect = a.results + ([a.baseline] if a.baseline else [])
        tool.write_text(path, page, inputs=protect, force=a.force)
        return tool.emit([path], 0, "the report's path")   # as the file system has it, as plot's
    # fleet's and compare's refusals of an input (a point twice in a file: a staging file without
    # transfer_bytes) are the report's too: one line, exit 2, before the directory is made
    return tool.run_tool(body, (reader.ResultError, cli.Usage), [
        (canvas.MissingModule, 3, str),
        (RecursionError, 2, "a result file is nested too deeply to report"),
        (MemoryError, 2, "out of memory reading the result files; report fewer or smaller files")], prog=me)
