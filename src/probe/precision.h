// probe/precision.h: how the outputs of a model file of a given precision are judged: the
// element type whose default tolerance applies, the cosine floor of a variant and the drift budget
// of a precision the reference backend cannot compute natively. Shared by sweep (its cells) and the
// guard runtime (its preflight), so a backend is judged the same way in both.
#pragma once

#include <optional>
#include <string>

#include "parity/dtype.h"

namespace parity::probe {

// The cosine every float output of a variant must keep against the fp32 model (sweep::run_cell).
inline constexpr double kVariantMinCosine = 0.99;

// The precision-drift budget of a variant whose reference backend cannot compute its precision
// natively (fp16, bf16 on the CPU EP): nullopt for others (fp32, quantized: the CPU runs those).
std::optional<double> variant_drift_cosine(const std::string& precision);

// The precision a variant name implies ("fp16_v2" -> fp16), or "" when it implies none.
std::string precision_from_name(const std::string& name);
// The element type whose default tolerance judges a variant of `precision`: fp32 -> float32,
// fp16 -> float16, bf16 -> bfloat16; quantized ones (int8, uint8, int4, q4) -> bfloat16, since
// their weights carry about 1% error by construction. nullopt for an unknown precision.
std::optional<DType> judging_dtype(const std::string& precision);

}  // namespace parity::probe
