#!/usr/bin/env python3
"""One figure per question, from smembench result files, as PNG and SVG.

  python3 scripts/plot.py results/*.json -o plots/

carveout.*   time of the footprint and gather kernels against the preferred carveout, with the
             footprint kernel's resident blocks per SM (API and measured)
occupancy.*  blocks per SM (API, predicted, measured) against dynamic shared memory, with time,
             and the static-array kernel beside it
bank.*       measured slowdown against stride for each access width, with the bank model
bandwidth.*  shared-memory bytes per clock per SM against the 128 ceiling, and latency in cycles
tile.*       matrix-multiply GFLOP/s against n for every tile and the register-blocked kernel, with
             cuBLAS as the reference line
memory.*     transposes and reductions in GB/s against a device-to-device copy of the same bytes
cluster.*    distributed shared memory by cluster size: remote, own-block-through-the-cluster and local
             latency (with the published H800 anchors), bandwidth against the 128 ceiling, atomics,
             cluster.sync() and clusters resident at once (API and measured)
staging.*    global -> shared staging against the same run's global read bandwidth, by transfer size,
             with the 90 % line and the smallest transfer that reaches it

Several files overlay (one colour each, labelled by device and date; a several-device file, or
many nodes' files, gives one colour per GPU); bandwidth and latency are
per SM and per clock, and times are shown relative to each kernel's fastest point, so GPU
generations compare. The same input gives the same bytes.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smem_results  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

matplotlib.rcParams.update({"svg.hashsalt": "smembench", "figure.dpi": 100, "savefig.dpi": 100,
                            "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]


def label(doc):
    return f"{smem_results.device_label(doc)} ({smem_results.run_date(doc)})"


def title(fig, what, docs):
    devices = sorted({smem_results.device_label(d) for d in docs})
    dates = sorted({smem_results.run_date(d) for d in docs})
    fig.suptitle(f"{what}\n{', '.join(devices)}, {', '.join(dates)}")


def points(doc, bench):
    return [r for r in smem_results.ok(doc) if r["bench"] == bench]


def save(fig, outdir, name, made):
    for ext in ("png", "svg"):
        path = os.path.join(outdir, f"{name}.{ext}")
        fig.savefig(path, metadata={"Date": None} if ext == "svg" else {"Software": None})
        made.append(path)
    plt.close(fig)


def relative(values):
    best = min(values)
    return [v / best for v in values]


def plot_carveout(docs, outdir, made):
    docs = [d for d in docs if points(d, "footprint") or points(d, "gather")]
    if not docs:
        return
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    single = len(docs) == 1
    for i, d in enumerate(docs):
        c = COLORS[i % len(COLORS)]
        for bench, style in (("footprint", "-o"), ("gather", "--s")):
            pts = sorted(points(d, bench), key=lambda r: r["params"]["carveout_pct"])
            if not pts:
                continue
            x = [r["params"]["carveout_pct"] for r in pts]
            t = [smem_results.median_ns(r) / 1e3 for r in pts]
            ax.plot(x, t if single else relative(t), style, color=c,
                    label=f"{bench}" + ("" if single else f", {label(d)}"))
        fp = sorted(points(d, "footprint"), key=lambda r: r["params"]["carveout_pct"])
        if fp:
            x = [r["params"]["carveout_pct"] for r in fp]
            ax2.step(x, [r["occupancy"]["api"] for r in fp], where="mid", color=c, label=f"API, {label(d)}")
            ax2.plot(x, [r["occupancy"]["measured"] for r in fp], "x", color=c, markersize=9,
                     label=f"measured, {label(d)}")
            eff = [(r["params"]["carveout_pct"], r["occupancy"]["effective_carveout"]) for r in fp
                   if r["occupancy"]["effective_carveout"] is not None]
            for xc, e in eff:
                ax2.annotate(f"{e}%", (xc, r_api(fp, xc)), textcoords="offset points", xytext=(0, 6),
                             ha="center", fontsize=7, color=c)
    ax.set_ylabel("median kernel time (us)" if single else "time relative to the kernel's fastest point")
    ax.legend(loc="upper center")
    ax2.set_xlabel("preferred shared-memory carveout (%)")
    ax2.set_ylabel("footprint kernel: blocks per SM")
    ax2.legend(loc="lower right")
    ax2.text(0.01, 0.95, "labels: effective carveout inferred from measured residency", transform=ax2.transAxes,
             fontsize=7, va="top")
    title(fig, "L1/shared carveout: shared-memory footprint kernel vs L1-reliant gather", docs)
    save(fig, outdir, "carveout", made)


def r_api(pts, x):
    return next(r["occupancy"]["api"] for r in pts if r["params"]["carveout_pct"] == x)


def plot_occupancy(docs, outdir, made):
    docs = [d for d in docs if points(d, "dynamic")]
    if not docs:
        return
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    single = len(docs) == 1
    for i, d in enumerate(docs):
        c = COLORS[i % len(COLORS)]
        dyn = sorted(points(d, "dynamic"), key=lambda r: r["params"]["dyn_smem_bytes"])
        x = [r["params"]["dyn_smem_bytes"] / 1024 for r in dyn]
        occ = [r["occupancy"] for r in dyn]
        ax.step(x, [o["api"] for o in occ], where="post", color=c, label=f"API, {label(d)}")
        ax.plot(x, [o["predicted"] for o in occ], ".", color=c, markersize=4, label=f"predicted, {label(d)}")
        ax.plot(x, [o["measured"] for o in occ], "x", color=c, markersize=7, label=f"measured, {label(d)}")
        t = [smem_results.median_ns(r) / 1e3 for r in dyn]
        ax2.plot(x, t if single else relative(t), "-o", color=c, markersize=3,
                 label="dynamic" + ("" if single else f", {label(d)}"))
        st = sorted(points(d, "static"), key=lambda r: r["params"]["smem_bytes"])
        if st:
            ts = [smem_results.median_ns(r) / 1e3 for r in st]
            ax2.plot([r["params"]["smem_bytes"] / 1024 for r in st], ts if single else [v / min(t) for v in ts],
                     "D", color=c, fillstyle="none", label="static __shared__" + ("" if single else f", {label(d)}"))
        optin = d["device"]["smem_per_block"] / 1024
        for a in (ax, ax2):
            a.axvline(optin, color="gray", linestyle=":", linewidth=1)
        ax.annotate("48 KiB: opt-in above", (optin, 0.5), xytext=(4, 0), textcoords="offset points", fontsize=7)
    ax.set_ylabel("resident blocks per SM (256 threads)")
    ax.legend(fontsize=7)
    ax2.set_xlabel("dynamic shared memory per block (KiB)")
    ax2.set_ylabel("median kernel time (us)" if single else "time relative to fastest")
    ax2.legend(fontsize=7)
    title(fig, "Occupancy staircase against the dynamic shared-memory allocation", docs)
    save(fig, outdir, "occupancy", made)


def plot_bank(docs, outdir, made):
    docs = [d for d in docs if points(d, "bank")]
    if not docs:
        return
    widths = sorted({r["params"]["width_bytes"] for d in docs for r in points(d, "bank")})
    fig, axes = plt.subplots(len(widths), 1, figsize=(7, 2.6 * len(widths)), sharex=True, squeeze=False)
    for ax, w in zip(axes[:, 0], widths):
        model_drawn = False
        for i, d in enumerate(docs):
            pts = sorted((r for r in points(d, "bank") if r["params"]["width_bytes"] == w),
                         key=lambda r: r["params"]["stride_elems"])
            x = [r["params"]["stride_elems"] for r in pts]
            if not model_drawn:
                ax.step(x, [smem_results.metric(r, "predicted_slowdown") for r in pts], where="mid", color="gray",
                        label="bank model")
                model_drawn = True
            ax.plot(x, [smem_results.metric(r, "slowdown") for r in pts], "o", color=COLORS[i % len(COLORS)],
                    markersize=4, label=f"measured, {label(d)}")
        ax.set_yscale("log", base=2)
        ax.set_ylabel(f"{w}-byte loads: slowdown (x)")
        ax.legend(fontsize=7, loc="upper left")
    axes[-1, 0].set_xlabel("stride between lanes (elements)")
    title(fig, "Bank conflicts: stride-1 throughput over each stride's", docs)
    save(fig, outdir, "bank", made)


def plot_bandwidth(docs, outdir, made):
    docs = [d for d in docs if points(d, "bandwidth") or points(d, "latency")]
    if not docs:
        return
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.8))
    n = len(docs)
    for i, d in enumerate(docs):
        c = COLORS[i % len(COLORS)]
        bw = sorted(points(d, "bandwidth"), key=lambda r: r["params"]["width_bytes"])
        xs = [k + (i - (n - 1) / 2) * 0.8 / n for k in range(len(bw))]
        ax.bar(xs, [smem_results.metric(r, "bytes_per_clk_sm") for r in bw], width=0.8 / n, color=c, label=label(d))
        ax.set_xticks(range(len(bw)), [f"{r['params']['width_bytes']} B" for r in bw])
        lat = sorted(points(d, "latency"), key=lambda r: r["params"].get("index_chase", 0))
        xl = [k + (i - (n - 1) / 2) * 0.8 / n for k in range(len(lat))]
        ax2.bar(xl, [smem_results.metric(r, "latency_cycles") for r in lat], width=0.8 / n, color=c, label=label(d))
        ax2.set_xticks(range(len(lat)), ["address chase" if not r["params"].get("index_chase") else "index chase j=s[j]"
                                         for r in lat])
    ax.axhline(128, color="red", linestyle="--", linewidth=1, label="ceiling: 32 banks x 4 B")
    ax.set_ylabel("bytes per clock per SM")
    ax.set_xlabel("access width per thread")
    ax.set_ylim(0, 140)
    ax.legend(fontsize=7, loc="lower right")
    ax2.set_ylabel("load-to-use latency (cycles)")
    ax2.legend(fontsize=7, loc="lower right")
    title(fig, "Shared-memory bandwidth (conflict-free loads) and latency", docs)
    fig.tight_layout()
    save(fig, outdir, "bandwidth", made)


def plot_tile(docs, outdir, made):
    docs = [d for d in docs if points(d, "matmul") or points(d, "matmul_rb")]
    if not docs:
        return
    fig, axes = plt.subplots(1, len(docs), figsize=(7 * len(docs), 4.5), squeeze=False)
    for ax, d in zip(axes[0], docs):
        series = {}
        for r in points(d, "matmul"):
            t = r["params"]["tile"]
            series.setdefault((0, t), []).append(r)
        for r in points(d, "matmul_rb"):
            series.setdefault((1, r["params"]["bk"]), []).append(r)
        for (kind, v), pts in sorted(series.items()):
            pts.sort(key=lambda r: r["params"]["n"])
            name = (f"register-blocked, bk {v}" + (" (opt-in)" if pts[0]["launch"]["optin"] else "")) if kind \
                else ("global only" if v == 0 else f"tile {v}")
            ax.plot([r["params"]["n"] for r in pts], [smem_results.metric(r, "gflops") / 1e3 for r in pts],
                    "-s" if kind else "-o", markersize=4, label=name)
        cb = sorted(points(d, "cublas"), key=lambda r: r["params"]["n"])
        if cb:
            ax.plot([r["params"]["n"] for r in cb], [smem_results.metric(r, "gflops") / 1e3 for r in cb], "k-",
                    linewidth=2.5, label="cuBLAS SGEMM")
        ref = next((r for r in points(d, "matmul") + cb if smem_results.metric(r, "pct_of_fp32_peak")), None)
        if ref:
            peak = smem_results.metric(ref, "gflops") / smem_results.metric(ref, "pct_of_fp32_peak") * 100 / 1e3
            ax.axhline(peak, color="red", linestyle="--", linewidth=1, label="fp32 peak at the measured clock")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("matrix edge n (C = A B, n x n fp32)")
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(label(d), fontsize=8)
    title(fig, "Shared memory as a scratchpad: tiled matrix multiply", docs)
    fig.tight_layout()
    save(fig, outdir, "tile", made)


def plot_memory(docs, outdir, made):
    docs = [d for d in docs if points(d, "transpose") or points(d, "reduction")]
    if not docs:
        return
    fig, ax = plt.subplots(figsize=(8, 4))
    names, values, colors, copies = [], [], [], {}
    gpus = sorted({label(d) for d in docs})
    for d in docs:
        c = COLORS[gpus.index(label(d)) % len(COLORS)]
        rows = []
        for r in points(d, "transpose_naive"):
            rows.append((f"transpose naive {r['params']['mib']} MiB", r))
        for r in points(d, "transpose"):
            pad = "[32][33]" if r["params"]["padding_words"] else "[32][32]"
            rows.append((f"transpose {pad} {r['params']['mib']} MiB", r))
        for r in points(d, "reduction"):
            m = ("tree+__syncthreads", "warp shuffles", "shared atomics")[r["params"]["method"]]
            rows.append((f"reduce {m} {r['params']['mib']} MiB", r))
        for name, r in sorted(rows, key=lambda x: x[0]):
            names.append(name + ("" if len(gpus) == 1 else f" ({label(d)})"))
            values.append(smem_results.metric(r, "gbytes_per_s"))
            colors.append(c)
        for r in points(d, "copy"):
            key = (r["params"]["mib"], label(d))
            copies[key] = max(copies.get(key, 0), smem_results.metric(r, "gbytes_per_s"))
    y = list(range(len(names)))
    ax.barh(y, values, color=colors)
    ax.set_yticks(y, names, fontsize=7)
    for (mib, gpu), v in sorted(copies.items()):
        if mib not in (64, 256):
            continue
        ax.axvline(v, color=COLORS[gpus.index(gpu) % len(COLORS)], linestyle=":", linewidth=1)
        ax.annotate(f"copy {mib} MiB", (v, -0.6 + (mib == 256) * 0.5), fontsize=6, ha="right")
    ax.set_xlabel("GB/s (bytes read + written; the reductions read only)")
    title(fig, "Transpose and reduction against a device-to-device copy", docs)
    fig.tight_layout()
    save(fig, outdir, "memory", made)


# Luo et al., "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and Multiple Level
# Analysis" (arXiv 2501.12084), H800 PCIe: remote shared-memory latency ~181 cycles at cluster size 2
# and 180-213 at 16, 33 cycles for the own block through the cluster path; a dependent chain of
# 4-byte DSM loads reached about 16 B/clk/SM.
ANCHOR_REMOTE = {2: (181, 181), 16: (180, 213)}
ANCHOR_SELF = 33
ANCHOR_CHAIN_BPC = 16
PATHS = {0: "ld.shared (own block)", 1: "own block via cluster window", 2: "remote block"}
METHODS = {0: "ld/st", 1: "cp.async", 2: "cp.async.bulk"}


def series(pts, key, value):
    """{key(r): [(cluster_size, value(r))...]} sorted by cluster size, values that exist only."""
    out = {}
    for r in pts:
        v = value(r)
        if v is not None:
            out.setdefault(key(r), []).append((r["params"]["cluster_size"], v))
    return {k: sorted(v) for k, v in sorted(out.items())}


def plot_cluster(docs, outdir, made):
    benches = ("dsm_latency", "dsm_bandwidth", "dsm_atomics", "cluster_sync", "cluster_occupancy")
    docs = [d for d in docs if any(points(d, b) for b in benches)]
    if not docs:
        return
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    (lat, bw, occ), (atom, sync, legend_ax) = axes
    styles = {0: ":", 1: "--", 2: "-"}
    for i, d in enumerate(docs):
        c = COLORS[i % len(COLORS)]
        tag = "" if len(docs) == 1 else f" ({label(d)})"
        for path, xy in series(points(d, "dsm_latency"), lambda r: r["params"]["path"],
                               lambda r: smem_results.metric(r, "latency_cycles")).items():
            lat.plot(*zip(*xy), styles[path], marker="o", color=c, label=PATHS[path] + tag)
        for (path, w), xy in series(points(d, "dsm_bandwidth"), lambda r: (r["params"]["path"], r["params"]["width_bytes"]),
                                    lambda r: smem_results.metric(r, "bytes_per_clk_sm")).items():
            if path == 2 or w == 16:
                bw.plot(*zip(*xy), styles[path], marker={4: "v", 8: "s", 16: "o"}[w], color=c,
                        alpha=1.0 if path == 2 else 0.5, label=f"{PATHS[path]}, {w} B{tag}")
        for path, xy in series(points(d, "dsm_atomics"), lambda r: r["params"]["path"],
                               lambda r: smem_results.metric(r, "atomics_per_clk_sm")).items():
            atom.plot(*zip(*xy), styles[path], marker="o", color=c, label=PATHS[path] + tag)
        for t, xy in series(points(d, "cluster_sync"), lambda r: r["params"]["block_threads"],
                            lambda r: smem_results.metric(r, "sync_cycles")).items():
            sync.plot(*zip(*xy), "-" if t >= 1024 else "--", marker="o", color=c, label=f"{t} threads/block{tag}")
        for smem, xy in series(points(d, "cluster_occupancy"), lambda r: r["params"]["smem_bytes"],
                               lambda r: smem_results.metric(r, "clusters_api")).items():
            occ.plot(*zip(*xy), "-", color=c, alpha=0.4 + 0.6 * smem / (228 * 1024),
                     label=f"{smem // 1024} KiB: API (line), measured (x){tag}")
        for smem, xy in series(points(d, "cluster_occupancy"), lambda r: r["params"]["smem_bytes"],
                               lambda r: smem_results.metric(r, "clusters_measured")).items():
            occ.plot(*zip(*xy), "x", color=c, markersize=8, alpha=0.4 + 0.6 * smem / (228 * 1024))
    for size, (lo, hi) in ANCHOR_REMOTE.items():
        lat.plot([size, size], [lo, hi], color="gray", linewidth=4, alpha=0.6,
                 label="H800 remote (Luo et al.)" if size == 2 else None)
    lat.axhline(ANCHOR_SELF, color="gray", linestyle="-.", linewidth=1, label="H800 own block via cluster (Luo et al.)")
    bw.axhline(128, color="red", linestyle="--", linewidth=1, label="ceiling: 32 banks x 4 B")
    bw.axhline(ANCHOR_CHAIN_BPC, color="gray", linestyle="-.", linewidth=1, label="H800 dependent chain, 4 B (Luo et al.)")
    atom.axhline(32, color="red", linestyle="--", linewidth=1, label="ceiling: one word per bank per clock")
    for ax, ylabel in ((lat, "load latency (cycles)"), (bw, "bytes per clock per SM"), (atom, "atomics per clock per SM"),
                       (sync, "cycles per cluster.sync()"), (occ, "clusters resident at once")):
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
        ax.set_xlabel("cluster size (blocks, one per SM)" if ax is not occ else "cluster size (blocks)")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=6)
    occ.set_yscale("log", base=2)
    bw.set_ylim(0, 140)
    legend_ax.axis("off")
    legend_ax.text(0, 0.5, "remote: block rank size-1 (latency) or the next\nrank (bandwidth, atomics), on another SM;\n"
                   "every point verified against the host", fontsize=8, va="center")
    title(fig, "Distributed shared memory across a thread block cluster", docs)
    fig.tight_layout()
    save(fig, outdir, "cluster", made)


def plot_staging(docs, outdir, made):
    docs = [d for d in docs if points(d, "staging")]
    if not docs:
        return
    fig, axes = plt.subplots(1, len(docs), figsize=(7.5 * len(docs), 4.5), squeeze=False)
    for ax, d in zip(axes[0], docs):
        curves = {}
        for r in points(d, "staging"):
            v = smem_results.metric(r, "pct_of_read")
            if v is not None:
                curves.setdefault((r["params"]["method"], r["params"]["width_bytes"]), []).append(
                    (r["params"]["transfer_bytes"], v))
        smallest = smem_results.staging_smallest(d)
        for k, ((method, w), xy) in enumerate(sorted(curves.items())):
            xy.sort()
            name = METHODS[method] + ("" if method == 2 else f" {w} B")
            if smallest.get((method, w)):
                name += f" (90 % from {smallest[(method, w)] // 1024} KiB)"
            ax.plot(*zip(*xy), ("-", "--", "-")[method], marker="os^"[method], color=COLORS[k % len(COLORS)],
                    linewidth=2.5 if method == 2 else 1.2, label=name)
        read = [smem_results.metric(r, "gbytes_per_s") for r in points(d, "global_read")]
        sizes = sorted({t for xy in curves.values() for t, _ in xy})
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [f"{t // 1024}K" if t % 1024 == 0 else f"{t / 1024:.1f}K" for t in sizes])
        ax.axhline(90, color="red", linestyle="--", linewidth=1, label="90 % of the global read bandwidth")
        ax.set_xlabel("transfer per operation (bytes)")
        ax.set_ylabel("% of the global read bandwidth" + (f" ({max(read):.0f} GB/s)" if read else ""))
        ax.legend(fontsize=7)
        ax.set_title(label(d), fontsize=8)
    title(fig, "Staging global memory into shared memory", docs)
    fig.tight_layout()
    save(fig, outdir, "staging", made)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", help="smembench result files")
    p.add_argument("-o", "--output", required=True, help="directory for the figures (created if missing)")
    a = p.parse_args(argv)
    try:
        docs = [d for f in a.results for d in smem_results.split_devices(smem_results.load(f))]
    except smem_results.ResultError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.output, exist_ok=True)
    made = []
    for fn in (plot_carveout, plot_occupancy, plot_bank, plot_bandwidth, plot_tile, plot_memory, plot_cluster,
               plot_staging):
        fn(docs, a.output, made)
    if not made:
        print("plot.py: nothing to plot: no finished points of a plotted benchmark", file=sys.stderr)
        return 1
    for m in made:
        print(m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
