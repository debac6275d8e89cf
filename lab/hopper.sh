#!/bin/bash
# Everything issue 13 (Hopper: distributed shared memory and bulk copies) needs proven on a GPU, in
# one call, on a cc 9.0+ device (an H200):
#
#   meson setup build-gpu -Dgpu_arch=90 && ninja -C build-gpu     (or the default, all architectures)
#   lab/hopper.sh build-gpu hopper-out
#
# Steps, each ending in one line "PASS|FAIL|SKIP  step: what":
#   1. the GPU tests of the Hopper benchmarks (build-gpu/tests/test_gpu --filter 'hopper/*')
#   2. smembench --sweep cluster and --sweep staging: OUTDIR/<gpu>_<date>_cluster.json, ..._staging.json
#   3. compute-sanitizer memcheck and racecheck over both sweeps with --check (every kernel launched and
#      verified once, two clusters of each of the sizes 1, 2, 4 and 16): no report, exit 0
#   4. a PTX-only build (-Dgpu_arch=compute_80, configured in OUTDIR/build-ptx80, JIT-compiled here):
#      every cluster point and every cp.async.bulk point skipped ("needs compute capability 9.0 code ...
#      compiled from compute_80 PTX"), the plain and cp.async points verified
#      (HOPPER_NO_PTX=1 leaves this step out)
#   5. the plots (OUTDIR/plots/cluster.png, staging.png), the HTML report (OUTDIR/reports/index.html),
#      both skipped where this Python has no matplotlib (PYTHON=... picks another), and the summary
#      table (OUTDIR/summary.txt): the measured figures beside the published H800 anchors, then one
#      verdict per claim of the issue
# HOPPER_STEPS picks steps (default "1 2 3 4 5"), to split the work over several calls into the same
# OUTDIR on the same day (step 5 reads step 2's files): HOPPER_STEPS="1 2" ..., then "3", then "4 5".
# Logs of every step are in OUTDIR. Exit status: 0 every step passed, 1 a step failed, 77 no cc 9.0 GPU.
# On an offline host, first: source .devdeps/env.sh (see docs/building.md).
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUTDIR   (BUILD_DIR: a release build with sm_90 code, -Dgpu_arch=90)" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
root=$(cd "$(dirname "$0")/.." && pwd)
exe=$build/smembench
[ -x "$exe" ] || { echo "no $exe: build it first (ninja -C $1)" >&2; exit 2; }
fails=0
step() {   # step PASS|FAIL|SKIP NAME TEXT
  printf '%-4s  %s: %s\n' "$1" "$2" "$3" | tee -a "$out/steps.txt"
  [ "$1" = FAIL ] && fails=$((fails + 1))
  return 0
}
: >"$out/steps.txt"
steps=" ${HOPPER_STEPS:-1 2 3 4 5} "
want() { [[ $steps == *" $1 "* ]]; }
py=${PYTHON:-python3}   # the summary needs the standard library only; plots and report need matplotlib
points() {   # points FILE: how many points the result file holds
  "$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$1" 2>/dev/null || echo 0
}

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version,compute_cap,clocks.sm,clocks.max.sm --format=csv \
  2>&1 | tee "$out/device.txt"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')
if [ -z "$cc" ] || [ "${cc%%.*}" -lt 9 ]; then
  echo "SKIP  no GPU of compute capability 9.0 or later (found: ${cc:-none}): clusters and bulk copies need one"
  exit 77
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
day=$(date -u +%Y%m%d)

echo "== 1. GPU tests of the Hopper benchmarks"
if ! want 1; then
  step SKIP tests "not in HOPPER_STEPS"
elif [ -x "$build/tests/test_gpu" ]; then
  "$build/tests/test_gpu" --filter 'hopper/*' --verbose >"$out/test_gpu.log" 2>&1
  rc=$?
  tail -1 "$out/test_gpu.log"
  if [ $rc -eq 0 ] && grep -q "Tested: [1-9]" "$out/test_gpu.log"; then
    step PASS tests "$(grep -o 'Tested: .*' "$out/test_gpu.log" | tail -1)"
  else
    step FAIL tests "exit $rc, see $out/test_gpu.log"
  fi
else
  step FAIL tests "no $build/tests/test_gpu (Criterion missing at setup?)"
fi

echo "== 2. the cluster and staging sweeps"
want 2 || step SKIP sweeps "not in HOPPER_STEPS"
for s in cluster staging; do
  want 2 || continue
  f=$out/${gpu}_${day}_$s.json
  start=$(date +%s)
  "$exe" --sweep "$s" --require-gpu --force -o "$f" >"$out/$s.txt" 2>"$out/$s.log"
  rc=$?
  if [ $rc -eq 0 ]; then
    step PASS "sweep $s" "$(points "$f") points in $(( $(date +%s) - start )) s -> $f"
  else
    step FAIL "sweep $s" "exit $rc, see $out/$s.log and $out/$s.txt"
  fi
