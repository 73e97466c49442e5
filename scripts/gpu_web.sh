#!/usr/bin/env bash
# Browser backends on the GPU machine (issue 19): onnxruntime-web in Chromium's headless shell on the
# NVIDIA Vulkan driver, probed and bisected beside the native WebGPU EP.
#
#   bash scripts/gpu_web.sh stage build/stage1     # first call: keeps the browser in /tmp/stage
#   bash scripts/gpu_web.sh run build/stage2       # the next call, at once (warm machine)
#
# The run needs build/gpu (scripts/gpu_pack.sh) left on the machine by an earlier call, or carried.
# MODELS: extra models to bisect on web-webgpu (e.g. /tmp/g/models/resnet50_dq.onnx from gpu_perf.sh).
# WEB_STEPS: a subset of "probe bisect verify" (default all); verify replays the browser findings
# carried in build/gpu/findings (FINDINGS: their ids, default every web-* one) on web-jsep and
# web-webgpu. Writes $OUT/web.txt and a JSON per command.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stage=/tmp/stage
case ${1:-} in
  stage)
    mkdir -p "$stage" && cp "$2/chromium-headless-shell.xz" "$stage/" && ls -la "$stage"
    exit 0 ;;
  run) ;;
  *) echo "usage: gpu_web.sh stage|run DIR" >&2; exit 2 ;;
esac
log=web.txt
source "$root/scripts/gpu_env.sh" "$root/build/gpu"
if [ ! -s "$stage/chromium-headless-shell.xz" ]; then
  echo "no staged browser in $stage: the machine was not kept warm since the stage call"; exit 1
fi
mkdir -p "$stage/web" && tar -C "$stage/web" -xJf "$2/web.tar.xz"
shell=$stage/web/chromium/chromium-headless-shell
[ -x "$shell" ] || { xz -dc "$stage/chromium-headless-shell.xz" > "$shell" && chmod +x "$shell"; }
export PARITY_CHROMIUM=$shell PARITY_ORT_WEB_DIR=$stage/web/ort-web
export LD_LIBRARY_PATH="$stage/web/lib:$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
parity=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" "$work/bin/parity")
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } 2>&1 | sed 's/^/device: /'
# Chromium's GPU process picks Vulkan only when told; the set from Chrome's headless WebGPU guide.
vk=(--chromium-flag=--use-angle=vulkan --chromium-flag=--enable-features=Vulkan
    --chromium-flag=--disable-vulkan-surface --chromium-flag=--ignore-gpu-blocklist)
STEP_TIMEOUT_S=120 p backends --check
STEP_TIMEOUT_S=120 p backends --check "${vk[@]}"
flags=()
grep -q "web-webgpu usable.*nvidia" "$out/web.txt" && flags=("${vk[@]}")
echo "browser flags: ${flags[*]:-(default)}"
m=$carry/models
steps=" ${WEB_STEPS:-probe bisect verify} "
case $steps in *" verify "*)
  ids=${FINDINGS:-$(cd "$carry/findings" 2>/dev/null && ls -d web-* | paste -sd, -)}
  [ -n "$ids" ] && STEP_TIMEOUT_S=300 p findings verify --findings "$carry/findings" --only "$ids" \
    -b web-jsep,web-webgpu "${flags[@]}" --json "$out/web-findings.json" ;;
esac
case $steps in *" probe "*) ;; *) exit 0 ;; esac
STEP_TIMEOUT_S=240 p probe "$m/ch_PP-OCRv4_det_infer.onnx" -b cpu,webgpu,web-webgpu,web-jsep,web-wasm \
  --input "x=$carry/receipt.png" --resize x=640,640 "${flags[@]}" --json "$out/web-probe-det.json"
STEP_TIMEOUT_S=240 p bisect "$m/webgpu_bug_dq_blocked_1d_multilayer.onnx" -b web-webgpu "${flags[@]}" \
  --json "$out/web-bisect-dq.json"
for model in ${MODELS:-}; do
  [ -s "$model" ] || { echo "missing $model (not kept from an earlier call)"; continue; }
  STEP_TIMEOUT_S=240 p bisect "$model" -b web-webgpu "${flags[@]}" --json "$out/web-bisect-$(basename "$model" .onnx).json"
done
