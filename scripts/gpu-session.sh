#!/bin/bash
# One call on a GPU machine: build for the device, run the GPU tests and the named sweeps, and
# leave result files and logs in OUT (default ./gpu-session). Usage:
#   scripts/gpu-session.sh [sweep ...]        (default: bandwidth,latency,bank carveout dynamic)
# On an offline host, first: source .devdeps/env.sh (see the README).
set -uo pipefail
out=${OUT:-gpu-session}
mkdir -p "$out"
log() { echo "== $*" | tee -a "$out/session.log"; }
log "$(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$out/session.log"
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 || { cat "$out/setup.log"; exit 1; }
fi
ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
log "build ok"
sweeps=("$@")
[ ${#sweeps[@]} -eq 0 ] && sweeps=(bandwidth,latency,bank carveout dynamic)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
day=$(date -u +%Y%m%d)
for s in "${sweeps[@]}"; do
  name="${gpu}_${day}_$(echo "$s" | tr ',' '-').json"
  log "sweep $s -> $name"
  start=$(date +%s.%N)
  echo "== $s" >>"$out/tables.txt"
  ./build-gpu/smembench --sweep "$s" -o "$out/$name" --force >>"$out/tables.txt" 2>>"$out/session.log"
  rc=$?
  end=$(date +%s.%N)
  log "sweep $s rc=$rc wall=$(awk "BEGIN{printf \"%.1f\", $end - $start}")s"
done
