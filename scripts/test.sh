#!/bin/bash
# Sets up (scripts/setup.sh), runs every test through meson, and ends with one line
# "N passed, N failed, N skipped" (GPU tests are skipped, exit 77, where there is no GPU).
# Extra arguments go to meson test, e.g. scripts/test.sh --setup memcheck --suite gpu
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
meson test -C build --print-errorlogs "$@"
rc=$?
python3 - build/meson-logs/testlog.json <<'PY'
# Counts test cases, not executables: TAP lines for TAP tests, Criterion's synthesis for the GPU
# suite, and the result of any other test (a skipped suite counts as skipped, never as passed).
import json, re, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    out = (r.get("stdout") or "") + (r.get("stderr") or "")
    tap = [l for l in out.splitlines() if re.match(r"(not )?ok\b", l)]
    synth = re.search(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", out)
    if r["result"] == "SKIP":
        skipped += 1
    elif tap and r["result"] in ("OK", "FAIL"):
        for l in tap:
            if "# SKIP" in l:
                skipped += 1
            elif l.startswith("ok"):
                passed += 1
            else:
                failed += 1
        if r["result"] == "FAIL" and not any(l.startswith("not ok") for l in tap):
            failed += 1
    elif synth:
        passed += int(synth.group(2))
        failed += int(synth.group(3)) + int(synth.group(4))
        if r["result"] != "OK" and not (int(synth.group(3)) + int(synth.group(4))):
            failed += 1
    elif r["result"] == "OK":
        passed += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
