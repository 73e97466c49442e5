#!/usr/bin/env bash
# bench/probe_samples_bench.sh: what `parity probe --samples N` costs against N probes of one
# sample each (N worker starts and N session creations per backend, which is what --samples cost
# before the samples shared one session). A ratio near 1/N means the session creation dominated and
# is now paid once. Each figure is the median of REPEAT runs.
#
#   bench/probe_samples_bench.sh [BUILD_DIR] [BACKENDS] [N] [REPEAT]   default: build cpu,webgpu 4 3
#
# Model: PP-OCRv4 det (npm corpus) at 160x160 from examples/receipt.png.
set -euo pipefail
build=${1:-build}
backends=${2:-cpu,webgpu}
n=${3:-4}
repeat=${4:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
parity=$build/bin/parity
model=$root/third_party/models/ch_PP-OCRv4_det_infer.onnx
input=(--input "x=$root/examples/receipt.png" --resize x=160,160)

source "$(dirname "$0")/timing.sh"

together() {  # one probe of N samples
  "$parity" probe "$model" -b "$backends" "${input[@]}" --samples "$n" -q >/dev/null 2>&1 || true
}
apart() {  # N probes of one sample each (different seeds, as --samples draws)
  for s in $(seq "$n"); do "$parity" probe "$model" -b "$backends" "${input[@]}" --seed "$s" -q >/dev/null 2>&1 || true; done
}

t_together=$(timed together)
t_apart=$(timed apart)
printf '%-40s %10s %10s %8s\n' "probe PP-OCRv4 det 160x160 on $backends" "--samples" "apart" "ratio"
printf '%-40s %8s ms %7s ms %8.2f\n' "N=$n, median of $repeat" "$t_together" "$t_apart" \
  "$(ratio "$t_together" "$t_apart")"
