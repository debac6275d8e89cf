#!/bin/bash
# One device call for the thinner contract and the recorded build (issues 37 and 35), results and
# logs under OUT: a build carrying sm_90 cubins and compute_80 PTX, the GPU suites on it (the
# framework-owned private state and teardown, the plan built once, prepare's phases), the portable
# path (a PTX-only build, CUDA_FORCE_PTX_JIT=1) with its files' kernel_code, compute-sanitizer's
# leak check over every sweep's --check run, and --sweep all for a file that records its build.
#   lab/contract_session.sh TAG     (on an offline host, first: source .devdeps/env.sh)
set -uo pipefail
tag=${1:?tag}
dest=${OUT:-contract-session}
mkdir -p "$dest/w"; dest=$(cd "$dest" && pwd); out=$dest/w   # the device tool returns 8 files: one archive
source "$(dirname "$0")/session_lib.sh"
gpu_build
# a file that records its build, and the same benchmarks with the kernels JIT-compiled from PTX
t $exe --sweep all --quiet -o "$out/nvidia-h200_20261202_all_$tag.json" >"$out/all_$tag.txt" 2>&1
t env CUDA_FORCE_PTX_JIT=1 $exe --sweep bandwidth,latency --quiet -o "$out/nvidia-h200_20261202_bandwidth-latency_jit_$tag.json" \
  >"$out/jit_$tag.txt" 2>&1
python3 - "$out"/nvidia-h200_20261202_*_"$tag".json <<'PY' | tee -a "$out/session.log"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    st = {}
    for r in d["results"]:
        st[r["status"]] = st.get(r["status"], 0) + 1
    print(f.rsplit("/", 1)[-1], d["device"].get("uuid"), "build", d["tool"].get("build"),
          "kernel_code", d["device"].get("kernel_code"), st)
PY
# leaks and bad accesses under the framework-owned private state: the sweeps of the converted
# benchmarks (their own state, the shared input/output pair, the clusters), each point once
t timeout ${CHECK_S:-120} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
  $exe --sweep ${CHECK_SWEEPS:-bandwidth,latency,reduction,uninit,carveout,cluster,swizzle} --check --quiet -o "$out/check_$tag.json" >"$out/memcheck_$tag.txt" 2>&1
tail -5 "$out/memcheck_$tag.txt" | tee -a "$out/session.log"
(cd build-gpu && t timeout ${TEST_S:-300} meson test ${TESTS:-gpu smoke faults portable_ptx force_jit} --print-errorlogs \
   >"$out/tests_$tag.txt" 2>&1
 grep -h "^ok\|^not ok\|Synthesis\|Ok:\|Fail:\|Skipped:\|Timeout:" "$out/tests_$tag.txt" | tail -12 | tee -a "$out/session.log"
 cp meson-logs/testlog.txt "$out/testlog_$tag.txt")
tar -C "$out" -czf "$dest/contract_$tag.tgz" . && cp "$out/session.log" "$dest/session_$tag.log" && rm -rf "$out"
