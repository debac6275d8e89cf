#!/bin/bash
# One device call for the Python side of issue 48's counters, on real H200 files (the C side's
# --counters must be in the tree): --sweep carveout,dynamic --counters, --sweep bank,swizzle
# --counters and row_softmax under --kernel with counters, then each file read by the package
# (schema, to_dataframe's counter columns), explained (smembench-report --explain), plotted, exported
# in every format, and the bank model held to the counters (wavefronts per request = the model's
# n-way at every bank point); results and logs under OUT as one archive.
#   lab/counters_py_session.sh TAG     (on an offline host, first: source .devdeps/env.sh)
set -uo pipefail
tag=${1:?tag}
dest=${OUT:-counters-py-session}
mkdir -p "$dest/w"; dest=$(cd "$dest" && pwd); out=$dest/w   # the device tool returns 8 files: one archive
source "$(dirname "$0")/session_lib.sh"
gpu_build
day=$(date -u +%Y%m%d)
ex=$PWD/build-gpu/examples
t $exe --sweep carveout,dynamic --counters --quiet -o "$out/nvidia-h200_${day}_carveout-dynamic_counters_$tag.json" \
  >"$out/carveout_$tag.txt" 2>&1
t $exe --sweep bank,swizzle --counters --quiet -o "$out/nvidia-h200_${day}_bank-swizzle_counters_$tag.json" \
  >"$out/bank_$tag.txt" 2>&1
t $exe --kernel "$ex/row_softmax.fatbin" --launch "$ex/row_softmax.json" --sweep carveout,dynamic --counters --quiet \
  -o "$out/nvidia-h200_${day}_row_softmax_counters_$tag.json" >"$out/softmax_$tag.txt" 2>&1
files=("$out"/nvidia-h200_"$day"_*_counters_"$tag".json)
PYTHONPATH=python t python3 - "${files[@]}" <<'PY' 2>&1 | tee -a "$out/session.log"
import sys
import smembench
from smembench import counters, reader
for f in sys.argv[1:]:
    d = smembench.load(f)
    st, why = reader.counters_run(d)
    ok = [r for r in d["results"] if reader.counters(r)]
    nulls = sum(1 for r in ok for e in reader.counters(r).values() if e["value"] is None)
    df = smembench.to_dataframe(f)
    cols = [c for c in df.columns if c.startswith("counter_")]
    print(f.rsplit("/", 1)[-1], "run.counters", st, why, "points with counters", len(ok), "of", len(d["results"]),
          "null values", nulls, "columns", len(cols), "passes", d["run"]["counters"].get("passes"),
          "wall_s", d["run"]["counters"].get("wall_s"))
    bad = 0
    for r in ok:
        if r["bench"] == "bank":
            model, seen = r["metrics"]["wavefronts"]["value"], counters.wavefronts_per_request(r)
            if seen is None or abs(seen - model) > 0.01 * model:
                bad += 1
                print("  bank model differs:", reader.point_name(r), "model", model, "counters", seen)
    print("  bank points off the model:", bad)
PY
t python3 scripts/report.py "${files[@]}" --explain >"$out/explain_$tag.txt" 2>&1; head -40 "$out/explain_$tag.txt" | tee -a "$out/session.log"
t python3 scripts/plot.py "${files[@]}" -o "$out/plots" >"$out/plot_$tag.txt" 2>&1
t python3 scripts/report.py "${files[@]}" -o "$out/report" >"$out/report_$tag.txt" 2>&1
for fmt in gab-smaller gab-bigger bmf openmetrics csv; do
  t python3 scripts/export.py "${files[0]}" --format "$fmt" -o "$out/export.$fmt" >>"$out/export_$tag.txt" 2>&1
done
grep -c "l1tex__" "$out"/export.* | tee -a "$out/session.log"
tar -C "$out" -czf "$dest/counters_py_$tag.tgz" . && cp "$out/session.log" "$dest/session_$tag.log" && rm -rf "$out"
