#include "parity/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace parity {
namespace {

// Elements are widened to double a chunk at a time: the dtype switch runs once per chunk, the
// inner loops stay branch-light, and two chunks of doubles (16 KiB) sit in L1 instead of a
// tensor-sized temporary.
constexpr std::size_t kChunk = 1024;
constexpr int64_t kMaxStatChannels = 64;  // channel_mean is reported up to this many channels
constexpr int64_t kMaxClassWidth = 100000;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T, class Convert>
void load_span(const std::byte* __restrict p, std::size_t n, double* __restrict out, Convert convert) {
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    out[i] = convert(v);
  }
}

// Full chunks get a constant trip count and no aliasing: that is what GCC's -O2 vectoriser (the
// "very cheap" cost model) needs to widen float32 four at a time.
template <class T, class Convert>
void load_as(const std::byte* p, std::size_t n, double* out, Convert convert) {
  if (n == kChunk) {
    load_span<T>(p, kChunk, out, convert);
  } else {
    load_span<T>(p, n, out, convert);
  }
}

// Decodes elements [begin, begin + n) of a numeric tensor into `out`.
void load_chunk(const Tensor& t, std::size_t begin, std::size_t n, double* out) {
  const std::byte* p = t.bytes().data() + begin * dtype_size(t.dtype());
  auto same = [](auto v) { return static_cast<double>(v); };
  switch (t.dtype()) {
    case DType::float32: return load_as<float>(p, n, out, same);
    case DType::float64: return load_as<double>(p, n, out, same);
    case DType::float16:
      return load_as<uint16_t>(p, n, out, [](uint16_t v) { return double{half_to_float(v)}; });
    case DType::bfloat16:
      return load_as<uint16_t>(p, n, out, [](uint16_t v) { return double{bfloat16_to_float(v)}; });
    case DType::uint8:
    case DType::uint4: return load_as<uint8_t>(p, n, out, same);
    case DType::int8:
    case DType::int4: return load_as<int8_t>(p, n, out, same);
    case DType::boolean: return load_as<uint8_t>(p, n, out, [](uint8_t v) { return v != 0 ? 1.0 : 0.0; });
    case DType::uint16: return load_as<uint16_t>(p, n, out, same);
    case DType::int16: return load_as<int16_t>(p, n, out, same);
    case DType::int32: return load_as<int32_t>(p, n, out, same);
    case DType::int64: return load_as<int64_t>(p, n, out, same);
    case DType::uint32: return load_as<uint32_t>(p, n, out, same);
    case DType::uint64: return load_as<uint64_t>(p, n, out, same);
    case DType::float8e4m3fn:
      return load_as<uint8_t>(p, n, out, [](uint8_t v) { return float8_to_double(v, DType::float8e4m3fn); });
    case DType::float8e4m3fnuz:
      return load_as<uint8_t>(p, n, out,
                              [](uint8_t v) { return float8_to_double(v, DType::float8e4m3fnuz); });
    case DType::float8e5m2:
      return load_as<uint8_t>(p, n, out, [](uint8_t v) { return float8_to_double(v, DType::float8e5m2); });
    case DType::float8e5m2fnuz:
      return load_as<uint8_t>(p, n, out,
                              [](uint8_t v) { return float8_to_double(v, DType::float8e5m2fnuz); });
    default: std::fill_n(out, n, 0.0); return;  // callers only pass numeric tensors
  }
}

// Number of elements the byte buffer really holds: guards against a shape/byte mismatch in a
// hand-built Tensor reading out of bounds.
std::size_t element_count(const Tensor& t) {
  if (t.dtype() == DType::string) return t.strings().size();
  const std::size_t size = dtype_size(t.dtype());
  return size == 0 ? 0 : t.byte_size() / size;
}

double element_at(const Tensor& t, std::size_t i) {
  double v = 0;
  load_chunk(t, i, 1, &v);
  return v;
}

// Means, sums of squared deviations (m2) and co-deviation (c_xy) of a group of values. Chunks
// are merged with Chan et al.'s pairwise formula, so a large common offset does not cancel.
struct Moments {
  double n = 0, mean_x = 0, mean_y = 0, m2_x = 0, m2_y = 0, c_xy = 0;

