#!/bin/bash
# The swizzle sweep's H200 checks in one go (one device call): the GPU tests, the sweep itself, the
# ncu cross-check of the bank model on its ldmatrix/stmatrix points, memcheck and racecheck of a
# bounded sweep, and a compute_80 PTX-only build run on the same GPU. Every step has a time limit so
# the whole fits one call; logs go to OUT/logs.tgz, result files to OUT.
#   results/swizzle/run.sh BUILD_DIR OUT [SECONDS]
# SECONDS (default 600) bounds the whole: each step gets at most what is left of it, less 15 s for
# the tarball.
set -u
b=$1 out=$2 end=$(( $(date +%s) + ${3:-600} - 15 )) day=$(date -u +%Y%m%d)
logs=$out/logs
mkdir -p "$logs"
step() {   # step NAME SECONDS CMD...: runs CMD with a time limit, its output in logs/NAME.log
  local name=$1 limit=$2 left=$(( end - $(date +%s) ))
  shift 2
  local t0=$(date +%s)
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then echo "$name: not run, out of time" | tee -a "$logs/steps.txt"; return; fi
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - t0 )) s" | tee -a "$logs/steps.txt"
}
# the portable build on the side, while the GPU works
( meson setup b80 -Dbuildtype=release -Dgpu_arch=compute_80 >"$logs/b80_setup.log" 2>&1 &&
  nice ninja -C b80 smembench >"$logs/b80_build.log" 2>&1; echo $? >"$logs/b80_rc" ) &
nvidia-smi >"$logs/nvidia-smi.txt" 2>&1
step ncu_metrics 60 bash -c "ncu --query-metrics | grep -E 'ldsm|stsm|wavefronts_mem_shared_op'"
json=$out/nvidia-h200_${day}_swizzle.json
step sweep 150 "$b/smembench" --sweep swizzle -o "$json"
step ncu_check 150 python3 tests/scripts/ncu_check.py "$b/smembench" --sweep swizzle --timed "$json" --keep "$logs/ncu"
step gpu_tests 60 "$b/tests/test_gpu" --verbose --filter 'swizzle/*'
# bounded: --check is one launch per point, the quick axes, 4 MiB of TMA copies
bounded=(--sweep swizzle --check --quick --axis mib=4)
step memcheck 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$b/smembench" "${bounded[@]}" \
  -o "$logs/memcheck.json"
step racecheck 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$b/smembench" "${bounded[@]}" \
  -o "$logs/racecheck.json"
wait
if [ "$(cat "$logs/b80_rc" 2>/dev/null)" = 0 ]; then
  step ptx80 40 ./b80/smembench --sweep swizzle --quick --axis mib=64 -o "$out/nvidia-h200_${day}_swizzle_ptx80.json"
else
  echo "ptx80: the compute_80 build failed" | tee -a "$logs/steps.txt"
fi
tar -C "$out" -czf "$out/logs.tgz" logs && rm -rf "$logs"
