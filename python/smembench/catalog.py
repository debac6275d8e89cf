"""smembench-catalog: a catalog of measured GPUs, and a static site comparing them.

  smembench-catalog add FILE... [--catalog DIR] [--anonymize]
  smembench-catalog site DIR [--catalog DIR] [--predicted FILE]...

add checks each result file before it enters: the schema (the package's one reader), measure mode
(not --predict), one GPU model and one unit per file, the unit's uuid, a recorded build, driver and
commit, at least one finished point, every finished point verified and every failed one with its
reason. A file refused is one line naming the reason, and nothing is added (exit 2). A file that
passes is stored under DIR/<model>/<unit>/ (the file, gzip-compressed, and its entry: unit, build,
commit, driver, date), and add says what it added; the same file twice is one entry. --anonymize
replaces the unit's uuid by a stable salted hash (the salt kept in DIR/salt), said in the entry.

site builds a static site from the catalog in DIR: a page per question (the carveout trade-off, the
dynamic staircase and the opt-in, bandwidth and latency per clock, banks and swizzles, distributed
shared memory, the tile kernels against cuBLAS) with every GPU of the catalog side by side (the
units' median with their range), the predicted models (--predicted: a --predict file of the driver)
and the published figures (the package's published.json and the device records' published values,
each with its source) as their own marks, the package's figures of the question below; and a page
per GPU with its units and their provenance.
"""
import gzip
import hashlib
import html
import json
import math
import os
import re
import secrets
import statistics
import sys
import time

from smembench import canvas
from smembench import cli
from smembench import figures as figures_pkg
from smembench import reader
from smembench import series as series_mod
from smembench import tool
from smembench.figures import bandwidth, bank, carveout, cluster, occupancy, swizzle, tile

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLISHED_FILE = os.path.join(HERE, "published.json")
DEFAULT_CATALOG = os.path.join("results", "catalog")
SALT = "salt"
READABLE_PX = 10        # no text of a page or figure is drawn smaller (figures scroll sideways instead)


class Refused(Exception):
    """A file the catalog does not take: the reason, one line."""


# ---- add: the checks, then the entry

def _points(doc):
    return {s: sum(1 for r in doc["results"] if r["status"] == s) for s in ("ok", "skipped", "failed", "invalid")}


def check(path):
    """(document, the file's bytes) of a file the catalog takes, else Refused with the reason."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Refused(f"cannot read it: {e.strerror or e}") from None
    try:
        doc = reader.parse(data.decode("utf-8"), path)
    except UnicodeDecodeError:
        raise Refused("not text: not a smembench result file") from None
    except reader.ResultError as e:
        raise Refused(str(e)[len(path) + 2:] if str(e).startswith(path + ": ") else str(e)) from None
    mode = doc["run"].get("mode")
    if mode != "measure":
        raise Refused(f'run.mode is "{mode}": the catalog holds measured GPUs, not --predict models')
    if doc["device"].get("model"):
        raise Refused("the device is a model (device.model is true): the catalog holds measured GPUs")
    devs = reader.devices(doc)
    names = list(dict.fromkeys(str(d.get("name")) for d in devs))
    if len(names) > 1:
        raise Refused(f"{len(names)} GPU models in one file ({', '.join(names)}); the catalog takes one model "
                      "per file")
    if len(devs) > 1:
        raise Refused(f"{len(devs)} devices in one file; the catalog takes one unit per file (a run per GPU)")
    dev = devs[0]
    if not isinstance(dev.get("uuid"), str) or not dev["uuid"]:
        raise Refused("no unit uuid recorded (device.uuid): the catalog keeps every file by its unit")
    if not isinstance(doc["tool"].get("build"), dict):
        raise Refused("no recorded build (tool.build: files written before 2026-12-02 lack it)")
    if not (dev.get("driver_release") or dev.get("driver_version")):
        raise Refused("no recorded driver (device.driver_release and driver_version)")
    git = doc["tool"].get("git")
    if not isinstance(git, str) or git.strip() in ("", "unknown"):
        raise Refused(f'no recorded commit (tool.git is "{git}"): build from a git checkout or set SMEM_GIT_REV')
    if doc["run"].get("interrupted"):
        raise Refused("an interrupted run (run.interrupted): add a complete one")
    done = reader.ok(doc)
    if not done:
        raise Refused("no finished point")
    unverified = [r for r in done if r.get("verified") is not True]
    if unverified:
        raise Refused(f"{len(unverified)} of {len(done)} finished points unverified (the first: "
                      f"{reader.point_name(unverified[0])}): a timing is catalogued only once its output matched "
                      "the reference")
    for r in doc["results"]:
        if r["status"] in ("failed", "invalid") and not (isinstance(r.get("reason"), str) and r["reason"].strip()):
            raise Refused(f"{reader.point_name(r)} {r['status']} with no reason")
    return doc, data


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "gpu"


def salt(catalog, make):
    """The catalog's salt (hex), made on first use where make."""
    p = os.path.join(catalog, SALT)
    if os.path.exists(p):
        with open(p, encoding="utf-8") as f:
            return f.read().strip()
    if not make:
        return None
    s = secrets.token_hex(16)
    tool.write_text(p, s + "\n")
    return s