  // A chunk of m values from sums of deviations from one of its own elements (the shift):
  // s1 = sum(x - shift), s2 = sum((x - shift)^2), sxy = sum((x - sx)(y - sy)). Because the shift
  // is a member, s2 - s1^2/m loses at most about m ulps of the result (s2 <= (m + 1) * m2), and a
  // constant chunk gives exactly 0: this is how pearson tells "constant" from "nearly constant".
  static Moments from_shifted(double m, double shift_x, double s1_x, double s2_x, double shift_y = 0,
                              double s1_y = 0, double s2_y = 0, double s_xy = 0) {
    Moments c;
    if (m == 0) return c;
    c.n = m;
    c.mean_x = shift_x + s1_x / m;
    c.mean_y = shift_y + s1_y / m;
    c.m2_x = std::max(0.0, s2_x - s1_x * s1_x / m);
    c.m2_y = std::max(0.0, s2_y - s1_y * s1_y / m);
    c.c_xy = s_xy - s1_x * s1_y / m;
    return c;
  }

  void merge(const Moments& o) {
    if (o.n == 0) return;
    if (n == 0) {
      *this = o;
      return;
    }
    const double total = n + o.n;
    const double dx = o.mean_x - mean_x, dy = o.mean_y - mean_y;
    const double w = n * o.n / total;
    mean_x += dx * o.n / total;
    mean_y += dy * o.n / total;
    m2_x += o.m2_x + dx * dx * w;
    m2_y += o.m2_y + dy * dy * w;
    c_xy += o.c_xy + dx * dy * w;
    n = total;
  }
};

// By-value min/max for the hot loops: with std::min/std::max's references GCC 12 kept the
// accumulators in memory, a store-to-load chain per element.
inline double lesser(double a, double b) { return b < a ? b : a; }
inline double greater(double a, double b) { return a < b ? b : a; }

// Sums over a run of values for compute_stats. A function of its own so that every chain lives
// in a register; s1 and s2 are sums of (x - shift) and its square, over finite x only.
struct RunSums {
  double s1 = 0, s2 = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  int64_t count = 0, zero = 0, nan = 0, inf = 0;
};

RunSums sum_run(const double* v, std::size_t len, double shift) {
  double s1 = 0, s2 = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int64_t count = 0, zero = 0, non_finite = 0;
  for (std::size_t j = 0; j < len; ++j) {
    const double x = v[j];
    if (std::isfinite(x)) [[likely]] {
      const double d = x - shift;
      s1 += d;
      s2 += d * d;
      zero += x == 0;
      lo = lesser(lo, x);
      hi = greater(hi, x);
      ++count;
    } else {
      ++non_finite;
    }
  }
  RunSums r{s1, s2, lo, hi, count, zero, 0, 0};
  if (non_finite > 0)
    for (std::size_t j = 0; j < len; ++j) r.nan += std::isnan(v[j]), r.inf += std::isinf(v[j]);
  return r;
}

// Error sums over one chunk of pairs, for compare_tensors. A function of its own so that every
// chain lives in a register (tol and the Comparison behind references would be reloaded per
// element). Pairs with a non-finite side are rare and take the branch.
struct ErrorSums {
  double sum_abs = 0, sum_sq = 0, max_abs = 0, max_rel = 0, ref_max_abs = 0;
  int64_t worst = -1;  // chunk-relative index of a new max_abs, -1 if the maximum did not grow
  int64_t over = 0, non_finite = 0, nan_mismatch = 0;
};

ErrorSums sum_errors(const double* a, const double* e, std::size_t m, double atol, double rtol,
                     double max_abs, double max_rel, double ref_max_abs) {
  double sum_abs = 0, sum_sq = 0;
  int64_t worst = -1, over = 0, non_finite = 0, nan_mismatch = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const double x = a[j], y = e[j];
    if (std::isfinite(x) && std::isfinite(y)) [[likely]] {
      const double d = std::fabs(x - y);
      const double mag = std::fabs(y);
      ref_max_abs = greater(ref_max_abs, mag);
      sum_abs += d;
      sum_sq += d * d;
      if (d > max_abs) [[unlikely]] {
        max_abs = d;
        worst = static_cast<int64_t>(j);
      }
      // Divide only when the element may beat the current maximum: a division per element
      // would be the most expensive instruction in the loop.
      const double den = greater(mag, kMaxRelFloor);
      if (d > max_rel * den) [[unlikely]]
        max_rel = greater(max_rel, d / den);
      over += !(d <= atol + rtol * mag);
    } else {
      ++non_finite;
      const bool same = (std::isnan(x) && std::isnan(y)) || x == y;  // x == y: same-sign Inf
      nan_mismatch += !same;
      over += !same;
    }
  }
  return {sum_abs, sum_sq, max_abs, max_rel, ref_max_abs, worst, over, non_finite, nan_mismatch};
}

