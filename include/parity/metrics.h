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

// One pass over `t` in double precision. mean/std/min/max (and each channel_mean) are NaN when
// there is no finite element to average, so an all-NaN output never reads as a black image;
// fractions are 0 for an empty tensor. std is the population standard deviation (divide by n).
// Non-numeric tensors (string, complex) give default stats.
TensorStats compute_stats(const Tensor& t);

// Why `reference` cannot show that another backend's output is right, or "" when it can: a float
// tensor that holds NaN, is all zeros, or holds one value in every element (two or more). A broken
// backend returning zeros, or the same constant, would match it, so a match proves nothing.
// `stats` are compute_stats(reference). Integer and bool tensors are never uninformative here:
// constant shapes, masks and indices are routine outputs.
std::string uninformative_reason(const Tensor& reference, const TensorStats& stats);

// Relative errors are measured against max(|e|, kMaxRelFloor): below 1e-6 in magnitude a
// reference element is noise for float32 outputs (absolute error is what atol judges there), and
// a tiny floor like 1e-12 turns every exact 0 in the reference into a 1e8-sized max_rel.
inline constexpr double kMaxRelFloor = 1e-6;

// Image-like: 4-D with 1 or 3 channels on axis 1 (NCHW). These outputs get psnr.
bool is_image_like(const Shape& shape);

// Width of the class axis when a tensor of this dtype and shape holds class scores, else 0:
// a float tensor of rank >= 2 whose last dimension is in [2, 100000], except image-like shapes
// (their last axis is a pixel row). Rows are all leading dimensions flattened: [N, C] gives N
// rows, [1, T, V] gives T per-token rows. These outputs get top1_agree (and top5_agree when C > 5).
int64_t class_score_width(DType dtype, const Shape& shape);

// Comparison of `actual` with `expected` of the same shape.
struct Comparison {
  double max_abs = 0;  // max |a - e| over elements where both are finite
  double max_rel = 0;  // max |a - e| / max(|e|, tiny) over the same elements
  double mean_abs = 0;
  std::optional<double> cosine;      // absent when either side has zero norm or < 2 finite pairs
  std::optional<double> pearson;     // absent when either side is constant
  std::optional<double> psnr;        // dB, for image-like outputs (4-D, 1 or 3 channels); inf if equal
  std::optional<double> top1_agree;  // fraction of rows whose argmax agrees (class scores)
  std::optional<double> top5_agree;  // fraction of rows whose top-5 sets overlap in the argmax
  int64_t nan_mismatch = 0;          // elements where exactly one side is NaN, or Inf of different sign
  int64_t elements_over_tol = 0;     // elements violating |a - e| <= bound_abs + rtol*|e|
  int64_t worst_index = -1;          // flat index of max_abs
  // The scale of the reference: its largest finite magnitude (0 when it has none).
  double ref_max_abs = 0;
  // The absolute part of the bound in force: max(atol, scale_rtol * ref_max_abs, noise_abs). Recorded so that
  // every report can show the bound a tensor was judged by.
  double bound_abs = 0;
  // Elements where both sides are finite: the population of max_abs..psnr (0 when shapes differ
  // in element count, where nothing is compared).
  int64_t finite_pairs = 0;
  // The largest share of its bound any finite pair uses, max |a - e| / (bound_abs + rtol*|e|):
  // above 1 is a mismatch, and 1 / bound_used is the headroom a match had (docs/bisect.md's
  // margins). Absent where values are compared exactly (integers, bool, strings); 0 when equal.
  std::optional<double> bound_used;
};

// Tolerance of one output, element-wise: |a - e| <= max(atol, scale_rtol * max|ref|) + rtol * |e|.
// With scale_rtol 0 this is numpy.allclose. The scale term is why the default holds on real
// networks: floating-point error of a sum grows with the magnitude of its terms, not of its result,
// so an element near zero in a tensor whose values reach 50 carries error ~50 * eps * sqrt(terms).
// A fixed atol calls that a mismatch deep in a network (docs/probe.md, "How outputs are judged").
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  // Optional extra rules; unset ones are not checked.
  std::optional<double> min_cosine;
  std::optional<double> min_top1_agree;
  // Fraction of the reference's largest finite magnitude that the absolute floor grows to
  // (0 = off; integers and bool always compare exactly).
  double scale_rtol = 0;
  // A measured noise floor (0 = none): the absolute floor grows to it too. probe --noise-from sets
  // it to kNoiseMargin times the max_abs between the reference and a second implementation that
  // should be right as well (cpu at opt disabled, web-wasm): differences inside that spread are
  // not evidence against the target.
  double noise_abs = 0;
  // A precision-drift budget (unset = off): an output that fails only the element-wise rule still
  // matches when its cosine to the reference is at least this. For a reduced-precision variant
  // whose measured spread understates its arithmetic (the CPU EP runs an fp16 file mostly in fp32
  // through inserted Casts; a GPU adds in fp16): ResNet-50 fp16 on WebGPU drifts to cosine
  // 0.999991 and is right, PP-OCRv4 det fp16 there is wrong in whole regions at cosine 0.969.
  std::optional<double> drift_cosine = std::nullopt;
};