def unit_hash(salt_hex, uuid):
    """The stable salted hash that stands for a unit's uuid: the same uuid and salt, the same name."""
    return "anon-" + hashlib.sha256((salt_hex + ":" + uuid).encode()).hexdigest()[:16]


def entries(catalog):
    """[(entry, the stored file's path)] of the catalog, sorted by model, unit and date."""
    out = []
    for dp, _, fs in os.walk(catalog):
        for f in fs:
            if f.endswith(".entry.json"):
                with open(os.path.join(dp, f), encoding="utf-8") as fh:
                    e = json.load(fh)
                out.append((e, os.path.join(dp, e["stored"])))
    return sorted(out, key=lambda ep: (ep[0]["model"], ep[0]["unit"], ep[0]["started"], ep[0]["sha256"]))


def load_stored(path):
    with open(path, "rb") as f:
        return reader.parse(gzip.decompress(f.read()).decode("utf-8"), path)


def add_one(catalog, path, doc, data, anonymize):
    """Stores one checked file; (entry, True) where it was added, (entry, False) where it was there."""
    sha = hashlib.sha256(data).hexdigest()
    for e, _ in entries(catalog):
        if e["sha256"] == sha:
            return e, False
    dev, t = doc["device"], doc["tool"]
    uuid = dev["uuid"]
    if anonymize:
        raw = json.loads(data)
        name = unit_hash(salt(catalog, True), uuid)
        raw["device"]["uuid"] = name
        data_out = json.dumps(raw, indent=1).encode() + b"\n"
        note = f"the unit's uuid replaced by a salted hash of it (sha256, the salt in {SALT} beside the catalog)"
    else:
        name, data_out, note = uuid, data, "the unit's uuid as the file records it"
    folder = os.path.join(catalog, slug(dev["name"]), name)
    os.makedirs(folder, exist_ok=True)
    stored = re.sub(r"[^A-Za-z0-9_.-]", "-", f"{reader.run_date(doc)}_{doc['run'].get('sweep', 'run')}_{sha[:12]}") + ".json.gz"
    entry = {
        "sha256": sha, "source": os.path.basename(path), "stored": stored,
        "model": dev["name"], "cc": dev.get("cc"), "unit": name, "anonymized": bool(anonymize), "unit_note": note,
        "sm_count": dev.get("sm_count"), "clock_khz": dev.get("clock_khz"),
        "commit": t["git"], "version": t.get("version"), "build": t["build"],
        "driver_release": dev.get("driver_release"), "driver_version": dev.get("driver_version"),
        "runtime_version": dev.get("runtime_version"), "kernel_code": dev.get("kernel_code"),
        "started": doc["run"]["started"], "sweep": doc["run"].get("sweep"), "quick": bool(
            (doc["run"].get("settings") or {}).get("quick")), "points": _points(doc),
    }
    tool.write_file(os.path.join(folder, stored), lambda f: f.write(gzip.compress(data_out, 9, mtime=0)))
    tool.write_text(os.path.join(folder, stored[:-len(".json.gz")] + ".entry.json"),
                    json.dumps(entry, indent=1, sort_keys=True) + "\n")
    return entry, True


