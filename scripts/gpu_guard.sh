#!/usr/bin/env bash
# The guard runtime on the GPU machine (issue 17): the whole application path of docs/guard.md on
# the NVIDIA WebGPU adapter. For the bundled x2 upscaler (fp32 + its blocked-DQ int8 export) and
# the PP-OCRv4 text detector at 640x640: `parity sweep` cpu,webgpu -> `parity manifest` -> the
# application's [checks] -> `parity accept` on receipt.png, in process and --isolated.
#
#   bash scripts/gpu_guard.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/guard.txt (every command's output, timed), $OUT/guard-json.tar.xz (sweeps,
# manifests, acceptance reports) and the detector's probe page. Environment as gpu_sweep.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=guard.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
export PARITY_ORT_LIB=$ort  # what an empty runtime.ort_lib means to the guard
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'
mkdir -p "$work/json"
t() {  # t NAME ARGS...: one parity command, timed
  local name=$1; shift
  local t0=$(date +%s%N)
  echo "=== $name: parity $*"
  timeout "${STEP_TIMEOUT_S:-240}" "${parity[@]}" "$@"
  echo "=== $name: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
checks() {  # checks FILE LINES...: the application's output checks, appended to a manifest
  local f=$1; shift
  printf '\n[checks]\n' >> "$f"
  printf '%s\n' "$@" >> "$f"
}

cd "$work"
cp "$carry"/models/guard_upscale.onnx "$carry"/models/guard_upscale_int8.onnx "$carry/receipt.png" .
t up_sweep sweep guard_upscale.onnx --variants int8=guard_upscale_int8.onnx -b cpu,webgpu \
  --shape x=1,3,64,64 --range x=0,1 --ort-lib "$ort" -q --out up_sweep --json json/up_sweep.json
t up_manifest manifest json/up_sweep.json --out up_caps.toml
checks up_caps.toml "mean_shift = 0.05" "per_channel = true" "scale = 2"
t up_check manifest check up_caps.toml
t up_accept accept up_caps.toml --sample x=receipt.png --expect-scale 2 --keep-brightness 0.05 \
  --min-sharpness 0.3 --no-cache --json json/up_accept.json
t up_accept_isolated accept up_caps.toml --sample x=receipt.png --expect-scale 2 --keep-brightness 0.05 \
  --isolated --no-cache --json json/up_accept_isolated.json
det=$carry/models/ch_PP-OCRv4_det_infer.onnx
t det_io probe "$det" -b cpu --input x=receipt.png --resize x=640,640 --ort-lib "$ort" -q --save-io det_io
t det_sweep sweep "$det" -b cpu,webgpu --input x=receipt.png --resize x=640,640 --ort-lib "$ort" -q \
  --out det_sweep --json json/det_sweep.json
t det_manifest manifest json/det_sweep.json --out det_caps.toml
checks det_caps.toml "range = [0.0, 1.0]"
t det_accept accept det_caps.toml --sample x=det_io/test_data_set_0/input_0.pb --no-cache \
  --json json/det_accept.json
t det_accept_isolated accept det_caps.toml --sample x=det_io/test_data_set_0/input_0.pb --isolated \
  --no-cache --json json/det_accept_isolated.json
cp ./*.toml json/ 2>/dev/null
tar -C "$work" -cJf "$out/guard-json.tar.xz" json
# The probe page of the detector on the NVIDIA adapter (docs/probe.md shows SwiftShader's).
t det_html probe "$det" -b cpu,webgpu --input x=receipt.png --resize x=640,640 --ort-lib "$ort" -q \
  --html "$out/probe-ppocr-det-nvidia.html"
