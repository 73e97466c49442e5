#include "probe/precision.h"

namespace parity::probe {

std::string precision_from_name(const std::string& name) {
  for (const char* p : {"fp32", "fp16", "bf16", "int8", "uint8", "quint8", "qint8", "int4", "uint4", "q4"})
    if (name.rfind(p, 0) == 0) return p;
  return "";
}

std::optional<double> variant_drift_cosine(const std::string& precision) {
  // Calibrated on the GPU machine (docs/sweep.md): fp16 variants that are right stay above
  // 0.99999 (ResNet-50 0.999991, PP-OCRv4 det on cpu 0.999992), a wrong one falls to 0.97-0.99.
  if (precision == "fp16" || precision == "tf32") return 0.9999;
  if (precision == "bf16") return 0.999;
  return std::nullopt;
}

std::optional<DType> judging_dtype(const std::string& precision) {
  if (precision == "fp32") return DType::float32;
  if (precision == "fp16" || precision == "tf32") return DType::float16;
  if (precision == "bf16") return DType::bfloat16;
  for (const char* q : {"int8", "uint8", "quint8", "qint8", "int4", "uint4", "q4"})
    if (precision == q) return DType::bfloat16;
  return std::nullopt;
}

std::string_view judged_arithmetic(const backend::BackendSpec& reference,
                                   const backend::BackendSpec& target) {
  const std::string_view own = backend::reduced_arithmetic(target);
  return own.empty() ? backend::reduced_arithmetic(reference) : own;
}

Tolerance default_tolerance_in(DType dtype, std::string_view arithmetic) {
  Tolerance own = default_tolerance(dtype);
  if (arithmetic.empty() || !dtype_is_float(dtype)) return own;
  const std::string precision(arithmetic);
  if (auto as = judging_dtype(precision)) {
    const Tolerance computed = default_tolerance(*as);
    if (computed.scale_rtol > own.scale_rtol) own = computed;
  }
  own.drift_cosine = variant_drift_cosine(precision);
  return own;
}

std::string arithmetic_note(std::string_view arithmetic) {
  if (arithmetic != "tf32") return {};
  return "judged at TF32 precision (float16's rule; cosine >= 0.9999 passes as precision drift): the "
         "CUDA EP rounds matmul and convolution inputs to 10 mantissa bits by default; "
         "cuda:use_tf32=0 computes in float32 and is judged by float32's rule";
}

}  // namespace parity::probe
