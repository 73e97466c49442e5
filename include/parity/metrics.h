// parity/metrics.h: evidence that an output is right or wrong.
//
// Two kinds of numbers: statistics of one tensor (does it look like an image, is it all zeros,
// NaN?) and comparisons of a tensor with a reference (how far, how correlated, same class?).
// Names match the JSON contract in docs/json-schema.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parity/tensor.h"

namespace parity {

// Statistics of one tensor. Non-finite elements are excluded from mean/std/min/max and
// counted in nan_frac/inf_frac instead.
struct TensorStats {
  double mean = 0, std = 0, min = 0, max = 0;
  double zero_frac = 0, nan_frac = 0, inf_frac = 0;
  // Per-channel mean for 4-D NCHW-like tensors (axis 1, up to 64 channels); empty otherwise.
  std::vector<double> channel_mean;
};

TensorStats compute_stats(const Tensor& t);

// Comparison of `actual` with `expected` of the same shape.
struct Comparison {
  double max_abs = 0;   // max |a - e| over elements where both are finite
  double max_rel = 0;   // max |a - e| / max(|e|, tiny) over the same elements
  double mean_abs = 0;
  std::optional<double> cosine;   // absent when either side has zero norm
  std::optional<double> pearson;  // absent when either side is constant
  std::optional<double> psnr;     // dB, for image-like outputs (4-D, 1 or 3 channels); inf if equal
  std::optional<double> top1_agree;  // fraction of rows whose argmax agrees (class scores)
  std::optional<double> top5_agree;  // fraction of rows whose top-5 sets overlap in the argmax
  int64_t nan_mismatch = 0;  // elements where exactly one side is NaN, or Inf of different sign
  int64_t elements_over_tol = 0;  // elements violating |a - e| <= atol + rtol*|e|
  int64_t worst_index = -1;  // flat index of max_abs
};

// Tolerance of one output: |a - e| <= atol + rtol * |e| element-wise (numpy.allclose rule).
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  // Optional extra rules; unset ones are not checked.
  std::optional<double> min_cosine;
  std::optional<double> min_top1_agree;
};

// Default tolerance by dtype: float32 atol 1e-4 rtol 1e-3, float16 atol 1e-2 rtol 1e-2,
// bfloat16 atol 5e-2 rtol 5e-2, float64 atol 1e-7 rtol 1e-5, integers and bool exact.
Tolerance default_tolerance(DType dtype);

// Compares `actual` with `expected` under `tol`. Shapes and dtypes must already match.
Comparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol);

enum class Verdict { match, mismatch };

struct OutputVerdict {
  Verdict verdict = Verdict::match;
  // The first rule that failed, empty on match: "dtype", "shape", "nan", "allclose", "cosine",
  // "top1". `detail` explains it in one line with numbers.
  std::string failed_rule;
  std::string detail;
};

// Applies the rules in order: dtype, shape, nan/inf placement, allclose, optional extras.
OutputVerdict judge(const Tensor& actual, const Tensor& expected, const Comparison& cmp, const Tolerance& tol);

}  // namespace parity
