#!/usr/bin/env python3
"""Holds smembench's occupancy and bank model against Nsight Compute on the GPU.

Two runs of the carveout, dynamic, bank and swizzle sweeps (or those --sweep names, with --axis's values):
  1. smembench alone, timed: measured residency, the smallest configuration that holds it, and the
     bank model's passes per request (the metrics need a timed run);
  2. smembench --check under ncu: one launch per point, with ncu's launch metrics (the shared-memory
     configuration the driver chose, the occupancy limits) and the shared-memory wavefronts and
     load instructions.
Each point of run 2 is matched to its ncu record in launch order, by grid, block and dynamic shared
memory (kernels of the tool's own, the input draw and the clock probe, are left out by name, since
an input draw can have a point's geometry; other kernels in between are skipped), and to its
twin in run 1 by benchmark and parameters. Per point:
  - blocks per SM: the occupancy API and the calculator against min(ncu's occupancy limits); the
    measured residency no more than that (ncu's limits are theoretical: a residency the hardware
    does not reach is listed as "below the limit" and counted apart, one above it disagrees);
  - configuration: smem_config_predicted_bytes against launch__shared_mem_config_size (a point the
    model does not cover is listed, not counted), and smem_config_inferred_min_bytes (a lower
    bound) no more than it;
  - bank: the wavefronts metric (passes per request) against ncu's shared-load wavefronts per
    shared-load instruction;
  - swizzle_ldmatrix / swizzle_stmatrix: the wavefronts metric (the bank model's passes per ldmatrix
    or stmatrix) against ncu's LDSM (STSM) wavefronts per LDSM (STSM) instruction;
  - transpose (the tile sweep): load_wavefronts and store_wavefronts (the bank model's passes per
    shared load, the tile's column read, and per shared store, from the kernel's addresses) against
    ncu's shared-load and shared-store wavefronts per instruction. The pipelined transposes
    (depth_tiles above 1) write their tiles by cp.async (LDGSTS), not shared stores: the model has
    no store figure for them, and ncu's shared-store counters are shown beside "-", not judged.
ldmatrix/stmatrix counters this ncu does not have on the GPU (ncu --query-metrics) are left out of
the profile; a point that needs one counts as a disagreement that names it.
Prints a table and "N disagreements"; exit 0 none, 1 any (a point that failed or found no ncu
record counts), 2 bad input, 77 no GPU or no ncu (or under a sanitizer setup).

    tests/scripts/ncu_check.py build/smembench [--ncu PATH] [--keep DIR] [--sweep LIST] [--axis NAME=LIST]...
    tests/scripts/ncu_check.py build/smembench --sweep tile --axis mib=16 --axis n=1024 \
        --axis edge_elems=32,64 --axis width_bytes=4,8,16     # every transpose geometry, small and quick
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

SWEEPS = "carveout,dynamic,bank,swizzle"
GEOMETRY = ["launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_dynamic"]
LIMITS = ["launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
          "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps"]
CONFIG = "launch__shared_mem_config_size"
WAVEFRONTS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
LOADS = "smsp__sass_inst_executed_op_shared_ld.sum"
ST_SHARED_WAVEFRONTS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
STORES = "smsp__sass_inst_executed_op_shared_st.sum"
# ldmatrix and stmatrix: their own wavefront and instruction counters (ncu 2025 on the H200 lists
# them; LDSM and STSM are not "shared ld/st" to the sass counters)
LD_WAVEFRONTS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"
ST_WAVEFRONTS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"
LDSM = "smsp__sass_inst_executed_op_ldsm.sum"
STSM = "smsp__sass_inst_executed_op_shared_stsm.sum"
# per benchmark, each access its bank model predicts: (its name in the verdict, the timed run's metric
# of passes, ncu's wavefronts, ncu's instructions); the row shows "model/ncu", named where there are two
PASSES = {
    "bank": [("passes per request", "wavefronts", WAVEFRONTS, LOADS)],
    "swizzle_ldmatrix": [("passes per instruction", "wavefronts", LD_WAVEFRONTS, LDSM)],
    "swizzle_stmatrix": [("passes per instruction", "wavefronts", ST_WAVEFRONTS, STSM)],
    "transpose": [("passes per shared load", "load_wavefronts", WAVEFRONTS, LOADS),
                  ("passes per shared store", "store_wavefronts", ST_SHARED_WAVEFRONTS, STORES)],
}
METRICS = GEOMETRY + LIMITS + [CONFIG, WAVEFRONTS, LOADS, ST_SHARED_WAVEFRONTS, STORES, LD_WAVEFRONTS, ST_WAVEFRONTS,
                               LDSM, STSM]
# accesses a point's kernel makes by other means than the model describes: (bench, the model's metric)
# -> (whether the point is one of them, what the verdict says)
NOT_MODELLED = {
    ("transpose", "store_wavefronts"): (lambda params: params.get("depth_tiles", 1) > 1,
                                        "stores by cp.async, not modelled"),
}
WAVEFRONT_TOLERANCE = 1e-3   # relative; the kernel issues no shared load but the measured ones


def number(text):
    """A metric value as ncu prints it ("32,768", "1.5", "n/a")."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_ncu_csv(lines):
    """ncu --csv (one line per metric and kernel launch) as a list of launches in launch order, each
    {"id", "name", metric: value}. Lines that are not ncu's CSV (==PROF== notes, the program's own
    output) are left out."""
    rows = [line for line in lines if line.startswith('"')]
    launches = {}
    for row in csv.DictReader(rows):
        rec = launches.setdefault(int(row["ID"]), {"id": int(row["ID"]), "name": row["Kernel Name"]})
        rec[row["Metric Name"]] = number(row["Metric Value"])
    return [launches[k] for k in sorted(launches)]


