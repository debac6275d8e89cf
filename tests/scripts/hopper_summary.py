#!/usr/bin/env python3
"""The short table of the Hopper sweeps (issue 13) from a cluster and a staging result file, with the
published H800 anchors beside the measured figures and one verdict line per claim the issue asks
for: PASS, FAIL, or NOTE (a finding to report, not a test).

  python3 tests/scripts/hopper_summary.py CLUSTER.json STAGING.json

Exit status: 0 every claim that is a test passed, 1 one failed, 2 unusable input.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from smembench import reader  # noqa: E402

# Luo et al., arXiv 2501.12084, H800 PCIe (HPMLL/NVIDIA-Hopper-Benchmark)
ANCHOR_REMOTE = {2: "181", 16: "180-213"}
ANCHOR_SELF = "33"
ANCHOR_CHAIN_BPC = 16.0
SIZES = (1, 2, 4, 8, 16)
verdicts = []


def verdict(kind, text):
    verdicts.append((kind, text))


def pick(doc, bench, **params):
    for r in doc["results"]:
        if r["bench"] == bench and all(r["params"].get(k) == v for k, v in params.items()):
            return r
    return None


def cell(r, name, fmt="{:.1f}"):
    """The metric, or why there is none (skipped, failed...)."""
    if r is None:
        return "-"
    if r["status"] != "ok":
        return r["status"]
    v = reader.metric(r, name)
    return fmt.format(v) if v is not None else "?"


def row(*cols, widths=(6,)):
    w = list(widths) + [widths[-1]] * (len(cols) - len(widths))
    return "  ".join(str(c).rjust(n) for c, n in zip(cols, w))


def not_ok(doc):
    return [r for r in doc["results"] if r["status"] not in ("ok", "skipped")]


def cluster(doc):
    dev = doc["device"]
    print(f"== cluster: {dev['name']}, cc {dev.get('cc')}, {dev['sm_count']} SMs")
    bad = not_ok(doc)
    for r in bad:
        print(f"   not ok: {r['bench']} {r['params']} {r['status']}: {r['reason']}")
    verdict("FAIL" if bad else "PASS", f"cluster sweep: {len(doc['results'])} points, {len(bad)} failed or invalid")
    unverified = [r for r in reader.ok(doc) if not r.get("verified")]
    verdict("FAIL" if unverified else "PASS", "cluster sweep: every ok point verified against the host reference")

    print("\nload latency, cycles (one thread chasing a random cycle of 1024 slots)")
    print(row("size", "remote", "own/cluster", "ld.shared", "H800 remote", "H800 own/cl", widths=(6, 12)))
    for s in SIZES:
        rem, own, loc = (pick(doc, "dsm_latency", cluster_size=s, path=p) for p in (2, 1, 0))
        print(row(s, cell(rem, "latency_cycles"), cell(own, "latency_cycles"), cell(loc, "latency_cycles"),
                  ANCHOR_REMOTE.get(s, "-"), ANCHOR_SELF, widths=(6, 12)))
        if rem and loc and rem["status"] == loc["status"] == "ok":
            x, l = reader.metric(rem, "latency_cycles"), reader.metric(loc, "latency_cycles")
            verdict("PASS" if x > l else "FAIL", f"size {s}: remote latency {x:.1f} > ld.shared {l:.1f} cycles")

    print("\nload bandwidth, B/clk/SM (ceiling 128; H800 dependent chain of 4-B loads ~16)")
    print("  ring: every SM reads the next and serves the previous; one-way: even ranks read, odd serve;")
    print("  fan-in: rank 0 reads up to eight others; chain: the ring, one dependent load at a time per thread")
    print(row("size", "ring 4B", "ring 8B", "ring 16B", "one-way 16B", "fan-in 16B", "chain 4B", "own/cl 16B",
              "local 16B", widths=(6, 11)))
    for s in SIZES:
        cols = [cell(pick(doc, "dsm_bandwidth", cluster_size=s, path=2, width_bytes=w), "bytes_per_clk_sm")
                for w in (4, 8, 16)]
        cols += [cell(pick(doc, "dsm_bandwidth", cluster_size=s, path=p, width_bytes=w), "bytes_per_clk_sm")
                 for p, w in ((3, 16), (4, 16), (5, 4), (1, 16), (0, 16))]
        print(row(s, *cols, widths=(6, 11)))
    over = [r for r in reader.ok(doc) if r["bench"] == "dsm_bandwidth"
            and (reader.metric(r, "bytes_per_clk_sm") or 0) > 128]
    invalid = [r for r in doc["results"] if r["bench"] == "dsm_bandwidth" and r["status"] == "invalid"]
    verdict("FAIL" if over or invalid else "PASS", "dsm_bandwidth: no point above 128 B/clk/SM")
    best = max((reader.metric(r, "bytes_per_clk_sm") or 0, r["params"]["cluster_size"], r["params"]["width_bytes"])
               for r in reader.ok(doc) if r["bench"] == "dsm_bandwidth" and r["params"]["path"] in (2, 3, 4)) \
        if any(r["bench"] == "dsm_bandwidth" and r["params"]["path"] in (2, 3, 4) for r in reader.ok(doc)) else None
    patterns = any(r["bench"] == "dsm_bandwidth" and r["params"]["path"] in (3, 4) for r in reader.ok(doc))
    if best:
        # graded only with the one-way and fan-in patterns: the ring alone sits at the anchor itself
        verdict(("PASS" if best[0] > ANCHOR_CHAIN_BPC else "FAIL") if patterns else "NOTE",
                f"remote bandwidth with loads in flight peaks at {best[0]:.1f} B/clk per reading SM (size "
                f"{best[1]}, {best[2]} B loads): {best[0] / ANCHOR_CHAIN_BPC:.2f}x the H800 dependent-chain anchor")
    ring, chain = (pick(doc, "dsm_bandwidth", cluster_size=2, path=p, width_bytes=4) for p in (2, 5))
    x, c = ((reader.metric(ring, "bytes_per_clk_sm"), reader.metric(chain, "bytes_per_clk_sm"))
            if ring and chain and ring["status"] == chain["status"] == "ok" else (None, None))
    if x and c and x > 0 and c > 0:
        verdict("NOTE", f"size 2, 4-B loads: eight in flight {x:.1f}, a dependent chain {c:.1f} B/clk/SM on this "
                f"GPU ({x / c:.2f}x): with 1024 threads per SM the ring is bound by the SM-to-SM link, not by latency")

    print("\natomic adds, atomics/clk/SM (ceiling 32)")
    print(row("size", "remote", "own/cluster", "red.shared", widths=(6, 12)))
    for s in SIZES:
        print(row(s, *(cell(pick(doc, "dsm_atomics", cluster_size=s, path=p), "atomics_per_clk_sm", "{:.2f}")
                       for p in (2, 1, 0)), widths=(6, 12)))

    print("\ncluster.sync(), cycles per barrier (one cluster, one block per SM)")
    print(row("size", "32 thr/blk", "1024 thr/blk", widths=(6, 12)))
    for s in SIZES:
        print(row(s, *(cell(pick(doc, "cluster_sync", cluster_size=s, block_threads=t), "sync_cycles", "{:.0f}")
                       for t in (32, 1024)), widths=(6, 12)))

    print("\nclusters resident at once: cudaOccupancyMaxActiveClusters / measured by the probe (! = they differ)")
    smems = sorted({r["params"]["smem_bytes"] for r in doc["results"] if r["bench"] == "cluster_occupancy"})
    print(row("size", *(f"{k // 1024} KiB" for k in smems), widths=(6, 14)))
    flagged = 0
    for s in SIZES:
        cols = []
        for k in smems:
            r = pick(doc, "cluster_occupancy", cluster_size=s, smem_bytes=k)
            if r is None or r["status"] != "ok":
                cols.append("-" if r is None else r["status"])
                continue
            api, got = reader.metric(r, "clusters_api"), reader.metric(r, "clusters_measured")
            flagged += api != got
            cols.append(f"{api:.0f}/{got:.0f}{'!' if api != got else ''}")
        print(row(s, *cols, widths=(6, 14)))
    verdict("PASS" if not flagged else "NOTE", "cluster occupancy: API and measured agree at every point"
            if not flagged else f"cluster occupancy: {flagged} points where API and measured differ (marked !)")


def staging(doc):
    dev = doc["device"]
    read = [reader.metric(r, "gbytes_per_s") for r in reader.ok(doc) if r["bench"] == "global_read"]
    print(f"\n== staging: {dev['name']}; global read bandwidth (global_read): "
          + (", ".join(f"{v:.0f} GB/s" for v in read) if read else "not measured"))
    bad = not_ok(doc)
    for r in bad:
        print(f"   not ok: {r['bench']} {r['params']} {r['status']}: {r['reason']}")
    verdict("FAIL" if bad else "PASS", f"staging sweep: {len(doc['results'])} points, {len(bad)} failed or invalid")
    unverified = [r for r in reader.ok(doc) if not r.get("verified")]
    verdict("FAIL" if unverified else "PASS", "staging sweep: every staged tile verified (per-thread hash)")
    sizes = sorted({r["params"]["transfer_bytes"] for r in doc["results"]
                    if r["bench"] in reader.STAGING_BENCHES})
    print("% of the global read bandwidth, by transfer per operation")
    print(row("benchmark", *(f"{t // 1024}K" if t % 1024 == 0 else str(t) for t in sizes), ">=90% from",
              widths=(18, 6)))
    smallest = reader.staging_smallest(doc)
    for bench, name in (("staging_plain", "ld/st"), ("staging_cp_async", "cp.async"), ("staging_bulk", "bulk")):
        for w in ((4, 8, 16) if bench != "staging_bulk" else (None,)):
            params = {"width_bytes": w} if w else {}
            pts = [pick(doc, bench, transfer_bytes=t, **params) for t in sizes]
            if not any(pts):
                continue
            s = smallest.get((bench, w))
            print(row(f"{name} {w}B" if w else name, *(cell(r, "pct_of_read", "{:.0f}") for r in pts),
                      f"{s / 1024:g} KiB" if s else "never" if (bench, w) in smallest else "-", widths=(18, 6)))
    bulk = [r for r in reader.ok(doc) if r["bench"] == "staging_bulk" and r["params"]["transfer_bytes"] >= 8192]
    low = [r for r in bulk if (reader.metric(r, "pct_of_read") or 0) < 90]
    if bulk:
        verdict("NOTE", "bulk copies from 8 KiB reach 90 % of the read bandwidth at every size" if not low else
                "bulk copies below 90 % at " + ", ".join(f"{r['params']['transfer_bytes'] // 1024} KiB "
                                                        f"({reader.metric(r, 'pct_of_read'):.0f} %)" for r in low))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        docs = [reader.load(p) for p in argv[1:]]
    except reader.ResultError as e:
        print(f"hopper_summary.py: {e}", file=sys.stderr)
        return 2
    cluster(docs[0])
    staging(docs[1])
    print("\n== verdicts")
    for kind, text in verdicts:
        print(f"{kind:4}  {text}")
    return 1 if any(k == "FAIL" for k, _ in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
