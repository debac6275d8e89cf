#!/usr/bin/env bash
# Clones NVIDIA's nvbench, pinned, into tests/peers/nvbench-src/ (git-ignored): third-party source
# never enters this repository. NVBENCH_GIT overrides the origin (a local mirror on an offline host).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
url=${NVBENCH_GIT:-https://github.com/NVIDIA/nvbench.git}
# the newest commit checked against Debian bookworm's fmt 9.1 and nlohmann-json 3.11 (see README.md)
commit=${NVBENCH_COMMIT:-66212f1da71cc9afb2894a46fa8f234cbdd6c0d8}
dest=$here/nvbench-src

if [ -d "$dest/.git" ] && [ "$(git -C "$dest" rev-parse HEAD)" = "$commit" ]; then
    echo "fetch-nvbench: $dest is at $commit already"
    exit 0
fi
rm -rf "$dest"
git init -q "$dest"
git -C "$dest" fetch -q --depth 1 "$url" "$commit" 2>/dev/null || git -C "$dest" fetch -q "$url"
git -C "$dest" -c advice.detachedHead=false checkout -q "$commit"
echo "fetch-nvbench: $url at $commit in $dest"
