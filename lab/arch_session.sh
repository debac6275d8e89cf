#!/bin/bash
# Issue 37's runs on one GPU unit, in one device call (results and logs under OUT): the refactored
# tree's GPU suites (the launch macros, the run's input cache, the checks' wording, the split test
# files run for real) and the new atomics benchmark in several processes, for its variation.
#   lab/arch_session.sh TAG [PROCESSES]     (on an offline host, first: source .devdeps/env.sh)
set -uo pipefail
tag=${1:?tag}; procs=${2:-3}
dest=${OUT:-arch-session}
mkdir -p "$dest/w/atomics"; dest=$(cd "$dest" && pwd); out=$dest/w   # the device tool returns 8 files: one archive
source "$(dirname "$0")/session_lib.sh"
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$out/session.log"
if [ ! -f build-gpu/build.ninja ]; then
  meson setup build-gpu -Dbuildtype=release -Dgpu_arch=90 >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
fi
t ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
exe=$PWD/build-gpu/smembench
log "built $($exe --version)"
for p in $(seq 1 "$procs"); do
  t $exe --bench atomics --trials 3 --quiet -o "$out/atomics/nvidia-h200_20261202_atomics_${tag}_p$p.json" \
    >"$out/atomics_${tag}_p$p.txt" 2>&1
  tail -3 "$out/atomics_${tag}_p$p.txt" | tee -a "$out/session.log"
done
cat "$out/atomics_${tag}_p1.txt" >>"$out/session.log"
(cd build-gpu && t timeout ${TEST_S:-420} meson test ${TESTS:-gpu smoke faults} --print-errorlogs >"$out/tests_$tag.txt" 2>&1
 grep -h "^ok\|^not ok\|^# SKIP\|Ok:\|Fail:\|Skipped:" "$out/tests_$tag.txt" | tail -8 | tee -a "$out/session.log"
 cp meson-logs/testlog.txt "$out/testlog_$tag.txt")
tar -C "$out" -czf "$dest/arch_$tag.tgz" . && cp "$out/session.log" "$dest/session_$tag.log" && rm -rf "$out"