def launched(point):
    """Whether a point of a --check run launched a kernel of smembench's own."""
    launch = point.get("launch") or {}
    return point["status"] == "ok" and launch.get("block") and launch.get("grid")


def matches(point, rec):
    launch = point["launch"]
    return (rec.get("launch__grid_size") == launch["grid"] and rec.get("launch__block_size") == launch["block"]
            and rec.get("launch__shared_mem_per_block_dynamic") == launch["dynamic_smem"])


# the tool's own kernels, which a --check run launches between the points': the GPU's draw of an
# input (fill_kernel: 8 blocks a SM of 256 threads, the geometry of the gather kernel's full wave,
# and so taken for the first gather point's launch: each gather point then showed its predecessor's
# configuration, on every unit where the gather's table was drawn just before), the clock probe,
# the residency probe
TOOL_KERNELS = ("fill_kernel", "clock_kernel", "residency_kernel")


def tool_kernel(rec):
    name = rec.get("name") or ""
    return any(name == k or name.startswith(k + "(") or name.startswith(k + "<") for k in TOOL_KERNELS)


def match(points, records):
    """Pairs each launching point with the first later ncu record of its geometry, in launch order:
    [(point, record or None)]. Records in between belong to other kernels and are skipped, and the
    tool's own kernels (TOOL_KERNELS) are never a point's."""
    records = [r for r in records if not tool_kernel(r)]
    pairs, cursor = [], 0
    for p in points:
        if not launched(p):
            continue
        found = next((i for i in range(cursor, len(records)) if matches(p, records[i])), None)
        if found is None:
            pairs.append((p, None))
        else:
            pairs.append((p, records[found]))
            cursor = found + 1
    return pairs


def key(point):
    return point["bench"], tuple(sorted(point["params"].items()))


def ncu_blocks(rec):
    limits = [rec[m] for m in LIMITS if rec.get(m) is not None]
    return int(min(limits)) if limits else None


