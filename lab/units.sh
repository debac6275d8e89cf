#!/bin/bash
# The gate across runs, units and builds on a host of two GPUs (issue 20), in two calls that fit the
# device tool's 10-minute limit. Results and logs under OUT (default ./units-session); the result
# files of each step in one tarball (the tool brings back at most 8 files).
#   lab/units.sh runs [ROUNDS]   build (release, sm_90) and ROUNDS (5) --sweep all runs on
#                                GPU 0 and GPU 1 at the same time: d0_rN.json, d1_rN.json
#   lab/units.sh ab              a build with a planted 3 % slowdown in the bandwidth kernel
#                                (-Dtest_slowdown_pct=3) against the real one, A/B on GPU 0;
#                                the real binary against itself, A/B on GPU 0 and on GPU 1;
#                                then the Hopper GPU tests (the GPC map among them)
#   lab/units.sh verify          the whole build; the GPU suite, the fault and device tests;
#                                --sweep cluster (the GPCs' spread of dsm_bandwidth); the GPC
#                                probe under compute-sanitizer memcheck and racecheck
# On an offline host, first: source .devdeps/env.sh; on a copy of the tree whose .git is not the
# commit built, export SMEM_GIT_REV=<commit> (read when meson configures).
set -uo pipefail
out=${OUT:-units-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
build() {   # build DIR [meson options]: the driver alone, sm_90
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release -Dgpu_arch=90 "$@" >"$out/setup-$dir.log" 2>&1 ||
    { tail -30 "$out/setup-$dir.log"; return 1; }
  ninja -C "$dir" smembench >"$out/build-$dir.log" 2>&1 || { tail -30 "$out/build-$dir.log"; return 1; }
}
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
case "${1:-}" in
runs)
  rounds=${2:-5}
  build build-gpu || exit 1
  log "built"
  res=$out/runs
  mkdir -p "$res"
  for r in $(seq 1 "$rounds"); do
    start=$(date +%s)
    build-gpu/smembench --device 0 --sweep all --quiet -o "$res/d0_r$r.json" 2>>"$out/runs.log" &
    p0=$!
    build-gpu/smembench --device 1 --sweep all --quiet -o "$res/d1_r$r.json" 2>>"$out/runs.log" &
    p1=$!
    wait $p0; rc0=$?
    wait $p1; rc1=$?
    log "round $r: rc $rc0 / $rc1 in $(( $(date +%s) - start )) s"
  done
  tar -C "$res" -czf "$out/runs.tar.gz" .
  ;;
ab)
  build build-gpu || exit 1
  build build-slow -Dtest_slowdown_pct=3 || exit 1
  log "built both"
  res=$out/ab
  mkdir -p "$res"
  py=/usr/bin/python3
  args=(--sweep all --quick)
  $py scripts/ab.py build-gpu/smembench build-slow/smembench -o "$res/slow_d0" -- "${args[@]}" --device 0 \
    >"$out/ab_slow_d0.txt" 2>&1 &
  p0=$!
  $py scripts/ab.py build-gpu/smembench build-gpu/smembench -o "$res/same_d1" -- "${args[@]}" --device 1 \
    >"$out/ab_same_d1.txt" 2>&1 &
  p1=$!
  wait $p0; log "A/B slow vs real on GPU 0: exit $?"
  wait $p1; log "A/B same binary on GPU 1: exit $?"
  $py scripts/ab.py build-gpu/smembench build-gpu/smembench -o "$res/same_d0" -- "${args[@]}" --device 0 \
    >"$out/ab_same_d0.txt" 2>&1
  log "A/B same binary on GPU 0: exit $?"
  grep -E "^[0-9]+ slower|gate:" "$out"/ab_*.txt | tee -a "$out/session.log"
  tar -C "$res" -czf "$out/ab.tar.gz" .
  ninja -C build-gpu tests/test_gpu >"$out/build-tests.log" 2>&1 || tail -20 "$out/build-tests.log"
  (cd build-gpu && ./tests/test_gpu --filter 'hopper/*' --verbose >"$out/hopper_tests.log" 2>&1
   log "hopper tests exit $?")
  grep -E "Synthesis|gpc|FAIL|fail" "$out/hopper_tests.log" | tail -8 | tee -a "$out/session.log"
  ;;
verify)
  [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 ||
    { tail -30 "$out/setup.log"; exit 1; }
  ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  log "built"
  (cd build-gpu && meson test gpu faults devices racecheck_catches_missing_barrier --print-errorlogs \
     >"$out/gpu_tests.log" 2>&1; log "gpu tests exit $?")
  grep -E "^ *[0-9]+/[0-9]+ |Synthesis" "$out/gpu_tests.log" build-gpu/meson-logs/testlog.txt | tail -8 |
    tee -a "$out/session.log"
  build-gpu/smembench --sweep cluster --quiet -o "$out/cluster.json" 2>>"$out/session.log"
  log "cluster sweep exit $?"
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 9 build-gpu/smembench --bench cluster_occupancy \
      --check --quick --quiet -o "$out/san_$tool.json" >"$out/san_$tool.log" 2>&1
    log "$tool over the GPC probe and cluster_occupancy: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_$tool.log" | tail -1))"
  done
  ;;
*)
  echo "usage: lab/units.sh runs [ROUNDS] | ab | verify" >&2
  exit 2
  ;;
esac
