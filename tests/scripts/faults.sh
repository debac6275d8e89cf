#!/bin/bash
# Faults and interruption on the GPU, through the real command:
#  1. a sticky error (illegal address) at point 1 of 3: exit 1, point 0 kept, point 1 recorded as
#     failed with the CUDA error, the run marked incomplete, point 2 never run;
#  2. a recoverable error (64 KiB of dynamic shared memory without the opt-in) fails only its point;
#  3. SIGINT and SIGTERM during a sweep: exit 130 / 143, the finished points written with the run
#     marked interrupted, no temporary file left.
# Exits 77 where there is no GPU.
set -u
exe=$1
faulty=$2
if [ -n "${SMEM_SANITIZER:-}" ]; then
  echo "skipped under $SMEM_SANITIZER: nothing here runs under the sanitizer"
  exit 77
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$faulty" --bench fault --require-gpu -q -o "$d/fault.json" 2>"$d/fault.err"
rc=$?
[ $rc -eq 3 ] && { echo "skipped: no GPU"; exit 77; }
[ $rc -eq 1 ] || fail "the faulting sweep exited $rc, expected 1"
grep -q "cudaErrorIllegalAddress" "$d/fault.err" || fail "stderr does not name the error: $(cat "$d/fault.err")"
python3 - "$d/fault.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert [p["params"]["point"] for p in r] == [0, 1], f"points written: {[p['params'] for p in r]}"
assert r[0]["status"] == "ok" and r[0]["verified"], r[0]
assert r[1]["status"] == "failed" and "cudaErrorIllegalAddress" in r[1]["reason"], r[1]["reason"]
assert "cudaErrorIllegalAddress" in (d["run"]["incomplete_reason"] or ""), d["run"]
print("sticky fault: point 0 kept, point 1 failed with", r[1]["reason"][:60])
PY

"$exe" --bench dynamic --axis dyn_smem_bytes=16K,64K,32K --no-optin -q -o "$d/optin.json" 2>/dev/null
rc=$?
[ $rc -eq 1 ] || fail "the sweep with a refused launch exited $rc, expected 1"
python3 - "$d/optin.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert [p["status"] for p in r] == ["ok", "failed", "ok"], [p["status"] for p in r]
assert "cudaError" in r[1]["reason"], r[1]["reason"]
print("recoverable error: only its point failed:", r[1]["reason"][:70])
PY

for sig in INT TERM; do
  out="$d/sig$sig.json"
  "$exe" --sweep bank --min-samples 300 --max-samples 300 -q -o "$out" 2>"$d/sig.err" &
  pid=$!
  sleep 4
  kill -$sig $pid
  wait $pid
  rc=$?
  want=$([ $sig = INT ] && echo 130 || echo 143)
  [ $rc -eq $want ] || fail "SIG$sig: exit $rc, expected $want"
  ls -A "$d" | grep -q "tmp" && fail "SIG$sig left a temporary file: $(ls -A "$d")"
  python3 - "$out" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["interrupted"] is True, d["run"]
n = len(d["results"])
assert 0 < n < 99, f"{n} points"
assert all(p["status"] == "ok" for p in d["results"]), "a half-finished point was written"
print(f"interrupted: {n} finished points written")
PY
done
echo "faults: all checks passed"