// The second pass once the bound is known (the scale term needs the reference's largest value):
// how much of its bound the worst finite pair uses, and how many pairs exceed it.
struct BoundUse {
  double used = 0;
  int64_t over = 0;
};

BoundUse measure_bound_use(const Tensor& actual, const Tensor& expected, std::size_t n, double bound_abs,
                           double rtol) {
  BoundUse u;
  std::array<double, kChunk> a{}, e{};
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    load_chunk(actual, base, m, a.data());
    load_chunk(expected, base, m, e.data());
    for (std::size_t j = 0; j < m; ++j) {
      if (!std::isfinite(a[j]) || !std::isfinite(e[j])) continue;  // nan_mismatch, counted already
      const double d = std::fabs(a[j] - e[j]), bound = bound_abs + rtol * std::fabs(e[j]);
      u.over += !(d <= bound);
      // Divide only on a new maximum; a zero bound (--atol 0 --rtol 0) is used infinitely.
      if (d > u.used * bound) [[unlikely]]
        u.used = bound > 0 ? d / bound : std::numeric_limits<double>::infinity();
    }
  }
  return u;
}

// Bit-exact mismatches among elements [base, base + m) of two same-dtype tensors; the first one
// seen goes to `first_over` if it is still -1.
int64_t count_bit_mismatches(const std::byte* a_bytes, const std::byte* e_bytes, std::size_t base,
                             std::size_t m, std::size_t elem_size, int64_t& first_over) {
  int64_t over = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t off = (base + j) * elem_size;
    if (std::memcmp(a_bytes + off, e_bytes + off, elem_size) != 0) {
      if (first_over < 0) first_over = static_cast<int64_t>(base + j);
      ++over;
    }
  }
  return over;
}

// compare_tensors' running sums over all chunks, for cosine, pearson and PSNR.
struct PairSums {
  double sum_abs = 0, sum_sq = 0, dot = 0, norm_a = 0, norm_e = 0;
  double e_lo = std::numeric_limits<double>::infinity(), e_hi = -std::numeric_limits<double>::infinity();
  int64_t first_over = -1;  // first bit-exact mismatch, -1 if none
  Moments moments;
};

// Adds one chunk's finite pairs to the correlation sums, compacting them to the front of a and e
// when there are others; returns how many there were.
std::size_t add_finite_pairs(double* __restrict a, double* __restrict e, std::size_t m, int64_t non_finite,
                             PairSums& sums) {
  std::size_t k = m;
  if (non_finite > 0) {
    k = 0;
    for (std::size_t j = 0; j < m; ++j)
      if (std::isfinite(a[j]) && std::isfinite(e[j])) a[k] = a[j], e[k] = e[j], ++k;
  }
  if (k == 0) return 0;
  // One pass of shifted sums (see Moments::from_shifted) gives both the moments and the raw
  // dot products for cosine: sum(a*e) = sae + ka*s1e + ke*s1a + k*ka*ke, whose cancellation is
  // bounded the same way (about k ulps) because the shifts are members of the chunk.
  const double shift_a = a[0], shift_e = e[0];
  double s1a = 0, s1e = 0, s2a = 0, s2e = 0, sae = 0;
  double chunk_lo = sums.e_lo, chunk_hi = sums.e_hi;
  for (std::size_t j = 0; j < k; ++j) {
    const double da = a[j] - shift_a, de = e[j] - shift_e;
    s1a += da;
    s1e += de;
    s2a += da * da;
    s2e += de * de;
    sae += da * de;
    chunk_lo = lesser(chunk_lo, e[j]);
    chunk_hi = greater(chunk_hi, e[j]);
  }
  sums.e_lo = chunk_lo;
  sums.e_hi = chunk_hi;
  const double kd = static_cast<double>(k);
  sums.dot += sae + shift_a * s1e + shift_e * s1a + kd * shift_a * shift_e;
  sums.norm_a += s2a + 2 * shift_a * s1a + kd * shift_a * shift_a;
  sums.norm_e += s2e + 2 * shift_e * s1e + kd * shift_e * shift_e;
  sums.moments.merge(Moments::from_shifted(kd, shift_a, s1a, s2a, shift_e, s1e, s2e, sae));
  return k;
}