def cmd_add(a):
    checked, refused = [], []
    for p in a.files:
        try:
            checked.append((p, *check(p)))
        except Refused as e:
            refused.append(f"{cli.PREFIX}: {tool.shown(p)}: refused: {e}")
    if refused:
        for line in refused:
            print(tool.printable(line), file=sys.stderr)
        if checked:
            print(f"{cli.PREFIX}: nothing added ({len(refused)} of {len(a.files)} files refused)", file=sys.stderr)
        return 2
    os.makedirs(a.catalog, exist_ok=True)
    lines = []
    for p, doc, data in checked:
        e, added = add_one(a.catalog, p, doc, data, a.anonymize)
        where = f"{slug(e['model'])}/{e['unit']}/{e['stored']}"
        lines.append(f"{'added' if added else 'already there'}: {tool.shown(p)} -> {where} ({e['model']}, unit "
                     f"{e['unit']}{', anonymized' if e['anonymized'] else ''}; commit {e['commit']}, driver "
                     f"{e['driver_release'] or e['driver_version']}, {e['started'][:10]}, {e['points']['ok']} points)")
    return tool.emit(lines, 0, "what was added")


# ---- site: the values each question compares

def _match(r, params):
    return all(r["params"].get(k) == v for k, v in params.items())


def _vals(doc, bench, params, get):
    out = []
    for r in doc["results"]:
        if r["bench"] == bench and r["status"] in ("ok", "predicted") and _match(r, params):
            v = get(r)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                out.append(v)
    return out


def metric(bench, name, agg, **params):
    def f(doc):
        v = _vals(doc, bench, params, lambda r: reader.metric(r, name) if r["status"] == "ok" else None)
        return agg(v) if v else None
    return f


def occ(bench, agg, **params):
    """Blocks per SM: measured residency where the GPU ran, the calculator's where a model predicted."""
    def f(doc):
        key = "predicted" if doc["run"].get("mode") == "predict" else "measured"
        v = _vals(doc, bench, params, lambda r: (r.get("occupancy") or {}).get(key))
        return agg(v) if v else None
    return f


def largest_alloc(doc):
    v = _vals(doc, "dynamic", {}, lambda r: r["params"].get("dyn_smem_bytes"))
    return max(v) / 1024 if v else None


def model_metric(bench, name, agg, **params):
    """A model's value carried by the measured points (the bank model's predicted slowdown)."""
    return metric(bench, name, agg, **params)


def _device_pub(name, scale=1.0):
    def f(doc):
        v = reader.published(doc["device"]).get(name)
        if isinstance(v, dict) and isinstance(v.get("value"), (int, float)):
            return v["value"] * scale, str(v.get("source", ""))
        return None
    return f


class Key:
    """One figure a question compares: how a measured file gives it, how a predict file or a model
    gives it, and which published values stand beside it."""

    def __init__(self, id, title, unit, measured, predicted=None, published=(), guide=None, better=None):
        self.id, self.title, self.unit = id, title, unit
        self.measured, self.predicted = measured, predicted
        self.published = published      # the quantities of published.json drawn beside it
        self.guide = guide              # a device record's published value (NVIDIA's guides), per GPU
        self.better = better


