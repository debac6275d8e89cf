#!/bin/bash
# Issue 34's runs on one GPU unit, in one device call (results and logs under OUT):
#   lab/kernel_session.sh TAG STEPS...    STEPS from: tests examples ncu ptx public
#   tests     meson test kernel library: the --kernel checks and the libsmembench project on the GPU
#   examples  each example kernel (examples/) swept over carveout and dynamic shared memory, trials on;
#             row_softmax also over block and cluster; the planted race over the dynamic sweep
#   ncu       row_softmax's carveout sweep under Nsight Compute: the driver's shared-memory
#             configuration and occupancy limits beside what the result file records
#   ptx       row_softmax loaded from PTX (JIT-compiled by the driver) beside the fatbin
#   public    a kernel from a public project (.ext/public, fetched outside the repository)
# On an offline host, first: source .devdeps/env.sh.
set -uo pipefail
tag=${1:?tag}; shift
out=${OUT:-kernel-session}
mkdir -p "$out/kernel"; out=$(cd "$out" && pwd)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; log "rc $rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}") s: $*"; return $rc; }
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
fi
t ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
exe=$PWD/build-gpu/smembench
ex=$PWD/build-gpu/examples
log "built $($exe --version)"
for step in "$@"; do
  case $step in
  tests) (cd build-gpu && t meson test ${TESTS:-kernel library} --print-errorlogs >"$out/tests_$tag.txt" 2>&1
          grep -h "^ok\|^not ok" meson-logs/testlog.txt | tee -a "$out/session.log"
          cp meson-logs/testlog.txt "$out/testlog_$tag.txt") ;;
  examples)
    $exe --kernel "$ex/row_softmax.fatbin" --list | tee -a "$out/session.log"
    for k in row_softmax histogram stencil2d; do
      t $exe --kernel "$ex/$k.fatbin" --launch "$ex/$k.json" --sweep carveout,dynamic --quiet \
        -o "$out/kernel/${k}_$tag.json" 2>"$out/${k}_$tag.err"
      tail -2 "$out/${k}_$tag.err" | tee -a "$out/session.log"
    done
    t $exe --kernel "$ex/row_softmax.fatbin" --launch "$ex/row_softmax.json" --sweep block,cluster --quiet \
      -o "$out/kernel/row_softmax_block_$tag.json" 2>"$out/softmax_block_$tag.err"
    t $exe --kernel "$ex/coresident_race.fatbin" --launch "$ex/coresident_race.json" --sweep carveout,dynamic \
      --quiet -o "$out/kernel/coresident_race_$tag.json" 2>"$out/race_$tag.err"
    tail -3 "$out/race_$tag.err" | tee -a "$out/session.log"
    for f in "$out"/kernel/*_$tag.json; do
      python3 - "$f" <<'PY' | tee -a "$out/session.log"
import json, sys
d = json.load(open(sys.argv[1])); rs = d["results"]; k = d["kernel"]
ok = [r for r in rs if r["status"] == "ok"]
best = min(ok, key=lambda r: r["time_ns"]["stats"]["median"]) if ok else None
print(sys.argv[1].rsplit("/", 1)[1], len(rs), "points,", len(ok), "ok,", sum(r["status"] == "failed" for r in rs),
      "failed; verification", k["verification"], "; best", best and best["params"], best and best["time_ns"]["stats"]["median"])
PY
    done
    PYTHONPATH=python python3 scripts/plot.py "$out"/kernel/*_$tag.json -o "$out/kernel/plots_$tag" \
      >"$out/plot_$tag.txt" 2>&1; tail -5 "$out/plot_$tag.txt" | tee -a "$out/session.log" ;;
  ncu)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    $ncu --clock-control none --csv --print-units base \
      --metrics launch__grid_size,launch__block_size,launch__shared_mem_config_size,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__occupancy_limit_warps,sm__maximum_warps_per_active_cycle_pct,gpu__time_duration.sum \
      $exe --kernel "$ex/row_softmax.fatbin" --launch "$ex/row_softmax.json" --sweep carveout,dynamic --quick --check \
      -q -o "$out/kernel/ncu_softmax_$tag.json" >"$out/kernel/ncu_softmax_$tag.csv" 2>&1
    log "ncu done: $(grep -c launch__grid_size "$out/kernel/ncu_softmax_$tag.csv") rows" ;;
  ptx)
    t $exe --kernel "$ex/row_softmax.ptx" --launch "$ex/row_softmax.json" --sweep carveout --quick --quiet \
      -o "$out/kernel/row_softmax_ptx_$tag.json" 2>"$out/ptx_$tag.err"; tail -2 "$out/ptx_$tag.err" | tee -a "$out/session.log" ;;
  public)
    if [ -d .ext/public ]; then
      (cd .ext/public && t bash run.sh "$exe" "$out/kernel" "$tag" >"$out/public_$tag.txt" 2>&1)
      tail -15 "$out/public_$tag.txt" | tee -a "$out/session.log"
    fi ;;
  esac
done
# the device tool brings back a few files: everything in one tarball
tar -C "$out" -czf "$out/kernel_$tag.tgz" kernel session.log $(cd "$out" && ls *.err *.txt 2>/dev/null) 2>/dev/null
log "done"
