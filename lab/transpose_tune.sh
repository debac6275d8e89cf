#!/bin/bash
# The transpose's layouts over every tile geometry on one GPU, in one call, for choosing the defaults
# of bench/transpose.c (the 95 % of a device copy that issue 22 asks of the swizzled tile at 256 MiB):
#
#   lab/transpose_tune.sh build/smembench tune-out
#
# Steps (TUNE_STEPS picks them, default "geometry order sanitize"; "ncu" is there too, not by default),
# each ending in one line "PASS|FAIL|SKIP  step: what":
#   geometry  the tile sweep at 64 and 256 MiB with every layout (0 [e][e], 1 [e][e + 1], 2 swizzled),
#             edge_elems 32, 64 and 128, width_bytes 4, 8 and 16, block_tiles 1, 2 and 4 (no
#             block of several 128-float tiles), resident_blocks 0 and 3, the naive transpose and
#             the copy each transpose's pct_of_copy is taken against in the same run (the sweep's
#             matmul, register-blocked and cuBLAS points cut to one small point each):
#             OUTDIR/transpose_geometry.json; then the pipeline: depth_tiles 1 to 4 (1 the one-tile
#             kernel, 2-4 the persistent cp.async one) of every layout and edge at 16-byte accesses
#             (48 transposes): OUTDIR/transpose_depth.json
#   order     the block order at 256 MiB: band_tiles 1, 8 and 32 for the padded and swizzled tiles at
#             the 64- and 128-float edges, 8- and 16-byte accesses, and the copy:
#             OUTDIR/transpose_order.json
#   sanitize  compute-sanitizer memcheck and racecheck, smembench --check (one launch each, verified)
#             of every layout, edge, width, block tiles and two block orders at 1 MiB (depth 1), then of depth 2-4
#             at 64 MiB (every layout and edge, 4- and 16-byte accesses): a smaller matrix leaves a
#             wave of persistent blocks a tile or two each, and no slot would be refilled
#             (about 1.5 s a point under racecheck, 36 points): no report, exit 0
#   ncu       tests/scripts/ncu_check.py on the same geometries at 16 MiB: the bank model's passes per
#             shared load and store against Nsight Compute's (OUTDIR/ncu_check.txt)
# Then OUTDIR/summary.txt, a line per point: mib, layout, edge, width, band, depth, block tiles, resident
# blocks, GB/s, % of the
# copy, the model's passes per shared load and store ("-": a pipelined kernel stores by cp.async);
# the best geometry of each layout at 256 MiB; and whether the best swizzled point reaches 95 % of
# the copy. The timed steps take about a minute on an H200, sanitize a few minutes (the 1.5 s a point
# is an estimate: racecheck of the pipelined points has not run yet). Exit status: 0 every step passed, 1 a step failed, 2 bad arguments, 77 no GPU.
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 SMEMBENCH OUTDIR   (SMEMBENCH: a release build's smembench)" >&2
  exit 2
fi
exe=$1
[ -x "$exe" ] || { echo "transpose_tune: $exe is not an executable" >&2; exit 2; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
steps=${TUNE_STEPS:-geometry order sanitize}
fails=0
step() {   # step PASS|FAIL|SKIP NAME TEXT
  printf '%-4s  %s: %s\n' "$1" "$2" "$3" | tee -a "$out/steps.txt"
  [ "$1" = FAIL ] && fails=$((fails + 1))
  return 0
}
wants() { [[ " $steps " == *" $1 "* ]]; }
: >"$out/steps.txt"
"$exe" --version | tee "$out/version.txt"

# the tile sweep's other benchmarks, one small point each: the copy comes with the sweep
few=(--axis n=1024 --axis tile=32 --axis bk=32)
geometry=(--axis mib=64,256 --axis layout=0,1,2 --axis edge_elems=32,64,128 --axis width_bytes=4,8,16 --axis band_tiles=1
          --axis depth_tiles=1 --axis block_tiles=1,2,4 --axis resident_blocks=0,3)
depth=(--axis mib=64,256 --axis layout=0,1,2 --axis edge_elems=32,64 --axis width_bytes=16 --axis band_tiles=1
       --axis depth_tiles=1,2,3,4 --axis block_tiles=1 --axis resident_blocks=0)
order=(--axis mib=256 --axis layout=1,2 --axis edge_elems=64,128 --axis width_bytes=8,16 --axis band_tiles=1,8,32
       --axis depth_tiles=1 --axis block_tiles=1 --axis resident_blocks=0)

timed() {   # timed NAME ARGS...: one smembench run into OUTDIR/transpose_NAME.json
  local name=$1
  shift
  rm -f "$out/transpose_$name.json"
  local t0=$SECONDS
  "$exe" --sweep tile "${few[@]}" "$@" --require-gpu -q -o "$out/transpose_$name.json" >"$out/$name.log" 2>&1
  local rc=$?
  if [ $rc -eq 3 ]; then
    step SKIP "$name" "no GPU"
    exit 77
  fi
  if [ $rc -eq 0 ]; then
    step PASS "$name" "$out/transpose_$name.json in $((SECONDS - t0)) s"
  else
    step FAIL "$name" "smembench exited $rc ($out/$name.log)"
  fi
}
wants geometry && timed geometry "${geometry[@]}"
wants geometry && timed depth "${depth[@]}"
wants order && timed order "${order[@]}"

if wants sanitize; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$san" ]; then
    step SKIP sanitize "no compute-sanitizer"
  else
    for tool in memcheck racecheck; do
      t0=$SECONDS
      timeout 300 "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 "$exe" --bench transpose --check \
        --require-gpu -q -o "$out/check_$tool.json" --axis mib=1 --axis layout=0,1,2 --axis edge_elems=32,64,128 \
        --axis width_bytes=4,8,16 --axis band_tiles=1,4 --axis depth_tiles=1 --axis block_tiles=1,2,4 \
        --axis resident_blocks=0 >"$out/$tool.log" 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        step PASS "$tool" "every layout, edge, width and order at 1, 2 and 4 tiles a block launched and verified, no report, in $((SECONDS - t0)) s"
      else
        step FAIL "$tool" "exit $rc ($out/$tool.log)"
      fi
      t0=$SECONDS
      timeout 600 "$san" --tool "$tool" --error-exitcode 99 --print-limit 20 "$exe" --bench transpose --check \
        --require-gpu -q -o "$out/check_${tool}_depth.json" --axis mib=64 --axis layout=0,1,2 \
        --axis edge_elems=32,64 --axis width_bytes=4,16 --axis depth_tiles=2,3,4 --axis block_tiles=1 \
        --axis resident_blocks=0 >"$out/${tool}_depth.log" 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        step PASS "$tool" "36 pipelined transposes launched and verified, no report, in $((SECONDS - t0)) s"
      else
        step FAIL "$tool" "pipelined: exit $rc ($out/${tool}_depth.log)"
      fi
    done
  fi
fi

if wants ncu; then
  python3 "$here/../tests/scripts/ncu_check.py" "$exe" --sweep tile --keep "$out/ncu" "${few[@]}" --axis mib=16 \
    --axis layout=0,1,2 --axis edge_elems=32,64,128 --axis width_bytes=4,8,16 >"$out/ncu_check.txt" 2>"$out/ncu_check.err"
  rc=$?
  case $rc in
    0) step PASS ncu "$(tail -1 "$out/ncu_check.txt")" ;;
    77) step SKIP ncu "$(tail -1 "$out/ncu_check.txt")" ;;
    *) step FAIL ncu "exit $rc: $(tail -1 "$out/ncu_check.txt") ($out/ncu_check.txt)" ;;
  esac
