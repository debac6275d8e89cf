#!/usr/bin/env bash
# smembench and nvbench on the same kernels, the same GPU, the same noise target: builds what is not
# built (smembench release and, from tests/peers/nvbench-src, nvbench and smem_nvbench), then runs
# each benchmark with both tools in turn, timing each process, and writes the table
# (side_by_side.py). Run from the repository root on the GPU host, after `source .devdeps/env.sh`:
#   bash tests/peers/side_by_side.sh OUT
# Device 0 of those CUDA_VISIBLE_DEVICES leaves visible. PEERS_GPU_ARCH (default 90), PEERS_TIMEOUT
# (seconds per point, default 5) and PEERS_MAX_NOISE (percent, default 0.5) change the setup.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
peers=$root/tests/peers
out=$(mkdir -p "$1" && cd "$1" && pwd)
arch=${PEERS_GPU_ARCH:-90}
timeout=${PEERS_TIMEOUT:-5}
noise=${PEERS_MAX_NOISE:-0.5}
smem_build=$peers/build/smembench
peer_build=$peers/build/peers
log=$out/build.log

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
echo "side_by_side: logs in $out" >&2

if [ ! -f "$peers/nvbench-src/nvbench/nvbench.cuh" ]; then
    echo "side_by_side: no tests/peers/nvbench-src: run tests/peers/prepare.sh (or fetch-nvbench.sh) first" >&2
    exit 2
fi

t0=$(now)
# smembench as released: the default release build of this architecture, no test suite
if [ ! -f "$smem_build/build.ninja" ]; then
    meson setup "$smem_build" "$root" -Dcuda=enabled -Dgpu_arch="$arch" -Dtests=disabled >>"$log" 2>&1
fi
ninja -C "$smem_build" smembench >>"$log" 2>&1
if [ ! -f "$peer_build/build.ninja" ]; then
    meson setup "$peer_build" "$peers" -Dsmembench_build="$smem_build" -Dgpu_arch="$arch" >>"$log" 2>&1
fi
ninja -C "$peer_build" smem_nvbench >>"$log" 2>&1
echo "side_by_side: built in $(since "$t0") s" >&2

smem=$smem_build/smembench
nvb=$peer_build/smem_nvbench

# the same points for both: smem_nvbench's axes default to these (smem_nvbench.cu)
declare -A smem_axes=(
    [bandwidth]="--axis width_bytes=4,8,16"
    [bank]="--axis width_bytes=4 --axis stride_elems=1,2,4,8,16,32"
    [latency]="--axis chain_slots=1024 --axis index_chase=0,1"
    [dynamic]="--axis dyn_smem_bytes=0,48K,100K,227K --axis mib=256"
)

printf 'tool\tbench\tseconds\texit\n' >"$out/walltimes.tsv"
"$smem" --version >"$out/versions.txt" 2>&1 || true
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv >>"$out/versions.txt" 2>&1 || true

for bench in bandwidth bank latency dynamic; do
    # smembench first, then nvbench, benchmark by benchmark: both see the GPU in the same state
    t0=$(now)
    rc=0
    # shellcheck disable=SC2086 # the axes are separate words
    "$smem" --bench "$bench" ${smem_axes[$bench]} --device 0 --max-noise "$noise" --timeout "$timeout" \
        -o "$out/smembench_$bench.json" --force >"$out/smembench_$bench.log" 2>&1 || rc=$?
    printf 'smembench\t%s\t%s\t%s\n' "$bench" "$(since "$t0")" "$rc" >>"$out/walltimes.tsv"

    t0=$(now)
    rc=0
    "$nvb" --benchmark "$bench" --devices 0 --max-noise "$noise" --timeout "$timeout" \
        --json "$out/nvbench_$bench.json" --csv "$out/nvbench_$bench.csv" >"$out/nvbench_$bench.log" 2>&1 || rc=$?
    printf 'nvbench\t%s\t%s\t%s\n' "$bench" "$(since "$t0")" "$rc" >>"$out/walltimes.tsv"
    echo "side_by_side: $bench done" >&2
done

python3 "$peers/side_by_side.py" "$out" --title "smembench and nvbench side by side, $(date -u +%Y-%m-%d)"
