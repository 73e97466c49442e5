#!/usr/bin/env bash
# The bundled example: PP-OCRv4 text detection on CPU and WebGPU, fed a real image.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/build/bin/parity" probe "$root/third_party/models/ch_PP-OCRv4_det_infer.onnx" \
  --backends cpu,webgpu \
  --input "x=$root/examples/receipt.png" --resize x=320,320 \
  --json "$root/build/demo-probe.json" --html "$root/build/demo-probe.html"
