#!/bin/bash
# Device code for every architecture the installed nvcc supports: each kernels/*.cu compiled to a
# cubin per real architecture (nvcc --list-gpu-code) and to PTX for the newest, with the project's
# device flags (warnings are errors, register spills are errors), so a kernel that breaks one
# generation fails CI even where the build itself was configured for fewer. Only device code is
# compiled (no host pass), in parallel over the machine's cores. Exits 77 without nvcc.
#   arch_build.sh NVCC INCLUDE_DIR... -- KERNEL.cu... -- FLAG...
set -u
nvcc=$1
shift
incs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do incs+=("-I$1"); shift; done
shift
srcs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
shift
flags=("$@")
if [ -z "$nvcc" ] || ! command -v "$nvcc" >/dev/null; then
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || { echo "skipped: no nvcc"; exit 77; }
fi
archs=$("$nvcc" --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([0-9]*\)$/\1/p' | sort -n)
[ -n "$archs" ] || { echo "FAIL: $nvcc --list-gpu-code lists no real architecture"; exit 1; }
newest=$(echo "$archs" | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
compile() {   # compile TARGET SRC: one cubin (sm_NN) or PTX (compute_NN), "ok"/"FAIL" and the log
  local target=$1 src=$2 name kind gencode log
  name=$(basename "$src" .cu)
  case $target in
    sm_*) kind=-cubin; gencode="arch=compute_${target#sm_},code=$target" ;;
    *) kind=-ptx; gencode="arch=$target,code=$target" ;;
  esac
  if log=$("$nvcc" $kind -gencode="$gencode" "${incs[@]}" "${flags[@]}" "$src" -o "$out/$name.$target" 2>&1); then
    echo "ok $target $name" >"$out/$target.$name.log"
  else
    { echo "FAIL $target $name"; echo "$log" | sed 's/^/    /'; } >"$out/$target.$name.log"
  fi
}
targets=()
for a in $archs; do targets+=("sm_$a"); done
targets+=("compute_$newest")
for t in "${targets[@]}"; do
  for s in "${srcs[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    compile "$t" "$s" &
  done
done
wait
cat "$out"/*.log >"$out/log"
for t in "${targets[@]}"; do echo "$t: $(grep -c "^ok $t " "$out/log") of ${#srcs[@]} ok"; done
fails=$(grep -c '^FAIL' "$out/log")
total=$(grep -c -E '^(ok|FAIL)' "$out/log")
expected=$(( ($(echo "$archs" | wc -l) + 1) * ${#srcs[@]} ))
grep -A 40 '^FAIL' "$out/log" | grep '^    ' | head -60
echo "$total of $expected compilations, $fails failed, $(echo $archs | wc -w) architectures ($(echo $archs | tr '\n' ' ')+ compute_$newest PTX), $(( $(date +%s) - start )) s on $jobs jobs"
[ "$total" -eq "$expected" ] && [ "$fails" -eq 0 ]