def judge(point, rec, timed):
    """The row of one point: (cells, disagreements, unmodelled)."""
    occ = point.get("occupancy") or {}
    tocc = (timed or {}).get("occupancy") or {}
    bad, unmodelled, notes = [], False, []
    row = {"point": f"{point['bench']} " + " ".join(f"{k}={v}" for k, v in point["params"].items())}
    if point["status"] != "ok":
        return row, [f"status {point['status']}: {point.get('reason')}"], False
    if rec is None:
        return row, ["no ncu record with this grid, block and dynamic shared memory"], False
    blocks = ncu_blocks(rec)
    row["blocks a/p/m/ncu"] = "/".join("-" if v is None else str(v)
                                       for v in (occ.get("api"), occ.get("predicted"), tocc.get("measured"), blocks))
    for name, v in (("api", occ.get("api")), ("predicted", occ.get("predicted"))):
        if v is not None and v != blocks:
            bad.append(f"blocks per SM: {name} {v}, ncu {blocks}")
    measured = tocc.get("measured")
    below = measured is not None and blocks is not None and 0 <= measured < blocks
    if measured is not None and blocks is not None and measured > blocks:
        bad.append(f"blocks per SM: measured {measured}, above ncu's limit {blocks}")
    row["below"] = f"measured {measured} below the limit {blocks}" if below else ""
    cfg = rec.get(CONFIG)
    pred = occ.get("smem_config_predicted_bytes")
    low = tocc.get("smem_config_inferred_min_bytes")
    kib = lambda v: "-" if v is None else f"{v / 1024:g}"
    row["config KiB req/pred/min/ncu"] = "/".join(kib(v) for v in (occ.get("smem_config_requested_bytes"), pred, low, cfg))
    if cfg is None:
        bad.append("ncu reported no shared-memory configuration")
    elif pred is None:
        unmodelled = True
    elif pred != cfg:
        bad.append(f"configuration: predicted {kib(pred)} KiB, ncu {kib(cfg)} KiB")
    if cfg is not None and low is not None and low > cfg:
        bad.append(f"configuration: the measured residency needs {kib(low)} KiB, ncu {kib(cfg)} KiB")
    cells = []
    for what, name, waves, insts in PASSES.get(point["bench"], []):
        model = (((timed or {}).get("metrics") or {}).get(name) or {}).get("value")
        seen = rec[waves] / rec[insts] if rec.get(waves) is not None and rec.get(insts) else None
        cells.append(("-" if model is None else f"{model:g}") + "/" + ("-" if seen is None else f"{seen:.4g}"))
        skip = NOT_MODELLED.get((point["bench"], name))
        if model is None and skip and skip[0](point["params"]):
            notes.append(skip[1])
        elif model is None:
            bad.append(f"no {name} metric in the timed run")
        elif seen is None:
            bad.append(f"ncu reported no {waves} or {insts}")
        elif abs(seen / model - 1) > WAVEFRONT_TOLERANCE:
            bad.append(f"{what}: model {model:g}, ncu {seen:.4g}")
    if len(cells) == 1:
        row["passes model/ncu"] = cells[0]
    elif cells:     # the transpose: its shared loads, then its stores
        row["passes model/ncu"] = ", ".join(f"{k} {c}" for k, c in zip(("ld", "st"), cells))
    if notes:
        row["note"] = "; ".join(notes)
    return row, bad, unmodelled


def check(checked, timed, records):
    """Judges every point; returns (rows, disagreements, unmodelled count)."""
    twins = {key(p): p for p in timed["results"]}
    rows, total, unmodelled = [], 0, 0
    pairs = match(checked["results"], records)
    failed = [p for p in checked["results"] if p["status"] in ("failed", "invalid")]
    for p, rec in pairs + [(p, None) for p in failed]:
        row, bad, unmod = judge(p, rec, twins.get(key(p)))
        row["verdict"] = "; ".join(bad) if bad else ("agrees (configuration not modelled)" if unmod else "agrees")
        note = row.pop("note", "")
        if note and not bad:
            row["verdict"] += f" ({note})"
        below = row.pop("below", "")
        if below and not bad:
            row["verdict"] += "; " + below
        rows.append(row)
        total += len(bad) > 0
        unmodelled += unmod
    return rows, total, unmodelled


def print_table(rows, out=sys.stdout):
    cols = ["point", "blocks a/p/m/ncu", "config KiB req/pred/min/ncu", "passes model/ncu", "verdict"]
    width = {c: max([len(c)] + [len(r.get(c, "")) for r in rows]) for c in cols[:-1]}
    print("  ".join(c.ljust(width.get(c, 0)) for c in cols), file=out)
    for r in rows:
        print("  ".join(r.get(c, "").ljust(width.get(c, 0)) for c in cols), file=out)