// The scale term is known only once the reference has been read: a second pass, only where some
// pair differs, measures the bound's use and counts again the pairs that failed the narrower floor.
void settle_bound(const Tensor& actual, const Tensor& expected, std::size_t n, const Tolerance& tol,
                  bool exact_bits, Comparison& c) {
  c.bound_abs = tol.atol;
  const bool is_float = !exact_bits && dtype_is_float(expected.dtype());
  const double widened = std::max(tol.scale_rtol * c.ref_max_abs, tol.noise_abs);
  if (is_float && widened > tol.atol) c.bound_abs = widened;
  if (!is_float || c.finite_pairs == 0) return;
  c.bound_used = 0.0;
  if (c.max_abs == 0) return;
  const BoundUse u = measure_bound_use(actual, expected, n, c.bound_abs, tol.rtol);
  c.bound_used = u.used;
  c.elements_over_tol = c.nan_mismatch + u.over;
}

// mean_abs, cosine, pearson and (for image-like shapes) PSNR from the finite pairs' sums.
void finish_correlations(const PairSums& sums, const Shape& shape, Comparison& c) {
  if (c.finite_pairs == 0) return;
  const double pairs = static_cast<double>(c.finite_pairs);
  c.mean_abs = sums.sum_abs / pairs;
  // The cosine of one pair is +-1 whatever the values (Silero's speech probability off by 0.9995
  // read 1.000000): it takes two pairs to say anything about direction.
  if (c.finite_pairs >= 2 && sums.norm_a > 0 && sums.norm_e > 0) {
    const double cos = sums.dot / (std::sqrt(sums.norm_a) * std::sqrt(sums.norm_e));
    if (std::isfinite(cos)) c.cosine = std::clamp(cos, -1.0, 1.0);
  }
  // Exactly zero m2 means constant (see Moments::from_shifted): pearson is undefined there.
  const Moments& moments = sums.moments;
  if (moments.m2_x > 0 && moments.m2_y > 0) {
    const double r = moments.c_xy / (std::sqrt(moments.m2_x) * std::sqrt(moments.m2_y));
    if (std::isfinite(r)) c.pearson = std::clamp(r, -1.0, 1.0);
  }
  if (is_image_like(shape)) {
    const double range = (sums.e_lo >= 0 && sums.e_hi <= 1) ? 1.0 : sums.e_hi - sums.e_lo;
    const double mse = sums.sum_sq / pairs;
    if (range > 0)
      c.psnr = mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(range * range / mse);
  }
}

// numpy.argmax order: NaN beats everything (first NaN wins), otherwise strictly greater wins.
bool ranks_above(double x, double current) {
  if (std::isnan(current)) return false;
  return std::isnan(x) || x > current;
}

// Streams rows of class scores: argmax of both sides and the actual's top 5.
class TopK {
 public:
  explicit TopK(int64_t width) : width_(width) { reset_row(); }

  void add(double a, double e) {
    if (ranks_above(a, a_best_) || col_ == 0) a_best_ = a, a_best_index_ = col_;
    if (ranks_above(e, e_best_) || col_ == 0) e_best_ = e, e_best_index_ = col_;
    if (top_n_ < 5 || ranks_above(a, top_[top_n_ - 1].value)) {
      int k = top_n_ < 5 ? top_n_++ : 4;
      while (k > 0 && ranks_above(a, top_[k - 1].value)) {
        top_[k] = top_[k - 1];
        --k;
      }
      top_[k] = {a, col_};
    }
    if (++col_ == width_) finish_row();
  }

