#!/bin/bash
# Makes what results/ shows from the committed result files: the README's figures (plots/), the
# generations figure (plots/generations/: the H200's measured carveout and dynamic sweeps beside the
# predicted ones of other GPUs in predict/), and the HTML report of the H200 session (report/, with
# a screenshot by headless Chromium where it is installed).
#   scripts/figures.sh [DIR [plots|report]]   into DIR instead of results/ (the tests compare the two)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/results}
what=${2:-all}
python=${PYTHON:-python3}
r=$root/results
session=("$r"/nvidia-h200_20261129_{bandwidth-latency-bank,carveout,dynamic,tile,reduction,uninit}.json)
if [ "$what" != report ]; then
  "$python" "$root/scripts/plot.py" -o "$out/plots" "${session[@]:0:5}"
  "$python" "$root/scripts/plot.py" -o "$out/plots/generations" "${session[@]:1:2}" "$r"/predict/*.json
  # the README shows the PNGs; plot.py's SVGs of the same figures are not kept
  rm -f "$out"/plots/*.svg "$out"/plots/generations/*.svg
fi
if [ "$what" != plots ]; then
  "$python" "$root/scripts/report.py" -o "$out/report" "${session[@]}" \
    --baseline "$r/nvidia-h200_20261129_bank-bandwidth_run1.json"
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$browser" ] && [ -z "${NO_SCREENSHOT:-}" ]; then
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
      --window-size=1400,2000 --screenshot="$out/report/screenshot.png" "file://$out/report/index.html" \
      >/dev/null 2>&1
    rm -rf "$profile"
  fi
fi
