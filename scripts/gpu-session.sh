#!/bin/bash
# Everything this repository's results come from, in one call on a GPU machine: build for the
# device, the GPU test suite, the compute-sanitizer setups, every named sweep, and the comparison
# gate run on two identical bank+bandwidth runs. Results and logs go to OUT (default
# ./gpu-session): RESULTS as one tarball of result files, the tables, and the logs.
#   scripts/gpu-session.sh                  all of it
#   scripts/gpu-session.sh SWEEP...         only these sweeps
#   scripts/gpu-session.sh portable         the portable path alone: the default build (every
#                                           architecture, PTX included) in build-all/, then its
#                                           portable_ptx and force_jit tests (tests/scripts/portable.sh)
# On an offline host, first: source .devdeps/env.sh (see docs/building.md).
set -uo pipefail
out=${OUT:-gpu-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
res=$(mktemp -d)
log() { echo "== $*" | tee -a "$out/session.log"; }
log "$(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
if [ "${1:-}" = portable ]; then
  [ -f build-all/build.ninja ] || meson setup build-all -Dbuildtype=release >/tmp/setup-all.log 2>&1 ||
    { cat /tmp/setup-all.log; exit 1; }
  start=$(date +%s)
  ninja -C build-all >/tmp/build-all.log 2>&1 || { tail -40 /tmp/build-all.log; exit 1; }
  log "build-all ok ($(grep -o 'CUDA architectures.*' /tmp/setup-all.log build-all/meson-logs/meson-log.txt 2>/dev/null | tail -1)) in $(( $(date +%s) - start )) s"
  (cd build-all && meson test portable_ptx force_jit --print-errorlogs >/dev/null 2>&1
   echo "portable tests rc=$?" >>"$out/session.log"; cat meson-logs/testlog.txt >>"$out/tests.log")
  grep -E "compute_80 PTX build on|CUDA_FORCE_PTX_JIT=1 on|^skipped|beyond 2 %|not ok" "$out/tests.log" | tee -a "$out/session.log"
  exit 0
fi
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >/tmp/setup.log 2>&1 || { cat /tmp/setup.log; exit 1; }
fi
ninja -C build-gpu >/tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
log "build ok"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
day=$(date -u +%Y%m%d)
sweep() {   # sweep NAME [extra args]: one result file, its table appended to tables.txt
  local s=$1; shift
  local name="${gpu}_${day}_$(echo "$s" | tr ',' '-').json"
  local start end rc
  echo "== $s $*" >>"$out/tables.txt"
  start=$(date +%s.%N)
  ./build-gpu/smembench --sweep "$s" -o "$res/$name" --force "$@" >>"$out/tables.txt" 2>>"$out/session.log"
  rc=$?
  end=$(date +%s.%N)
  log "sweep $s $* -> $name rc=$rc wall=$(awk "BEGIN{printf \"%.1f\", $end - $start}")s"
}
if [ $# -gt 0 ]; then
  for s in "$@"; do sweep "$s"; done
else
  (cd build-gpu && meson test --suite gpu --print-errorlogs >/dev/null 2>&1; echo "gpu suite rc=$?" >>"$out/session.log"
   cat meson-logs/testlog.txt >>"$out/tests.log")
  for tool in memcheck initcheck synccheck racecheck; do
    start=$(date +%s)
    (cd build-gpu && timeout 300 meson test --setup "$tool" --suite gpu --print-errorlogs >/dev/null 2>&1)
    log "sanitizer $tool rc=$? $(( $(date +%s) - start ))s"
    cat "build-gpu/meson-logs/testlog-$tool.txt" >>"$out/tests.log" 2>/dev/null
  done
  for s in bandwidth,latency,bank carveout dynamic tile reduction; do sweep "$s"; done
  # the comparison gate on two runs of the same build, and on a copy slowed by 10 %
  for k in 1 2; do
    ./build-gpu/smembench --sweep bank,bandwidth -q -o "$res/gate_run$k.json" 2>>"$out/session.log"
  done
  python3 scripts/compare.py "$res/gate_run1.json" "$res/gate_run2.json" >"$out/compare.txt" 2>&1
  log "compare run1 run2 rc=$? ($(tail -1 "$out/compare.txt"))"
  python3 - "$res/gate_run1.json" "$res/gate_slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["time_ns"]["raw"] = [round(v * 1.10) for v in r["time_ns"]["raw"]]
    for k in ("min", "q1", "median", "q3", "max", "mean"):
        if r["time_ns"]["stats"][k] is not None:
            r["time_ns"]["stats"][k] = round(r["time_ns"]["stats"][k] * 1.10)
json.dump(d, open(sys.argv[2], "w"))
PY
  python3 scripts/compare.py "$res/gate_run1.json" "$res/gate_slow.json" >>"$out/compare.txt" 2>&1
  log "compare run1 run1x1.10 rc=$? ($(tail -1 "$out/compare.txt"))"
fi
tar -C "$res" -czf "$out/results.tar.gz" .
log "$(ls "$res" | wc -l) result files in results.tar.gz"