done

echo "== 3. compute-sanitizer memcheck and racecheck (--check)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  if ! want 3; then
    step SKIP "$tool" "not in HOPPER_STEPS"
    continue
  fi
  if [ ! -x "$san" ]; then
    step FAIL "$tool" "compute-sanitizer not found"
    continue
  fi
  start=$(date +%s)
  "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 "$exe" --sweep cluster,staging --check --quick \
    --axis cluster_size=1,2,4,16 --axis mib=1 --require-gpu --force -q -o "$out/check_$tool.json" >"$out/$tool.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    step PASS "$tool" "$(points "$out/check_$tool.json") points launched and verified, no report, $(( $(date +%s) - start )) s"
  else
    step FAIL "$tool" "exit $rc, see $out/$tool.log"
  fi
done

echo "== 4. a PTX-only build (compute_80, JIT-compiled on this device)"
if [ -n "${HOPPER_NO_PTX:-}" ] || ! want 4; then
  step SKIP ptx "HOPPER_NO_PTX is set or 4 is not in HOPPER_STEPS"
elif (meson setup "$out/build-ptx80" "$root" -Dbuildtype=release -Dgpu_arch=compute_80 >"$out/ptx_build.log" 2>&1 ||
      meson setup --reconfigure "$out/build-ptx80" "$root" >>"$out/ptx_build.log" 2>&1) &&
     ninja -C "$out/build-ptx80" smembench >>"$out/ptx_build.log" 2>&1; then
  "$out/build-ptx80/smembench" --sweep cluster,staging --quick --require-gpu --force -q \
    -o "$out/ptx80.json" >"$out/ptx80.log" 2>&1
  rc=$?
  "$py" - "$out/ptx80.json" <<'PY' >>"$out/ptx80.log" 2>&1
# -Dgpu_arch=compute_80 carries PTX only, which the driver JIT-compiles for cc 9.0: the kernels' cc 9.0
# code is not in it. Cluster and bulk points must be skipped with that reason; plain and cp.async
# (cc 8.0) points must run and verify.
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for r in d["results"]:
    hopper_only = r["bench"] in ("dsm_latency", "dsm_bandwidth", "dsm_atomics", "cluster_sync", "cluster_occupancy",
                                 "staging_bulk")
    if hopper_only:
        if r["status"] == "skipped" and r["params"].get("path", 0) >= 2 and \
                ("no other block" in r["reason"] or "fan-in needs" in r["reason"]):
            continue   # no remote block to read (size 1), or fan-in at size 2: skipped before the build is asked
        if r["status"] != "skipped" or "compiled from compute_80 PTX" not in (r["reason"] or ""):
            bad.append(r)
    elif r["status"] != "ok" or not r["verified"]:
        bad.append(r)
for r in bad:
    print("unexpected:", r["bench"], r["params"], r["status"], r["reason"])
print(f"{len(d['results'])} points, {len(bad)} unexpected")
sys.exit(1 if bad or not d["results"] else 0)
PY
  prc=$?
  if [ $rc -eq 0 ] && [ $prc -eq 0 ]; then
    step PASS ptx "$(tail -1 "$out/ptx80.log"): cc 9.0 points skipped (compute_80 PTX), the rest verified"
  else
    step FAIL ptx "smembench exit $rc, check exit $prc, see $out/ptx80.log"
  fi
else
  step FAIL ptx "the compute_80 build failed, see $out/ptx_build.log"
fi

echo "== 5. plots and summary"
cf=$out/${gpu}_${day}_cluster.json
sf=$out/${gpu}_${day}_staging.json
if ! want 5; then
  step SKIP summary "not in HOPPER_STEPS"
elif [ -f "$cf" ] && [ -f "$sf" ]; then
  for tool in plot report; do
    "$py" "$root/scripts/$tool.py" "$cf" "$sf" -o "$out/${tool}s" >"$out/$tool.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
      step PASS "$tool" "$out/${tool}s"
    elif [ $rc -eq 3 ]; then   # a Python module is missing here: make them where matplotlib is
      step SKIP "$tool" "$(tail -1 "$out/$tool.log"); later: python3 scripts/$tool.py $(basename "$cf") $(basename "$sf") -o DIR"
    else
      step FAIL "$tool" "exit $rc, see $out/$tool.log"
    fi
  done
  "$py" "$root/tests/scripts/hopper_summary.py" "$cf" "$sf" >"$out/summary.txt" 2>&1
  rc=$?
  cat "$out/summary.txt"
  if [ $rc -eq 0 ]; then
    step PASS summary "every verdict that is a test passed ($out/summary.txt)"
  else
    step FAIL summary "a verdict failed, see $out/summary.txt"
  fi
else
  step FAIL summary "a sweep wrote no result file"
fi

echo "== steps"
cat "$out/steps.txt"
echo "result files, plots and logs: $out"
[ $fails -eq 0 ]
