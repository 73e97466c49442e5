#!/usr/bin/env bash
# Performance on the GPU machine (issue 19): bench/bisect_bench.sh and bench/probe_samples_bench.sh
# and bench/probe_overhead_bench.sh (bare_ort_run carried beside parity) with this build's parity and, when CARRY holds one, parity-before (an earlier build), side by
# side on the NVIDIA WebGPU adapter, so each figure has its baseline from the same machine.
#
#   bash scripts/gpu_perf.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/perf.txt. Environment as gpu_sweep.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=perf.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
export PARITY_ORT_LIB=$ort LD_LIBRARY_PATH="$carry/lib:$work${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'
# The benches want BUILD/bin/parity and BUILD/test-models; third_party/models for the npm corpus.
layout() {  # layout DIR BINARY
  mkdir -p "$1/bin" && cp "$2" "$1/bin/parity" && ln -sfn "$carry/models" "$1/test-models"
  [ -f "$carry/bare_ort_run" ] && ln -sfn "$carry/bare_ort_run" "$1/bin/bare_ort_run"
}
layout "$work/after" "$carry/parity"
[ -f "$carry/parity-before" ] && layout "$work/before" "$carry/parity-before"
mkdir -p "$root/third_party/models" "$root/examples"
for f in ch_PP-OCRv4_det_infer.onnx silero_vad_v5.onnx; do
  [ -e "$root/third_party/models/$f" ] || cp "$carry/models/$f" "$root/third_party/models/"
done
for which in before after; do
  [ -d "$work/$which" ] || continue
  echo "=== bisect_bench $which"
  bash "$root/bench/bisect_bench.sh" "$work/$which" webgpu "${REPEAT:-3}"
  echo "=== probe_samples_bench $which"
  bash "$root/bench/probe_samples_bench.sh" "$work/$which" cpu,webgpu 4 "${REPEAT:-3}"
  echo "=== probe_overhead_bench $which"
  bash "$root/bench/probe_overhead_bench.sh" "$work/$which" webgpu "${REPEAT:-3}" 640
done
