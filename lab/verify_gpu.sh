#!/bin/bash
# The last device call of issues 23 and 24: Nsight Compute's own duration of the bandwidth kernels
# (which of smembench's single-launch samples and nvbench's back-to-back batches is the kernel's
# time), the ncu cross-check of the swizzle sweep, and the GPU test program. Results under OUT.
set -uo pipefail
out=${OUT:-verify-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/verify.log"; }
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1
ninja -C build-gpu smembench tests/test_gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
log "built $(build-gpu/smembench --version)"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
timeout 120 "$ncu" --clock-control none --csv --print-units base --kernel-name regex:load \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,launch__grid_size,launch__block_size \
  build-gpu/smembench --bench bandwidth --check -q -o /dev/null >"$out/ncu_bandwidth.csv" 2>"$out/ncu_bandwidth.err"
log "ncu bandwidth: rc $?"
timeout 300 /usr/bin/python3 tests/scripts/ncu_check.py build-gpu/smembench --sweep swizzle --ncu "$ncu" \
  >"$out/ncu_check_swizzle.txt" 2>"$out/ncu_check_swizzle.err"
log "ncu_check swizzle: rc $? ($(tail -1 "$out/ncu_check_swizzle.txt"))"
timeout 300 build-gpu/tests/test_gpu >"$out/test_gpu.txt" 2>&1
log "test_gpu: rc $? ($(grep Synthesis "$out/test_gpu.txt" | tail -1))"
