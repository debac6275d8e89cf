#!/bin/bash
# One device call at the end of issue 24 and 23's work: nvbench side by side with smembench
# (tests/peers/side_by_side.sh), two timed --sweep all runs (lab/speed.sh), and Nsight
# Compute on the residency probe of an ldmatrix .x4 point (the probe measured 5 blocks per SM where
# the API, the calculator and ncu's limits on the kernel say 6). Results under OUT, tarred.
set -uo pipefail
out=${OUT:-final-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)
bash tests/peers/side_by_side.sh "$out/peers" >"$out/peers.log" 2>&1
echo "side by side: rc $? in $(( $(date +%s) - t0 )) s" | tee -a "$out/final.log"
OUT=$out bash lab/speed.sh all 2 final >>"$out/final.log" 2>&1
cat "$out/wall.txt" | tee -a "$out/final.log"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
"$ncu" --clock-control none --kernel-name regex:residency_kernel --csv --print-units base \
  --metrics launch__registers_per_thread,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__shared_mem_config_size,sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.per_cycle_active \
  build-gpu/smembench --bench swizzle_ldmatrix --axis trans=0 --axis matrices=2,4 --axis row_bytes=32 --axis layout=0 \
  --quick -q -o "$out/probe_points.json" >"$out/ncu_probe.csv" 2>"$out/ncu_probe.err"
echo "ncu probe: rc $?" | tee -a "$out/final.log"
tar -C "$out" -czf "$out/final.tar.gz" peers all probe_points.json ncu_probe.csv ncu_probe.err 2>/dev/null
