#!/bin/bash
# Sets up (scripts/setup.sh) and runs smembench with the given arguments, e.g.
#   scripts/run.sh --sweep carveout
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
exec build/smembench "$@"
