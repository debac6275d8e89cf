#!/bin/bash
# The portable path, on a real GPU: device code the driver JIT-compiles from PTX must run every
# benchmark, verified, and measure what native code measures.
#   portable.sh ptx NATIVE SRCDIR WORKDIR  builds WORKDIR/ptx80 (-Dgpu_arch=compute_80: PTX only,
#                                          no device code for any real GPU) and runs it
#   portable.sh force-jit NATIVE           runs NATIVE under CUDA_FORCE_PTX_JIT=1, which makes the
#                                          driver ignore the device code and JIT the embedded PTX
# Both run --sweep all --quick with and without JIT and require: every point ok (verified) or
# skipped with a reason, the same points as the native run, and the bandwidth, latency and bank
# figures within 2 % of it. Exit 77 without a GPU, under a compute-sanitizer setup, and (force-jit)
# when the binary carries no PTX this GPU can run (a build for listed architectures only).
set -u
mode=$1
exe=$2
if [ -n "${SMEM_SANITIZER:-}" ]; then
  echo "skipped under $SMEM_SANITIZER: the smoke test runs every kernel under the sanitizer"
  exit 77
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$exe" --bench latency --require-gpu -q -o "$d/probe.json" >/dev/null 2>"$d/probe.err"
rc=$?
[ $rc -eq 3 ] && { echo "skipped: no GPU"; exit 77; }
[ $rc -eq 0 ] || fail "the native binary cannot run the latency benchmark (exit $rc): $(tail -3 "$d/probe.err")"

case $mode in
  ptx)
    src=$3
    work=$4/ptx80
    if [ ! -f "$work/build.ninja" ]; then
      meson setup "$work" "$src" -Dbuildtype=release -Dgpu_arch=compute_80 >"$d/setup.log" 2>&1 ||
        { tail -30 "$d/setup.log"; fail "cannot configure the compute_80 build in $work"; }
    fi
    start=$(date +%s)
    ninja -C "$work" smembench >"$d/build.log" 2>&1 || { tail -30 "$d/build.log"; fail "cannot build $work"; }
    meson introspect --buildoptions "$work" | python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
sys.exit(o.get("gpu_arch") != ["compute_80"])' ||
      fail "$work is not a compute_80-only build (reconfigure it: meson setup --wipe $work -Dgpu_arch=compute_80)"
    echo "compute_80 build ready in $(( $(date +%s) - start )) s"
    jit=("$work/smembench")
    label="compute_80 PTX build"
    ;;
  force-jit)
    CUDA_FORCE_PTX_JIT=1 "$exe" --bench latency --require-gpu -q -o "$d/probe_jit.json" >/dev/null 2>"$d/probe_jit.err"
    if [ $? -ne 0 ] && grep -qi "no kernel image\|NoKernelImage\|invalid device function\|InvalidDeviceFunction" \
        "$d/probe_jit.json" "$d/probe_jit.err" 2>/dev/null; then
      echo "skipped: $exe carries no PTX this GPU can JIT-compile (build it with -Dgpu_arch=all, the default)"
      exit 77
    fi
    jit=(env CUDA_FORCE_PTX_JIT=1 "$exe")
    label="CUDA_FORCE_PTX_JIT=1"
    ;;
  *)
    fail "unknown mode $mode; expected ptx or force-jit"
    ;;
esac

"$exe" --sweep all --quick --require-gpu -q -o "$d/native.json" 2>"$d/native.err" ||
  fail "native --sweep all --quick exited $?: $(tail -3 "$d/native.err")"
"${jit[@]}" --sweep all --quick --require-gpu -q -o "$d/jit.json" 2>"$d/jit.err"
rc=$?
[ $rc -eq 0 ] || echo "note: the $label run exited $rc: $(tail -3 "$d/jit.err")"
python3 - "$d/native.json" "$d/jit.json" "$label" "$mode" <<'PY'
import json, sys
native, jit, label, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
key = lambda r: (r["bench"], tuple(sorted(r["params"].items())))
nat = {key(r): r for r in native["results"]}
bad, skipped, compared, off, library = [], [], {}, [], []
for r in jit["results"]:
    if r["status"] == "skipped" and r.get("reason"):
        skipped.append(r)
    elif r["status"] != "ok" or not r.get("verified"):
        # CUDA_FORCE_PTX_JIT applies to every module of the process: a library call (cuBLAS; block 0)
        # whose library ships no PTX for this GPU cannot load, and is not our code
        if mode == "force-jit" and r["launch"]["block"] == 0:
            library.append(r)
        else:
            bad.append(r)
if set(nat) != {key(r) for r in jit["results"]}:
    bad.append({"bench": "-", "params": {}, "status": "plan",
                "reason": f"{label} ran {len(jit['results'])} points, native {len(nat)}: not the same points"})
# the figures the issue names: bandwidth and bank in B/clk/SM, latency in cycles
figures = {"bandwidth": "bytes_per_clk_sm", "bank": "bytes_per_clk_sm", "latency": "latency_cycles"}
for r in jit["results"]:
    m = figures.get(r["bench"])
    n = nat.get(key(r))
    if not m or r["status"] != "ok" or not n or n["status"] != "ok":
        continue
    a, b = n["metrics"][m]["value"], r["metrics"][m]["value"]
    dev = abs(b / a - 1)
    compared[r["bench"]] = compared.get(r["bench"], 0) + 1
    if dev > 0.02:
        off.append(f"{r['bench']} {r['params']}: {m} native {a:.4g}, {label} {b:.4g} ({100 * dev:.2f} %)")
for r in bad:
    print("not ok:", r["bench"], r["params"], r["status"], r.get("reason"))
for r in skipped:
    print("skipped:", r["bench"], r["params"], r["reason"])
for r in library:
    print("library call not loadable under forced JIT (not counted):", r["bench"], r["params"], r.get("reason"))
for line in off:
    print("beyond 2 %:", line)
missing = [b for b in figures if not compared.get(b)]
for b in missing:
    print(f"not ok: no {b} point ran under both builds, nothing compared")
# each file says how its kernels ran (tool.build, device.kernel_code): the JIT file must not read as
# the native one
code = (native["device"].get("kernel_code"), jit["device"].get("kernel_code"))
if code != ("sass", "ptx_jit"):
    missing.append("kernel_code")
    print(f"not ok: device.kernel_code native {code[0]!r}, {label} {code[1]!r}; expected 'sass', 'ptx_jit'")
if mode == "ptx" and not (jit["tool"].get("build") or {}).get("ptx_only"):
    missing.append("ptx_only")
    print(f"not ok: the {label}'s tool.build is {jit['tool'].get('build')!r}, not ptx_only")
print(f"{label} on {jit['device']['name']} (cc {jit['device']['cc']}): {len(jit['results'])} points, "
      f"{len(jit['results']) - len(bad) - len(skipped) - len(library)} ok and verified, {len(skipped)} skipped, "
      f"{len(library)} library calls not loadable, {len(bad)} not ok; "
      f"{sum(compared.values())} bandwidth/latency/bank points compared with native, {len(off)} beyond 2 %")
sys.exit(1 if bad or off or missing or not jit["results"] else 0)
PY
