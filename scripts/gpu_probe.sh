#!/usr/bin/env bash
# Runs parity on a GPU machine that has NVIDIA's driver but no Vulkan loader or build tools
# (the lent H200). Expects a carry folder made by scripts/gpu_pack.sh: a stripped parity, its
# shared libraries, ORT (xz), the Vulkan/glvnd .debs, and models. Results go to $OUT (or ./out).
set -euo pipefail
carry=${1:-build/gpu}
out=${OUT:-$PWD/out}
mkdir -p "$out" /tmp/parity-gpu
for f in "$carry"/debs/*.deb; do dpkg -x "$f" /; done
ldconfig
xz -dc "$carry/libonnxruntime.so.1.xz" > /tmp/parity-gpu/libonnxruntime.so.1
export LD_LIBRARY_PATH="$PWD/$carry/lib"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
p="$PWD/$carry/parity"
ort=/tmp/parity-gpu/libonnxruntime.so.1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt" || true
"$p" backends --check --ort-lib "$ort" 2>&1 | tee "$out/backends.txt"
for m in webgpu_bug_dq_blocked_1d webgpu_bug_slice_negative_step webgpu_clean_multilayer; do
  "$p" probe "$carry/models/$m.onnx" --backends cpu,webgpu --ort-lib "$ort" --samples 3 -q \
    --json "$out/$m.json" 2>&1 | tee "$out/$m.txt" || true
done
for size in 320,320 960,960; do
  "$p" probe "$carry/models/ch_PP-OCRv4_det_infer.onnx" --backends cpu,webgpu --ort-lib "$ort" -q \
    --input "x=$carry/receipt.png" --resize "x=$size" --json "$out/ppocr_${size/,/x}.json" 2>&1 |
    tee "$out/ppocr_${size/,/x}.txt" || true
done
