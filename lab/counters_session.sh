#!/bin/bash
# Device calls for issues 48 and 50: hardware counters per point (--counters) and the trials' fix.
#   lab/counters_session.sh TAG STEPS...     (on an offline host, first: source .devdeps/env.sh)
# STEPS, in the order given:
#   tests     the GPU suite's measure/* and cluster tests (the trials keep what verification found)
#             and tests/scripts/test_counters_gpu.py (bank model against the counters, an unknown
#             metric, no permission through a stand-in libcupti, no libcupti)
#   trials    --sweep uninit,cluster with the default three trials: stale_pct and clusters_measured
#   counters  --sweep carveout,dynamic --counters and --sweep bank,swizzle --counters
#   cost      --sweep carveout with and without --counters, twice each: wall time of the run
#   ncu       the same four sweeps under ncu on the same launches (SMEM_COUNTERS_EXTERNAL=1), then
#             lab/counters_ncu.py against the counters step's files
#   all       --sweep all --counters, whole, and --sweep all without (the gate's fresh file)
#   all2      --sweep all in two processes (the gate's fresh files)
#   public    .ext/public48/run.sh: a public layernorm kernel and row_softmax, carveout with counters
#   planted   a second build with -Dtest_bank_conflict=true (the bank kernel takes one more wavefront
#             per request): --bench bank --counters on it and on the real build
#   suite     the whole Criterion GPU suite (build-gpu/tests/test_gpu)
# Results and logs go under OUT as one archive (the device tool returns 8 files).
set -uo pipefail
tag=${1:?tag}
shift
dest=${OUT:-counters-session}
mkdir -p "$dest/w"; dest=$(cd "$dest" && pwd); out=$dest/w
source "$(dirname "$0")/session_lib.sh"
gpu_build 90
day=$(date -u +%Y%m%d)
f() { echo "$out/nvidia-h200_${day}_$1_$tag.json"; }
summary() {   # status counts, wall time and the counters' status of result files
  python3 - "$@" <<'PY' | tee -a "$out/session.log"
import json, sys
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
    except Exception as e:
        print(p.rsplit("/", 1)[-1], "unreadable:", e); continue
    st = {}
    for r in d["results"]:
        st[r["status"]] = st.get(r["status"], 0) + 1
    c = d["run"].get("counters") or {}
    t = d["run"].get("timing") or {}
    print(p.rsplit("/", 1)[-1], d["device"].get("uuid"), st, "wall_s", t.get("wall_s"),
          "counters", c.get("status"), c.get("passes"), c.get("wall_s"), c.get("reason") or "", c.get("skipped") or "")
PY
}
for step in "$@"; do
  log "step $step"
  case $step in
    tests)
      t timeout 300 build-gpu/tests/test_gpu --filter 'measure/*' >"$out/test_measure.txt" 2>&1
      grep -h "Synthesis\|FAIL\|fail" "$out/test_measure.txt" | tail -6 | tee -a "$out/session.log"
      t timeout 300 build-gpu/tests/test_gpu --filter 'hopper/cluster_occupancy*' >"$out/test_hopper.txt" 2>&1
      grep -h "Synthesis" "$out/test_hopper.txt" | tee -a "$out/session.log"
      t timeout 400 python3 tests/scripts/test_counters_gpu.py "$exe" build-gpu/tests/libfake_cupti.so "$out/counters_test" \
        >"$out/test_counters.txt" 2>&1
      grep -h "^not ok\|^1\.\." "$out/test_counters.txt" | tee -a "$out/session.log"
      ;;
    trials)
      t $exe --sweep uninit,cluster --quiet -o "$(f uninit-cluster)" >"$out/trials.txt" 2>&1
      summary "$(f uninit-cluster)"
      python3 - "$(f uninit-cluster)" <<'PY' | tee -a "$out/session.log"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    m = r.get("metrics") or {}
    if r["bench"] == "uninit":
        print("uninit", r["params"], r["status"], "stale_pct", m.get("stale_pct", {}).get("value"))
    if r["bench"] == "cluster_occupancy" and r["status"] == "ok":
        print("cluster_occupancy", r["params"], "api", m["clusters_api"]["value"], "measured", m["clusters_measured"]["value"])
