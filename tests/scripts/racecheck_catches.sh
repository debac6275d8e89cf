#!/bin/bash
# Under the racecheck setup: compute-sanitizer must report the missing barrier of the test-only racy
# reduction (tests/gpu/racy.cu). Anywhere else there is nothing to check: 77.
set -u
exe=$1
if [ "${SMEM_SANITIZER:-}" != racecheck ]; then
  echo "skipped: only meaningful under the racecheck setup"
  exit 77
fi
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "compute-sanitizer not found"; exit 1; }
out=$("$san" --tool racecheck --error-exitcode 99 "$exe" 2>&1)
rc=$?
echo "$out" | tail -20
[ $rc -eq 77 ] && exit 77
if [ $rc -eq 99 ] && echo "$out" | grep -qi "hazard"; then
  echo "racecheck reported the missing barrier"
  exit 0
fi
echo "racecheck did not report the missing barrier (exit $rc)"
exit 1
