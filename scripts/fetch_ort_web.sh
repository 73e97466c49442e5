#!/usr/bin/env bash
# Fetches one onnxruntime-web version from the npm registry into third_party/ort-web-VERSION/
# (git-ignored), keeping only what Parity's browser backends load: the three ES-module bundles
# (wasm, JSEP WebGPU, native WebGPU EP) with their .wasm binaries and the .mjs glue some releases
# load beside them (1.22's wasm bundle does), package.json and the licence.
#   scripts/fetch_ort_web.sh 1.30.0            # the pinned default (bootstrap fetches it)
#   scripts/fetch_ort_web.sh 1.22.0            # then: --ort-web-version 1.22.0, or web-wasm:ort-web=1.22.0
# Idempotent: an already fetched version is only checked.
set -euo pipefail
version=${1:?usage: fetch_ort_web.sh VERSION [DEST_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${2:-$root/third_party/ort-web-$version}
[ -f "$dest/.fetched" ] && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch_ort_web: fetching onnxruntime-web@$version"
(cd "$tmp" && npm pack --silent "onnxruntime-web@$version" >/dev/null && mkdir x && tar xzf ./*.tgz -C x)
src="$tmp/x/package"
rm -rf "$dest"
mkdir -p "$dest/dist"
cp "$src/package.json" "$dest/"
cp "$src"/LICENSE* "$dest/" 2>/dev/null || true
kept=0
for f in ort.wasm.bundle.min.mjs ort.bundle.min.mjs ort.webgpu.bundle.min.mjs \
         ort-wasm-simd-threaded.wasm ort-wasm-simd-threaded.jsep.wasm ort-wasm-simd-threaded.asyncify.wasm \
         ort-wasm-simd-threaded.mjs ort-wasm-simd-threaded.jsep.mjs ort-wasm-simd-threaded.asyncify.mjs; do
  if [ -f "$src/dist/$f" ]; then cp "$src/dist/$f" "$dest/dist/"; kept=$((kept + 1)); fi
done
if [ "$kept" -eq 0 ]; then
  echo "fetch_ort_web: onnxruntime-web@$version has none of the ES-module bundles Parity loads" >&2
  exit 1
fi
touch "$dest/.fetched"
echo "fetch_ort_web: ok ($dest, $kept files)"
