#!/bin/bash
# Every benchmark once, on the GPU: smembench --sweep all --quick must finish with every point ok
# or skipped, and at least one point ok (a run where every point is skipped checked nothing and
# fails). Exits 77 where there is no GPU. Under the sanitizer setups (SMEM_SANITIZER=memcheck,
# racecheck, synccheck or initcheck) the run goes through compute-sanitizer with --check: every
# kernel launched and verified once, nothing timed, and any report fails the test.
set -u
exe=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cmd=("$exe" --sweep all --quick --require-gpu --quiet -o "$out/r.json")
if [ -n "${SMEM_SANITIZER:-}" ]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  [ -x "$san" ] || { echo "compute-sanitizer not found"; exit 1; }
  # small problem sizes: a sanitizer instruments every access
  cmd=("$san" --tool "$SMEM_SANITIZER" --error-exitcode 99 --print-limit 20 "${cmd[@]}" --check
       --axis n=128 --axis mib=1)
fi
"${cmd[@]}"
rc=$?
if [ $rc -eq 3 ]; then
  echo "smoke: skipped, no GPU"
  exit 77
fi
[ $rc -eq 0 ] || { echo "smoke: smembench exited $rc"; exit 1; }
python3 - "$out/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for r in d["results"] if r["status"] not in ("ok", "skipped")]
ran = sum(r["status"] == "ok" for r in d["results"])
for r in bad:
    print("not ok:", r["bench"], r["params"], r["status"], r["reason"])
print(f"{len(d['results'])} points, {ran} ran, {len(bad)} not ok")
if not ran:
    # a run where every point was skipped (or there were none) checked nothing
    print("smoke: no point ran (every point skipped, or none): nothing was checked")
sys.exit(1 if bad or not ran else 0)
PY