QUESTIONS = [
    ("carveout", "The carveout trade-off", (carveout,), True,
     "What a carveout hint buys: resident blocks of a fixed shared-memory footprint against the L1 an "
     "irregular gather hits; measured residency beside the occupancy calculator's.",
     [Key("footprint_blocks_100", "footprint kernel: blocks per SM at a 100 % carveout", "blocks/SM",
          occ("footprint", max, carveout_pct=100), occ("footprint", max, carveout_pct=100)),
      Key("footprint_blocks_0", "footprint kernel: blocks per SM at a 0 % carveout", "blocks/SM",
          occ("footprint", max, carveout_pct=0), occ("footprint", max, carveout_pct=0)),
      Key("gather_0", "gather: bytes per clock per SM at 0 % (the most L1)", "B/clk/SM",
          metric("gather", "bytes_per_clk_sm", max, carveout_pct=0)),
      Key("gather_100", "gather: bytes per clock per SM at 100 % (the least L1)", "B/clk/SM",
          metric("gather", "bytes_per_clk_sm", max, carveout_pct=100))]),
    ("dynamic", "The dynamic staircase and the opt-in", (occupancy,), True,
     "Blocks per SM as the dynamic allocation grows, and how far the opt-in above 48 KiB goes.",
     [Key("dynamic_blocks_0", "blocks per SM with no dynamic allocation (256 threads)", "blocks/SM",
          occ("dynamic", max, dyn_smem_bytes=0), occ("dynamic", max, dyn_smem_bytes=0)),
      Key("largest_alloc", "the largest dynamic allocation that ran", "KiB", largest_alloc, largest_alloc,
          guide=_device_pub("smem_per_block_optin_bytes", 1 / 1024))]),
    ("bandwidth-latency", "Bandwidth and latency per clock", (bandwidth,), False,
     "Peak shared-memory throughput per SM per clock against 32 banks of 4 bytes, and load-to-use latency in "
     "cycles.",
     [Key("bandwidth_best", "bandwidth: the best conflict-free access width", "B/clk/SM",
          metric("bandwidth", "bytes_per_clk_sm", max), guide=_device_pub("smem_bytes_per_clock_per_sm")),
      Key("latency_address", "load latency: one thread, address chase", "cycles",
          metric("latency", "latency_cycles", min, index_chase=0), published=("smem_load_latency_cycles",)),
      Key("latency_chase", "load latency: one thread, j = s[j]", "cycles",
          metric("latency", "latency_cycles", min, index_chase=1), published=("smem_load_latency_cycles",))]),
    ("bank-swizzle", "Banks and swizzles", (bank, swizzle), False,
     "How n-way bank conflicts slow a load against the bank model, and what the tensor-core layouts and "
     "swizzles reach.",
     [Key("bank_worst4", "bank: the largest 4-byte conflict slowdown (model: the passes per request)", "x",
          metric("bank", "slowdown", max, width_bytes=4), model_metric("bank", "predicted_slowdown", max, width_bytes=4)),
      Key("ldmatrix_best", "ldmatrix: the best layout's bytes per clock per SM", "B/clk/SM",
          metric("swizzle_ldmatrix", "bytes_per_clk_sm", max)),
      Key("wgmma_best", "wgmma fed from shared memory: the best swizzle's % of the tensor peak", "%",
          metric("swizzle_wgmma", "pct_of_peak", max))]),
    ("dsm", "Distributed shared memory", (cluster,), False,
     "A thread block cluster's shared memory (cc 9.0 and newer): remote latency and bandwidth by cluster size.",
     [Key("dsm_latency_2", "remote load latency at cluster size 2", "cycles",
          metric("dsm_latency", "latency_cycles", statistics.median, path=2, cluster_size=2)),
      Key("dsm_latency_16", "remote load latency at cluster size 16 (non-portable)", "cycles",
          metric("dsm_latency", "latency_cycles", statistics.median, path=2, cluster_size=16)),
      Key("dsm_ring_2", "remote ring, 16 B loads, cluster size 2: B/clk per reading SM", "B/clk/SM",
          metric("dsm_bandwidth", "bytes_per_clk_sm", max, path=2, width_bytes=16, cluster_size=2))]),
    ("tile", "The tile kernels against cuBLAS", (tile,), False,
     "What tiling in shared memory buys: the SGEMM kernels as a percentage of cuBLAS on the same GPU.",
     [Key("sgemm_best", "the best SGEMM kernel's % of cuBLAS", "%",
          lambda d: max([v for b in ("sgemm_cp_async", "sgemm_tma")
                         for v in [metric(b, "pct_of_cublas", max)(d)] if v is not None], default=None)),
      Key("cublas_best", "cuBLAS SGEMM, the best GFLOP/s", "GFLOP/s", metric("cublas", "gflops", max)),
      Key("transpose_best", "transpose: the best layout's % of the copy", "%",
          metric("transpose", "pct_of_copy", max))]),
]


