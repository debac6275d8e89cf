#!/bin/bash
# The tile sweep at the state of the art on the GPU host (issue 22), for the device tool's 10-minute
# calls. Results and logs under OUT (default ./tile-session).
#   lab/tile.sh tune [TAG]   build (release, sm_90); the sgemm tests; the sgemm kernels over
#                            every built shape, depths 16-64, 2-4 stages and both A load
#                            widths at n = 2048 and 4096 beside cuBLAS (tune_*.json,
#                            tune_TAG.txt: one line a point, best first); ncu's sections
#                            (stalls, issue, occupancy) of three of them and of cuBLAS
#   lab/tile.sh sweep [TAG]  the default `--sweep tile` (tile_TAG.json), its table
#   lab/tile.sh check        `--sweep tile --check` at n = 1024 under compute-sanitizer
#                            memcheck and racecheck
#   lab/tile.sh final [TAG]  the default tile sweep, the GPU tests of its kernels, memcheck
#                            and racecheck at n = 256, ncu's wavefronts of the sgemm loads
#                            and ncu_check.py of the tile sweep; all in tile_TAG.tgz
# On an offline host, first: source .devdeps/env.sh; on a copy of the tree whose .git is not the
# commit built, export SMEM_GIT_REV=<commit> (read when meson configures).
set -uo pipefail
out=${OUT:-tile-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
build() {
  [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 ||
    { tail -30 "$out/setup.log"; return 1; }
  ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; return 1; }
}
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
build || exit 1
log "built $(build-gpu/smembench --version)"
table() { python3 "$here/tile_table.py" "$@"; }
# tune and final pack everything so far into PACK (default OUT/../tile_TAG.tgz) after each step: a call
# cut short still brings back what it did
tag=${2:-${1:-}}
pack=${PACK:-$out/../tile_$tag.tgz}
packit() { tar -C "$out" -czf "$pack.tmp" . && mv "$pack.tmp" "$pack"; }
case "${1:-}" in
tune)
  # the sgemm kernels over shapes, depths (bk 64 too), stages and A load widths at n = 2048 and 4096
  # beside cuBLAS; Nsight Compute's sections on the two A widths and cuBLAS; all packed into PACK
  # (default OUT/../tile_TAG.tgz) after each step
  log "sgemm GPU tests"
  timeout 90 build-gpu/tests/test_gpu --filter 'sgemm/*' >"$out/test_sgemm.txt" 2>&1; echo "rc $?" >>"$out/test_sgemm.txt"
  tail -3 "$out/test_sgemm.txt"
  log "tune"
  for shape in "bm=128,256 -a bn=128" "bm=128 -a bn=256"; do
    # shellcheck disable=SC2086
    timeout 120 build-gpu/smembench --bench sgemm_tma -a n=2048,4096 -a $shape -a bk=16,32,64 -a stages=2,3,4 \
      -a a_width_bytes=8,16 --quiet -o "$out/tune_tma_${shape%% *}_${shape##*=}.json" 2>>"$out/tune.log"
    # shellcheck disable=SC2086
    timeout 60 build-gpu/smembench --bench sgemm_cp_async -a n=2048,4096 -a $shape -a bk=32,64 -a stages=2,3 \
      -a a_width_bytes=8 --quiet -o "$out/tune_cp_${shape%% *}_${shape##*=}.json" 2>>"$out/tune.log"
  done
  timeout 30 build-gpu/smembench --bench cublas -a n=2048,4096 --quiet -o "$out/tune_cublas.json" 2>>"$out/tune.log"
  table "$out"/tune_*.json >"$out/tune_${tag}.txt"; head -40 "$out/tune_${tag}.txt"
  packit
  log "ncu sections"
  sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
            --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
  for pt in "sgemm_tma -a bk=32 -a stages=2 -a a_width_bytes=8" "sgemm_tma -a bk=32 -a stages=2 -a a_width_bytes=16" \
            "sgemm_tma -a bm=256 -a bk=64 -a stages=2 -a a_width_bytes=16" "cublas"; do
    name=$(echo "$pt" | tr -d ' =-' | tr -c 'a-z0-9_\n' _)
    # shellcheck disable=SC2086
    timeout 60 ncu -k regex:gemm "${sections[@]}" build-gpu/smembench --bench $pt -a n=4096 --check --quiet \
      -o "$out/ncu_$name.json" >"$out/ncu_$name.txt" 2>&1
    echo "ncu $pt rc $?" | tee -a "$out/session.log"
    grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Stall|Executed Ipc A|Block Limit|Shared Memory Configuration Size" \
      "$out/ncu_$name.txt" | head -16
    packit
  done
  log "done"
  packit
  ;;
sweep)
  build-gpu/smembench --sweep tile --quiet -o "$out/tile_$tag.json" 2>>"$out/sweep.log"
  echo "rc $?"
  table "$out/tile_$tag.json" | tee "$out/tile_$tag.txt" | head -30
  ;;
check)
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/smembench --sweep tile -a n=1024 -a mib=16 --check \
      --quiet -o "$out/check_$tool.json" >"$out/check_$tool.log" 2>&1
    echo "$tool rc $?" | tee -a "$out/session.log"
    tail -3 "$out/check_$tool.log"
  done
  ;;
