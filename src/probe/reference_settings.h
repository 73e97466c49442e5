// probe/reference_settings.h: the ONNX Runtime settings that keep a reference's numbers the
// model's own, and how reports name them.
//
// ORT's CPU EP at opt level "all" rewrites QDQ patterns into integer kernels: DequantizeLinear ->
// MatMul (a weight-only int8 file, as quantize tooling and transformers.js ship) becomes a kernel
// that also quantizes the activation, 0.021 off (cosine 0.999996) on PP-OCRv4 weights, while
// backends that compute the graph as written agree with the unoptimized CPU EP to 1e-6. Such a
// reference turns correct backends into culprits.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"

namespace parity::probe {

// Session config keys set to "1" on a reference (cli::parse_reference_spec): the QDQ fusions
// (session.disable_quant_qdq: QDQ selector-action fusions, QDQ propagation, S8->U8, constant
// folding of DequantizeLinear) and the double-QDQ remover (rescales Q -> DQ -> Q -> DQ chains).
// Nothing else at opt level "all" changes more than float rounding (GeluApproximation, the other
// lossy one, is off unless asked for).
const std::vector<std::string>& lossy_rewrite_keys();

// Adds every key of lossy_rewrite_keys() to spec.session_config.
void turn_lossy_rewrites_off(backend::BackendSpec& spec);

// True when `spec` keeps every lossy rewrite off: each key set to "1", or opt level disabled.
bool lossy_rewrites_off(const backend::BackendSpec& spec);

// "QDQ fusions off: session.disable_quant_qdq=1, ..." when spec sets the keys, else "".
std::string lossy_rewrites_note(const backend::BackendSpec& spec);

}  // namespace parity::probe
