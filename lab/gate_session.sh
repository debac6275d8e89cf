#!/bin/bash
# The gate issue's runs on one GPU unit, in one device call (results and logs under OUT):
#   lab/gate_session.sh TAG STEPS...    STEPS from: tests all quick swizzle ab slow ncu carry bisect peers
#   tests    the Criterion GPU suite
#   all      two `--sweep all` processes (trials on), each timed: all_TAG_r{1,2}.json
#   quick    one `--sweep all --quick` process, timed
#   swizzle  the swizzle x4 points with 9 trials a point, twice: the levels a fresh setup lands on
#   ab       the same binary A/B'd: `--sweep all --quick` in 4 ABBA rounds, each a process
#   slow     a -Dtest_slowdown_pct=3 build, A/B'd against the release one in 4 ABBA rounds
#   ncu      tests/scripts/ncu_check.py, and the carveout sweep's configuration under ncu with the
#            check's metrics and with the configuration alone (which of the two is right)
#   carry    gather at 60 % alone and after a point that needed more and less (time and ncu's config)
#   bisect   lab/bisect_session.sh: ab.py --bisect over 8 scratch commits, the slowdown in the fifth
#   peers    tests/peers/side_by_side.sh: smembench beside nvbench (carry tests/peers/nvbench-src, .deps)
# The result files go into one tarball (the device tool brings back 8 files at most). Judge the A/B
# rounds here with `ab.py --files` (ab.py ran them there and wrote their manifest). On an offline host,
# first: source .devdeps/env.sh.
set -uo pipefail
tag=${1:?tag}; shift
out=${OUT:-gate-session}
mkdir -p "$out"; out=$(cd "$out" && pwd)
res=$(mktemp -d)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; log "rc $rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}") s: $*"; return $rc; }
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
build() {   # build DIR [meson options]
  local d=$1; shift
  [ -f "$d/build.ninja" ] || meson setup "$d" -Dbuildtype=release -Dgpu_arch=90 "$@" >"$out/setup_$d.log" 2>&1 ||
    { tail -30 "$out/setup_$d.log"; return 1; }
  ninja -C "$d" >"$out/build_$d.log" 2>&1 || { tail -30 "$out/build_$d.log"; return 1; }
}
t build build-gpu || exit 1
exe=build-gpu/smembench
log "built $($exe --version)"
abba() {   # abba BASE_EXE HEAD_EXE DIR ARGS...: ab.py's 4 ABBA rounds, each build a process, with the
  # manifest --files needs (a host without SciPy ends with exit 2 after the rounds: judge them at home)
  local b=$1 h=$2 d=$3; shift 3
  "${PYTHON:-python3}" scripts/ab.py "$b" "$h" -o "$d" --rounds 4 -- "$@" >"$d.txt" 2>&1
  local rc=$?; tail -1 "$d.txt" | tee -a "$out/session.log"; return $rc
}
for step in "$@"; do
  case $step in
  tests) (cd build-gpu && t meson test --suite gpu --print-errorlogs >/dev/null 2>&1
          grep -h "Synthesis\|FAIL" meson-logs/testlog.txt | tee -a "$out/session.log"
          cp meson-logs/testlog.txt "$res/gpu_testlog_$tag.txt") ;;
  all) for r in 1 2; do t $exe --sweep all --quiet -o "$res/all_${tag}_r$r.json"; done ;;
  quick) t $exe --sweep all --quick --quiet -o "$res/quick_${tag}.json" ;;
  swizzle) for r in 1 2; do for b in swizzle_ldmatrix swizzle_stmatrix; do
             t $exe --bench $b --axis matrices=4 --axis layout=0,1,128 --axis row_bytes=64,128 --trials 9 \
               --quiet -o "$res/swz_${b#swizzle_}_${tag}_r$r.json"; done; done ;;
  ab) t abba $exe $exe "$res/ab_same_$tag" --sweep all --quick ;;
  slow) t build build-slow -Dtest_slowdown_pct=3 -Dtests=disabled &&
        t abba $exe build-slow/smembench "$res/ab_slow_$tag" --sweep all --quick ;;
  ncu) t python3 tests/scripts/ncu_check.py $exe --keep "$res/ncu_$tag" >"$out/ncu_check_$tag.txt" 2>&1
       tail -3 "$out/ncu_check_$tag.txt" | tee -a "$out/session.log"
       # the carveout sweep's configurations: the check's metrics (several replay passes) against the
       # configuration alone (one pass), launch by launch
       ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
       $ncu --clock-control none --csv --print-units base --metrics launch__grid_size,launch__shared_mem_config_size \
         $exe --sweep carveout --check -q -o "$res/cfg_one_$tag.json" >"$res/ncu_cfg_one_$tag.csv" 2>&1
       $ncu --clock-control none --csv --print-units base \
         --metrics launch__grid_size,launch__shared_mem_config_size,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,launch__occupancy_limit_shared_mem \
         $exe --sweep carveout --check -q -o "$res/cfg_many_$tag.json" >"$res/ncu_cfg_many_$tag.csv" 2>&1
       log "ncu carveout experiment done" ;;
  carry) # does a carveout hint's configuration depend on the kernel before it? gather at 60 %
         # alone, after itself at 100 % (a kernel that needed more), and after 0 % (less); one
         # trial, so the points run in plan order: the time and the configuration ncu reads
         ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
         for axis in 60 100,60 0,60 60,100,60; do
           $exe --bench gather --axis carveout_pct=$axis --trials 1 --quiet -o "$res/carry_${tag}_${axis//,/-}.json"
           $ncu --clock-control none --csv --print-units base --metrics launch__shared_mem_config_size \
             $exe --bench gather --axis carveout_pct=$axis --check -q -o "$res/carry_chk_${tag}_${axis//,/-}.json" \
             >"$res/carry_ncu_${tag}_${axis//,/-}.csv" 2>&1
         done
         log "carry-over experiment done" ;;
  bisect) t bash lab/bisect_session.sh "$res/bisect_$tag" ;;
  peers) t bash tests/peers/side_by_side.sh "$res/peers_$tag"
         tail -30 "$res/peers_$tag/side_by_side.md" | tee -a "$out/session.log" ;;
  esac
  tar -C "$res" -czf "$out/results_$tag.tgz" .   # after every step: a call cut short keeps what ran
done
ls -la "$out"
