#include "guard/self_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace parity::guard {
namespace {

bool is_float(DType t) {
  return t == DType::float32 || t == DType::float16 || t == DType::bfloat16 || t == DType::float64;
}

// What the checks need of one NCHW tensor, from one pass over it.
struct ImageStats {
  std::vector<double> channel_sums;  // of finite values
  int64_t per_channel = 0;           // elements per channel (N x H x W)
  int64_t non_finite = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  int grid = 0;                       // 0: no zero counting
  std::vector<int64_t> zeros, cells;  // per grid cell, row-major

  double channel_mean(std::size_t c) const {
    return per_channel ? channel_sums[c] / static_cast<double>(per_channel) : 0.0;
  }
  double mean() const {
    double s = 0;
    for (std::size_t c = 0; c < channel_sums.size(); ++c) s += channel_mean(c);
    return channel_sums.empty() ? 0.0 : s / static_cast<double>(channel_sums.size());
  }
};

// One contiguous run of float32 values. Eight independent lanes per quantity, so no chain of
// dependent adds (or compares) sets the pace.
// NaN never wins a comparison, so min/max skip it without a test; infinities are counted as
// non-finite and the sum then is recomputed over the finite values by the caller.
struct SpanStats {
  double sum = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -std::numeric_limits<float>::infinity();
  int64_t non_finite = 0, zeros = 0;
};

// Four-float vectors (SSE2, the x86-64 baseline; GCC and Clang vector extensions), two of each:
// the compiler keeps these in registers, where eight scalar lanes in arrays went to memory.
using F4 = float __attribute__((vector_size(16)));
using I4 = int32_t __attribute__((vector_size(16)));

SpanStats scan_span(const float* p, int64_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  F4 sum[2] = {}, lo[2] = {F4{inf, inf, inf, inf}, F4{inf, inf, inf, inf}}, hi[2] = {-lo[0], -lo[0]};
  I4 bad[2] = {}, zero[2] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 2; ++l) {
      F4 v;
      std::memcpy(&v, p + i + 4 * l, sizeof v);
      sum[l] += v;
      lo[l] = v < lo[l] ? v : lo[l];  // NaN compares false: skipped
      hi[l] = v > hi[l] ? v : hi[l];
      bad[l] += (v - v == 0.0f) + 1;  // -1 where finite (v - v is NaN for NaN and +-Inf)
      zero[l] -= v == 0.0f;           // -1 where zero
    }
  SpanStats st;
  for (; i < n; ++i) {
    const float v = p[i];
    st.sum += v;
    st.lo = v < st.lo ? v : st.lo;
    st.hi = v > st.hi ? v : st.hi;
    st.non_finite += (v - v == 0.0f) ? 0 : 1;
    st.zeros += v == 0.0f ? 1 : 0;
  }
  for (int l = 0; l < 2; ++l)
    for (int k = 0; k < 4; ++k) {
      st.sum += sum[l][k];
      st.lo = std::min(st.lo, lo[l][k]);
      st.hi = std::max(st.hi, hi[l][k]);
      st.non_finite += bad[l][k];
      st.zeros += zero[l][k];
    }
  if (st.non_finite > 0) {  // rare: the sum and the extremes over the finite values only
    st.sum = 0;
    st.lo = std::numeric_limits<float>::infinity(), st.hi = -st.lo;
    for (int64_t k = 0; k < n; ++k)
      if (std::isfinite(p[k])) st.sum += p[k], st.lo = std::min(st.lo, p[k]), st.hi = std::max(st.hi, p[k]);
  }
  return st;
}

// Columns of each grid cell as [start[cx], start[cx + 1]); one cell spanning the row when g is 0.
std::vector<int64_t> cell_columns(int64_t w, int g) {
  const int cells = std::max(1, g);
  std::vector<int64_t> start(static_cast<std::size_t>(cells) + 1);
  for (int cx = 0; cx <= cells; ++cx) start[static_cast<std::size_t>(cx)] = (w * cx + cells - 1) / cells;
  return start;
}

// One pass over an NCHW tensor, row by row and cell by cell. Column x belongs to cell
// floor(x * g / w), whose first column is ceil(cx * w / g): cell_columns' bounds.
ImageStats scan(const Tensor& t, int grid) {
  ImageStats st;
  const Shape& s = t.shape();
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  st.channel_sums.assign(static_cast<std::size_t>(c), 0.0);
  st.per_channel = n * h * w;
  st.grid = grid;
  const int g = std::max(1, grid);
  st.zeros.assign(static_cast<std::size_t>(g * g), 0);
  st.cells = st.zeros;
  const std::vector<int64_t> start = cell_columns(w, grid);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t y = 0; y < h; ++y) {
        const std::size_t row_cell =
            static_cast<std::size_t>(grid > 0 ? y * g / h : 0) * static_cast<std::size_t>(g);
        const std::size_t offset = static_cast<std::size_t>(((b * c + k) * h + y) * w);
        for (int cx = 0; cx < g; ++cx) {
          const int64_t x0 = start[static_cast<std::size_t>(cx)],
                        x1 = start[static_cast<std::size_t>(cx) + 1];
          SpanStats span;
          if (t.dtype() == DType::float32) {
            span = scan_span(t.view<float>().data() + offset + static_cast<std::size_t>(x0), x1 - x0);
          } else {  // other float types (fp16 outputs): element by element
            for (int64_t x = x0; x < x1; ++x) {
              const double v = t.element_as_double(offset + static_cast<std::size_t>(x));
              if (!std::isfinite(v)) {
                ++span.non_finite;
                continue;
              }
              span.sum += v;
              span.lo = std::min(span.lo, static_cast<float>(v));
              span.hi = std::max(span.hi, static_cast<float>(v));
              span.zeros += v == 0.0 ? 1 : 0;
            }
          }
          st.channel_sums[static_cast<std::size_t>(k)] += span.sum;
          st.lo = std::min(st.lo, static_cast<double>(span.lo));
          st.hi = std::max(st.hi, static_cast<double>(span.hi));
          st.non_finite += span.non_finite;
          st.zeros[row_cell + static_cast<std::size_t>(cx)] += span.zeros;
          st.cells[row_cell + static_cast<std::size_t>(cx)] += x1 - x0;
        }
      }
  return st;
}

