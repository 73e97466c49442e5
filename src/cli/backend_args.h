// cli/backend_args.h: backend specs as users write them, shared by every verb.
//
//   [LABEL=]EP[:KEY=VALUE]...
//   cpu                       the CPU EP of the default ONNX Runtime
//   webgpu:opt=basic          WebGPU EP at graph optimization level "basic"
//   webgpu:fallback=off       fail session creation if any node would fall back to CPU
//   ort129=cpu:ort-lib=/path/libonnxruntime.so.1   a second ORT build, side by side
//   cuda:device_id=1          any other KEY=VALUE is an EP provider option
//   cpu:so.session.x=1        so.KEY=VALUE is a session config entry
//   web-webgpu:layout=NHWC    onnxruntime-web's native WebGPU EP in headless Chromium
//   old=web-jsep:ort-web=1.22.0   another onnxruntime-web release (scripts/fetch_ort_web.sh), side by side
// Keys: opt (all|extended|basic|disabled), fallback (on|off), threads (intra-op; web-wasm: wasm
// threads), nodes (on|off: count placement), so.KEY. Native only: ort-lib, adapter (webgpu:
// auto|system|swiftshader|ICD.json). Browser only: ort-web (VERSION or DIR), layout (NCHW|NHWC,
// the WebGPU paths' preferredLayout), log (verbose|info|warning|error), check (on|off: refuse fp16
// models on adapters without shader-f16). Any other key is an EP option (web: a field of the
// executionProviders entry).
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "parity/result.h"

namespace parity::cli {

// Parses one spec; `defaults` carries the run-wide flags (--ort-lib, --opt-level, ...).
Result<backend::BackendSpec> parse_backend_spec(const std::string& text,
                                                const backend::BackendSpec& defaults);
// Parses a comma-separated list. Commas inside a spec are not allowed (use ':' between keys).
Result<std::vector<backend::BackendSpec>> parse_backend_list(const std::string& text,
                                                             const backend::BackendSpec& defaults);

}  // namespace parity::cli