def published_rows():
    """published.json: (papers, rows)."""
    with open(PUBLISHED_FILE, encoding="utf-8") as f:
        d = json.load(f)
    return d["papers"], d["values"]


def cite(papers, row):
    p = papers[row["paper"]]
    return f"{p['authors']}, arXiv:{p['arxiv']}, {row['table']}, {row['row']}, {row['column']}"


def _fmt(v):
    if v is None:
        return "\u2013"
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 10 else f"{v:.1f}"


def gather(catalog, predicted_paths):
    """What the site shows: {models: [{model, cc, units: [{unit, entries, docs}]}], predicted: [(path, doc)]}."""
    models = {}
    for e, path in entries(catalog):
        doc = load_stored(path)
        m = models.setdefault(e["model"], {"model": e["model"], "cc": e.get("cc"), "units": {}})
        u = m["units"].setdefault(e["unit"], {"unit": e["unit"], "entries": [], "docs": [], "paths": []})
        u["entries"].append(e)
        u["docs"].append(doc)
        u["paths"].append(path)
    out = []
    for m in models.values():
        m["units"] = list(m["units"].values())
        out.append(m)
    predicted = []
    for p in predicted_paths:
        doc = reader.load(p)
        if doc["run"].get("mode") != "predict":
            raise cli.Usage(f"{p}: --predicted takes the driver's --predict files (run.mode is "
                            f"\"{doc['run'].get('mode')}\")")
        predicted.append((p, doc))
    return {"models": out, "predicted": predicted}


def values(key, data, papers, rows):
    """[(category, method, value, lo, hi, n, source)] of one key: a measured model's median over its units
    (each unit the median of its files) with their range, a model's prediction, the published values."""
    out = []
    for m in data["models"]:
        per_unit = []
        for u in m["units"]:
            vs = [v for v in (key.measured(d) for d in u["docs"]) if v is not None]
            if vs:
                per_unit.append(statistics.median(vs))
        if per_unit:
            out.append((m["model"], "measured", statistics.median(per_unit), min(per_unit), max(per_unit),
                        len(per_unit), f"{len(per_unit)} unit{'s' if len(per_unit) > 1 else ''} of the catalog"))
        if key.guide is not None:
            g = next((key.guide(d) for u in m["units"] for d in u["docs"] if key.guide(d)), None)
            if g:
                out.append((m["model"], "published", g[0], None, None, 1, g[1]))
        if key.predicted is not None and key.predicted is not key.measured:
            vs = [v for v in (key.predicted(d) for u in m["units"] for d in u["docs"]) if v is not None]
            if vs and key.id.startswith("bank"):
                out.append((m["model"], "predicted", statistics.median(vs), None, None, 1, "the bank model"))
    for p, doc in data["predicted"]:
        if key.predicted is not None:
            v = key.predicted(doc)
            if v is not None:
                out.append((doc["device"]["name"], "predicted", v, None, None, 1,
                            f"smembench --predict ({os.path.basename(p)})"))
        if key.guide is not None and key.guide(doc):
            g = key.guide(doc)
            out.append((doc["device"]["name"], "published", g[0], None, None, 1, g[1]))
    for row in rows:
        if row["quantity"] in key.published:
            out.append((f"{row['gpu']} (cc {row['cc']})", "published", row["value"], None, None, 1, cite(papers, row)))
    return out


STYLE_OF = {"measured": dict(marker="o", color="tab:blue", markersize=8),
            "predicted": dict(marker="s", color="tab:orange", markersize=8, fillstyle="none", markeredgewidth=1.6),
            "published": dict(marker="*", color="black", markersize=13)}