fi

# the summary: every transpose point of the timed files, the best of each layout at 256 MiB
files=()
for f in "$out/transpose_geometry.json" "$out/transpose_depth.json" "$out/transpose_order.json"; do
  [ -f "$f" ] && files+=("$f")
done
if [ ${#files[@]} -gt 0 ]; then
  python3 - "${files[@]}" >"$out/summary.txt" <<'PY'
import json
import sys

LAYOUTS = {0: "row-major", 1: "padded", 2: "swizzled"}
TARGET = 95.0
best = {}
for path in sys.argv[1:]:
    doc = json.load(open(path))
    print(f"{path}: {doc['device']['name']}, {doc['tool'].get('version')} ({doc['tool'].get('git')}), "
          f"{doc['run']['started']}")
    print(f"{'mib':>4} {'layout':<10} {'edge':>4} {'width':>5} {'band':>4} {'depth':>5} {'tiles':>5} {'res':>3} "
          f"{'GB/s':>8} {'% copy':>7} "
          f"{'ld/st passes':>12}")
    for r in doc["results"]:
        if r["bench"] not in ("copy", "transpose", "transpose_naive"):
            continue
        p, m = r["params"], r.get("metrics") or {}
        val = lambda k: (m.get(k) or {}).get("value")
        gbs, pct = val("gbytes_per_s"), val("pct_of_copy")
        if r["bench"] == "transpose":
            what = (f"{p['mib']:>4} {LAYOUTS.get(p['layout'], p['layout']):<10} {p['edge_elems']:>4} "
                    f"{p['width_bytes']:>5} {p['band_tiles']:>4} {p.get('depth_tiles', 1):>5} {p.get('block_tiles', 1):>5} "
                    f"{p.get('resident_blocks', 0):>3}")
            g = lambda k: "-" if val(k) is None else f"{val(k):g}"
            passes = f"{g('load_wavefronts')}/{g('store_wavefronts')}" if val("load_wavefronts") else "-"
        else:
            what, passes = f"{p['mib']:>4} {r['bench']:<32}", "-"
        if r["status"] != "ok":
            print(f"{what} {r['status']}: {r.get('reason')}")
            continue
        print(f"{what} {gbs:>8.1f} {'-' if pct is None else f'{pct:.1f}':>7} {passes:>12}")
        if r["bench"] == "transpose" and p["mib"] == 256 and pct is not None:
            key = p["layout"]
            if key not in best or pct > best[key][0]:
                best[key] = (pct, gbs, p)
    print()
print("best of each layout at 256 MiB:")
for layout in sorted(best):
    pct, gbs, p = best[layout]
    print(f"  {LAYOUTS.get(layout, layout)}: {pct:.1f} % of the copy ({gbs:.0f} GB/s) at edge_elems {p['edge_elems']}, "
          f"width_bytes {p['width_bytes']}, band_tiles {p['band_tiles']}, depth_tiles {p.get('depth_tiles', 1)}, "
          f"block_tiles {p.get('block_tiles', 1)}, resident_blocks {p.get('resident_blocks', 0)}")
if 2 in best:
    pct = best[2][0]
    print(f"swizzled at 256 MiB: {pct:.1f} % of the copy, {'reaches' if pct >= TARGET else 'misses'} {TARGET:g} %")
PY
  if [ $? -eq 0 ]; then
    step PASS summary "$(tail -1 "$out/summary.txt")"
  else
    step FAIL summary "could not read ${files[*]}"
  fi
  cat "$out/summary.txt"
fi
[ $fails -eq 0 ]