final)
  # everything issue 22 shows, in one call, most important first; after each step everything so far
  # is packed into PACK (default OUT/../tile_TAG.tgz): a call cut short still brings back what it did
  log "tile sweep"
  timeout 120 build-gpu/smembench --sweep tile -o "$out/tile_$tag.json" >"$out/tile_$tag.table" 2>>"$out/sweep.log"
  echo "tile sweep rc $?" | tee -a "$out/session.log"
  table "$out/tile_$tag.json" >"$out/tile_$tag.txt"; head -12 "$out/tile_$tag.txt"; grep "^best" "$out/tile_$tag.table"
  packit
  log "GPU tests"
  timeout 90 build-gpu/tests/test_gpu --filter 'sgemm/*' >"$out/test_sgemm.txt" 2>&1; echo "sgemm tests rc $?" | tee -a "$out/session.log"
  timeout 90 build-gpu/tests/test_gpu --filter 'scratchpad/*' >"$out/test_scratchpad.txt" 2>&1
  echo "scratchpad tests rc $?" | tee -a "$out/session.log"
  tail -n 1 "$out/test_sgemm.txt" "$out/test_scratchpad.txt"
  packit
  log "ncu sgemm"
  timeout 60 ncu --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,launch__registers_per_thread \
    --csv build-gpu/smembench --bench sgemm_tma -a n=1024 -a bk=8,32 -a stages=2 -a a_width_bytes=8,16 --check --quiet \
    -o "$out/ncu_points.json" >"$out/ncu_sgemm.csv" 2>"$out/ncu.log"
  timeout 60 ncu --metrics smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,launch__registers_per_thread \
    --csv build-gpu/smembench --bench sgemm_cp_async -a n=1024 -a bk=8,32 -a stages=2 --check --quiet \
    -o "$out/ncu_points_cp.json" >>"$out/ncu_sgemm.csv" 2>>"$out/ncu.log"
  grep -E "sgemm_kernel" "$out/ncu_sgemm.csv" | grep -E "wavefronts|inst_executed" | awk -F'","' '{print $5, $(NF-2), $NF}' | cut -c1-160
  packit
  log "transpose geometry"
  TUNE_STEPS=geometry timeout 150 bash "$here/transpose_tune.sh" build-gpu/smembench "$out/transpose" >"$out/transpose.log" 2>&1
  echo "transpose_tune rc $?" | tee -a "$out/session.log"; tail -14 "$out/transpose/summary.txt" 2>/dev/null
  packit
  for tool in memcheck racecheck; do
    log "$tool"
    # every sgemm kernel (the three tile shapes, four depths, both A widths), every transpose layout
    # and geometry, blocks of 1, 2 and 4 tiles and the pipelined kernel, and the tile copy at 4, 8 and
    # 16 KiB a block; at 1 MiB the pipelined blocks get a tile or two, so its slot reuse is checked at
    # 64 MiB (about 8 tiles a block) on the default edge
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/smembench --sweep tile -a n=256 \
      -a bm=128,256 -a bn=128,256 -a bk=8,32,64 -a stages=2,3 -a a_width_bytes=8,16 -a mib=1 -a layout=0,1,2 \
      -a edge_elems=32,64 -a width_bytes=4,8,16 -a depth_tiles=1,2,4 -a block_tiles=1,2,4 -a resident_blocks=0 \
      -a block_kib=4,8,16 --check --quiet -o "$out/check_$tool.json" \
      >"$out/check_$tool.log" 2>&1
    echo "$tool rc $?" | tee -a "$out/session.log"; tail -2 "$out/check_$tool.log"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/smembench --bench transpose -a mib=64 \
      -a layout=0,1,2 -a edge_elems=64 -a width_bytes=16 -a depth_tiles=2,3,4 -a block_tiles=1 -a resident_blocks=0 --check --quiet \
      -o "$out/check_${tool}_reuse.json" >"$out/check_${tool}_reuse.log" 2>&1
    echo "$tool (slot reuse, 64 MiB) rc $?" | tee -a "$out/session.log"; tail -2 "$out/check_${tool}_reuse.log"
    # blocks of 2 and 4 tiles at 64 MiB: each block's tile after the first reuses the tile's words
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/smembench --bench transpose -a mib=64 \
      -a layout=0,1,2 -a edge_elems=32,64 -a width_bytes=8,16 -a depth_tiles=1 -a block_tiles=2,4 -a resident_blocks=0,3 --check --quiet \
      -o "$out/check_${tool}_tiles.json" >"$out/check_${tool}_tiles.log" 2>&1
    echo "$tool (blocks of 2 and 4 tiles, 64 MiB) rc $?" | tee -a "$out/session.log"; tail -2 "$out/check_${tool}_tiles.log"
    packit
  done
  log "ncu check of the tile sweep"
  timeout 100 python3 "$here/../tests/scripts/ncu_check.py" build-gpu/smembench --sweep tile --axis mib=16 --axis n=256 \
    >"$out/ncu_check_tile.txt" 2>&1
  echo "ncu_check rc $?" | tee -a "$out/session.log"; tail -4 "$out/ncu_check_tile.txt"
  log "done"
  packit
  ;;
*) echo "usage: tile.sh tune|sweep|check|final [TAG]" >&2; exit 2 ;;
esac
