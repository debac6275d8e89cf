#!/bin/bash
# Where `--sweep all` spends its time on the GPU host (issue 24), for the device tool's 10-minute
# calls. Results and logs under OUT (default ./speed-session), the result files in one tarball (the
# tool brings back at most 8 files).
#   lab/speed.sh all [RUNS] [TAG]   build (release, sm_90), then RUNS (2) `--sweep all` runs,
#                                   each timed with date and with the file's run.timing:
#                                   all_TAG_rN.json, wall.txt
#   lab/speed.sh tests              the GPU tests of the inputs drawn on the GPU and kept
#                                   across points, and of the phase timing
#   lab/speed.sh day                the files of one day the figures and report are tried on
#                                   (issue 25): a --quick run, a footprint run with extra
#                                   tile_bytes, cluster sizes 3/5/12, staging_bulk alone
# On an offline host, first: source .devdeps/env.sh; on a copy of the tree whose .git is not the
# commit built, export SMEM_GIT_REV=<commit> (read when meson configures).
set -uo pipefail
out=${OUT:-speed-session}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
build() {
  [ -f build-gpu/build.ninja ] || meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 ||
    { tail -30 "$out/setup.log"; return 1; }
  ninja -C build-gpu smembench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; return 1; }
}
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
build || exit 1
log "built $(build-gpu/smembench --version)"
case "${1:-}" in
all)
  runs=${2:-2}
  tag=${3:-run}
  mkdir -p "$out/all"
  for r in $(seq 1 "$runs"); do
    t0=$(date +%s.%N)
    build-gpu/smembench --sweep all --quiet -o "$out/all/all_${tag}_r$r.json" 2>>"$out/all.log"
    rc=$?
    t1=$(date +%s.%N)
    echo "all_${tag}_r$r rc $rc wall $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s" | tee -a "$out/wall.txt"
  done
  tar -C "$out/all" -czf "$out/all_$tag.tar.gz" .
  ;;
tests)
  ninja -C build-gpu tests/test_gpu >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  for f in 'inputs/*' 'measure/*' 'scratchpad/*' 'physics/*'; do
    build-gpu/tests/test_gpu --filter "$f" 2>&1 | tail -3 | tee -a "$out/tests.log"
  done
  ;;
day)
  d=$out/day
  mkdir -p "$d"
  s=build-gpu/smembench
  $s --sweep all --quick --quiet -o "$d/quick.json" 2>>"$out/day.log"
  $s --bench footprint --axis tile_bytes=8192,49152,100000 --quiet -o "$d/footprint_tile_bytes.json" 2>>"$out/day.log"
  $s --sweep cluster --axis cluster_size=3,5,12 --quiet -o "$d/cluster_3_5_12.json" 2>>"$out/day.log"
  $s --bench staging_bulk --quiet -o "$d/staging_bulk.json" 2>>"$out/day.log"
  $s --sweep carveout --axis carveout_pct=0,25,50,100 --quiet -o "$d/carveout_4.json" 2>>"$out/day.log"
  log "day: $(ls "$d" | tr '\n' ' ')"
  tar -C "$d" -czf "$out/day.tar.gz" .
  ;;
*)
  echo "usage: speed.sh all [RUNS] [TAG] | tests | day" >&2
  exit 2
  ;;
esac
