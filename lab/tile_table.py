#!/usr/bin/env python3
"""One line per GEMM point of smembench result files, fastest first: benchmark, n, the tile and
depth, stages, shared memory per block, blocks per SM (api / predicted / measured), TFLOP/s and
% of cuBLAS at the same n (cuBLAS from any of the files). Points that did not run are listed last
with their reason.

    lab/tile_table.py FILE.json [FILE.json ...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "python"))
from smembench import reader  # noqa: E402

GEMMS = ("sgemm_cp_async", "sgemm_tma", "matmul", "matmul_rb", "cublas")


def main(argv):
    if len(argv) < 2:
        print("usage: tile_table.py FILE.json [FILE.json ...]", file=sys.stderr)
        return 2
    points = []
    for path in argv[1:]:
        try:
            points += reader.load(path)["results"]
        except reader.ResultError as e:
            print(f"tile_table.py: {e}", file=sys.stderr)
            return 2
    cublas = {p["params"]["n"]: reader.metric(p, "gflops") for p in points
              if p["bench"] == "cublas" and p["status"] == "ok"}
    ok = [p for p in points if p["bench"] in GEMMS and p["status"] == "ok"]
    ok.sort(key=lambda p: (-p["params"]["n"], -reader.metric(p, "gflops")))
    print(f"{'bench':15} {'n':>5} {'params':32} {'smem KiB':>8} {'blocks/SM':>9} {'TFLOP/s':>7} {'% cuBLAS':>8}")
    for p in ok:
        prm = " ".join(f"{k}={v}" for k, v in p["params"].items() if k != "n")
        occ = p.get("occupancy") or {}
        blocks = "/".join(str(occ.get(k, "-")) for k in ("api", "predicted", "measured"))
        smem = (p["launch"]["dynamic_smem"] + p["launch"]["static_smem"]) / 1024
        g = reader.metric(p, "gflops")
        pct = 100 * g / cublas[p["params"]["n"]] if p["params"]["n"] in cublas else float("nan")
        print(f"{p['bench']:15} {p['params']['n']:>5} {prm:32} {smem:8.1f} {blocks:>9} {g / 1000:7.2f} {pct:8.1f}"
              f"{'' if p.get('verified') else ' NOT VERIFIED'}")
    for p in points:
        if p["bench"] in GEMMS and p["status"] != "ok":
            print(f"{p['bench']:15} {p['params']}: {p['status']}: {p.get('reason')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