// How far past the measured spread of two correct implementations a difference may go.
inline constexpr double kNoiseMargin = 2;

// Default tolerance by dtype: float32 atol 1e-4 rtol 1e-3 scale_rtol 1e-4, float16 atol 1e-2
// rtol 1e-2 scale_rtol 2e-3, bfloat16 atol 5e-2 rtol 5e-2 scale_rtol 1e-2, float64 atol 1e-7
// rtol 1e-5 scale_rtol 1e-9, integers and bool exact. The scale terms were calibrated on real
// networks (docs/probe.md lists the measurements).
Tolerance default_tolerance(DType dtype);

// The tolerance the user asked for with --atol/--rtol: exactly that numpy rule, no scale term.
Tolerance fixed_tolerance(double atol, double rtol);

// One line naming the rule, for reports: "atol 1e-4 + rtol 1e-3*|ref|", with the scale term
// ("max(atol 1e-4, 1e-4*max|ref| = 0.0051) + rtol 0.001*|ref|") when it is on and `cmp` is given.
std::string describe_tolerance(const Tolerance& tol, const Comparison* cmp = nullptr);

// Compares `actual` with `expected` under `tol`. Shapes and dtypes must already match.
// Contract details (one pass, double precision, no tensor-sized temporaries):
// - Differing dtypes are still compared by value (float16 output vs float32 reference); judge()
//   reports the dtype rule. Differing element counts compare nothing (finite_pairs == 0).
// - NaN == NaN and Inf == Inf of the same sign count as equal; every other non-finite pairing is
//   a nan_mismatch and also counts in elements_over_tol.
// - Integer outputs of the same dtype under atol == rtol == 0 (the default) compare their bits,
//   so int64 values beyond 2^53 are still exact; a nonzero tolerance uses the numpy rule.
// - worst_index is the first element reaching max_abs; -1 when no finite pair differs (except
//   bit-exact integers differing below double resolution: then the first differing element).
// - cosine/pearson run over the finite pairs; pearson is absent when either side is constant, and
//   cosine when there are fewer than 2 pairs (one element's cosine is +-1 whatever its error).
// - psnr = 10*log10(range^2 / mse) with range 1.0 when every finite reference value lies in
//   [0, 1], else the reference's max - min; absent when that range is 0.
// - top1_agree: fraction of rows (see class_score_width) whose argmax agrees; top5_agree: fraction
//   of rows whose reference argmax is among the actual's top 5. NaN ranks highest, as in
//   numpy.argmax; ties go to the lower index.
// - String tensors count differing elements in elements_over_tol.
Comparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol);

enum class Verdict { match, mismatch };

struct OutputVerdict {
  Verdict verdict = Verdict::match;
  // The first rule that failed, empty on match: "dtype", "shape", "nan", "allclose", "cosine",
  // "top1". `detail` explains it in one line with numbers.
  std::string failed_rule;
  std::string detail;  // on a match: why a difference was accepted (precision drift), else empty
};

// Applies the rules in order: dtype, shape, nan/inf placement, allclose, optional extras.
OutputVerdict judge(const Tensor& actual, const Tensor& expected, const Comparison& cmp,
                    const Tolerance& tol);

// The whole check of one output, shared by every verb: compares when dtype and shape agree, then
// judges. `actual` may be null (the backend returned no such output): mismatch, rule "missing".
// `recurrent_state`: the output is state fed back as an input (an LSTM's hn): its argmax means
// nothing, so it gets no top-1/top-5 agreement and a top-1 rule treats it as no class scores.
struct Evaluation {
  std::optional<Comparison> comparison;  // absent when the tensors cannot be compared
  OutputVerdict verdict;
};
Evaluation evaluate_output(const NamedTensor* actual, const NamedTensor& expected, const Tolerance& tol,
                           bool recurrent_state = false);

}  // namespace parity
