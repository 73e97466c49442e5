// cli/backend_args.h: backend specs as users write them, shared by every verb.
//
//   [LABEL=]EP[:KEY=VALUE]...
//   cpu                       the CPU EP of the default ONNX Runtime
//   webgpu:opt=basic          WebGPU EP at graph optimization level "basic"
//   webgpu:fallback=off       fail session creation if any node would fall back to CPU
//   ort129=cpu:ort-lib=/path/libonnxruntime.so.1   a second ORT build, side by side
//   cuda:device_id=1          any other KEY=VALUE is an EP provider option
//   cpu:so.session.x=1        so.KEY=VALUE is a session config entry
// Keys: opt (all|extended|basic|disabled), fallback (on|off), ort-lib, adapter (webgpu:
// auto|system|swiftshader|ICD.json), threads (intra-op), nodes (on|off: profile placement).
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