  int64_t rows() const { return rows_; }
  double top1() const { return rows_ ? static_cast<double>(agree1_) / static_cast<double>(rows_) : 0; }
  double top5() const { return rows_ ? static_cast<double>(agree5_) / static_cast<double>(rows_) : 0; }

 private:
  struct Entry {
    double value = 0;
    int64_t index = 0;
  };

  void finish_row() {
    ++rows_;
    if (a_best_index_ == e_best_index_) ++agree1_;
    for (int k = 0; k < top_n_; ++k)
      if (top_[k].index == e_best_index_) {
        ++agree5_;
        break;
      }
    reset_row();
  }
  void reset_row() {
    col_ = 0;
    top_n_ = 0;
    a_best_ = e_best_ = 0;
    a_best_index_ = e_best_index_ = 0;
  }

  int64_t width_;
  int64_t col_ = 0;
  double a_best_ = 0, e_best_ = 0;
  int64_t a_best_index_ = 0, e_best_index_ = 0;
  std::array<Entry, 5> top_{};
  int top_n_ = 0;
  int64_t rows_ = 0, agree1_ = 0, agree5_ = 0;
};

std::string num(double v) { return fmt::format("{:.6g}", v); }

bool is_exact_dtype(DType t) { return dtype_is_integer(t) || t == DType::boolean || t == DType::string; }

Comparison compare_strings(const Tensor& actual, const Tensor& expected) {
  Comparison c;
  const auto& a = actual.strings();
  const auto& e = expected.strings();
  if (a.size() != e.size()) return c;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != e[i]) {
      if (c.elements_over_tol == 0) c.worst_index = static_cast<int64_t>(i);
      ++c.elements_over_tol;
    }
  return c;
}

// Index of the first element whose NaN/Inf placement differs, or -1.
int64_t first_nan_mismatch(const Tensor& actual, const Tensor& expected) {
  const std::size_t n = std::min(element_count(actual), element_count(expected));
  std::array<double, kChunk> a{}, e{};
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    load_chunk(actual, base, m, a.data());
    load_chunk(expected, base, m, e.data());
    for (std::size_t j = 0; j < m; ++j) {
      const bool both_finite = std::isfinite(a[j]) && std::isfinite(e[j]);
      const bool same = (std::isnan(a[j]) && std::isnan(e[j])) || a[j] == e[j];
      if (!both_finite && !same) return static_cast<int64_t>(base + j);
    }
  }
  return -1;
}

}  // namespace

bool is_image_like(const Shape& shape) { return shape.size() == 4 && (shape[1] == 1 || shape[1] == 3); }

int64_t class_score_width(DType dtype, const Shape& shape) {
  if (!dtype_is_float(dtype) || shape.size() < 2 || is_image_like(shape)) return 0;
  const int64_t c = shape.back();
  return c >= 2 && c <= kMaxClassWidth ? c : 0;
}