def run(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, **kw)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("smembench")
    ap.add_argument("--ncu", default=None, help="the ncu executable (default: ncu on PATH, then the CUDA toolkit's)")
    ap.add_argument("--keep", metavar="DIR", help="leave both result files and ncu's CSV in DIR")
    ap.add_argument("--sweep", default=SWEEPS, help=f"the sweeps to check (default {SWEEPS})")
    ap.add_argument("--axis", action="append", default=[], metavar="NAME=LIST",
                    help="an axis of both runs, as smembench --axis takes it (repeatable): --axis mib=16 keeps the "
                         "tile sweep's transposes small")
    ap.add_argument("--timed", metavar="FILE", help="a timed result file of the same sweeps and axes to use instead "
                                                    "of run 1")
    args = ap.parse_args(argv)
    if os.environ.get("SMEM_SANITIZER"):
        print(f"ncu_check: skipped under {os.environ['SMEM_SANITIZER']}")
        return 77
    if not os.access(args.smembench, os.X_OK):
        print(f"ncu_check: {args.smembench} is not an executable", file=sys.stderr)
        return 2
    ncu = args.ncu or shutil.which("ncu") or next(
        (p for p in ("/usr/local/cuda/bin/ncu", "/usr/local/cuda/nsight-compute/ncu") if os.access(p, os.X_OK)), None)
    if ncu is None:
        print("ncu_check: skipped, no ncu (Nsight Compute) found; --ncu PATH names one")
        return 77
    work = args.keep or tempfile.mkdtemp(prefix="ncu_check.")
    try:
        os.makedirs(work, exist_ok=True)
        return cross_check(args.smembench, ncu, work, args.sweep, args.timed, args.axis)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def available(ncu, metrics):
    """metrics less the ldmatrix/stmatrix counters this ncu does not have on this GPU (ncu
    --query-metrics lists counters by base name; the launch__ attributes it does not list are always
    there); all of them where the query itself fails, so ncu's own error names the one it lacks."""
    r = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True)
    if r.returncode != 0:
        return list(metrics)
    names = {line.split()[0] for line in r.stdout.splitlines() if line.strip()}
    optional = {LD_WAVEFRONTS, ST_WAVEFRONTS, LDSM, STSM}
    kept = [m for m in metrics if m not in optional or m.rsplit(".", 1)[0] in names]
    for m in metrics:
        if m not in kept:
            print(f"ncu_check: this ncu has no {m} on this GPU; the points that need it disagree", file=sys.stderr)
    return kept


def plan_args(sweeps, axes=()):
    """smembench's arguments for the points of both runs."""
    return ["--sweep", sweeps] + [a for axis in axes for a in ("--axis", axis)]


def cross_check(smembench, ncu, work, sweeps=SWEEPS, timed_file=None, axes=()):
    timed_path, checked_path, csv_path = (os.path.join(work, n) for n in ("timed.json", "checked.json", "ncu.csv"))
    for p in (timed_path, checked_path, csv_path):
        if os.path.exists(p):
            os.remove(p)
    if timed_file:
        timed_path = timed_file
    rc = 0 if timed_file else run([smembench, *plan_args(sweeps, axes), "--require-gpu", "-q", "-o",
                                   timed_path]).returncode
    if rc == 3:
        print("ncu_check: skipped, no GPU")
        return 77
    if rc != 0:
        print(f"ncu_check: smembench --sweep {sweeps} exited {rc}", file=sys.stderr)
        return 1
    rc = run([ncu, "--clock-control", "none", "--csv", "--print-units", "base", "--log-file", csv_path,
              "--metrics", ",".join(available(ncu, METRICS)),
              smembench, *plan_args(sweeps, axes), "--check", "--require-gpu", "-q", "-o", checked_path]).returncode
    if rc != 0 or not os.path.exists(checked_path):
        print(f"ncu_check: smembench --check under ncu exited {rc} (ncu's log: {csv_path})", file=sys.stderr)
        return 1
    with open(timed_path) as f:
        timed = json.load(f)
    with open(checked_path) as f:
        checked = json.load(f)
    with open(csv_path) as f:
        records = parse_ncu_csv(f)
    rows, bad, unmodelled = check(checked, timed, records)
    print(f"{checked['device']['name']}, driver {checked['device'].get('driver_version')}, "
          f"{len(records)} kernels profiled, {len(rows)} points")
    print_table(rows)
    if unmodelled:
        print(f"{unmodelled} points whose configuration the model does not cover (smem_config_predicted_bytes null)")
    below = sum("below the limit" in r["verdict"] for r in rows)
    if below:
        print(f"{below} points whose measured residency is below ncu's (theoretical) limit: the hardware held fewer "
              "blocks at once than the limits allow")
    print(f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