int64_t count_non_finite(const Tensor& t) {
  int64_t bad = 0;
  if (t.dtype() == DType::float32) {
    for (float v : t.view<float>()) bad += std::isfinite(v) ? 0 : 1;
    return bad;
  }
  const auto n = static_cast<std::size_t>(std::max<int64_t>(0, t.numel()));
  for (std::size_t i = 0; i < n; ++i) bad += std::isfinite(t.element_as_double(i)) ? 0 : 1;
  return bad;
}

CheckResult mean_shift_check(const manifest::Checks& c, const ImageStats& in, const ImageStats& out) {
  CheckResult r{"mean_shift", true, ""};
  const double limit = *c.mean_shift;
  if (c.per_channel && in.channel_sums.size() == out.channel_sums.size()) {
    for (std::size_t k = 0; k < in.channel_sums.size() && r.passed; ++k) {
      const double shift = std::abs(out.channel_mean(k) - in.channel_mean(k));
      if (shift > limit) {
        r.passed = false;
        r.detail = fmt::format("channel {}: mean {:.4g} vs input {:.4g}, shift {:.3g} > {:g}", k,
                               out.channel_mean(k), in.channel_mean(k), shift, limit);
      }
    }
    if (r.passed) r.detail = fmt::format("every channel's mean within {:g} of the input's", limit);
    return r;
  }
  const double shift = std::abs(out.mean() - in.mean());
  r.passed = shift <= limit;
  r.detail = fmt::format("mean {:.4g} vs input {:.4g}: shift {:.3g} {} {:g}", out.mean(), in.mean(), shift,
                         r.passed ? "<=" : ">", limit);
  return r;
}

CheckResult zero_band_check(const manifest::Checks& c, const ImageStats& st) {
  double worst = 0;
  std::size_t worst_cell = 0;
  for (std::size_t k = 0; k < st.cells.size(); ++k) {
    const double f = st.cells[k] ? static_cast<double>(st.zeros[k]) / static_cast<double>(st.cells[k]) : 0.0;
    if (f > worst) worst = f, worst_cell = k;
  }
  const auto g = static_cast<std::size_t>(st.grid);
  return {"zero_fraction", worst <= *c.max_zero_fraction,
          fmt::format("worst grid cell (row {}, col {} of {}x{}) is {:.1f}% zeros, ceiling {:.1f}%",
                      worst_cell / g, worst_cell % g, g, g, 100 * worst, 100 * *c.max_zero_fraction)};
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
  const bool wants_image = c.mean_shift || c.range || c.max_zero_fraction || c.scale;
  const NamedTensor* in = wants_image ? image_tensor(inputs, c.input) : nullptr;
  const NamedTensor* out = wants_image ? image_tensor(outputs, c.output) : nullptr;
  // The image output's pass also counts its NaN/Inf, so `finite` reads it only once.
  std::optional<ImageStats> out_stats;
  if (out) out_stats = scan(out->tensor, c.max_zero_fraction ? std::max(1, c.grid) : 0);
  if (c.finite) {
    CheckResult r{"finite", true, "every float output is finite"};
    for (const NamedTensor& o : outputs) {
      if (!is_float(o.tensor.dtype())) continue;
      const int64_t bad = &o == out ? out_stats->non_finite : count_non_finite(o.tensor);
      if (bad > 0 && r.passed) {
        r.passed = false;
        r.detail = fmt::format("output '{}' has {} NaN/Inf of {} elements", o.name, bad, o.tensor.numel());
      }
    }
    results.push_back(r);
  }
  if (!wants_image) return results;
  if (!out || (!in && (c.mean_shift || c.scale))) {
    const std::string& named = out ? c.input : c.output;
    results.push_back({"image", false,
                       fmt::format("the image checks need an NCHW float {}{}; none found",
                                   out ? "input" : "output", named.empty() ? "" : " named '" + named + "'")});
    return results;
  }
  if (c.scale) {
    const Shape& si = in->tensor.shape();
    const Shape& so = out->tensor.shape();
    const bool ok = so[2] == si[2] * *c.scale && so[3] == si[3] * *c.scale;
    results.push_back(
        {"scale", ok,
         fmt::format("output {}x{} for input {}x{} (x{} expected)", so[2], so[3], si[2], si[3], *c.scale)});
  }
  if (c.mean_shift) results.push_back(mean_shift_check(c, scan(in->tensor, 0), *out_stats));
  if (c.range) {
    const auto [rlo, rhi] = *c.range;
    const ImageStats& st = *out_stats;
    const bool ok = out->tensor.numel() == st.non_finite || (st.lo >= rlo && st.hi <= rhi);
    results.push_back(
        {"range", ok,
         fmt::format("values in [{:.4g}, {:.4g}], allowed [{:g}, {:g}]", st.lo, st.hi, rlo, rhi)});
  }
  if (c.max_zero_fraction) results.push_back(zero_band_check(c, *out_stats));
  return results;
}

const CheckResult* first_failure(const std::vector<CheckResult>& results) {
  for (const CheckResult& r : results)
    if (!r.passed) return &r;
  return nullptr;
}

}  // namespace parity::guard
