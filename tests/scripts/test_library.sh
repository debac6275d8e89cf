#!/bin/bash
# libsmembench as a program of one's own uses it: this build installed into a temporary DESTDIR,
# examples/project configured against the installed files alone (pkg-config, PKG_CONFIG_PATH), built
# for this build's GPU architectures, and run: --help, --list, predict mode for each registered
# kernel (resources read from the program's own file by cuobjdump, no GPU) and, where there is a GPU,
# a measured carveout sweep of each, verified.
#   test_library.sh MESON BUILDDIR SRCDIR [NVCC_ARCH_ARG...]   (the -gencode arguments of this build)
# A part that cannot run here (no GPU; no cuobjdump where there is no GPU either) is skipped with a
# line saying so; exit 77 only when nothing at all could be checked.
set -u
meson=$1
build=$2
src=$3
shift 3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
checked=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; checked=$((checked + 1)); }

# ---- the installed files
"$meson" install -C "$build" --no-rebuild --destdir "$d/dest" >"$d/install.log" 2>&1 ||
  { tail -20 "$d/install.log"; fail "meson install --destdir failed"; }
pc=$(find "$d/dest" -name smembench.pc -path '*/pkgconfig/*')
[ -n "$pc" ] && [ "$(echo "$pc" | wc -l)" -eq 1 ] || fail "the install holds no pkgconfig/smembench.pc (or several): $pc"
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
prefix_line=$(grep '^prefix=' "$pc") || fail "$pc has no prefix= line"
prefix=$d/dest${prefix_line#prefix=}
[ -f "$libdir/libsmembench.a" ] || fail "no libsmembench.a beside the .pc file, in $libdir"
[ -f "$prefix/include/smembench.h" ] || fail "no include/smembench.h under the prefix"
cmp -s "$prefix/share/smembench/launch.schema.json" "$src/results/launch.schema.json" ||
  fail "share/smembench/launch.schema.json is not results/launch.schema.json"
ok "installed: ${libdir#"$d"/dest}/libsmembench.a, ${pc#"$d"/dest}, include/smembench.h, share/smembench/launch.schema.json"

# a staged install: the .pc file's prefix moved to where it is (its other paths are ${prefix}/...)
sed -i "s|^prefix=.*|prefix=$prefix|" "$pc"
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# a sysroot (.devdeps/env.sh's, cJSON's on an offline GPU host) would be put before this prefix too;
# without it cJSON's .pc names -lcjson alone, which the linker finds through env.sh's LIBRARY_PATH
unset PKG_CONFIG_SYSROOT_DIR
cflags=$(pkg-config --cflags smembench) || fail "pkg-config --cflags smembench"
libs=$(pkg-config --static --libs smembench) || fail "pkg-config --static --libs smembench"
echo "pkg-config --cflags smembench: $cflags"
echo "pkg-config --static --libs smembench: $libs"
for l in -lsmembench -lcudart -lcublas -lcjson -lstdc++ -lm -ldl; do
  [[ " $libs " == *" $l "* ]] || fail "pkg-config --static --libs smembench has no $l"
done
[[ " $cflags " == *" -I$prefix/include "* ]] || fail "pkg-config --cflags smembench has no -I$prefix/include"

# a C program linked by the C compiler from those flags alone: the archive's CUDA objects, the runtime
# they register with at start-up, cuBLAS, cJSON
cat >"$d/none.c" <<'EOF'
#include <smembench.h>

int main(int argc, char **argv)
{
    return smembench_main(argc, argv);
}
EOF
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror $cflags "$d/none.c" -o "$d/none" $libs >"$d/cc.log" 2>&1 ||
  { tail -20 "$d/cc.log"; fail "a C program does not link with pkg-config --static --libs smembench"; }
"$d/none" >"$d/none.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "no kernel registered" "$d/none.out" ||
  fail "smembench_main without a registered kernel: exit $rc, '$(head -2 "$d/none.out")'; expected 2 and 'no kernel registered'"
ok "cc links a C program with pkg-config --static --libs smembench; it runs (no kernel registered: exit 2)"

# ---- examples/project against the installed library
arch_args="$*"   # meson splits -Dcuda_args like a shell: the -gencode commas stay
setup=("$meson" setup "$d/project" "$src/examples/project" -Dbuildtype=release)
[ $# -gt 0 ] && setup+=("-Dcuda_args=$arch_args")
"${setup[@]}" >"$d/setup.log" 2>&1 || { tail -30 "$d/setup.log"; fail "cannot configure examples/project"; }
grep -q "Run-time dependency smembench found: YES" "$d/setup.log" ||
  fail "examples/project did not find smembench through pkg-config: $(grep -i smembench "$d/setup.log" | head -3)"
ninja -C "$d/project" >"$d/build.log" 2>&1 || { tail -30 "$d/build.log"; fail "cannot build examples/project"; }
exe=$d/project/saxpy-bench
[ -x "$exe" ] || fail "examples/project built no saxpy-bench"
ok "examples/project configured through pkg-config and built${1:+ (cuda_args $arch_args)}"

"$exe" --help >"$d/help.out" 2>&1 || fail "saxpy-bench --help exited $?"
grep -q -- "--kernel" "$d/help.out" || fail "saxpy-bench --help does not mention --kernel"
ok "saxpy-bench --help: exit 0, documents --kernel"

gpu=true
"$exe" --kernel saxpy --quick --sweep carveout --require-gpu -q -o "$d/gpu_saxpy.json" >"$d/gpu.out" 2>&1
gpu_rc=$?
[ $gpu_rc -eq 3 ] && gpu=false

"$exe" --list >"$d/list.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && ! $gpu && grep -q "cuobjdump" "$d/list.out"; then
  echo "skipped: --list and predict mode: no GPU here, and $(grep -m1 cuobjdump "$d/list.out")"
  cuobjdump=false
else
  [ $rc -eq 0 ] || fail "saxpy-bench --list exited $rc: $(head -3 "$d/list.out")"
  grep -qx "saxpy" "$d/list.out" && grep -qx "saxpy_stride" "$d/list.out" ||
    fail "saxpy-bench --list does not list saxpy and saxpy_stride: $(cat "$d/list.out")"
  ok "saxpy-bench --list: saxpy and saxpy_stride, from $($gpu && echo the driver || echo cuobjdump)"
  cuobjdump=true
fi

# without a GPU, --list reads the program's own file once for all its kernels, not once per kernel
# (the whole of libsmembench's code is in it: 16 kernels took 77 s): a cuobjdump that counts its calls
if $cuobjdump && ! $gpu; then
  real=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  mkdir -p "$d/counting/bin"
  printf '#!/bin/sh\necho "$1" >> "%s"\nexec "%s" "$@"\n' "$d/calls" "$real" > "$d/counting/bin/cuobjdump"
  chmod +x "$d/counting/bin/cuobjdump"
  CUDA_HOME="$d/counting" "$exe" --list >"$d/list2.out" 2>&1 || fail "saxpy-bench --list with a counting cuobjdump: $(head -3 "$d/list2.out")"
  n=$(grep -c -- --dump-resource-usage "$d/calls")
  [ "$n" = 1 ] || fail "saxpy-bench --list of 2 kernels ran cuobjdump --dump-resource-usage $n times, not once"
  ok "saxpy-bench --list: the program's file read once for its 2 kernels"
fi

# ---- predict mode: no GPU needed, the resources from the program's own file
if $cuobjdump; then
  for k in saxpy saxpy_stride; do
    "$exe" --predict h100 --kernel $k -q -o "$d/predict_$k.json" >"$d/predict_$k.out" 2>&1 ||
      fail "saxpy-bench --predict h100 --kernel $k exited $?: $(tail -3 "$d/predict_$k.out")"
    python3 - "$d/predict_$k.json" $k <<'PY' || fail "the predict-mode file of $k"
import json, sys
doc, name = json.load(open(sys.argv[1])), sys.argv[2]
k = doc["kernel"]
assert k["function"] == name and k["kind"] == "registered", (k["function"], k["kind"])
assert k["description_file"] == name + ".json", k["description_file"]
res = k["resources"]
assert res["source"] == "cuobjdump sm_90", res["source"]
assert res["regs"] > 0 and res["static_smem_bytes"] == 0 and res["local_bytes"] == 0, res
# (float a, const float *x, float *y, int n): the ABI puts them at 0, 8, 16, 24
assert [(p["offset"], p["size"]) for p in res["params"]] == [(0, 4), (8, 8), (16, 8), (24, 4)], res["params"]
assert doc["run"]["mode"] == "predict", doc["run"]["mode"]
rs = doc["results"]
assert rs and all(r["bench"] == name and r["status"] == "predicted" for r in rs), \
    {(r["bench"], r["status"]) for r in rs}
assert {r["sweep"] for r in rs} == {"carveout", "dynamic"}, {r["sweep"] for r in rs}
assert {r["params"]["n"] for r in rs} == {1048576, 16777216}
print(f"  {name}: {len(rs)} points predicted, {res['regs']} registers ({res['source']})")
PY
  done
  ok "--predict h100 --kernel saxpy / saxpy_stride: kernel record (registered, cuobjdump), every point predicted"
fi

# ---- measured, where there is a GPU: the description's launch and the program's own launch function
if ! $gpu; then
  echo "skipped: the measured runs (--quick --sweep carveout): no GPU here"
else
  [ $gpu_rc -eq 0 ] || fail "saxpy-bench --kernel saxpy --quick --sweep carveout exited $gpu_rc: $(tail -3 "$d/gpu.out")"
  "$exe" --kernel saxpy_stride --quick --sweep carveout --require-gpu -q -o "$d/gpu_saxpy_stride.json" \
    >"$d/gpu.out" 2>&1 || fail "saxpy-bench --kernel saxpy_stride --quick --sweep carveout exited $?: $(tail -3 "$d/gpu.out")"
  for k in saxpy saxpy_stride; do
    python3 - "$d/gpu_$k.json" $k <<'PY' || fail "the measured file of $k"
import json, sys
doc, name = json.load(open(sys.argv[1])), sys.argv[2]
k = doc["kernel"]
assert k["function"] == name and k["kind"] == "registered" and k["resources"]["source"] == "driver", k
assert [(p["offset"], p["size"]) for p in k["resources"]["params"]] == [(0, 4), (8, 8), (16, 8), (24, 4)]
assert k["verification"]["mismatches"] == 0 and k["verification"]["configurations"] > 0, k["verification"]
rs = doc["results"]
assert rs and all(r["bench"] == name and r["sweep"] == "carveout" for r in rs)
bad = [(r["params"], r["status"], r["reason"]) for r in rs if r["status"] != "ok" or r["verified"] is not True]
assert not bad, bad
# 16x the elements is more time at every carveout (16 Mi elements: 192 MiB moved, past any L2)
t = {(r["params"]["carveout_pct"], r["params"]["n"]): r["metrics"]["time_us"]["value"] for r in rs}
for (c, n), us in t.items():
    if n == 16777216:
        assert us > t[(c, 1048576)], (c, us, t[(c, 1048576)])
big = [v for (c, n), v in t.items() if n == 16777216]
print(f"  {name}: {len(rs)} points ok and verified on {doc['device']['name']}; "
      f"n=16Mi median {sorted(big)[len(big) // 2]:.1f} us ({12 * 16777216 / (sorted(big)[len(big) // 2] * 1e3):.0f} GB/s)")
PY
  done
  ok "--kernel saxpy / saxpy_stride --quick --sweep carveout on the GPU: every point ok and verified"
fi

# ---- the CMake build of the same program (examples/project/CMakeLists.txt), where CMake is installed
if ! command -v cmake >/dev/null; then
  echo "skipped: the CMake build of examples/project: no cmake here"
else
  archs=()
  for a in "$@"; do
    case $a in
      *code=sm_*) archs+=("${a##*code=sm_}-real") ;;
      *code=compute_*) archs+=("${a##*code=compute_}-virtual") ;;
      -arch=native) archs+=(native) ;;
    esac
  done
  cmake_archs=$(IFS=';'; echo "${archs[*]}")
  cmake -S "$src/examples/project" -B "$d/cmake" ${cmake_archs:+"-DCMAKE_CUDA_ARCHITECTURES=$cmake_archs"} \
    >"$d/cmake.log" 2>&1 && cmake --build "$d/cmake" >>"$d/cmake.log" 2>&1 ||
    { tail -30 "$d/cmake.log"; fail "cannot configure and build examples/project with CMake"; }
  "$d/cmake/saxpy-bench" --help 2>&1 | grep -q -- "--kernel" || fail "the CMake-built saxpy-bench --help"
  if $cuobjdump; then
    "$d/cmake/saxpy-bench" --list >"$d/cmake_list.out" 2>&1 || fail "the CMake-built saxpy-bench --list exited $?"
    diff <(grep -v "registered kernels" "$d/list.out") <(grep -v "registered kernels" "$d/cmake_list.out") >&2 ||
      fail "the CMake-built saxpy-bench lists other kernels or resources than the meson-built one"
  fi
  ok "examples/project built with CMake${cmake_archs:+ (CUDA architectures $cmake_archs)}: --help$($cuobjdump && echo ", --list as the meson build's")"
fi

[ $checked -gt 0 ] || { echo "skipped: nothing could be checked here"; exit 77; }
echo "$checked checks passed"
