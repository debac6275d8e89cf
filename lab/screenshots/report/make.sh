#!/bin/bash
# The before/after screenshots of issue 25: the report of one day's committed H200 files (two
# `--sweep all` runs, a `--quick` run, the cluster and staging sweeps; the second full run the
# baseline) made by the report.py of commit e5bf833 (before) and of this checkout (after), in
# headless Chromium at 1400 and 400 px, as 256-colour PNGs.
#   lab/screenshots/report/make.sh [OLD_CHECKOUT]   (default: a worktree of e5bf833 in /tmp/old-rep)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
old=${1:-/tmp/old-rep}
[ -d "$old" ] || git -C "$root" worktree add "$old" e5bf833
python=${PYTHON:-/usr/bin/python3}
cd "$root"
files=(results/nvidia-h200_20261130_all.json results/nvidia-h200_20261130_all_run2.json
       results/gate/nvidia-h200_20261130_quick_run1.json results/nvidia-h200_20261130_cluster.json
       results/nvidia-h200_20261130_staging.json)
work=$(mktemp -d)
for which in before after; do
  script=scripts/report.py
  [ "$which" = before ] && script=$old/scripts/report.py
  "$python" "$script" "${files[@]}" --baseline results/nvidia-h200_20261130_all_run2.json -o "$work/$which" >/dev/null
  mkdir -p "$here/$which"
  echo "$which: $(stat -c %s "$work/$which/index.html") bytes" >"$here/$which/size.txt"
  for w in 1400 400; do
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
      --window-size=$w,2400 --screenshot="$work/$which-$w.png" "file://$work/$which/index.html" >/dev/null 2>&1
    "$python" -c "import sys; from PIL import Image; Image.open(sys.argv[1]).convert('RGB').quantize(256).save(sys.argv[2], optimize=True)" \
      "$work/$which-$w.png" "$here/$which/$w.png"
  done
done
rm -rf "$work"
