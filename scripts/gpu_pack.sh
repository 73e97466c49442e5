#!/usr/bin/env bash
# Packs what scripts/gpu_*.sh need on a GPU machine into build/gpu (git-ignored; carry it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dst="$root/build/gpu"
rm -rf "$dst" && mkdir -p "$dst/lib" "$dst/models" "$dst/debs"
strip -o "$dst/parity" "$root/build/bin/parity"
# Every shared library parity needs beyond glibc, as resolved here.
ldd "$root/build/bin/parity" | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libgcc_s|libz)\.so' |
  while read -r lib; do cp -L "$lib" "$dst/lib/"; done
xz -T2 -3 -c "$root/third_party/ort-1.30.0/lib/libonnxruntime.so.1" > "$dst/libonnxruntime.so.1.xz"
cp "$root"/build/test-models/webgpu_*.onnx "$root/third_party/models/ch_PP-OCRv4_det_infer.onnx" "$dst/models/"
cp "$root"/build/test-models/{sweep_conv,guard_upscale,guard_upscale_int8}.onnx "$root/third_party/models/silero_vad_v5.onnx" "$dst/models/"
cp "$root/examples/receipt.png" "$dst/"
[ -x "$root/build/bin/bare_ort_run" ] && strip -o "$dst/bare_ort_run" "$root/build/bin/bare_ort_run"  # bench baseline
# Parity's Vulkan layer, for vk-mask= and chaos (scripts/gpu_env.sh rewrites its library path).
mkdir -p "$dst/layer" && cp "$root"/build/lib/libparity_vk_chaos.so "$root"/build/lib/parity_vk_chaos.json "$dst/layer/"
(cd "$dst/debs" && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
du -sh "$dst"
