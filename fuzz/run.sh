#!/bin/bash
# Runs one fuzz target: first every file of its committed corpus (the regression cases, crashes
# found before among them), then a bounded fuzzing run on a scratch copy of the corpus.
#   fuzz/run.sh TARGET CORPUS SECONDS      TARGET: an executable, or a .py atheris target
set -u
target=$1 corpus=$2 seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$corpus"/. "$work"/
if [[ $target == *.py ]]; then
  # a Python with atheris; of those, one that also has matplotlib (plot.py) where there is one
  py=
  for p in ${FUZZ_PYTHON:-} python3 /usr/bin/python3; do
    command -v "$p" >/dev/null && "$p" -c "import atheris" 2>/dev/null || continue
    [ -z "$py" ] && py=$p
    "$p" -c "import matplotlib" 2>/dev/null && { py=$p; break; }
  done
  [ -n "$py" ] || { echo "skipped: atheris is not installed (scripts/setup.sh --dev)"; exit 77; }
  run=("$py" "$target")
else
  run=("$target")
fi
dict=()
[ -f "${target%.*}.dict" ] && dict=(-dict="${target%.*}.dict")
n=$(ls "$corpus" | wc -l)
"${run[@]}" -runs=0 -close_fd_mask=2 "$corpus"/* >"$work.log" 2>&1 || { tail -30 "$work.log"; echo "a corpus case fails"; exit 1; }
echo "$n corpus cases pass"
# -close_fd_mask=2: the targets' own messages (every rejected input prints one) go nowhere
"${run[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 -close_fd_mask=2 \
  -artifact_prefix="$work/" "$work" >"$work.log" 2>&1
rc=$?
grep -E "^(Done|stat::number_of_executed_units|#[0-9]+.*DONE)" "$work.log" | tail -3
echo "corpus after the run: $(ls "$work" | wc -l) files"
if [ $rc -ne 0 ]; then
  tail -40 "$work.log"
  # kept where the test ran (the scratch directory goes)
  for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
    [ -e "$a" ] && cp "$a" . && echo "artifact: $PWD/$(basename "$a")"
  done
  echo "the fuzzer found a failure; add the artifact above to $corpus once fixed"
  exit 1
fi
rm -f "$work.log"
