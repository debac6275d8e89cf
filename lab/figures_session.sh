#!/bin/bash
# One device call for issue 35's figures: a build of the tree (sm_90 cubins, compute_80 PTX), the GPU
# suite on it (the recorded unified L1 + shared size among what it checks through the driver), then
# result files for the figures: --sweep all once and --sweep carveout in RUNS separate processes (so
# several runs of one unit aggregate), each file's device.published.unified_l1_smem_bytes and uuid
# printed; results and logs under OUT as one archive.
#   lab/figures_session.sh TAG [RUNS]     (on an offline host, first: source .devdeps/env.sh)
set -uo pipefail
tag=${1:?tag}
runs=${2:-3}
dest=${OUT:-figures-session}
mkdir -p "$dest/w"; dest=$(cd "$dest" && pwd); out=$dest/w   # the device tool returns 8 files: one archive
source "$(dirname "$0")/session_lib.sh"
gpu_build
day=$(date -u +%Y%m%d)
t $exe --sweep all --quiet -o "$out/nvidia-h200_${day}_all_$tag.json" >"$out/all_$tag.txt" 2>&1
for i in $(seq 1 "$runs"); do
  t $exe --sweep carveout --quiet -o "$out/nvidia-h200_${day}_carveout_${tag}_p$i.json" >"$out/carveout_${tag}_p$i.txt" 2>&1
done
python3 - "$out"/nvidia-h200_"$day"_*_"$tag"*.json <<'PY' | tee -a "$out/session.log"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    st = {}
    for r in d["results"]:
        st[r["status"]] = st.get(r["status"], 0) + 1
    u = (d["device"].get("published") or {}).get("unified_l1_smem_bytes")
    print(f.rsplit("/", 1)[-1], d["device"].get("uuid"), "unified", u and u.get("value"), st)
PY
(cd build-gpu && t timeout ${TEST_S:-300} meson test ${TESTS:-gpu} --print-errorlogs >"$out/tests_$tag.txt" 2>&1
 grep -h "Synthesis\|^Ok:\|^Fail:\|^Skipped:\|^Timeout:" "$out/tests_$tag.txt" | tail -8 | tee -a "$out/session.log"
 cp meson-logs/testlog.txt "$out/testlog_$tag.txt")
tar -C "$out" -czf "$dest/figures_$tag.tgz" . && cp "$out/session.log" "$dest/session_$tag.log" && rm -rf "$out"
