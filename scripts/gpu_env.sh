# scripts/gpu_env.sh: sourced by the GPU-machine scripts (gpu_corpus.sh, gpu_sweep.sh). The lent
# machine has NVIDIA's driver but no Vulkan loader: this unpacks the carried loader/glvnd .debs,
# points Vulkan at NVIDIA's ICD and unpacks the carried ORT 1.30.0 (FIELD_NOTES, "The GPU machine").
# Sourced as `source gpu_env.sh [CARRY]` with root set; carry (default build/gpu, the folder
# scripts/gpu_pack.sh made), out ($OUT, default ./out) and work ($WORK, default /tmp/gpusweep) are
# set unless the caller set them, and with log set, the output is also appended to $out/$log. Sets: ort, parity (an
# array: parity with its own shared libraries; python keeps the system's), and p ARGS: one parity
# command on that ORT, framed and timed out (STEP_TIMEOUT_S, default 240).
carry=$(cd "${carry:-${1:-$root/build/gpu}}" && pwd)
out=${out:-${OUT:-$root/out}}
work=${work:-${WORK:-/tmp/gpusweep}}
mkdir -p "$out" "$work/models"
if [ -n "${log:-}" ]; then exec > >(tee -a "$out/$log") 2>&1; fi
for f in "$carry"/debs/*.deb; do [ -e "$f" ] && dpkg -x "$f" /; done
ldconfig
nv=/usr/local/nvidia/share
if [ -f "$nv/vulkan/icd.d/nvidia_icd.json" ]; then
  export VK_DRIVER_FILES=$nv/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=$nv/glvnd/egl_vendor.d/10_nvidia.json
else
  echo "no NVIDIA Vulkan ICD at $nv: parity's webgpu adapter 'auto' decides"
fi
mkdir -p "$work"
ort=$work/libonnxruntime.so.1
[ -s "$ort" ] || xz -dc "$carry/libonnxruntime.so.1.xz" > "$ort"
# parity looks for its Vulkan layer (vk-mask=, chaos) in ../lib beside its binary: lay them out so.
mkdir -p "$work/bin" "$work/lib"
cp "$carry/parity" "$work/bin/parity"
if [ -f "$carry/layer/libparity_vk_chaos.so" ]; then
  cp "$carry/layer/libparity_vk_chaos.so" "$work/lib/"
  sed "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$work/lib/libparity_vk_chaos.so\"|" \
    "$carry/layer/parity_vk_chaos.json" > "$work/lib/parity_vk_chaos.json"
fi
parity=(env "LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/bin/parity")
p() { echo "=== parity $*"; timeout "${STEP_TIMEOUT_S:-240}" "${parity[@]}" "$@" --ort-lib "$ort"; echo "=== exit $?"; }
