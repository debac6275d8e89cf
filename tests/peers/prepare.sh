#!/usr/bin/env bash
# Run on the build machine (network, apt): fetches nvbench into nvbench-src/ and unpacks the headers
# its build needs, fmt and nlohmann-json (Debian's libfmt-dev, nlohmann-json3-dev), into .deps/, so
# both can be carried to an offline GPU host. fmt is used header-only: nothing of it is linked.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
"$here/fetch-nvbench.sh"

deps=$here/.deps
tmp=$(mktemp -d)
chmod 755 "$tmp"   # apt-get download hands the file to its _apt user
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download libfmt-dev nlohmann-json3-dev >/dev/null)
rm -rf "$deps"
mkdir -p "$deps"
for deb in "$tmp"/*.deb; do
    dpkg -x "$deb" "$deps"
done
# the headers are all the build uses; the rest (docs, cmake files) only adds to what is carried
find "$deps" -mindepth 1 -maxdepth 1 ! -name usr -exec rm -rf {} +
find "$deps/usr" -mindepth 1 -maxdepth 1 ! -name include -exec rm -rf {} +
test -f "$deps/usr/include/fmt/format.h" && test -f "$deps/usr/include/nlohmann/json.hpp"
echo "prepare: nvbench in $here/nvbench-src, headers in $deps ($(du -sh "$here/nvbench-src" "$deps" | awk '{print $1}' | paste -sd+) carried)"
