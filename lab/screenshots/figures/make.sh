#!/bin/bash
# Before/after images of issue 25: every figure drawn from the H200 files of 2026-11-30 (two
# --sweep all runs, the dynamic, cluster and staging runs, a --quick run) plus the extra---axis runs
# of results/day/ (or, where absent, test_plot.py's stand-ins made from real points: a footprint run with
# three tile_bytes, cluster sizes 3/5/12, a --quick run, a staging_bulk-only run; carveout 0/25/50/100), by the
# code before the figures were split into modules (OLD, a checkout of e5bf833) and by this tree.
#   lab/screenshots/figures/make.sh OLD_CHECKOUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
old=${1:?usage: make.sh OLD_CHECKOUT (git worktree add /tmp/fig-old e5bf833)}
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
mapfile -t day < <("$python" -c "
import sys; sys.argv = ['x']; sys.path.insert(0, 'tests/scripts'); import test_plot
for k in ('tile_bytes', 'cluster_3_5_12', 'quick_staging', 'bulk_only'): print(test_plot.day_file(k, '$work'))")
inputs=(results/nvidia-h200_20261130_{all,all_run2,dynamic,cluster,staging}.json
        results/gate/nvidia-h200_20261130_quick_run1.json "${day[@]}")
[ -f results/day/nvidia-h200_20261130_carveout_4.json ] && inputs+=(results/day/nvidia-h200_20261130_carveout_4.json)
(cd "$old" && "$python" scripts/plot.py -o "$work/before" "${inputs[@]/#results\//$root/results/}") >/dev/null
"$python" scripts/plot.py -o "$work/after" --format png --dpi 100 "${inputs[@]}" >/dev/null 2>"$work/after.err" || true
# small: 80 dpi, a 256-colour palette
for side in before after; do
  mkdir -p "$here/$side"
  rm -f "$here/$side"/*.png
  "$python" -c "
import glob, os, sys
from PIL import Image
for f in sorted(glob.glob('$work/$side/*.png')):
    im = Image.open(f).convert('RGB')
    im = im.resize((im.width * 4 // 5, im.height * 4 // 5), Image.LANCZOS)
    im.quantize(colors=256, method=Image.MEDIANCUT).save(os.path.join('$here/$side', os.path.basename(f)), optimize=True)
"
done
cp "$work/after.err" "$here/after/stderr.txt"