TensorStats compute_stats(const Tensor& t) {
  TensorStats s;
  if (!dtype_is_numeric(t.dtype())) return s;
  const std::size_t n = element_count(t);

  // Per-channel sums for NCHW-like tensors; a chunk is cut at plane borders so each piece adds to
  // one channel without a division per element.
  const Shape& shape = t.shape();
  const bool per_channel = shape.size() == 4 && shape[1] >= 1 && shape[1] <= kMaxStatChannels &&
                           shape_numel(shape) == static_cast<int64_t>(n);
  const int64_t channels = per_channel ? shape[1] : 0;
  const std::size_t plane = per_channel ? static_cast<std::size_t>(shape[2] * shape[3]) : n;
  std::vector<double> channel_sum(static_cast<std::size_t>(channels), 0.0);
  std::vector<int64_t> channel_count(static_cast<std::size_t>(channels), 0);
  std::size_t plane_pos = 0, channel = 0;

  int64_t nan = 0, inf = 0, zero = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Moments total;
  std::array<double, kChunk> v{};
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    load_chunk(t, base, m, v.data());
    std::size_t first = 0;  // the shift: the chunk's first finite value
    while (first < m && !std::isfinite(v[first])) ++first;
    const double shift = first < m ? v[first] : 0.0;
    double s1 = 0, s2 = 0;
    int64_t count = 0;
    for (std::size_t j = 0; j < m;) {
      const std::size_t len = per_channel ? std::min(m - j, plane - plane_pos) : m - j;
      const RunSums r = sum_run(v.data() + j, len, shift);
      s1 += r.s1;
      s2 += r.s2;
      count += r.count;
      zero += r.zero;
      nan += r.nan;
      inf += r.inf;
      lo = lesser(lo, r.lo);
      hi = greater(hi, r.hi);
      if (per_channel) {
        channel_sum[channel] += r.s1 + static_cast<double>(r.count) * shift;
        channel_count[channel] += r.count;
        plane_pos += len;
        if (plane_pos == plane) {
          plane_pos = 0;
          channel = (channel + 1) % static_cast<std::size_t>(channels);
        }
      }
      j += len;
    }
    total.merge(Moments::from_shifted(static_cast<double>(count), shift, s1, s2));
  }

  const double count = static_cast<double>(n);
  s.nan_frac = n ? static_cast<double>(nan) / count : 0;
  s.inf_frac = n ? static_cast<double>(inf) / count : 0;
  s.zero_frac = n ? static_cast<double>(zero) / count : 0;
  if (total.n == 0) {
    s.mean = s.std = s.min = s.max = kNaN;
  } else if (lo == hi) {  // constant: report exact values rather than rounding residue
    s.mean = s.min = s.max = lo;
    s.std = 0;
  } else {
    s.mean = total.mean_x;
    s.std = std::sqrt(total.m2_x / total.n);
    s.min = lo;
    s.max = hi;
  }
  for (int64_t c = 0; c < channels; ++c) {
    const auto i = static_cast<std::size_t>(c);
    s.channel_mean.push_back(channel_count[i] ? channel_sum[i] / static_cast<double>(channel_count[i])
                                              : kNaN);
  }
  return s;
}

std::string uninformative_reason(const Tensor& reference, const TensorStats& stats) {
  if (!dtype_is_float(reference.dtype())) return {};
  const std::size_t n = element_count(reference);
  if (n == 0) return "the reference output is empty";
  if (stats.nan_frac > 0)
    return fmt::format("the reference output holds NaN ({:.1f}% of {} elements)", 100 * stats.nan_frac, n);
  if (stats.zero_frac == 1) return fmt::format("the reference output is all zeros ({} elements)", n);
  if (n >= 2 && stats.inf_frac == 0 && stats.min == stats.max)
    return fmt::format("the reference output holds one value, {}, in all {} elements", num(stats.min), n);
  return {};
}

Tolerance default_tolerance(DType dtype) {
  Tolerance t;
  switch (dtype) {
    case DType::float32: t.atol = 1e-4, t.rtol = 1e-3, t.scale_rtol = 1e-4; break;
    case DType::float16: t.atol = 1e-2, t.rtol = 1e-2, t.scale_rtol = 2e-3; break;
    case DType::bfloat16: t.atol = 5e-2, t.rtol = 5e-2, t.scale_rtol = 1e-2; break;
    case DType::float64: t.atol = 1e-7, t.rtol = 1e-5, t.scale_rtol = 1e-9; break;
    // About one unit in the last place at 1.0: 3 mantissa bits (e4m3) and 2 (e5m2).
    case DType::float8e4m3fn:
    case DType::float8e4m3fnuz: t.atol = 1.25e-1, t.rtol = 1.25e-1; break;
    case DType::float8e5m2:
    case DType::float8e5m2fnuz: t.atol = 2.5e-1, t.rtol = 2.5e-1; break;
    default: break;  // integers, bool, string and anything else compare exactly
  }
  return t;
}

Tolerance fixed_tolerance(double atol, double rtol) {
  Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  return t;
}

std::string describe_tolerance(const Tolerance& tol, const Comparison* cmp) {
  if (tol.noise_abs > 0 && cmp && cmp->bound_abs == tol.noise_abs && tol.noise_abs > tol.atol)
    return fmt::format("the noise floor {} + rtol {}*|ref|", num(tol.noise_abs), num(tol.rtol));
  if (tol.scale_rtol > 0 && cmp && cmp->bound_abs > tol.atol)
    return fmt::format("max(atol {}, {}*max|ref| = {}) + rtol {}*|ref|", num(tol.atol), num(tol.scale_rtol),
                       num(cmp->bound_abs), num(tol.rtol));
  if (tol.scale_rtol > 0 && !cmp)
    return fmt::format("max(atol {}, {}*max|ref|) + rtol {}*|ref|", num(tol.atol), num(tol.scale_rtol),
                       num(tol.rtol));
  return fmt::format("atol {} + rtol {}*|ref|", num(tol.atol), num(tol.rtol));
}

