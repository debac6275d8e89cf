#!/bin/bash
# The bisect test of the A/B gate on a GPU: a scratch repository of this tree with 8 commits after
# its base, the 3 % test slowdown (meson option test_slowdown_pct, the bandwidth kernel) planted in
# the fifth, and `ab.py --bisect` over it with real builds; it must name the fifth commit.
#   lab/bisect_session.sh OUT_DIR [SMEMBENCH ARGS...]      (default: --bench bandwidth --quick)
# Run from the project root; on an offline host, first: source .devdeps/env.sh.
set -euo pipefail
out=${1:?out dir}; shift
[ $# -gt 0 ] || set -- --bench bandwidth --quick
mkdir -p "$out"; out=$(cd "$out" && pwd)
scratch=$(mktemp -d)/repo
mkdir -p "$scratch"
# the tree as it is here, without builds, the device's dependencies or result files
tar --exclude='./build*' --exclude=./.devdeps --exclude=./.git --exclude='./results/*/*' -cf - . |
  tar -xf - -C "$scratch"
cd "$scratch"
git init -q -b main .
git config user.email lab@smembench.invalid
git config user.name "smembench lab"
git add -A && git commit -qm "c0: the base"
for k in 1 2 3 4 5 6 7 8; do
  echo "scratch commit $k" >>lab/bisect_scratch.txt
  if [ "$k" = 5 ]; then
    sed -i "s/option('test_slowdown_pct', type: 'integer', value: 0,/option('test_slowdown_pct', type: 'integer', value: 3,/" \
      meson_options.txt
    grep -q "value: 3," meson_options.txt || { echo "bisect_session: the slowdown was not planted" >&2; exit 1; }
  fi
  git add -A && git commit -qm "c$k: $([ "$k" = 5 ] && echo 'the planted 3 % slowdown' || echo 'a text change')"
done
git log --format='%h %s' >"$out/scratch_log.txt"
build='meson setup "$BUILD" "$SRC" -Dbuildtype=release -Dtests=disabled -Dgpu_arch=90 >"$BUILD.log" 2>&1 && ninja -C "$BUILD" smembench >>"$BUILD.log" 2>&1'
s=$(date +%s)
set +e
"${PYTHON:-python3}" scripts/ab.py --bisect HEAD~8 HEAD -o "$out/bisect" --build "$build" -- "$@" >"$out/bisect.txt" 2>&1
rc=$?
set -e
echo "ab.py --bisect: exit $rc in $(($(date +%s) - s)) s; planted in $(git rev-parse --short HEAD~3)" | tee -a "$out/bisect.txt"
head -3 "$out/bisect.txt"
# the builds are large: keep their logs and the A/B files, not the trees
[ -d "$out/bisect" ] && find "$out/bisect" -maxdepth 1 -type d -name "build-*" -exec rm -rf {} +
exit 0
