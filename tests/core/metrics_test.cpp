#include "parity/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace parity {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f32(Shape shape, const std::vector<float>& v) { return Tensor::from_floats(std::move(shape), v); }

template <class T>
Tensor typed(DType dtype, Shape shape, const std::vector<T>& v) {
  std::vector<std::byte> bytes(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return Tensor::from_bytes(dtype, std::move(shape), std::move(bytes)).value();
}

Tensor f64(Shape shape, const std::vector<double>& v) { return typed(DType::float64, std::move(shape), v); }

Tensor f16(Shape shape, const std::vector<float>& v) {
  std::vector<uint16_t> h;
  for (float f : v) h.push_back(float_to_half(f));
  return typed(DType::float16, std::move(shape), h);
}

// Designated initialisers would trip -Wmissing-field-initializers on the optional rules.
Tolerance tol_of(double atol, double rtol) {
  Tolerance t;
  t.atol = atol;
  t.rtol = rtol;
  return t;
}

Comparison compare(const Tensor& a, const Tensor& e) {
  return compare_tensors(a, e, default_tolerance(a.dtype()));
}

// --- compute_stats ---------------------------------------------------------------------------

TEST(Stats, MeanStdMinMaxOfSmallTensor) {
  const auto s = compute_stats(f32({4}, {1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(1.25));  // population std: sum of squares 5 over 4
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.zero_frac, 0);
  EXPECT_EQ(s.nan_frac, 0);
  EXPECT_EQ(s.inf_frac, 0);
  EXPECT_TRUE(s.channel_mean.empty());
}

TEST(Stats, NonFiniteElementsAreCountedNotAveraged) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const auto s = compute_stats(f32({8}, {0, nan, inf, 2, -inf, 0, 4, 2}));
  // finite: 0 2 0 4 2 -> mean 1.6, squared deviations 2.56+.16+2.56+5.76+.16 = 11.2 over 5
  EXPECT_DOUBLE_EQ(s.mean, 1.6);
  EXPECT_NEAR(s.std, std::sqrt(2.24), 1e-12);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.zero_frac, 2.0 / 8);
  EXPECT_DOUBLE_EQ(s.nan_frac, 1.0 / 8);
  EXPECT_DOUBLE_EQ(s.inf_frac, 2.0 / 8);
}

TEST(Stats, ChannelMeanOfNchwSkipsNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto s = compute_stats(f32({1, 3, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 0, nan, 1, 1, 1}));
  ASSERT_EQ(s.channel_mean.size(), 3u);
  EXPECT_DOUBLE_EQ(s.channel_mean[0], 2.5);
  EXPECT_DOUBLE_EQ(s.channel_mean[1], 0.0);
  EXPECT_DOUBLE_EQ(s.channel_mean[2], 1.0);
  EXPECT_DOUBLE_EQ(s.zero_frac, 4.0 / 12);
}

TEST(Stats, ChannelMeanAcrossChunksAndBatches) {
  // 2 images x 2 channels x 40x40: planes of 1600 cross the internal 1024-element chunks.
  std::vector<float> v(2 * 2 * 1600);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (i / 1600) % 2 == 0 ? 0.25f : 0.75f;
  const auto s = compute_stats(f32({2, 2, 40, 40}, v));
  ASSERT_EQ(s.channel_mean.size(), 2u);
  EXPECT_DOUBLE_EQ(s.channel_mean[0], 0.25);
  EXPECT_DOUBLE_EQ(s.channel_mean[1], 0.75);
  EXPECT_DOUBLE_EQ(s.mean, 0.5);
}

TEST(Stats, ChannelMeanOnlyFor4dUpTo64Channels) {
  EXPECT_EQ(compute_stats(f32({1, 64, 1, 1}, std::vector<float>(64, 1))).channel_mean.size(), 64u);
  EXPECT_TRUE(compute_stats(f32({1, 65, 1, 1}, std::vector<float>(65, 1))).channel_mean.empty());
  EXPECT_TRUE(compute_stats(f32({3, 2, 2}, std::vector<float>(12, 1))).channel_mean.empty());
}

TEST(Stats, AllNaNHasNaNMeanNotZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto s = compute_stats(f32({1, 1, 1, 2}, {nan, nan}));
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_TRUE(std::isnan(s.channel_mean.at(0)));
  EXPECT_EQ(s.nan_frac, 1);
  EXPECT_EQ(s.zero_frac, 0);
}

TEST(Stats, EmptyTensorHasZeroFractions) {
  const auto s = compute_stats(f32({0, 3}, {}));
  EXPECT_EQ(s.nan_frac, 0);
  EXPECT_EQ(s.zero_frac, 0);
  EXPECT_TRUE(std::isnan(s.mean));
}

TEST(Stats, ConstantTensorHasExactlyZeroStd) {
  const auto s = compute_stats(f64({3000}, std::vector<double>(3000, 0.1)));
  EXPECT_EQ(s.std, 0.0);
  EXPECT_EQ(s.mean, 0.1);
}