Comparison compare_tensors(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
  if (actual.dtype() == DType::string || expected.dtype() == DType::string) {
    if (actual.dtype() != expected.dtype()) return {};
    return compare_strings(actual, expected);
  }
  Comparison c;
  if (!dtype_is_numeric(actual.dtype()) || !dtype_is_numeric(expected.dtype())) return c;
  const std::size_t n = element_count(actual);
  if (n != element_count(expected)) return c;

  // Same-dtype integers under a zero tolerance compare bits: doubles cannot hold every int64.
  const bool exact_bits = actual.dtype() == expected.dtype() && dtype_is_integer(actual.dtype()) &&
                          tol.atol == 0 && tol.rtol == 0;
  const std::size_t elem_size = dtype_size(actual.dtype());
  const std::byte* a_bytes = actual.bytes().data();
  const std::byte* e_bytes = expected.bytes().data();

  const int64_t class_width = class_score_width(actual.dtype(), actual.shape());
  const bool topk = class_width > 0 && static_cast<int64_t>(n) % class_width == 0;
  TopK top(topk ? class_width : 1);

  PairSums sums;
  std::array<double, kChunk> a{}, e{};
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    load_chunk(actual, base, m, a.data());
    load_chunk(expected, base, m, e.data());
    if (topk)  // before add_finite_pairs compacts the chunk: argmax sees NaNs
      for (std::size_t j = 0; j < m; ++j) top.add(a[j], e[j]);

    const ErrorSums r =
        sum_errors(a.data(), e.data(), m, tol.atol, tol.rtol, c.max_abs, c.max_rel, c.ref_max_abs);
    if (r.worst >= 0) c.worst_index = static_cast<int64_t>(base) + r.worst;
    c.max_abs = r.max_abs;
    c.max_rel = r.max_rel;
    c.ref_max_abs = r.ref_max_abs;
    c.nan_mismatch += r.nan_mismatch;
    c.elements_over_tol +=
        exact_bits ? count_bit_mismatches(a_bytes, e_bytes, base, m, elem_size, sums.first_over) : r.over;
    sums.sum_abs += r.sum_abs;
    sums.sum_sq += r.sum_sq;
    c.finite_pairs += static_cast<int64_t>(add_finite_pairs(a.data(), e.data(), m, r.non_finite, sums));
  }
  // Bit-exact integer mismatches can hide below double resolution; still point at one.
  if (exact_bits && c.worst_index < 0 && sums.first_over >= 0) c.worst_index = sums.first_over;
  settle_bound(actual, expected, n, tol, exact_bits, c);
  finish_correlations(sums, actual.shape(), c);
  if (topk && top.rows() > 0) {
    c.top1_agree = top.top1();
    if (class_width > 5) c.top5_agree = top.top5();
  }
  return c;
}

