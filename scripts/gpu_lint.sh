#!/usr/bin/env bash
# `parity lint` and `parity findings verify` on the GPU machine: every finding rerun on the NVIDIA
# WebGPU adapter (recorded; the records come back in $OUT/findings-records.tar.xz: unpack it over
# docs/findings to keep them), lint with a live session on real networks (no false alarms wanted),
# and a --fix verified on real hardware.
#   bash scripts/gpu_lint.sh [CARRY]      # OUT, WORK as in gpu_sweep.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=lint.txt
source "$root/scripts/gpu_env.sh" "${1:-}"

findings=$work/findings
rm -rf "$findings" && cp -r "$root/docs/findings" "$findings"
p findings verify --findings "$findings" -b webgpu --record -q
p lint "$carry/models/ch_PP-OCRv4_det_infer.onnx" -b webgpu --findings "$findings" --input "x=$carry/receipt.png" \
  --resize x=960,960 -q
[ -s "$work/models/resnet50.onnx" ] || PYTHONUNBUFFERED=1 timeout 300 python3 "$root/scripts/gpu_corpus_export.py" \
  --out "$work/models" --models resnet50 > "$work/export.log" 2>&1
p lint "$work/models/resnet50.onnx" -b webgpu --findings "$findings" --range x=0,1 -q
p lint "$work/models/resnet50_dq.onnx" -b webgpu --findings "$findings" --range x=0,1 --fix "$work/resnet50_fixed.onnx" \
  --apply dq-blocked-1d -q
tar -C "$findings" -cJf "$out/findings-records.tar.xz" $(cd "$findings" && ls -d */finding.json)