def side_by_side(plt, question, data, papers, rows):
    """The question's keys, a panel each: every GPU a category; the catalog's units a median with their
    range (whiskers), a prediction an open square, a published value a star with its source."""
    keys = question[5]
    fig = plt.figure(figsize=(12, 1.0 + 2.9 * len(keys)), layout="constrained")
    got = []
    for i, key in enumerate(keys):
        vals = values(key, data, papers, rows)
        got.append((key, vals))
        ax = fig.add_subplot(len(keys), 1, i + 1)
        ax.set_title(f"{key.title} ({key.unit})", fontsize=10, loc="left")
        cats = list(dict.fromkeys(v[0] for v in vals))
        if not cats:
            ax.text(0.5, 0.5, "no GPU of the catalog ran this, and nothing is predicted or published for it",
                    ha="center", va="center", transform=ax.transAxes, fontsize=10)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        offs = {"measured": -0.25, "predicted": 0.0, "published": 0.25}
        seen = set()
        for cat, meth, v, lo, hi, n, src in vals:
            x = cats.index(cat) + offs[meth]
            st = STYLE_OF[meth]
            ax.plot([x], [v], linestyle="", label=meth if meth not in seen else "_", **st)
            seen.add(meth)
            if lo is not None and hi is not None and hi > lo:
                ax.errorbar([x], [v], yerr=[[v - lo], [hi - v]], color=st["color"], capsize=5, linewidth=1.5)
            text = _fmt(v) + ("" if n < 2 else f"\n{n} units, all equal" if lo == hi else
                              f"\n{_fmt(lo)}-{_fmt(hi)}, {n} units")
            left = meth == "measured"     # its text to the left: the published mark sits to its right
            ax.annotate(text, (x, v), textcoords="offset points", xytext=(-9 if left else 9, 0), fontsize=9,
                        va="center", ha="right" if left else "left")
        top = max(max(v[2], v[4] or 0) for v in vals)
        ax.set_ylim(0, top * 1.3 if top > 0 else 1)
        ax.set_xlim(-0.8, len(cats) - 0.4)
        ax.set_xticks(range(len(cats)), [c.replace("NVIDIA ", "") for c in cats], fontsize=9)
        ax.tick_params(axis="y", labelsize=9)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9, frameon=False)
    fig.suptitle(f"{question[1]}: every GPU of the catalog, models and published figures", fontsize=11)
    return fig, got


def svg_of(fig, salt):
    """The figure as inline SVG that is never drawn so narrow that its smallest text is under
    READABLE_PX (it scrolls sideways in its box instead)."""
    svg = canvas.svg_text(fig, salt)
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    m = re.match(r'<svg([^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if m:
        fonts = [float(f) for f in re.findall(r"font:(?: \w+)? ([\d.]+)px", svg)]
        least = f"; min-width: {math.ceil(READABLE_PX * 1.02 * float(m.group(2)) / min(fonts))}px" if fonts else ""
        svg = f'<svg{m.group(1)} style="max-width: {m.group(2)}pt{least}"' + svg[m.end():]
    return svg


CSS = """body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: min(1500px, 100%);
  padding: 0 14px 40px; color: #1b1f24; overflow-wrap: anywhere; box-sizing: border-box; }
nav { font-size: 14px; padding: 8px 0; border-bottom: 1px solid #ccd; }
nav a { margin-right: 12px; display: inline-block; }
h1 { font-size: 24px; } h2 { font-size: 19px; margin-top: 28px; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ccd; padding: 3px 7px; text-align: left; vertical-align: top; overflow-wrap: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 8px 0 16px; max-width: 100%; overflow-x: auto; }
figure svg { display: block; width: 100%; height: auto; }
figcaption, .note { font-size: 13px; color: #444; }
code { font-size: 13px; }
"""


def esc(text):
    return html.escape(str(text), quote=True)


def page(title, nav, body):
    links = "".join(f'<a href="{esc(h)}">{esc(t)}</a>' for h, t in nav)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{esc(title)}</title><style>{CSS}</style></head>'
            f'<body><nav>{links}</nav><h1>{esc(title)}</h1>{body}</body></html>\n')


def table(head, rows, cls=None):
    cls = cls or [None] * len(head)
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f'<td{" class=" + chr(34) + c + chr(34) if c else ""}>{v}</td>'
                                   for v, c in zip(r, cls)) + "</tr>" for r in rows)
    return f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table></div>'


def module_figures(plt, modules, series, across):
    """The package's figures of the question from every unit of the catalog (and the predicted files)."""
    out = []
    for m in modules:
        fig = figures_pkg.module_figure(plt, m, series)
        if fig is not None:
            out.append((m.NAME, fig))
    if across:
        for name, fig, _ in figures_pkg.across_models(plt, series):
            out.append((name, fig))
    return out


