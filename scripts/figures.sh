#!/bin/bash
# Makes what results/ shows from the committed result files: the figures of the README and docs/ (plots/), the
# generations figure (plots/generations/: the H200's measured carveout and dynamic sweeps beside the
# predicted ones of other GPUs in predict/), and the HTML report of the H200 session (report/, with
# a screenshot by headless Chromium where it is installed), all from the session of 2026-11-30, and
# plots/tile/ from the tile sweep of 2026-12-01 (plots/tile/ceiling/: the transposes beside the tile copy); and
# the fleet report of the two GPUs of an H200 x2 host (fleet/: fleet.py's files, the HTML report of the
# two files, a screenshot of its fleet section).
#   scripts/figures.sh [DIR [plots|report|fleet]]   into DIR instead of results/ (the tests compare the two)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/results}
what=${2:-all}
python=${PYTHON:-python3}
# inputs by their paths relative to the root, so the report names them the same from any checkout
cd "$root"
session=(results/nvidia-h200_20261130_{all,cluster,staging}.json)
if [ "$what" = all ] || [ "$what" = plots ]; then
  "$python" scripts/plot.py -o "$out/plots" "${session[@]}"
  "$python" scripts/plot.py -o "$out/plots/generations" results/nvidia-h200_20261130_all.json results/predict/*.json
  # the tile sweep of 2026-12-01 with the pipelined SGEMM and the swizzled transpose (issue 22)
  "$python" scripts/plot.py -o "$out/plots/tile" results/tile/nvidia-h200_20261201_tile_d59a408.json
  # the transposes beside their ceiling, the tile copy (one run of three at 8343979)
  "$python" scripts/plot.py -o "$out/plots/tile/ceiling" results/tile/nvidia-h200_20261201_tile_copy_repeat1_8343979.json
  # the README and docs/ show the PNGs; plot.py's SVGs of the same figures are not kept
  rm -f "$out"/plots/*.svg "$out"/plots/generations/*.svg "$out"/plots/tile/*.svg "$out"/plots/tile/ceiling/*.svg
fi
if [ "$what" = all ] || [ "$what" = report ]; then
  "$python" scripts/report.py -o "$out/report" "${session[@]}" --baseline results/nvidia-h200_20261130_all_run2.json
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$browser" ] && [ -z "${NO_SCREENSHOT:-}" ]; then
    profile=$(mktemp -d)
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
      --window-size=1400,2000 --screenshot="$out/report/screenshot.png" "file://$out/report/index.html" \
      >/dev/null 2>&1
    rm -rf "$profile"
  fi
fi
if [ "$what" = all ] || [ "$what" = fleet ]; then
  units=(results/units/nvidia-h200_20261130_all_gpu{0,1}_r5.json)
  rc=0
  "$python" scripts/fleet.py -o "$out/fleet" "${units[@]}" >/dev/null || rc=$?
  [ "$rc" -le 1 ]                     # 1: an outlier or a missing point, reported in the files
  "$python" scripts/report.py -o "$out/fleet/report" "${units[@]}" >/dev/null
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -n "$browser" ] && [ -z "${NO_SCREENSHOT:-}" ]; then
    # the fleet section alone: a copy of the page with the other sections hidden (headless Chromium
    # paints nothing where --screenshot follows a #fragment down a long page)
    profile=$(mktemp -d)
    sed 's|</head>|<style>body > section:not(#fleet-0) { display: none }</style></head>|' \
      "$out/fleet/report/index.html" >"$profile/fleet.html"
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile/p" \
      --window-size=1400,3000 --screenshot="$out/fleet/screenshot.png" "file://$profile/fleet.html" >/dev/null 2>&1
    rm -rf "$profile"
  fi
fi