OutputVerdict judge(const Tensor& actual, const Tensor& expected, const Comparison& cmp,
                    const Tolerance& tol) {
  OutputVerdict v;
  auto fail = [&v](std::string rule, std::string detail) {
    v.verdict = Verdict::mismatch;
    v.failed_rule = std::move(rule);
    v.detail = std::move(detail);
    return v;
  };
  if (actual.dtype() != expected.dtype())
    return fail("dtype", fmt::format("actual is {}, reference is {}", dtype_name(actual.dtype()),
                                     dtype_name(expected.dtype())));
  if (actual.shape() != expected.shape())
    return fail("shape", fmt::format("actual shape {}, reference shape {}", shape_to_string(actual.shape()),
                                     shape_to_string(expected.shape())));
  const int64_t n = static_cast<int64_t>(element_count(actual));
  if (actual.dtype() == DType::string) {
    if (cmp.elements_over_tol == 0) return v;
    return fail("allclose", fmt::format("{} of {} strings differ; first at index {}", cmp.elements_over_tol,
                                        n, cmp.worst_index));
  }
  if (cmp.nan_mismatch > 0) {
    const int64_t i = first_nan_mismatch(actual, expected);
    std::string where;
    if (i >= 0)
      where = fmt::format("; first at index {}: actual {}, reference {}", i,
                          num(element_at(actual, static_cast<std::size_t>(i))),
                          num(element_at(expected, static_cast<std::size_t>(i))));
    return fail("nan",
                fmt::format("{} of {} elements differ in NaN/Inf placement{}", cmp.nan_mismatch, n, where));
  }
  if (cmp.elements_over_tol > 0) {
    std::string rule = is_exact_dtype(actual.dtype()) && tol.atol == 0 && tol.rtol == 0
                           ? fmt::format("differ (exact compare, {})", dtype_name(actual.dtype()))
                           : "exceed " + describe_tolerance(tol, &cmp);
    std::string worst;
    if (cmp.worst_index >= 0) {
      const auto w = static_cast<std::size_t>(cmp.worst_index);
      worst = fmt::format("; max_abs {} at index {} (actual {}, reference {})", num(cmp.max_abs),
                          cmp.worst_index, num(element_at(actual, w)), num(element_at(expected, w)));
    }
    if (!tol.drift_cosine || !cmp.cosine || *cmp.cosine < *tol.drift_cosine)
      return fail("allclose", fmt::format("{} of {} elements {}{}", cmp.elements_over_tol, n, rule, worst));
    v.detail = fmt::format("precision drift: {} of {} elements {}, cosine {} >= drift_cosine {}",
                           cmp.elements_over_tol, n, rule, num(*cmp.cosine), num(*tol.drift_cosine));
  }
  if (tol.min_cosine && cmp.finite_pairs >= 2) {  // no cosine of one element: allclose judged it
    if (!cmp.cosine && cmp.max_abs != 0)          // absent cosine with equal tensors means both are all zeros
      return fail("cosine",
                  fmt::format("cosine is undefined (one side has zero norm); min_cosine {} required",
                              num(*tol.min_cosine)));
    if (cmp.cosine && *cmp.cosine < *tol.min_cosine)
      return fail("cosine", fmt::format("cosine {} < min_cosine {}", num(*cmp.cosine), num(*tol.min_cosine)));
  }
  if (tol.min_top1_agree) {
    if (!cmp.top1_agree)
      return fail(
          "top1",
          fmt::format("min_top1_agree {} set but {} {} is not class scores (float, rank >= 2, last "
                      "dim 2..100000)",
                      num(*tol.min_top1_agree), dtype_name(actual.dtype()), shape_to_string(actual.shape())));
    if (*cmp.top1_agree < *tol.min_top1_agree) {
      const int64_t width = class_score_width(actual.dtype(), actual.shape());
      const int64_t rows = width > 0 ? n / width : 0;
      return fail("top1",
                  fmt::format("top-1 agreement {} ({} of {} rows) < min_top1_agree {}", num(*cmp.top1_agree),
                              std::llround(*cmp.top1_agree * static_cast<double>(rows)), rows,
                              num(*tol.min_top1_agree)));
    }
  }
  return v;
}

Evaluation evaluate_output(const NamedTensor* actual, const NamedTensor& expected, const Tolerance& tol,
                           bool recurrent_state) {
  Evaluation ev;
  if (!actual) {
    ev.verdict.verdict = Verdict::mismatch;
    ev.verdict.failed_rule = "missing";
    ev.verdict.detail = "the backend returned no output named '" + expected.name + "'";
    return ev;
  }
  Comparison cmp;
  const bool comparable =
      actual->tensor.dtype() == expected.tensor.dtype() && actual->tensor.shape() == expected.tensor.shape();
  if (comparable) cmp = compare_tensors(actual->tensor, expected.tensor, tol);
  if (recurrent_state) {
    cmp.top1_agree.reset();
    cmp.top5_agree.reset();
  }
  ev.verdict = judge(actual->tensor, expected.tensor, cmp, tol);
  if (comparable) ev.comparison = cmp;
  return ev;
}

}  // namespace parity
