#include "guard/self_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace parity::guard {
namespace {

bool is_float(DType t) {
  return t == DType::float32 || t == DType::float16 || t == DType::bfloat16 || t == DType::float64;
}

// Calls fn(i, value) for every element, reading float32 buffers in place.
template <class Fn>
void for_each_value(const Tensor& t, Fn&& fn) {
  if (t.dtype() == DType::float32) {
    const auto v = t.view<float>();
    for (std::size_t i = 0; i < v.size(); ++i) fn(i, static_cast<double>(v[i]));
    return;
  }
  const auto n = static_cast<std::size_t>(std::max<int64_t>(0, t.numel()));
  for (std::size_t i = 0; i < n; ++i) fn(i, t.element_as_double(i));
}

// Per-channel means of an NCHW tensor (N folded in).
std::vector<double> channel_means(const Tensor& t) {
  const Shape& s = t.shape();
  const int64_t c = s[1], plane = s[2] * s[3];
  std::vector<double> sums(static_cast<std::size_t>(c), 0.0);
  for_each_value(t, [&](std::size_t i, double v) {
    if (std::isfinite(v)) sums[static_cast<std::size_t>((static_cast<int64_t>(i) / plane) % c)] += v;
  });
  const double count = static_cast<double>(t.numel() / std::max<int64_t>(1, c));
  for (double& m : sums) m /= std::max(1.0, count);
  return sums;
}

double mean_of(const std::vector<double>& means) {
  double s = 0;
  for (double m : means) s += m;
  return means.empty() ? 0.0 : s / static_cast<double>(means.size());
}

CheckResult mean_shift_check(const manifest::Checks& c, const Tensor& in, const Tensor& out) {
  CheckResult r{"mean_shift", true, ""};
  const auto in_means = channel_means(in), out_means = channel_means(out);
  const double limit = *c.mean_shift;
  if (c.per_channel && in_means.size() == out_means.size()) {
    for (std::size_t k = 0; k < in_means.size(); ++k) {
      const double shift = std::abs(out_means[k] - in_means[k]);
      if (shift > limit && r.passed) {
        r.passed = false;
        r.detail = fmt::format("channel {}: mean {:.4g} vs input {:.4g}, shift {:.3g} > {:g}", k,
                               out_means[k], in_means[k], shift, limit);
      }
    }
    if (r.passed) r.detail = fmt::format("every channel's mean within {:g} of the input's", limit);
    return r;
  }
  const double shift = std::abs(mean_of(out_means) - mean_of(in_means));
  r.passed = shift <= limit;
  r.detail = fmt::format("mean {:.4g} vs input {:.4g}: shift {:.3g} {} {:g}", mean_of(out_means),
                         mean_of(in_means), shift, r.passed ? "<=" : ">", limit);
  return r;
}

// Range and zero band share one pass over the output.
void output_pass(const manifest::Checks& c, const Tensor& out, std::vector<CheckResult>& results) {
  const Shape& s = out.shape();
  const int64_t h = s[2], w = s[3], plane = h * w;
  const int g = std::max(1, c.grid);
  std::vector<int64_t> zeros(static_cast<std::size_t>(g * g), 0), cells(static_cast<std::size_t>(g * g), 0);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for_each_value(out, [&](std::size_t i, double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (!c.max_zero_fraction) return;
    const int64_t p = static_cast<int64_t>(i) % plane;
    const int64_t y = p / w, x = p % w;
    const auto cell =
        static_cast<std::size_t>((y * g / std::max<int64_t>(1, h)) * g + x * g / std::max<int64_t>(1, w));
    ++cells[cell];
    if (v == 0.0) ++zeros[cell];
  });
  if (c.range) {
    const auto [rlo, rhi] = *c.range;
    const bool ok = out.numel() == 0 || (lo >= rlo && hi <= rhi);
    results.push_back(
        {"range", ok, fmt::format("values in [{:.4g}, {:.4g}], allowed [{:g}, {:g}]", lo, hi, rlo, rhi)});
  }
  if (c.max_zero_fraction) {
    double worst = 0;
    std::size_t worst_cell = 0;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      const double f = cells[k] ? static_cast<double>(zeros[k]) / static_cast<double>(cells[k]) : 0.0;
      if (f > worst) worst = f, worst_cell = k;
    }
    const bool ok = worst <= *c.max_zero_fraction;
    results.push_back(
        {"zero_fraction", ok,
         fmt::format("worst grid cell (row {}, col {} of {}x{}) is {:.1f}% zeros, ceiling {:.1f}%",
                     worst_cell / g, worst_cell % g, g, g, 100 * worst, 100 * *c.max_zero_fraction)});
  }
}

}  // namespace

const NamedTensor* image_tensor(const std::vector<NamedTensor>& tensors, const std::string& name) {
  for (const NamedTensor& t : tensors)
    if ((name.empty() || t.name == name) && t.tensor.shape().size() == 4 && is_float(t.tensor.dtype()))
      return &t;
  return nullptr;
}

std::vector<CheckResult> run_checks(const manifest::Checks& c, const std::vector<NamedTensor>& inputs,
                                    const std::vector<NamedTensor>& outputs) {
  std::vector<CheckResult> results;
  if (c.finite) {
    CheckResult r{"finite", true, "every float output is finite"};
    for (const NamedTensor& o : outputs) {
      if (!is_float(o.tensor.dtype())) continue;
      int64_t bad = 0;
      for_each_value(o.tensor, [&](std::size_t, double v) { bad += std::isfinite(v) ? 0 : 1; });
      if (bad > 0 && r.passed) {
        r.passed = false;
        r.detail = fmt::format("output '{}' has {} NaN/Inf of {} elements", o.name, bad, o.tensor.numel());
      }
    }
    results.push_back(r);
  }
  const bool wants_image = c.mean_shift || c.range || c.max_zero_fraction || c.scale;
  if (!wants_image) return results;
  const NamedTensor* in = image_tensor(inputs, c.input);
  const NamedTensor* out = image_tensor(outputs, c.output);
  if (!out || (!in && (c.mean_shift || c.scale))) {
    results.push_back(
        {"image", false,
         fmt::format(
             "the image checks need an NCHW float {}{}; none found", out ? "input" : "output",
             (out ? c.input : c.output).empty() ? "" : " named '" + (out ? c.input : c.output) + "'")});
    return results;
  }
  if (c.scale && in) {
    const Shape& si = in->tensor.shape();
    const Shape& so = out->tensor.shape();
    const bool ok = so[2] == si[2] * *c.scale && so[3] == si[3] * *c.scale;
    results.push_back(
        {"scale", ok,
         fmt::format("output {}x{} for input {}x{} (x{} expected)", so[2], so[3], si[2], si[3], *c.scale)});
  }
  if (c.mean_shift && in) results.push_back(mean_shift_check(c, in->tensor, out->tensor));
  output_pass(c, out->tensor, results);
  return results;
}

const CheckResult* first_failure(const std::vector<CheckResult>& results) {
  for (const CheckResult& r : results)
    if (!r.passed) return &r;
  return nullptr;
}

}  // namespace parity::guard
