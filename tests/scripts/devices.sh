#!/bin/bash
# --device all: on a one-GPU machine the same run as --device 0 (same records, no "devices"); on a
# machine with several GPUs a record per device, every point on each, and the spread between them.
# NVML, where the driver has it, matched each device by PCI bus id. Exits 77 without a GPU.
set -u
exe=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
if [ -n "${SMEM_SANITIZER:-}" ]; then
  echo "skipped under $SMEM_SANITIZER"
  exit 77
fi
"$exe" --bench latency --device all --require-gpu -q -o "$d/all.json"
rc=$?
[ $rc -eq 3 ] && { echo "skipped: no GPU"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: --device all exited $rc"; exit 1; }
"$exe" --bench latency --device 0 --require-gpu -q -o "$d/zero.json" || { echo "FAIL: --device 0"; exit 1; }
count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)
python3 - "$d/all.json" "$d/zero.json" "$count" <<'PY'
import json, sys
a, z, count = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
key = lambda r: (r["bench"], sorted(r["params"].items()))
if count <= 1:
    assert "devices" not in a and "spread" not in a, "one GPU: the same shape as --device 0"
    assert [key(r) for r in a["results"]] == [key(r) for r in z["results"]]
    for k in ("name", "pci_bus_id", "cc", "sm_count", "smem_per_sm"):
        assert a["device"][k] == z["device"][k], k
    for ra, rz in zip(a["results"], z["results"]):
        la, lz = ra["metrics"]["latency_cycles"]["value"], rz["metrics"]["latency_cycles"]["value"]
        assert abs(la / lz - 1) < 0.02, (la, lz)
    print(f"one GPU: --device all equals --device 0 ({len(a['results'])} points, {a['device']['name']})")
else:
    assert len(a["devices"]) == count, (len(a["devices"]), count)
    assert len(a["results"]) == count * len(z["results"])
    assert len(a["spread"]) == len(z["results"])
    print(f"{count} GPUs: {len(a['results'])} points, spread " +
          ", ".join(f"{s['spread_pct']:.2f}%" for s in a["spread"]))
nv = a["device"].get("nvml")
if nv is not None:
    print(f"NVML matched by PCI bus id {a['device']['pci_bus_id']}: NVML index {nv['index']}, "
          f"start {nv['start']}, end {nv['end']}")
else:
    print("NVML not available here")
PY
