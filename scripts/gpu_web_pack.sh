#!/usr/bin/env bash
# Packs the browser backends for the GPU machine (issue 19: web-webgpu on a real GPU) in two carries,
# each under the device's 64 MiB: build/stage1 (Debian's chromium-headless-shell, xz) and
# build/stage2 (its resources and shared libraries, and onnxruntime-web's dist). The lent machine
# stays warm ~30 s between calls, so the second call must follow the first at once; scripts/gpu_web.sh
# stages the first and runs with the second.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
s1="$root/build/stage1" s2="$root/build/stage2"
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
rm -rf "$s1" "$s2" && mkdir -p "$s1" "$s2"
(cd "$tmp" && apt-get download chromium-headless-shell >/dev/null 2>&1 && dpkg -x chromium-headless-shell_*.deb x)
shell="$tmp/x/usr/lib/chromium/chromium-headless-shell"
xz -T2 -9 -c "$shell" > "$s1/chromium-headless-shell.xz"
# Beside the binary: its paks, and chromium-common's ICU data and V8 snapshots.
mkdir -p "$tmp/web/chromium" "$tmp/web/lib"
cp "$tmp"/x/usr/lib/chromium/*.pak "$tmp/web/chromium/"
cp /usr/lib/chromium/{icudtl.dat,v8_context_snapshot.bin,snapshot_blob.bin,libvulkan.so.1} "$tmp/web/chromium/"
# Every shared library it needs beyond glibc (the GPU machine's image has few desktop ones), and NSS's
# dlopen-ed modules.
ldd "$shell" | awk '$3 ~ /^\// {print $3}' | grep -vE '/(libc|libm|libgcc_s|libdl|libpthread|librt)\.so' |
  while read -r lib; do cp -L "$lib" "$tmp/web/lib/"; done
cp -L /usr/lib/x86_64-linux-gnu/{libsoftokn3,libfreebl3,libfreeblpriv3,libnssckbi}.so "$tmp/web/lib/"
cp -r "$root/third_party/ort-web-1.30.0" "$tmp/web/ort-web"
tar -C "$tmp/web" -cf - . | xz -T2 -9 > "$s2/web.tar.xz"
du -sh "$s1" "$s2"