def gpu_file(m):
    return f"gpu-{slug(m['model'])}.html"


def build_site(catalog, outdir, predicted_paths):
    """Writes the site; the pages written."""
    plt = canvas.pyplot()
    papers, rows = published_rows()
    data = gather(catalog, predicted_paths)
    if not data["models"]:
        raise cli.Usage(f"{catalog}: the catalog has no entry; add files first (smembench-catalog add FILE)")
    tool.output_dir(outdir, "the site")
    nav = [("index.html", "catalog")] + [(f"{q[0]}.html", q[1]) for q in QUESTIONS] + \
        [(gpu_file(m), m["model"].replace("NVIDIA ", "")) for m in data["models"]]
    loaded = [(p, d) for m in data["models"] for u in m["units"] for p, d in zip(u["paths"], u["docs"])]
    loaded += data["predicted"]
    written, drawn = [], {}
    for q in QUESTIONS:
        qid, title, modules, across, what, keys = q
        fig, got = side_by_side(plt, q, data, papers, rows)
        body = [f"<p>{esc(what)}</p>", f'<figure id="side-by-side">{svg_of(fig, "catalog-" + qid)}<figcaption>'
                "Every GPU side by side: measured (circles: the median of the catalog's units, whiskers their "
                "range), predicted (open squares), published (stars, the source in the table below).</figcaption>"
                "</figure>"]
        plt.close(fig)
        trs = []
        drawn[qid] = []
        for key, vals in got:
            for cat, meth, v, lo, hi, n, src in vals:
                drawn[qid].append({"key": key.id, "gpu": cat, "method": meth, "value": v, "lo": lo, "hi": hi,
                                   "units": n, "source": src})
                trs.append([esc(key.title), esc(cat), esc(meth), _fmt(v),
                            f"{_fmt(lo)} \u2013 {_fmt(hi)}" if lo is not None else "\u2013", str(n), esc(src)])
        body.append("<h2>The values</h2>" + table(["figure", "GPU", "how", "value", "range (units)", "n", "source"],
                                                  trs, [None, None, None, "num", "num", "num", None]))
        series = series_mod.make_series(loaded if across else [ld for ld in loaded if ld not in data["predicted"]])
        figs = module_figures(plt, modules, series, across)
        body.append("<h2>The package's figures</h2>" if figs else
                    "<p class=\"note\">No unit of the catalog has points for the package's figures of this "
                    "question.</p>")
        for name, f in figs:
            body.append(f'<figure id="fig-{esc(name)}">{svg_of(f, "catalog-" + qid + "-" + name)}<figcaption>'
                        f"smembench-plot's {esc(name)} figure of the catalog's files</figcaption></figure>")
            plt.close(f)
        written.append(tool.write_text(os.path.join(outdir, f"{qid}.html"), page(title, nav, "".join(body))))
    for m in data["models"]:
        trs = []
        for u in m["units"]:
            for e in u["entries"]:
                b = e["build"]
                trs.append([esc(u["unit"]) + ("<br><span class=\"note\">" + esc(e["unit_note"]) + "</span>"),
                            esc(e["started"]), esc(e["sweep"]), esc(e["commit"]),
                            esc(f"{','.join(b.get('gpu_code', []))}, nvcc {b.get('nvcc')}, {b.get('buildtype')}"),
                            esc(e["driver_release"] or e["driver_version"]), esc(e["kernel_code"]),
                            str(e["points"]["ok"]), str(e["points"]["skipped"]),
                            f"<code>{esc(e['sha256'][:12])}</code><br>{esc(e['source'])}"])
        body = (f"<p>{len(m['units'])} unit{'s' if len(m['units']) > 1 else ''} of the {esc(m['model'])} "
                f"(cc {esc(m['cc'])}), {sum(len(u['entries']) for u in m['units'])} files.</p>"
                "<h2>Units and provenance</h2>" +
                table(["unit", "started", "sweep", "commit", "build", "driver", "kernels", "ok", "skipped",
                       "file (sha256, submitted as)"], trs,
                      [None, None, None, None, None, None, None, "num", "num", None]))
        qs = "".join(f'<li><a href="{q[0]}.html">{esc(q[1])}</a></li>' for q in QUESTIONS)
        body += f"<h2>The questions</h2><ul>{qs}</ul>"
        written.append(tool.write_text(os.path.join(outdir, gpu_file(m)), page(m["model"], nav, body)))
    qs = "".join(f'<li><a href="{q[0]}.html">{esc(q[1])}</a>: {esc(q[4])}</li>' for q in QUESTIONS)
    gpus = [[f'<a href="{gpu_file(m)}">{esc(m["model"])}</a>', esc(m["cc"]), str(len(m["units"])),
             str(sum(len(u["entries"]) for u in m["units"])),
             esc(", ".join(sorted({e["started"][:10] for u in m["units"] for e in u["entries"]})))]
            for m in data["models"]]
    pred = [[esc(d["device"]["name"]), esc(d["device"].get("cc")), esc(os.path.basename(p))] for p, d in data["predicted"]]
    pubs = [[esc(r["gpu"]), esc(r["cc"]), esc(r["quantity"]), _fmt(r["value"]) + " " + esc(r["unit"]),
             esc(cite(papers, r))] for r in rows]
    body = ("<p>Measured GPUs, each unit a file that passed <code>smembench-catalog add</code>'s checks (measure "
            "mode, verified points, a recorded build, driver and commit), beside the models the driver predicts "
            "and the figures the microbenchmark papers publish.</p>"
            f"<h2>The questions</h2><ul>{qs}</ul><h2>Measured GPUs</h2>" +
            table(["GPU", "cc", "units", "files", "dates"], gpus, [None, None, "num", "num", None]) +
            ("<h2>Predicted models</h2>" + table(["model", "cc", "file"], pred) if pred else "") +
            "<h2>Published figures</h2>" + table(["GPU", "cc", "quantity", "value", "source"], pubs))
    written.insert(0, tool.write_text(os.path.join(outdir, "index.html"),
                                      page("smembench: a catalog of measured GPUs", nav, body)))
    # the values every page draws, for whoever checks them (tests/scripts/test_catalog.py)
    tool.write_text(os.path.join(outdir, "values.json"), json.dumps(drawn, indent=1, sort_keys=True) + "\n")
    return written


