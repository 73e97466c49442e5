#!/usr/bin/env bash
# Follow-up of gpu_sweep.sh on the GPU machine: why a generated fp16 variant fails on the NVIDIA
# WebGPU adapter. Bisects PP-OCRv4 det fp16 (webgpu vs cpu, both on the fp16 file), probes
# ResNet-50 fp16 with its metrics, checks that Parity's Vulkan layer is active there (a 1 MiB
# maxStorageBufferRange must leave no adapter) and tries a heap-size cliff.
#   bash scripts/gpu_fp16_check.sh [CARRY]      # OUT, WORK as in gpu_sweep.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=fp16_check.txt
source "$root/scripts/gpu_env.sh" "${1:-}"

# The fp16 files, generated the way the sweep does.
det=$carry/models/ch_PP-OCRv4_det_infer.onnx
p sweep "$det" --variants fp16 -b webgpu --write-plan "$work/det_plan/plan.json" -q
[ -s "$work/models/resnet50.onnx" ] || PYTHONUNBUFFERED=1 timeout 300 python3 "$root/scripts/gpu_corpus_export.py" \
  --out "$work/models" --models resnet50 > "$work/export.log" 2>&1
p sweep "$work/models/resnet50.onnx" --variants fp16 -b webgpu --write-plan "$work/rn_plan/plan.json" -q
det16=$work/det_plan/variants/ch_PP-OCRv4_det_infer.fp16.onnx
rn16=$work/rn_plan/variants/resnet50.fp16.onnx

p probe "$rn16" -b webgpu --range x=0,1 --json "$work/rn16_probe.json" -q
p probe "$det16" -b webgpu --input "x=$carry/receipt.png" --resize x=960,960 -q
p bisect "$det16" --backend webgpu --input "x=$carry/receipt.png" --resize x=960,960 --out "$work/det16_bisect" \
  --json "$work/det16_bisect.json" -q
p probe "$carry/models/sweep_conv.onnx" -b masked=webgpu:vk-mask=maxStorageBufferRange=1M --shape x=1,3,64,64 -q
p sweep "$carry/models/sweep_conv.onnx" -b heap=webgpu:vk-mask=heapSize=2G --size-search x=2048,2048 \
  --size-step 64 --size-max 8192 --out "$work/heap_cliff" --json "$work/heap_cliff.json" -q
cp "$work/det16_bisect/README.md" "$out/det16_bisect_README.md" 2>/dev/null
tar -C "$work" -cJf "$out/fp16-json.tar.xz" rn16_probe.json det16_bisect.json heap_cliff.json 2>/dev/null
