# Sourced by the lab's device-session scripts: log (a timestamped line into $out/session.log and
# stdout), t (runs a command, logs its exit status and seconds, returns its status) and gpu_build.
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; log "rc $rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}") s: $*"; return $rc; }
# gpu_build [ARCHS]: the unit's identity into the session log, then build-gpu (release, ARCHS, default
# sm_90 cubins and compute_80 PTX) configured once and built; exe is its smembench. Ends the script
# with the build's last lines where it fails.
gpu_build() {
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw \
    --format=csv 2>&1 | tee -a "$out/session.log"
  if [ ! -f build-gpu/build.ninja ]; then
    meson setup build-gpu -Dbuildtype=release -Dgpu_arch="${1:-90,compute_80}" >"$out/setup.log" 2>&1 ||
      { tail -30 "$out/setup.log"; exit 1; }
  fi
  t ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
  exe=$PWD/build-gpu/smembench
  log "built $($exe --version)"
}
