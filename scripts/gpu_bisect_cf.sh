#!/usr/bin/env bash
# Bisect through control flow on the GPU machine: Silero VAD v5 (its network inside a top-level If)
# on the NVIDIA WebGPU adapter, then verify the repro there.
#   bash scripts/gpu_bisect_cf.sh [CARRY]      # OUT, WORK as in gpu_sweep.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=bisect_cf.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
vad=(--shape input=1,512 --shape state=2,1,128 --range sr=16000,16001 --range state=-0.1,0.1)
p probe "$carry/models/silero_vad_v5.onnx" -b webgpu "${vad[@]}" -q
p bisect "$carry/models/silero_vad_v5.onnx" --backend webgpu "${vad[@]}" --out "$work/vad_repro" -q
p verify "$work/vad_repro" -q