def main(argv=None):
    p = cli.parser("catalog.py", __doc__)
    p.add_argument("verb", choices=("add", "site"), help="add: check files and add them; site: build the site in DIR")
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="add: smembench result files (measure mode); "
                   "site: the site's folder (created if missing)")
    p.add_argument("--catalog", default=DEFAULT_CATALOG, metavar="DIR",
                   help=f"the catalog's folder (default {DEFAULT_CATALOG})")
    p.add_argument("--anonymize", action="store_true",
                   help="add: replace the unit's uuid by a stable salted hash (the salt kept in the catalog)")
    p.add_argument("--predicted", action="append", default=[], metavar="FILE",
                   help="site: a --predict file of the driver, drawn as a predicted model (repeatable)")
    me = os.path.basename(sys.argv[0]) or "catalog.py"

    def body():
        a = p.parse_args(argv)
        if a.verb == "add":
            if a.predicted:
                raise cli.Usage(f"--predicted is an option of site, not of add; see {p.prog} --help")
            a.files = a.paths
            return cmd_add(a)
        if a.anonymize:
            raise cli.Usage(f"--anonymize is an option of add, not of site; see {p.prog} --help")
        if len(a.paths) != 1:
            raise cli.Usage(f"site takes one folder, not {len(a.paths)}; see {p.prog} --help")
        if not os.path.isdir(a.catalog):
            raise cli.Usage(f"{a.catalog}: no catalog there; add files first ({p.prog} add FILE)")
        t0 = time.monotonic()
        written = build_site(a.catalog, a.paths[0], a.predicted)
        print(f"{me}: {len(written)} pages in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        return tool.emit(written, 0, "the pages' names")
    return tool.run_tool(body, (reader.ResultError, cli.Usage), [
        (canvas.MissingModule, 3, str)])


if __name__ == "__main__":
    sys.exit(main())
