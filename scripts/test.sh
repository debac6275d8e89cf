#!/bin/bash
# Every test, in three builds, ending with one line "N passed, N failed, N skipped":
#   build/       the release build: unit tests, the command-line error table, the result-file tools, the docs,
#                and the GPU suite (skipped, exit 77, where there is no GPU)
#   build-asan/  the host code alone (no CUDA, no NVML code) under AddressSanitizer and
#                UndefinedBehaviorSanitizer
#   build-fuzz/  clang and libFuzzer: the parser, reader and script command-line fuzzers, corpus
#                first, then a bounded run
# Sets everything up first (scripts/setup.sh --dev). Extra arguments go to the release build's
# meson test, e.g. scripts/test.sh --setup memcheck --suite gpu (then only that build runs).
# FUZZ_SECONDS (default 60) bounds each fuzzer.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --dev || exit 1
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
logs=()
rc=0
meson test -C build --print-errorlogs "$@" || rc=1
logs+=(build/meson-logs/testlog.json)
if [ $# -eq 0 ]; then
  echo "== host code under AddressSanitizer and UndefinedBehaviorSanitizer" >&2
  [ -f build-asan/build.ninja ] ||
    meson setup build-asan -Dcuda=disabled -Dnvml=disabled -Db_sanitize=address,undefined -Db_lundef=false \
      -Dbuildtype=debugoptimized >&2 || exit 1
  ninja -C build-asan >&2 || exit 1
  meson test -C build-asan --print-errorlogs || rc=1
  logs+=(build-asan/meson-logs/testlog.json)
  echo "== fuzzers (clang, libFuzzer)" >&2
  [ -f build-fuzz/build.ninja ] ||
    CC=clang meson setup build-fuzz -Dcuda=disabled -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
      -Dbuildtype=debugoptimized >&2 || exit 1
  meson configure build-fuzz -Dfuzz_seconds="${FUZZ_SECONDS:-60}" >&2
  ninja -C build-fuzz >&2 || exit 1
  meson test -C build-fuzz --print-errorlogs --suite smembench fuzz_cli fuzz_reader fuzz_scripts || rc=1
  logs+=(build-fuzz/meson-logs/testlog.json)
fi
python3 - "${logs[@]}" <<'PY'
# Counts test cases, not executables: TAP lines for TAP tests, Criterion's synthesis for the GPU
# suite, and the result of any other test (a skipped test counts as skipped, never as passed).
import json, re, sys
passed = failed = skipped = 0
for path in sys.argv[1:]:
    for line in open(path):
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
