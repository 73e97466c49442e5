// probe/precision.h: how the outputs of a model file of a given precision are judged: the
// element type whose default tolerance applies, the cosine floor of a variant and the drift budget
// of a precision the reference backend cannot compute natively. Shared by sweep (its cells) and the
// guard runtime (its preflight), so a backend is judged the same way in both.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "backend/backend.h"
#include "parity/dtype.h"
#include "parity/metrics.h"

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

// A backend's reduced arithmetic (backend::reduced_arithmetic: "tf32") is judged like a variant of
// that precision: fp16's rule and drift budget for tf32, whose mantissa is fp16's. The arithmetic
// of a comparison is the target's, else the reference's ("" when both compute in float32).
std::string_view judged_arithmetic(const backend::BackendSpec& reference, const backend::BackendSpec& target);
// The default tolerance of `dtype` for a comparison in `arithmetic` ("" = default_tolerance):
// looser only, and only for float outputs.
Tolerance default_tolerance_in(DType dtype, std::string_view arithmetic);
// The note a report carries when a comparison was judged in reduced arithmetic, "" for none.
std::string arithmetic_note(std::string_view arithmetic);

}  // namespace parity::probe
