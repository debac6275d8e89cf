#!/bin/bash
# Issue 50's runs on one GPU unit, in one device call (everything under OUT):
#   lab/gate50_session.sh TAG [STEPS...]     STEPS from: all gate counters test (default: all of them)
#   all       two fresh `--sweep all` processes (trials on): all_TAG_r{1,2}.json
#   gate      each judged against the committed history of H200 --sweep all files of identical kernels
#             (lab/pool_sim.py's pool: results/gate/session2_20261201, session3_20261202, results/contract,
#             results/figures_35/h200) in text, --markdown and --json, r2 also against r1 alone, and the
#             fleet view of the history with the new files (the unit's class, its unit differences)
#   counters  `--sweep bank --counters` twice (unit the same) for the counters' exact rule; the gate of
#             r2 against r1 must say 0 metrics worse; tests/scripts/fixtures/counters/make.py's plant
#             applied to r2 (one more conflict per request at stride 1, 4 bytes) must fail by the counters
#   test      the GPU test measure::short_kernels_are_batched_to_the_target_and_settle, verbose (its
#             first and second measurement's spread of uninit, per size)
# What to look for: gate_TAG_r*.txt end in "gate: pass (exit 0)" with 0 slower and 0 faster; uninit's
# stale_pct and cluster_occupancy's clusters_measured are the measured values (74/100/99.6 % at 16, 48,
# 96 KiB before trials; clusters_measured the API's count) once the lead's pooling fix is in: the gate
# lists them as "metric better" against the history (whose files hold the zeros), never lost.
# On an offline host, first: source .devdeps/env.sh.
set -uo pipefail
tag=${1:?tag}; shift
steps=${*:-all gate counters test}
out=${OUT:-gate50-session}
mkdir -p "$out"; out=$(cd "$out" && pwd)
source "$(dirname "$0")/session_lib.sh"
gpu_build
py=${PYTHON:-python3}
hist=$(mktemp -d)
for f in results/gate/session2_20261201/*_all_*.json results/gate/session3_20261202/*_all_*.json \
         results/gate/session3_20261202/unitJ_fbc7149/*_all_*.json results/contract/*_all_*.json \
         results/figures_35/h200/*_all_*.json; do
  ln -s "$PWD/$f" "$hist/"
done
for step in $steps; do
  case $step in
  all) for r in 1 2; do t "$exe" --sweep all --quiet -o "$out/all_${tag}_r$r.json"; done ;;
  gate) for r in 1 2; do
          f="$out/all_${tag}_r$r.json"
          [ -f "$f" ] || continue
          t "$py" scripts/compare.py --history "$hist" "$f" >"$out/gate_${tag}_r$r.txt" 2>&1
          tail -2 "$out/gate_${tag}_r$r.txt" | tee -a "$out/session.log"
          "$py" scripts/compare.py --history "$hist" "$f" --markdown >"$out/gate_${tag}_r$r.md" 2>&1
          "$py" scripts/compare.py --history "$hist" "$f" --json >"$out/gate_${tag}_r$r.json" 2>&1
        done
        [ -f "$out/all_${tag}_r2.json" ] &&
          t "$py" scripts/compare.py "$out/all_${tag}_r1.json" "$out/all_${tag}_r2.json" >"$out/gate_${tag}_r2_vs_r1.txt" 2>&1
        tail -1 "$out/gate_${tag}_r2_vs_r1.txt" 2>/dev/null | tee -a "$out/session.log"
        grep -h "stale_pct\|clusters_measured" "$out"/gate_"${tag}"_r*.txt | head -30 >>"$out/session.log"
        t "$py" scripts/fleet.py "$hist" "$out"/all_"${tag}"_r*.json -o "$out/fleet_$tag" >/dev/null 2>&1
        grep -h "^  class\|Outliers" "$out/fleet_$tag/fleet.txt" | tee -a "$out/session.log" ;;
  counters) for r in 1 2; do
              t "$exe" --sweep bank --counters --quiet -o "$out/bank_counters_${tag}_r$r.json"
            done
            t "$py" scripts/compare.py "$out/bank_counters_${tag}_r1.json" "$out/bank_counters_${tag}_r2.json" \
              >"$out/gate_counters_${tag}.txt" 2>&1
            tail -1 "$out/gate_counters_${tag}.txt" | tee -a "$out/session.log"
            "$py" - "$out/bank_counters_${tag}_r2.json" "$out/bank_counters_${tag}_planted.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["results"]:
    if r["params"].get("stride_elems") == 1 and r["params"].get("width_bytes") == 4 and r.get("counters"):
        v = r["counters"]["values"]
        req = v["smsp__sass_inst_executed_op_shared_ld.sum"]["value"]
        for k in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"):
            v[k]["value"] += req
json.dump(doc, open(sys.argv[2], "w"))
EOF
            t "$py" scripts/compare.py "$out/bank_counters_${tag}_r1.json" "$out/bank_counters_${tag}_planted.json" \
              >"$out/gate_counters_planted_${tag}.txt" 2>&1
            tail -1 "$out/gate_counters_planted_${tag}.txt" | tee -a "$out/session.log" ;;
  test) t build-gpu/tests/test_gpu --verbose --filter 'measure/short_kernels_are_batched_to_the_target_and_settle' \
          >"$out/test_short_kernels_$tag.txt" 2>&1
        grep -h "uninit\|Synthesis\|spread" "$out/test_short_kernels_$tag.txt" | tee -a "$out/session.log" ;;
  *) log "unknown step $step"; exit 2 ;;
  esac
done
rm -rf "$hist"
