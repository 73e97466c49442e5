#!/usr/bin/env bash
# Performance on the GPU machine (issue 19): bench/bisect_bench.sh and bench/probe_samples_bench.sh
# and bench/probe_overhead_bench.sh (bare_ort_run carried beside parity) with this build's parity and, when CARRY holds one, parity-before (an earlier build), side by
# side on the NVIDIA WebGPU adapter, so each figure has its baseline from the same machine.
#
#   bash scripts/gpu_perf.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/perf.txt (and $OUT/bisect-json/, each bisect row's JSON with its `runs` timeline).
# Environment as gpu_sweep.sh, plus STEPS (a subset of "bisect samples overhead"), BUILDS (a subset
# of "before after") and TORCH_MODELS (torchvision models exported by scripts/gpu_corpus_export.py
# with a planted blocked-DQ bug and added to the bisect rows, default "resnet50 vit_b_16 swin_t"; "" for none;
# exports are reused from WORK/models on a warm machine).
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
steps=" ${STEPS:-bisect samples overhead} "
BISECT_BENCH_MODELS=""
for m in ${TORCH_MODELS-resnet50 vit_b_16 swin_t}; do
  if [ ! -s "$work/models/${m}_dq.onnx" ]; then
    echo "=== exporting $m"
    PYTHONUNBUFFERED=1 python3 "$root/scripts/gpu_corpus_export.py" --out "$work/models" --models "$m" 2>&1 | tail -n 3
  fi
  [ -s "$work/models/${m}_dq.onnx" ] && BISECT_BENCH_MODELS="$BISECT_BENCH_MODELS $work/models/${m}_dq.onnx"
done
export BISECT_BENCH_MODELS
for which in ${BUILDS:-before after}; do
  [ -d "$work/$which" ] || continue
  case $steps in *" bisect "*)
    echo "=== bisect_bench $which"
    BISECT_BENCH_JSON=$out/bisect-json/$which bash "$root/bench/bisect_bench.sh" "$work/$which" webgpu "${REPEAT:-3}" ;;
  esac
  case $steps in *" samples "*)
    echo "=== probe_samples_bench $which"
    bash "$root/bench/probe_samples_bench.sh" "$work/$which" cpu,webgpu 4 "${REPEAT:-3}" ;;
  esac
  case $steps in *" overhead "*)
    echo "=== probe_overhead_bench $which"
    bash "$root/bench/probe_overhead_bench.sh" "$work/$which" webgpu "${REPEAT:-3}" 640 ;;
  esac
done
