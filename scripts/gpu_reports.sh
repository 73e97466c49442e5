#!/usr/bin/env bash
# The reports of issue 18 on the GPU machine: every report kind written from real networks on the
# NVIDIA WebGPU adapter (PP-OCRv4 det, Silero VAD v5), as HTML and Markdown, for docs/reports.md.
# The pages are self-contained, so they are photographed back on the CPU machine
# (PARITY_SCREENSHOT_HTML=page.html PARITY_SCREENSHOT_DIR=docs/img build/bin/parity_report_tests
#  --gtest_filter=ReportHtml.ScreenshotOfAGivenPage).
#
#   bash scripts/gpu_reports.sh [CARRY]        # on the device; CARRY from scripts/gpu_pack.sh
#
# Writes $OUT/reports.txt (every command's output, timed) and $OUT/reports.tar.xz (the pages, the
# Markdown and its attachments). STEPS="probe sweep ..." runs only those (default: all).
# Environment as gpu_sweep.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=reports.txt
source "$root/scripts/gpu_env.sh" "${1:-}"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'
pages="$out/reports"
mkdir -p "$pages"
cd "$work"
cp "$carry"/models/ch_PP-OCRv4_det_infer.onnx "$carry"/models/silero_vad_v5.onnx "$carry/receipt.png" .
vad=(--shape input=1,512 --shape state=2,1,128 --range sr=16000,16001 --range state=-0.1,0.1)
t() {  # t NAME ARGS...: one parity command, timed, with --html/--markdown into $pages
  local name=$1; shift
  case " ${STEPS:-probe sweep bisect lint chaos} " in *" ${name%%-*} "*) ;; *) return ;; esac
  local t0=$(date +%s%N)
  echo "=== $name: parity $*"
  timeout "${STEP_TIMEOUT_S:-300}" "${parity[@]}" "$@" --html "$pages/$name.html" --markdown "$pages/$name.md"
  echo "=== $name: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
t probe-ppocr-det probe ch_PP-OCRv4_det_infer.onnx -b cpu,webgpu --input x=receipt.png --resize x=640,640 \
  --ort-lib "$ort" -q
t sweep-ppocr-det sweep ch_PP-OCRv4_det_infer.onnx -b cpu,webgpu --opt-levels all,disabled --input x=receipt.png \
  --size x=320,320:640,640:960,960 --out sweep-det --resume --ort-lib "$ort" -q
t bisect-silero-vad bisect silero_vad_v5.onnx --backend webgpu "${vad[@]}" --out vad_repro --ort-lib "$ort" -q
t lint-silero-vad lint silero_vad_v5.onnx -b cpu,webgpu "${vad[@]}" --ort-lib "$ort" -q
# The detector, not the VAD: ORT's WebGPU EP computes Silero's 1-D Conv wrong with no fault at all
# (docs/bisect.md), so every VAD row would be wrong-output before any fault fires.
t chaos-ppocr-det chaos ch_PP-OCRv4_det_infer.onnx --backend webgpu --input x=receipt.png --resize x=320,320 \
  --ort-lib "$ort" -q
ls -la "$pages"
tar -C "$out" -cJf "$out/reports.tar.xz" reports && rm -rf "$pages"  # one file: the pages link many