PY
      ;;
    counters)
      t $exe --sweep carveout,dynamic --counters -o "$(f carveout-dynamic_counters)" >"$out/cd_counters.txt" 2>&1
      t $exe --sweep bank,swizzle --counters -o "$(f bank-swizzle_counters)" >"$out/bs_counters.txt" 2>&1
      summary "$(f carveout-dynamic_counters)" "$(f bank-swizzle_counters)"
      ;;
    cost)
      for i in 1 2; do
        t $exe --sweep carveout --quiet -o "$(f carveout_plain$i)" >/dev/null 2>&1
        t $exe --sweep carveout --quiet --counters -o "$(f carveout_counters$i)" >/dev/null 2>&1
      done
      summary "$(f carveout_plain1)" "$(f carveout_counters1)" "$(f carveout_plain2)" "$(f carveout_counters2)"
      ;;
    ncu)
      metrics=$(python3 -c "import json,subprocess,sys; d=json.loads(subprocess.run([sys.argv[1],'--list','--json'],capture_output=True,text=True).stdout); print(','.join(['launch__grid_size','launch__block_size','launch__shared_mem_per_block_dynamic']+[c['name'] for c in d['counters']]))" "$exe")
      for sw in carveout,dynamic bank,swizzle; do
        n=${sw/,/-}
        SMEM_COUNTERS_EXTERNAL=1 t timeout 200 ncu --profile-from-start off --cache-control none --clock-control none \
          --print-units base --csv --metrics "$metrics" $exe --sweep $sw --counters --trials 1 --max-samples 10 \
          --quiet -o "$(f ${n}_external)" >"$out/ncu_$n.csv" 2>"$out/ncu_$n.err"
        t python3 lab/counters_ncu.py "$(f ${n}_counters)" "$(f ${n}_external)" "$out/ncu_$n.csv" \
          -o "$out/counters_vs_ncu_$n.md" >/dev/null 2>&1
        tail -3 "$out/counters_vs_ncu_$n.md" | tee -a "$out/session.log"
      done
      ;;
    all)
      t $exe --sweep all --quiet -o "$(f all)" >"$out/all.txt" 2>&1
      t $exe --sweep all --counters -o "$(f all_counters)" >"$out/all_counters.txt" 2>&1
      summary "$(f all)" "$(f all_counters)"
      ;;
    all2)   # two --sweep all processes, for the gate against the committed history
      for r in 1 2; do t $exe --sweep all --quiet -o "$(f all_p$r)" >/dev/null 2>&1; done
      summary "$(f all_p1)" "$(f all_p2)"
      ;;
    public)
      if [ -d .ext/public48 ]; then
        (cd .ext/public48 && t bash run.sh "$exe" "$out" "$tag" >"$out/public_$tag.txt" 2>&1)
        tail -15 "$out/public_$tag.txt" | tee -a "$out/session.log"
        summary "$out"/*layernorm*_"$tag".json "$out"/row_softmax*_"$tag".json
      else
        log "no .ext/public48"
      fi
      ;;
    planted)
      if [ ! -f build-planted/build.ninja ]; then
        meson setup build-planted -Dbuildtype=release -Dgpu_arch=90 -Dtest_bank_conflict=true -Dtests=disabled \
          >"$out/setup_planted.log" 2>&1 || tail -20 "$out/setup_planted.log"
      fi
      t ninja -C build-planted smembench >"$out/build_planted.log" 2>&1 || tail -20 "$out/build_planted.log"
      t build-planted/smembench --bench bank --counters --quiet -o "$(f bank_planted_counters)" >/dev/null 2>&1
      t $exe --bench bank --counters --quiet -o "$(f bank_counters)" >/dev/null 2>&1
      summary "$(f bank_planted_counters)" "$(f bank_counters)"
      ;;
    suite)
      t timeout 420 build-gpu/tests/test_gpu >"$out/test_gpu.txt" 2>&1
      grep -h "Synthesis\|FAIL" "$out/test_gpu.txt" | tail -8 | tee -a "$out/session.log"
      ;;
    *) log "unknown step $step" ;;
  esac
done
tar -C "$out" -czf "$dest/counters_$tag.tgz" . && cp "$out/session.log" "$dest/session_$tag.log" && rm -rf "$out"
