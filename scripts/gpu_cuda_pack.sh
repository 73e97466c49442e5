#!/usr/bin/env bash
# Packs the CUDA and TensorRT provider libraries of npm com.github.asus4.onnxruntime.linux-x64-gpu
# @0.4.9 (ORT 1.29.0, CUDA 13, 230 MB) for the GPU machine (issue 19), where scripts/gpu_cuda.sh
# lays them beside ORT 1.30.0's core library: the npm 1.30 build has CUDA and TensorRT built in
# (its provider bridge), the 1.29 core of com.github.asus4.onnxruntime does not ("CUDA execution
# provider is not enabled in this build"). One call carries 64 MiB, so the tar.xz (~165 MB) is cut
# into parts: build/cuda0 is small enough to travel beside build/gpu, build/cuda1.. fill a call each.
#
#   bash scripts/gpu_cuda_pack.sh        # then scripts/gpu_cuda.sh stage/run, one call per part
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 >/dev/null && tar xzf ./*.tgz)
mkdir -p "$tmp/providers"
cp "$tmp"/package/Plugins/Linux/x64/libonnxruntime_providers_*.so "$tmp/providers/"
rm -rf "$root"/build/cuda[0-9]
mkdir -p "$root/build/cuda0"
tar -C "$tmp" -cf - providers | xz -T2 -6 > "$tmp/providers.tar.xz"
(cd "$tmp" && sha256sum providers.tar.xz) > "$root/build/cuda0/providers.tar.xz.sha256"
# Part 0: 12 MiB (beside build/gpu's ~45 MB); the rest: 56 MiB a call.
head -c $((12 << 20)) "$tmp/providers.tar.xz" > "$root/build/cuda0/part.0"
tail -c +$(((12 << 20) + 1)) "$tmp/providers.tar.xz" | split -b $((56 << 20)) -d -a 1 - "$tmp/rest."
i=1
for f in "$tmp"/rest.*; do
  mkdir -p "$root/build/cuda$i" && mv "$f" "$root/build/cuda$i/part.$i"
  i=$((i + 1))
done
du -sh "$root"/build/cuda[0-9]
