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
// Every entry gets its own label (labels name rows and files): an entry written without LABEL=
// whose label an earlier one holds becomes LABEL-2, LABEL-3, ... ("cpu,cpu:opt=disabled" gives
// rows cpu and cpu-2); an explicit LABEL= that is taken is refused.
Result<std::vector<backend::BackendSpec>> parse_backend_list(const std::string& text,
                                                             const backend::BackendSpec& defaults);

// --reference: parse_backend_spec, then reference_settings(): the one place every verb (probe,
// bisect, sweep, hunt, lint, chaos; accept and manifest verify through the sweep's manifest) gets
// the settings that keep ORT's lossy rewrites off the reference.
Result<backend::BackendSpec> parse_reference_spec(const std::string& text,
                                                  const backend::BackendSpec& defaults);

// Turns off the graph rewrites of ONNX Runtime that change a QDQ model's numbers rather than only
// its speed: the QDQ fusions (session.disable_quant_qdq=1: DequantizeLinear -> MatMul becomes an
// integer kernel that quantizes the activation, max_abs 0.02 on a weight-only int8 MatMul) and the
// double-QDQ remover (session.disable_double_qdq_remover=1: rescales Q -> DQ -> Q -> DQ chains). A
// no-op for models without QuantizeLinear/DequantizeLinear. A spec whose text sets opt= or either
// key itself is the user's explicit choice and left as written (probe then weighs the reference's
// optimizer when a row mismatches). The keys: probe/reference_settings.h.
void reference_settings(backend::BackendSpec& spec, const std::string& text);

// --backends with --reference: parse_backend_list, then a backend written without LABEL= that
// takes the reference's label with other settings is relabelled apart (--reference
// cpu:opt=disabled --backends cpu,webgpu gives rows cpu (ref) and cpu-2); one identical to the
// reference is the reference's row. An explicit LABEL= equal to the reference's with other
// settings is refused.
// `reference_text` is the --reference spec as written.
Result<std::vector<backend::BackendSpec>> parse_backends_beside(const std::string& text,
                                                                const std::string& reference_text,
                                                                const backend::BackendSpec& defaults);

}  // namespace parity::cli
