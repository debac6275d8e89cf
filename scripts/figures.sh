#!/bin/bash
# Makes the committed figures of results/ from the committed result files: the README's figures
# (results/plots/) and the generations figure (results/plots/generations/: the H200's measured
# carveout and dynamic sweeps beside the predicted ones of other GPUs, results/predict/).
#   scripts/figures.sh [DIR]   writes into DIR instead of results/plots (the tests compare the two)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/results/plots}
python=${PYTHON:-python3}
r=$root/results
"$python" "$root/scripts/plot.py" -o "$out" \
  "$r"/nvidia-h200_20261129_{bandwidth-latency-bank,carveout,dynamic,tile,reduction}.json
"$python" "$root/scripts/plot.py" -o "$out/generations" \
  "$r"/nvidia-h200_20261129_{carveout,dynamic}.json "$r"/predict/*.json
# the README shows the PNGs; plot.py's SVGs of the same figures are not kept
rm -f "$out"/*.svg "$out"/generations/*.svg
