#!/usr/bin/env bash
# `parity sweep` on the GPU machine (issue 14's real-GPU cases): a precision ladder on the NVIDIA
# adapter (PP-OCRv4 det fp32 vs a generated fp16, which SwiftShader cannot run: no shader-f16),
# the same for torchvision ResNet-50 (exported here by scripts/gpu_corpus_export.py), and a WebGPU
# size search with the driver's maxStorageBufferRange masked to 128 MiB through Parity's Vulkan
# layer (vk-mask=). Measured 2026-12-06: no cliff up to 8192x8192, since ORT 1.30's WebGPU EP binds
# large buffers in segments (docs/sweep.md).
#
#   bash scripts/gpu_sweep.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/summary.txt (every sweep's table) and $OUT/sweep-json.tar.xz (the JSON reports).
# Environment: OUT (default ./out), WORK (default /tmp/gpusweep), STEP_TIMEOUT_S (default 240).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=summary.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'

step() {  # step NAME ARGS...: one parity sweep, timed, its table into the summary
  local name=$1; shift
  local t0=$(date +%s%N)
  echo "=== $name: parity sweep $*"
  timeout "${STEP_TIMEOUT_S:-240}" "${parity[@]}" sweep "$@" --ort-lib "$ort" -q --out "$work/$name" \
    --json "$work/json/$name.json"
  echo "=== $name: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

det=$carry/models/ch_PP-OCRv4_det_infer.onnx
step det_ladder "$det" --variants fp16 -b cpu,webgpu --opt-levels all,basic \
  --input "x=$carry/receipt.png" --resize x=960,960
step webgpu_cliff "$carry/models/sweep_conv.onnx" -b capped=webgpu:vk-mask=maxStorageBufferRange=128M \
  --size-search x=512,512 --size-step 32 --size-max 8192
if [ ! -s "$work/models/resnet50.onnx" ]; then
  PYTHONUNBUFFERED=1 timeout 300 python3 "$root/scripts/gpu_corpus_export.py" --out "$work/models" \
    --models resnet50 > "$work/export.log" 2>&1 || { echo "export failed:"; tail -5 "$work/export.log"; }
fi
[ -s "$work/models/resnet50.onnx" ] &&
  step resnet50_ladder "$work/models/resnet50.onnx" --variants fp16 -b cpu,webgpu --opt-levels all,basic \
    --range x=0,1
tar -C "$work" -cJf "$out/sweep-json.tar.xz" json