TEST(Stats, LargeOffsetDoesNotCancel) {
  std::vector<double> v(5000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1e9 + (i % 2 ? 1.0 : -1.0);
  const auto s = compute_stats(f64({5000}, v));
  EXPECT_NEAR(s.std, 1.0, 1e-9);
  EXPECT_NEAR(s.mean, 1e9, 1e-6);
}

TEST(Stats, IntegerBoolAndFloat16) {
  const auto si = compute_stats(typed<int64_t>(DType::int64, {3}, {-5, 0, 11}));
  EXPECT_DOUBLE_EQ(si.mean, 2.0);
  EXPECT_DOUBLE_EQ(si.zero_frac, 1.0 / 3);
  const auto sb = compute_stats(typed<uint8_t>(DType::boolean, {4}, {1, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(sb.mean, 0.75);
  const auto sh = compute_stats(f16({3}, {0.5f, -0.25f, 65504.0f}));
  EXPECT_EQ(sh.max, 65504.0);
  EXPECT_EQ(sh.min, -0.25);
}

TEST(Stats, StringTensorGivesDefaults) {
  const auto s = compute_stats(Tensor::from_strings({2}, {"a", "b"}));
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.nan_frac, 0);
}

// --- compare_tensors ---------------------------------------------------------------------------

TEST(Compare, HandComputedMetrics) {
  Tolerance tol = tol_of(0.1, 0.1);
  const auto c = compare_tensors(f32({4}, {1, 2, 3, 4}), f32({4}, {1, 2.5f, 3, 3}), tol);
  EXPECT_DOUBLE_EQ(c.max_abs, 1.0);
  EXPECT_EQ(c.worst_index, 3);
  EXPECT_DOUBLE_EQ(c.max_rel, 1.0 / 3);  // |4-3|/3 beats |2-2.5|/2.5
  EXPECT_DOUBLE_EQ(c.mean_abs, 1.5 / 4);
  ASSERT_TRUE(c.cosine);
  EXPECT_NEAR(*c.cosine, 27 / std::sqrt(30 * 25.25), 1e-12);  // dot 27, |a|^2 30, |e|^2 25.25
  ASSERT_TRUE(c.pearson);
  EXPECT_NEAR(*c.pearson, 3.25 / std::sqrt(5 * 2.6875), 1e-12);  // cov 3.25, ss_a 5, ss_e 2.6875
  EXPECT_FALSE(c.psnr);                                          // 1-D is not image-like
  EXPECT_FALSE(c.top1_agree);
  EXPECT_EQ(c.nan_mismatch, 0);
  EXPECT_EQ(c.elements_over_tol, 2);  // 0.5 > 0.1+0.25 and 1 > 0.1+0.3
  EXPECT_EQ(c.finite_pairs, 4);
}

TEST(Compare, IdenticalTensors) {
  const auto t = f32({1, 3, 2, 2}, {0, .1f, .2f, .3f, .4f, .5f, .6f, .7f, .8f, .9f, 1, 0});
  const auto c = compare(t, t);
  EXPECT_EQ(c.max_abs, 0);
  EXPECT_EQ(c.worst_index, -1);
  EXPECT_EQ(c.elements_over_tol, 0);
  EXPECT_NEAR(*c.cosine, 1.0, 1e-15);
  EXPECT_NEAR(*c.pearson, 1.0, 1e-15);
  EXPECT_EQ(*c.psnr, kInf);
  EXPECT_EQ(judge(t, t, c, default_tolerance(DType::float32)).verdict, Verdict::match);
}

TEST(Compare, MaxRelUsesFloorForZeroReference) {
  const auto c = compare_tensors(f64({2}, {1e-7, 2}), f64({2}, {0, 2}), Tolerance{});
  EXPECT_DOUBLE_EQ(c.max_rel, 1e-7 / kMaxRelFloor);
}

TEST(Compare, NaNAndInfPlacement) {
  // 0: NaN/NaN equal; 1: finite/NaN; 2: Inf/Inf equal; 3: -Inf/Inf; 4: NaN/finite; 5: Inf/finite; 6: equal
  const auto a = f64({7}, {kNaN, 1, kInf, -kInf, kNaN, kInf, 5});
  const auto e = f64({7}, {kNaN, kNaN, kInf, kInf, 2, 3, 5});
  const auto c = compare(a, e);
  EXPECT_EQ(c.nan_mismatch, 4);
  EXPECT_EQ(c.elements_over_tol, 4);
  EXPECT_EQ(c.finite_pairs, 1);
  EXPECT_EQ(c.max_abs, 0);
  EXPECT_EQ(c.worst_index, -1);
  const auto v = judge(a, e, c, default_tolerance(DType::float64));
  EXPECT_EQ(v.verdict, Verdict::mismatch);
  EXPECT_EQ(v.failed_rule, "nan");
  EXPECT_THAT(v.detail, HasSubstr("4 of 7 elements differ in NaN/Inf placement"));
  EXPECT_THAT(v.detail, HasSubstr("first at index 1: actual 1, reference nan"));
}

TEST(Compare, MatchingNaNAndInfAreEqual) {
  const auto t = f64({3}, {kNaN, kInf, -kInf});
  const auto c = compare(t, t);
  EXPECT_EQ(c.nan_mismatch, 0);
  EXPECT_EQ(c.elements_over_tol, 0);
  EXPECT_FALSE(c.cosine);  // no finite pairs
  EXPECT_EQ(judge(t, t, c, default_tolerance(DType::float64)).verdict, Verdict::match);
}

TEST(Compare, BlackImageAgainstNormalReference) {
  // The seed's failure: a super-resolution output that is all zeros, same shape, no error.
  std::vector<float> ref(1 * 3 * 8 * 8);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = i % 2 ? 0.75f : 0.25f;
  const auto actual = f32({1, 3, 8, 8}, std::vector<float>(ref.size(), 0.0f));
  const auto expected = f32({1, 3, 8, 8}, ref);

  const auto stats = compute_stats(actual);
  EXPECT_EQ(stats.zero_frac, 1.0);
  EXPECT_EQ(stats.channel_mean, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(compute_stats(expected).channel_mean, (std::vector<double>{0.5, 0.5, 0.5}));

  const auto c = compare(actual, expected);
  EXPECT_FALSE(c.cosine);   // actual has zero norm
  EXPECT_FALSE(c.pearson);  // actual is constant
  ASSERT_TRUE(c.psnr);      // reference in [0, 1] -> range 1; mse = (0.0625 + 0.5625) / 2
  EXPECT_NEAR(*c.psnr, 10 * std::log10(1 / 0.3125), 1e-9);
  EXPECT_EQ(c.elements_over_tol, 192);
  EXPECT_DOUBLE_EQ(c.max_abs, 0.75);
  EXPECT_EQ(c.worst_index, 1);
  const auto v = judge(actual, expected, c, default_tolerance(DType::float32));
  EXPECT_EQ(v.failed_rule, "allclose");
  EXPECT_THAT(v.detail,
              HasSubstr("192 of 192 elements exceed atol 0.0001 + rtol 0.001*|ref|; max_abs 0.75 at "
                        "index 1 (actual 0, reference 0.75)"));
}

TEST(Compare, PsnrUsesReferenceRangeOutsideUnitInterval) {
  // reference spans [0, 10] -> range 10; every element off by 0.5 -> mse 0.25
  const auto e = f32({1, 1, 2, 2}, {0, 10, 5, 2});
  const auto a = f32({1, 1, 2, 2}, {0.5f, 10.5f, 5.5f, 2.5f});
  const auto c = compare(a, e);
  EXPECT_NEAR(*c.psnr, 10 * std::log10(100 / 0.25), 1e-9);
  // unit-interval reference: range 1, off by 0.1 everywhere -> mse 0.01 -> 20 dB
  const auto c1 = compare(f64({1, 3, 1, 1}, {0.6, 0.7, 0.8}), f64({1, 3, 1, 1}, {0.5, 0.6, 0.7}));
  EXPECT_NEAR(*c1.psnr, 20.0, 1e-9);
  // a constant reference outside [0, 1] has no range: psnr absent rather than inf
  EXPECT_FALSE(compare(f32({1, 1, 1, 2}, {4, 5}), f32({1, 1, 1, 2}, {5, 5})).psnr);
  // 2 channels is not image-like
  EXPECT_FALSE(compare(f32({1, 2, 1, 1}, {1, 2}), f32({1, 2, 1, 1}, {1, 2})).psnr);
}

TEST(Compare, PearsonAbsentForConstantSides) {
  const auto c = compare(f32({3}, {2, 2, 2}), f32({3}, {2, 2, 2}));
  EXPECT_FALSE(c.pearson);
  ASSERT_TRUE(c.cosine);
  EXPECT_NEAR(*c.cosine, 1.0, 1e-15);
  EXPECT_FALSE(compare(f32({3}, {1, 2, 3}), f32({3}, {5, 5, 5})).pearson);
  // 0.1 summed 3000 times is not 300 exactly: rounding residue must not make a constant "vary".
  EXPECT_FALSE(
      compare(f64({3000}, std::vector<double>(3000, 0.1)), f64({3000}, std::vector<double>(3000, 0.1)))
          .pearson);
}

TEST(Compare, PearsonAnticorrelatedAndOffset) {
  const auto c = compare(f64({4}, {1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4}), f64({4}, {4, 3, 2, 1}));
  EXPECT_NEAR(*c.pearson, -1.0, 1e-12);
}

TEST(Compare, CosineOfOrthogonalAndZero) {
  EXPECT_NEAR(*compare(f32({2}, {1, 0}), f32({2}, {0, 1})).cosine, 0.0, 1e-15);
  EXPECT_FALSE(compare(f32({2}, {1, 0}), f32({2}, {0, 0})).cosine);
}

TEST(Compare, Float16Input) {
  // 2 + 2^-9 is one float16 ulp above 2
  const auto a = f16({3}, {1.0f, 2.001953125f, 0.5f});
  const auto e = f16({3}, {1.0f, 2.0f, 0.5f});
  const auto c = compare(a, e);
  EXPECT_DOUBLE_EQ(c.max_abs, 0.001953125);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_EQ(c.elements_over_tol, 0);
  EXPECT_EQ(judge(a, e, c, default_tolerance(DType::float16)).verdict, Verdict::match);
  // float16 NaN placement is seen through the widening
  const auto n = compare(f16({2}, {std::numeric_limits<float>::quiet_NaN(), 1}), f16({2}, {0, 1}));
  EXPECT_EQ(n.nan_mismatch, 1);
}

TEST(Compare, Float16AgainstFloat32ComparesValuesButJudgesDtype) {
  const auto a = f16({2}, {0.5f, 1.0f});
  const auto e = f32({2}, {0.5f, 1.0f});
  const auto c = compare(a, e);
  EXPECT_EQ(c.max_abs, 0);
  EXPECT_EQ(c.finite_pairs, 2);
  const auto v = judge(a, e, c, default_tolerance(DType::float32));
  EXPECT_EQ(v.failed_rule, "dtype");
  EXPECT_EQ(v.detail, "actual is float16, reference is float32");
}

TEST(Compare, Int64ComparesExactlyBeyondDoublePrecision) {
  const int64_t big = int64_t{1} << 53;  // big and big + 1 are the same double
  const auto a = typed<int64_t>(DType::int64, {3}, {big + 1, 7, -3});
  const auto e = typed<int64_t>(DType::int64, {3}, {big, 7, -3});
  const auto c = compare(a, e);
  EXPECT_EQ(c.elements_over_tol, 1);
  EXPECT_EQ(c.worst_index, 0);
  const auto v = judge(a, e, c, default_tolerance(DType::int64));
  EXPECT_EQ(v.failed_rule, "allclose");
  EXPECT_THAT(v.detail, HasSubstr("1 of 3 elements differ (exact compare, int64)"));
}

TEST(Compare, Int64SmallDifference) {
  const auto a = typed<int64_t>(DType::int64, {3}, {1, 5, 3});
  const auto e = typed<int64_t>(DType::int64, {3}, {1, 2, 3});
  const auto c = compare(a, e);
  EXPECT_EQ(c.max_abs, 3);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_EQ(c.elements_over_tol, 1);
  EXPECT_THAT(judge(a, e, c, default_tolerance(DType::int64)).detail,
              HasSubstr("max_abs 3 at index 1 (actual 5, reference 2)"));
  // An explicit tolerance (one quantisation step) is honoured for integers.
  EXPECT_EQ(compare_tensors(a, e, tol_of(3, 0)).elements_over_tol, 0);
}

TEST(Compare, BoolComparesExactly) {
  const auto a = typed<uint8_t>(DType::boolean, {3}, {1, 0, 1});
  const auto e = typed<uint8_t>(DType::boolean, {3}, {1, 1, 1});
  EXPECT_EQ(compare(a, e).elements_over_tol, 1);
  EXPECT_EQ(compare(a, a).elements_over_tol, 0);
}

TEST(Compare, AllcloseBoundaryIsInclusive) {
  // atol only: |a - e| == atol passes, the next double above fails (exact in binary)
  const Tolerance atol_only = tol_of(0.5, 0);
  EXPECT_EQ(compare_tensors(f64({1}, {1.5}), f64({1}, {1.0}), atol_only).elements_over_tol, 0);
  EXPECT_EQ(
      compare_tensors(f64({1}, {std::nextafter(1.5, 2.0)}), f64({1}, {1.0}), atol_only).elements_over_tol, 1);
  // rtol only: scaled by |reference|, not |actual|: e=4, rtol .25 -> 1 allowed
  const Tolerance rtol_only = tol_of(0, 0.25);
  EXPECT_EQ(compare_tensors(f64({1}, {5.0}), f64({1}, {4.0}), rtol_only).elements_over_tol, 0);
  EXPECT_EQ(
      compare_tensors(f64({1}, {std::nextafter(5.0, 6.0)}), f64({1}, {4.0}), rtol_only).elements_over_tol, 1);
  EXPECT_EQ(compare_tensors(f64({1}, {4.0}), f64({1}, {5.0}), rtol_only).elements_over_tol, 0);  // 1 <= 1.25
  // both: atol + rtol*|e| = 0.5 + 0.25*4 = 1.5
  const Tolerance both = tol_of(0.5, 0.25);
  EXPECT_EQ(compare_tensors(f64({1}, {5.5}), f64({1}, {4.0}), both).elements_over_tol, 0);
  EXPECT_EQ(compare_tensors(f64({1}, {std::nextafter(5.5, 6.0)}), f64({1}, {4.0}), both).elements_over_tol,
            1);
}

TEST(Compare, Top1DisagreementOnClassScores) {
  // row 0: both argmax 1; row 1: actual argmax 0, reference argmax 2
  const auto a = f32({2, 3}, {0.1f, 0.8f, 0.1f, 0.5f, 0.2f, 0.3f});
  const auto e = f32({2, 3}, {0.2f, 0.7f, 0.1f, 0.3f, 0.2f, 0.5f});
  Tolerance tol = tol_of(1, 0);  // loose, so only the top1 rule can fail
  tol.min_top1_agree = 1.0;
  const auto c = compare_tensors(a, e, tol);
  ASSERT_TRUE(c.top1_agree);
  EXPECT_DOUBLE_EQ(*c.top1_agree, 0.5);
  EXPECT_FALSE(c.top5_agree);  // 3 classes: top-5 would always agree
  const auto v = judge(a, e, c, tol);
  EXPECT_EQ(v.failed_rule, "top1");
  EXPECT_EQ(v.detail, "top-1 agreement 0.5 (1 of 2 rows) < min_top1_agree 1");
}

TEST(Compare, Top5CountsReferenceArgmaxInActualTop5) {
  // 8 classes. Row 0: reference argmax 7 is the actual's 3rd best. Row 1: it is the actual's worst.
  const auto a = f32({2, 8}, {9, 8, 1, 1, 1, 1, 1, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  const auto e = f32({2, 8}, {0, 0, 0, 0, 0, 0, 0, 1, 9, 0, 0, 0, 0, 0, 0, 0});
  const auto c = compare_tensors(a, e, Tolerance{});
  EXPECT_DOUBLE_EQ(*c.top1_agree, 0.0);
  EXPECT_DOUBLE_EQ(*c.top5_agree, 0.5);
}

TEST(Compare, TopKRowsOfSequenceLogitsAndNaNRanksFirst) {
  // [1, 2, 4]: two token rows. Row 1 has a NaN in the actual, which ranks highest like numpy.argmax.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto a = f32({1, 2, 4}, {0, 1, 5, 2, nan, 0, 0, 3});
  const auto e = f32({1, 2, 4}, {0, 1, 5, 2, 0, 0, 0, 3});
  EXPECT_DOUBLE_EQ(*compare(a, e).top1_agree, 0.5);
}

TEST(Compare, TopKEligibility) {
  EXPECT_EQ(class_score_width(DType::float32, {1, 1000}), 1000);
  EXPECT_EQ(class_score_width(DType::float16, {1, 7, 32000}), 32000);
  EXPECT_EQ(class_score_width(DType::float32, {1, 1}), 0);        // one class
  EXPECT_EQ(class_score_width(DType::float32, {1, 100001}), 0);   // past the cap
  EXPECT_EQ(class_score_width(DType::float32, {1000}), 0);        // 1-D
  EXPECT_EQ(class_score_width(DType::int64, {1, 1000}), 0);       // not scores
  EXPECT_EQ(class_score_width(DType::float32, {1, 3, 8, 8}), 0);  // image rows are pixels
  EXPECT_EQ(class_score_width(DType::float32, {1, 21, 8, 8}), 8);
  EXPECT_FALSE(
      compare(f32({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6}), f32({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6})).top1_agree);
}

TEST(Compare, Float8IsDecodedNotZero) {
  // e4m3fn: 0x38 = 1.0, 0x40 = 2.0, 0x7f = NaN; e5m2: 0x3c = 1.0, 0x7c = +Inf
  const auto a = typed<uint8_t>(DType::float8e4m3fn, {3}, {0x38, 0x40, 0x7f});
  const auto e = typed<uint8_t>(DType::float8e4m3fn, {3}, {0x38, 0x38, 0x7f});
  const auto c = compare(a, e);
  EXPECT_DOUBLE_EQ(c.max_abs, 1.0);
  EXPECT_EQ(c.nan_mismatch, 0);
  const auto s = compute_stats(typed<uint8_t>(DType::float8e5m2, {2}, {0x3c, 0x7c}));
  EXPECT_EQ(s.max, 1.0);
  EXPECT_EQ(s.inf_frac, 0.5);
  // fnuz: 0x80 is NaN, subnormal 0x01 of e4m3fnuz is 2^-10
  const auto fnuz = compute_stats(typed<uint8_t>(DType::float8e4m3fnuz, {2}, {0x80, 0x01}));
  EXPECT_EQ(fnuz.nan_frac, 0.5);
  EXPECT_EQ(fnuz.min, std::ldexp(1.0, -10));
}

TEST(Compare, StringsCountDifferences) {
  const auto a = Tensor::from_strings({3}, {"cat", "dog", "eel"});
  const auto e = Tensor::from_strings({3}, {"cat", "cow", "eel"});
  const auto c = compare(a, e);
  EXPECT_EQ(c.elements_over_tol, 1);
  const auto v = judge(a, e, c, default_tolerance(DType::string));
  EXPECT_EQ(v.failed_rule, "allclose");
  EXPECT_EQ(v.detail, "1 of 3 strings differ; first at index 1");
}

TEST(Compare, DifferentElementCountComparesNothing) {
  const auto c = compare(f32({3}, {1, 2, 3}), f32({2}, {1, 2}));
  EXPECT_EQ(c.finite_pairs, 0);
  EXPECT_EQ(c.worst_index, -1);
}

TEST(Compare, LargeTensorCrossesChunks) {
  std::vector<float> a(5000), e(5000);
  for (std::size_t i = 0; i < a.size(); ++i) e[i] = a[i] = static_cast<float>(i % 100) / 100.0f;
  a[4321] += 0.5f;
  const auto c = compare(f32({5000}, a), f32({5000}, e));
  EXPECT_EQ(c.worst_index, 4321);
  EXPECT_NEAR(c.max_abs, 0.5, 1e-6);
  EXPECT_EQ(c.elements_over_tol, 1);
  EXPECT_NEAR(c.mean_abs, 0.5 / 5000, 1e-9);
}

// --- judge and default_tolerance ---------------------------------------------------------------

TEST(Judge, RulesApplyInOrder) {
  const auto a = f32({2}, {1, 2});
  const auto v = judge(a, f64({3}, {1, 2, 3}), Comparison{}, Tolerance{});
  EXPECT_EQ(v.failed_rule, "dtype");  // dtype before shape
  const auto s = judge(a, f32({1, 2}, {1, 2}), Comparison{}, Tolerance{});
  EXPECT_EQ(s.failed_rule, "shape");
  EXPECT_EQ(s.detail, "actual shape [2], reference shape [1,2]");
}

TEST(Judge, CosineRuleAfterAllclose) {
  const auto a = f32({2}, {1, 0});
  const auto e = f32({2}, {0, 1});
  Tolerance tol = tol_of(2, 0);
  tol.min_cosine = 0.99;
  const auto v = judge(a, e, compare_tensors(a, e, tol), tol);
  EXPECT_EQ(v.failed_rule, "cosine");
  EXPECT_EQ(v.detail, "cosine 0 < min_cosine 0.99");
  // all-zero output within a loose atol: cosine undefined, which the rule refuses
  const auto z = f32({2}, {0, 0});
  const auto vz = judge(z, e, compare_tensors(z, e, tol), tol);
  EXPECT_EQ(vz.failed_rule, "cosine");
  EXPECT_THAT(vz.detail, HasSubstr("undefined"));
  // both all zeros are equal, so the undefined cosine is fine
  EXPECT_EQ(judge(z, z, compare_tensors(z, z, tol), tol).verdict, Verdict::match);
}

// A drift budget accepts an output that fails only the element-wise rule while its cosine stays
// at the budget (an fp16 network's diffuse drift), and nothing that is wrong in direction.
TEST(Judge, DriftBudgetAcceptsDiffuseErrorOnly) {
  const auto e = f32({4}, {10, -20, 30, -40});
  const auto drift = f32({4}, {10.02f, -20.03f, 29.97f, -40.05f});  // 0.2% off everywhere
  Tolerance tol = tol_of(1e-4, 1e-4);
  EXPECT_EQ(judge(drift, e, compare_tensors(drift, e, tol), tol).failed_rule, "allclose");
  tol.drift_cosine = 0.9999;
  const auto ok = judge(drift, e, compare_tensors(drift, e, tol), tol);
  EXPECT_EQ(ok.verdict, Verdict::match);
  EXPECT_THAT(ok.detail, HasSubstr("precision drift: 4 of 4 elements"));
  const auto wrong = f32({4}, {10, -20, 30, 0});  // one element lost: cosine 0.73
  const auto v = judge(wrong, e, compare_tensors(wrong, e, tol), tol);
  EXPECT_EQ(v.failed_rule, "allclose");
}

// Issue 36: a one-element output (Silero VAD's speech probability) off by 0.9995 had cosine 1: one
// pair's cosine is +-1 whatever the values. It is absent, and no rule judges by it: the drift
// budget (sweep's fp16 rule) must not forgive the error, min_cosine must not fail it either way.
TEST(Judge, OneElementHasNoCosineAndNoRuleUsesOne) {
  const auto e = f32({1, 1}, {0.9996f});
  const auto a = f32({1, 1}, {0.0001f});
  Tolerance tol = tol_of(1e-4, 1e-4);
  const Comparison c = compare_tensors(a, e, tol);
  EXPECT_FALSE(c.cosine.has_value()) << *c.cosine;
  EXPECT_EQ(c.finite_pairs, 1);
  tol.drift_cosine = 0.99;
  tol.min_cosine = 0.99;
  const auto v = judge(a, e, compare_tensors(a, e, tol), tol);
  EXPECT_EQ(v.verdict, Verdict::mismatch);
  EXPECT_EQ(v.failed_rule, "allclose");
  // A matching element passes the cosine floor: there is no cosine to hold it to.
  EXPECT_EQ(judge(e, e, compare_tensors(e, e, tol), tol).verdict, Verdict::match);
  // Two elements do have a direction.
  const auto e2 = f32({2}, {1, 0}), a2 = f32({2}, {0, 1});
  EXPECT_EQ(compare_tensors(a2, e2, tol).cosine, 0.0);
}

TEST(Judge, Top1RuleOnNonClassOutputFails) {
  Tolerance tol;
  tol.min_top1_agree = 0.9;
  const auto t = f32({4}, {1, 2, 3, 4});
  const auto v = judge(t, t, compare_tensors(t, t, tol), tol);
  EXPECT_EQ(v.failed_rule, "top1");
  EXPECT_THAT(v.detail, HasSubstr("not class scores"));
}

TEST(Judge, DefaultTolerances) {
  EXPECT_EQ(default_tolerance(DType::float32).atol, 1e-4);
  EXPECT_EQ(default_tolerance(DType::float32).rtol, 1e-3);
  EXPECT_EQ(default_tolerance(DType::float16).atol, 1e-2);
  EXPECT_EQ(default_tolerance(DType::bfloat16).rtol, 5e-2);
  EXPECT_EQ(default_tolerance(DType::float64).atol, 1e-7);
  EXPECT_EQ(default_tolerance(DType::float64).rtol, 1e-5);
  for (DType t : {DType::int8, DType::uint8, DType::int32, DType::int64, DType::boolean}) {
    EXPECT_EQ(default_tolerance(t).atol, 0);
    EXPECT_EQ(default_tolerance(t).rtol, 0);
  }
  EXPECT_FALSE(default_tolerance(DType::float32).min_cosine);
}

// --- scale-aware tolerance -------------------------------------------------------------------

// Accumulation error of a sum grows with its terms: near-zero elements of a tensor whose values
// reach 50 carry absolute error far above a fixed atol of 1e-4, and must not fail for it.
TEST(ScaleAwareTolerance, NearZeroElementsOfALargeTensorAreJudgedAgainstItsScale) {
  const auto e = f32({4}, {50, 0, -30, 1e-3f});
  const auto a = f32({4}, {50.001f, 4e-4f, -30.002f, 1.2e-3f});
  const auto c = compare_tensors(a, e, default_tolerance(DType::float32));
  EXPECT_DOUBLE_EQ(c.ref_max_abs, 50);
  EXPECT_NEAR(c.bound_abs, 5e-3, 1e-12);
  EXPECT_EQ(c.elements_over_tol, 0);
  EXPECT_EQ(judge(a, e, c, default_tolerance(DType::float32)).verdict, Verdict::match);
  // The fixed numpy rule the user can still ask for calls the same noise a mismatch.
  const auto fixed = compare_tensors(a, e, fixed_tolerance(1e-4, 1e-3));
  EXPECT_EQ(fixed.elements_over_tol, 2);
  EXPECT_DOUBLE_EQ(fixed.bound_abs, 1e-4);
}

TEST(ScaleAwareTolerance, AnErrorOfTheTensorsOwnSizeStillFailsAndNamesTheBound) {
  const auto e = f32({4}, {50, 0, -30, 1e-3f});
  const auto a = f32({4}, {50, 0.5f, -30, 1e-3f});
  const Tolerance tol = default_tolerance(DType::float32);
  const auto c = compare_tensors(a, e, tol);
  EXPECT_EQ(c.elements_over_tol, 1);
  const auto v = judge(a, e, c, tol);
  EXPECT_EQ(v.failed_rule, "allclose");
  EXPECT_THAT(v.detail, HasSubstr("1 of 4 elements exceed max(atol 0.0001, 0.0001*max|ref| = 0.005) + rtol "
                                  "0.001*|ref|; max_abs 0.5 at index 1"));
}

// bound_used is the worst pair's share of its own bound: 1 / bound_used is the headroom a match had.
TEST(BoundUsed, IsTheWorstPairsShareOfItsBoundUnderTheSettledScale) {
  // bound_abs settles at 1e-4*50 = 5e-3 after the pass; pairs: 50 (bound 0.055, d 0.011 -> 0.2),
  // 0 (bound 0.005, d 0.004 -> 0.8), -30 (bound 0.035, d 0.0035 -> 0.1).
  const auto e = f64({3}, {50, 0, -30});
  const auto a = f64({3}, {50.011, 0.004, -30.0035});
  const auto c = compare_tensors(a, e, default_tolerance(DType::float32));
  ASSERT_TRUE(c.bound_used.has_value());
  EXPECT_NEAR(*c.bound_used, 0.8, 1e-9);
  EXPECT_EQ(c.elements_over_tol, 0);
  // Over the bound: the share passes 1 exactly when allclose fails.
  const auto over =
      compare_tensors(f64({3}, {50.011, 0.0101, -30.0035}), e, default_tolerance(DType::float32));
  EXPECT_NEAR(*over.bound_used, 2.02, 1e-9);
  EXPECT_EQ(over.elements_over_tol, 1);
}

TEST(BoundUsed, ZeroWhenEqualAbsentForExactTypesInfiniteUnderAZeroBound) {
  const auto e = f32({2}, {1, 2});
  EXPECT_EQ(compare_tensors(e, e, default_tolerance(DType::float32)).bound_used, 0.0);
  const auto i = typed(DType::int64, {2}, std::vector<int64_t>{1, 2});
  EXPECT_FALSE(compare_tensors(i, i, default_tolerance(DType::int64)).bound_used.has_value());
  const auto zero_bound = compare_tensors(f32({2}, {1, 2.5f}), e, fixed_tolerance(0, 0));
  EXPECT_TRUE(std::isinf(*zero_bound.bound_used));
  // NaN pairs are nan_mismatch, not a share of a bound.
  const auto nan = compare_tensors(f32({2}, {1, std::nanf("")}), e, default_tolerance(DType::float32));
  EXPECT_EQ(*nan.bound_used, 0.0);
  EXPECT_EQ(nan.elements_over_tol, 1);
}

TEST(ScaleAwareTolerance, SmallTensorsKeepTheAbsoluteFloor) {
  const auto e = f32({2}, {0.5f, 0});
  const auto a = f32({2}, {0.5f, 2e-4f});
  const auto c = compare_tensors(a, e, default_tolerance(DType::float32));
  EXPECT_DOUBLE_EQ(c.bound_abs, 1e-4) << "0.5 * 1e-4 is below atol: atol is the floor";
  EXPECT_EQ(c.elements_over_tol, 1);
  EXPECT_THAT(judge(a, e, c, default_tolerance(DType::float32)).detail,
              HasSubstr("exceed atol 0.0001 + rtol"));
}

TEST(ScaleAwareTolerance, NanPlacementStillCountsAfterTheScaleWidensTheBound) {
  const auto e = f32({3}, {100, 0, 1});
  const auto a = f32({3}, {100, 0.001f, static_cast<float>(kNaN)});
  const auto c = compare_tensors(a, e, default_tolerance(DType::float32));
  EXPECT_EQ(c.nan_mismatch, 1);
  EXPECT_EQ(c.elements_over_tol, 1) << "the NaN, not the 0.001 inside 100 * 1e-4";
}

TEST(ScaleAwareTolerance, IntegersStayExact) {
  const auto e = typed<int32_t>(DType::int32, {2}, {1000000, 0});
  const auto a = typed<int32_t>(DType::int32, {2}, {1000000, 1});
  const auto c = compare_tensors(a, e, default_tolerance(DType::int32));
  EXPECT_EQ(c.elements_over_tol, 1);
  EXPECT_DOUBLE_EQ(c.bound_abs, 0);
}

TEST(ScaleAwareTolerance, ANoiseFloorWidensTheBoundAndIsNamed) {
  const auto e = f32({2}, {1, 0});
  const auto a = f32({2}, {1.003f, 0.004f});
  Tolerance tol = fixed_tolerance(1e-5, 0);
  EXPECT_EQ(compare_tensors(a, e, tol).elements_over_tol, 2);
  tol.noise_abs = 0.005;  // twice a measured spread of 0.0025
  const auto c = compare_tensors(a, e, tol);
  EXPECT_DOUBLE_EQ(c.bound_abs, 0.005);
  EXPECT_EQ(c.elements_over_tol, 0);
  const auto over = f32({2}, {1, 0.02f});
  const auto c2 = compare_tensors(over, e, tol);
  EXPECT_THAT(judge(over, e, c2, tol).detail, HasSubstr("exceed the noise floor 0.005 + rtol 0*|ref|"));
}

// --- uninformative references --------------------------------------------------------------

TEST(UninformativeReason, NamesZerosConstantsAndNan) {
  auto reason = [](const Tensor& t) { return uninformative_reason(t, compute_stats(t)); };
  EXPECT_THAT(reason(f32({1, 3}, {0, 0, 0})), HasSubstr("all zeros (3 elements)"));
  EXPECT_THAT(reason(f32({1, 3}, {0.5f, 0.5f, 0.5f})), HasSubstr("one value, 0.5, in all 3"));
  EXPECT_THAT(reason(f32({2}, {1, static_cast<float>(kNaN)})), HasSubstr("NaN (50.0% of 2"));
  EXPECT_THAT(reason(f32({1}, {0})), HasSubstr("all zeros"));
  EXPECT_EQ(reason(f32({1}, {0.25f})), "") << "one nonzero score is a signal";
  EXPECT_EQ(reason(f32({1, 3}, {0, 0.5f, 0})), "");
  EXPECT_EQ(reason(typed<int64_t>(DType::int64, {2}, {0, 0})), "") << "constant indices are routine";
}

}  // namespace
}  // namespace parity
