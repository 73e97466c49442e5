#!/usr/bin/env bash
# CUDA and TensorRT on the GPU machine (issue 19): ONNX Runtime 1.29.0's provider libraries
# (scripts/gpu_cuda_pack.sh) beside a copy of the carried 1.30.0 core library, on the CUDA 13 /
# cuDNN 9 libraries of the machine's own Python environment (the nvidia-* wheels beside torch),
# probed and bisected beside cpu and webgpu. Whether 1.29's providers work under 1.30's bridge is
# part of what this measures: Parity reports what happens, a crash included.
#
#   bash scripts/gpu_cuda.sh stage build/cuda0     # each call carries one part, back to back:
#   bash scripts/gpu_cuda.sh stage build/cuda1     # the parts wait in /tmp/cudastage while the
#   bash scripts/gpu_cuda.sh stage build/cuda2     # machine stays warm (30 s between calls)
#   bash scripts/gpu_cuda.sh run build/cuda3       # the last part, then the runs
#
# The run needs build/gpu (scripts/gpu_pack.sh) on the machine; torchvision exports are reused from
# WORK/models (default /tmp/g/models) or made. CUDA_STEPS: a subset of "check probe bisect sweep"
# (default all). Writes $OUT/cuda.txt and a JSON per command.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stage=/tmp/cudastage
mkdir -p "$stage"
case ${1:-} in
  stage | run) cp "$2"/part.* "$2"/*.sha256 "$stage/" 2>/dev/null; ls -la "$stage" ;;
  *) echo "usage: gpu_cuda.sh stage|run DIR" >&2; exit 2 ;;
esac
[ "$1" = stage ] && exit 0
log=cuda.txt
WORK=${WORK:-/tmp/g}
source "$root/scripts/gpu_env.sh" "$root/build/gpu"
lib=$work/providers
if [ ! -s "$lib/libonnxruntime_providers_cuda.so" ]; then
  (cd "$stage" && cat $(ls part.* | sort -t. -k2 -n) > providers.tar.xz && sha256sum -c providers.tar.xz.sha256) ||
    { echo "staged parts incomplete (the machine was given back between calls?)"; exit 1; }
  tar -C "$work" -xJf "$stage/providers.tar.xz"
fi
cp "$ort" "$lib/libonnxruntime.so.1"
# CUDA 13 wheels keep their libraries in site-packages/nvidia/cu13/lib, older ones in nvidia/*/lib.
site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
cudalibs=$(ls -d "$site"/nvidia/*/lib "$site"/nvidia/cu*/lib 2>/dev/null | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$carry/lib${cudalibs:+:$cudalibs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
parity=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" "$work/bin/parity")
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
  echo "provider libraries the loader cannot find:"; ldd "$lib"/libonnxruntime_providers_*.so | grep 'not found' | sort -u
} 2>&1 | sed 's/^/device: /'
cuda="cuda:ort-lib=$lib/libonnxruntime.so.1"
steps=" ${CUDA_STEPS:-check probe bisect sweep} "
case $steps in *" check "*)
  echo "=== parity backends --check --ort-lib $lib/libonnxruntime.so.1"
  timeout 300 "${parity[@]}" backends --check --ort-lib "$lib/libonnxruntime.so.1" --json "$out/cuda-backends.json"
  echo "=== exit $?" ;;
esac
m=$carry/models
# The torchvision exports of scripts/gpu_corpus_export.py (made here when missing): the clean ones run
# on CUDA; the _dq ones carry a planted blocked DequantizeLinear, which CUDA's kernel refuses.
for t in resnet50 swin_t vit_b_16; do
  [ -s "$work/models/$t.onnx" ] || (cd "$work" && PYTHONUNBUFFERED=1 python3 "$root/scripts/gpu_corpus_export.py" \
    --out "$work/models" --models "$t" 2>&1 | tail -n 1)
done
clean_models=$(ls "$work"/models/{resnet50,swin_t,vit_b_16}.onnx 2>/dev/null)
case $steps in *" probe "*)
  # use_tf32=0 beside the default: what CUDA's TF32 costs in agreement, and that Parity judges it so.
  f32="cudaf32=$cuda:use_tf32=0"
  p probe "$m/ch_PP-OCRv4_det_infer.onnx" -b "cpu,webgpu,$cuda,$f32" --input "x=$carry/receipt.png" \
    --resize x=640,640 --samples 4 --json "$out/cuda-probe-det.json"
  p probe "$m/silero_vad_v5.onnx" -b "cpu,$cuda,$f32" --shape input=1,512 --shape state=2,1,128 \
    --range sr=16000,16001 --range state=-0.1,0.1 --samples 4 --json "$out/cuda-probe-vad.json"
  for t in $clean_models; do
    p probe "$t" -b "cpu,webgpu,$cuda,$f32" --range x=0,1 --json "$out/cuda-probe-$(basename "$t" .onnx).json"
  done
  [ -s "$work/models/resnet50_dq.onnx" ] && p probe "$work/models/resnet50_dq.onnx" -b "cpu,$cuda" --range x=0,1 ;;
esac
case $steps in *" bisect "*)
  # cuda as bisect's target on a clean network (the verdict must be "no divergence"), then the cost.
  for t in $clean_models; do
    p bisect "$t" -b "$cuda" --range x=0,1 --json "$out/cuda-bisect-$(basename "$t" .onnx).json"
  done
  echo "=== bisect_bench cuda"
  mkdir -p "$work/after/bin" && cp "$work/bin/parity" "$work/after/bin/parity" && ln -sfn "$m" "$work/after/test-models"
  BISECT_BENCH_TOY=0 BISECT_BENCH_MODELS="$clean_models" PARITY_ORT_LIB=$ort \
    bash "$root/bench/bisect_bench.sh" "$work/after" "$cuda" "${REPEAT:-3}" ;;
esac
case $steps in *" sweep "*)
  rm -rf "$work/cuda-sweep"
  p sweep "$m/sweep_conv.onnx" -b "webgpu,$cuda" --variants fp16 --size x=512,512:1024,1024:2048,2048 \
    --out "$work/cuda-sweep" --json "$out/cuda-sweep.json" ;;
esac
