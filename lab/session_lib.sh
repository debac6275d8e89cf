# Sourced by the lab's device-session scripts: log (a timestamped line into $out/session.log and
# stdout) and t (runs a command, logs its exit status and seconds, returns its status).
log() { echo "== $(date -u +%T) $*" | tee -a "$out/session.log"; }
t() { local s=$(date +%s.%N); "$@"; local rc=$?; log "rc $rc in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $s}") s: $*"; return $rc; }
