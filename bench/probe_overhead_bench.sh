#!/usr/bin/env bash
# bench/probe_overhead_bench.sh: what `parity probe` costs over running the model bare. The bare
# side is build/bin/bare_ort_run (ONNX Runtime's own C++ API, one session, one run) once per
# backend, on the same inputs (written by probe --save-io) and the same ORT; the probe side is
# `parity probe -b cpu,EP` with those inputs: isolated workers, the protocol, the comparison (the
# two backends at once by default; --one-at-a-time in turn, as the bare side).
# Goal (issue 19): ratio <= 1.10. Each figure is the median of REPEAT whole-process runs, the three
# sides taking turns (bench/timing.sh, alternate) so the machine's drift falls on each alike.
#
#   bench/probe_overhead_bench.sh [BUILD_DIR] [EP] [REPEAT] [SIZE]   default: build webgpu 3 320
#
# Model: PP-OCRv4 det (npm corpus) at SIZExSIZE from examples/receipt.png. Without a GPU the
# WebGPU EP runs on SwiftShader, as parity's adapter 'auto' picks it.
set -euo pipefail
build=${1:-build}
ep=${2:-webgpu}
repeat=${3:-3}
size=${4:-320}
root=$(cd "$(dirname "$0")/.." && pwd)
parity=$build/bin/parity
bare=$build/bin/bare_ort_run
model=$root/third_party/models/ch_PP-OCRv4_det_infer.onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
icd=/usr/lib/chromium/vk_swiftshader_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
fi

"$parity" probe "$model" -b cpu --input "x=$root/examples/receipt.png" --resize "x=$size,$size" \
  --save-io "$tmp/io" -q >/dev/null
input=$tmp/io/test_data_set_0/input_0.pb

source "$(dirname "$0")/timing.sh"
# TMPDIR: ORT's telemetry leaves a mat-debug-PID.log in the temp directory of every process that
# loads it (parity's own workers get theirs removed with their scratch folder).
bare_both() {
  TMPDIR=$tmp "$bare" "$model" cpu "$input" && TMPDIR=$tmp "$bare" "$model" "$ep" "$input"
}

probe_counting() { "$parity" probe "$model" -b "cpu,$ep" --input "x=$input" -q; }
probe_nocount() { "$parity" probe "$model" -b "cpu,$ep" --input "x=$input" -q --no-count-nodes; }
# The backends in turn, as the bare side runs them (builds before --one-at-a-time did so anyway).
serial=()
"$parity" probe --help 2>/dev/null | grep -q -- --one-at-a-time && serial=(--one-at-a-time)
probe_serial() { "$parity" probe "$model" -b "cpu,$ep" --input "x=$input" -q "${serial[@]}"; }
bare_both >/dev/null 2>&1 || true  # warm the page cache and the driver's shader cache for every side
read -r t_bare t_probe t_probe_nocount t_probe_serial < <(alternate bare_both probe_counting probe_nocount probe_serial)
printf '%-44s %9s %9s %7s\n' "PP-OCRv4 det ${size}x${size}, cpu + $ep" bare_ms probe_ms ratio
printf '%-44s %9s %9s %7.2f\n' "probe (counts nodes: one profiled run)" "$t_bare" "$t_probe" \
  "$(ratio "$t_probe" "$t_bare")"
printf '%-44s %9s %9s %7.2f\n' "probe --no-count-nodes" "$t_bare" "$t_probe_nocount" \
  "$(ratio "$t_probe_nocount" "$t_bare")"
printf '%-44s %9s %9s %7.2f\n' "probe --one-at-a-time" "$t_bare" "$t_probe_serial" \
  "$(ratio "$t_probe_serial" "$t_bare")"
