#!/usr/bin/env bash
# An application builds against an installed Parity with find_package(parity) and runs the guard:
# install the build tree to a scratch prefix, build examples/upscale out of tree against it, make
# a manifest with the installed `parity`, and upscale the repository's image in isolated mode (the
# workers are the installed bin/parity, found beside the installed library).
# Usage: find_package_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
tmp=$(mktemp -d /tmp/parity-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source/examples/upscale" -B "$tmp/app" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/app" >/dev/null
cd "$tmp"
cp "$build/test-models/guard_upscale.onnx" .
"$tmp/prefix/bin/parity" sweep guard_upscale.onnx -b cpu --shape x=1,3,32,32 --range x=0,1 --out sweep \
  --json sweep.json -q >/dev/null
"$tmp/prefix/bin/parity" manifest sweep.json --out caps.toml >/dev/null
printf '\n[checks]\nmean_shift = 0.05\nscale = 2\n' >> caps.toml
XDG_CACHE_HOME="$tmp/cache" "$tmp/app/upscale" caps.toml "$source/examples/receipt.png" out.png --isolated | tee run.txt
grep -q "480x360 -> 960x720 on cpu" run.txt
test -s out.png
test -f "$tmp/prefix/share/parity/parity-guard.mjs"
test -f "$tmp/prefix/include/parity/guard.h"
echo "find_package(parity) example built, linked and ran against $tmp/prefix"
