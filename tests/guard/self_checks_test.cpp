// The output checks on constructed images: each fires on the failure it is for and stays quiet on
// a correct image (a false alarm would make the guard throw away right answers).
#include "guard/self_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace parity::guard {
namespace {

// An NCHW float32 image filled by fn(c, y, x).
template <class Fn>
NamedTensor image(const std::string& name, int64_t c, int64_t h, int64_t w, Fn fn) {
  auto t = Tensor::zeros(DType::float32, {1, c, h, w}).value();
  auto v = t.mutable_view<float>();
  for (int64_t k = 0; k < c; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) v[static_cast<std::size_t>((k * h + y) * w + x)] = fn(k, y, x);
  return {name, std::move(t)};
}

float texture(int64_t c, int64_t y, int64_t x) { return 0.5f + 0.3f * std::sin(0.3f * float(x + 2 * y + c)); }

const CheckResult& find(const std::vector<CheckResult>& r, const std::string& check) {
  for (const auto& c : r)
    if (c.check == check) return c;
  static const CheckResult missing{"missing", false, "no such check ran"};
  return missing;
}

manifest::Checks all_checks() {
  manifest::Checks c;
  c.mean_shift = 0.05;
  c.per_channel = true;
  c.range = std::pair{0.0, 1.0};
  c.max_zero_fraction = 0.5;
  c.scale = 2;
  return c;
}

TEST(SelfChecks, ACorrectUpscaledImagePassesEveryCheck) {
  const auto in = image("x", 3, 16, 16, texture);
  const auto out =
      image("y", 3, 32, 32, [](int64_t c, int64_t y, int64_t x) { return texture(c, y / 2, x / 2); });
  const auto r = run_checks(all_checks(), {in}, {out});
  ASSERT_EQ(r.size(), 5u);
  for (const auto& c : r) EXPECT_TRUE(c.passed) << c.check << ": " << c.detail;
  EXPECT_EQ(first_failure(r), nullptr);
}

TEST(SelfChecks, ABlackChannelFailsThePerChannelMeanButNotTheOverallOneAlone) {
  const auto in = image("x", 3, 16, 16, texture);
  // Channel 1 black, channel 2 brightened to keep the overall mean: only per-channel sees it.
  const auto out = image("y", 3, 32, 32, [](int64_t c, int64_t y, int64_t x) {
    const float v = texture(c, y / 2, x / 2);
    return c == 1 ? 0.0f : c == 2 ? v + texture(1, y / 2, x / 2) : v;
  });
  manifest::Checks per = all_checks();
  per.range.reset();
  per.max_zero_fraction.reset();
  EXPECT_FALSE(find(run_checks(per, {in}, {out}), "mean_shift").passed);
  EXPECT_NE(find(run_checks(per, {in}, {out}), "mean_shift").detail.find("channel 1"), std::string::npos);
  manifest::Checks overall = per;
  overall.per_channel = false;
  EXPECT_TRUE(find(run_checks(overall, {in}, {out}), "mean_shift").passed);
}

TEST(SelfChecks, ALocallyZeroBandFailsTheGridWhileTheMeanHolds) {
  // Seed 002's failure: a band of the image is zero; the global mean moves little.
  const auto in = image("x", 3, 64, 64, texture);
  const auto out = image("y", 3, 128, 128, [](int64_t c, int64_t y, int64_t x) {
    return (y >= 96 && x >= 96) ? 0.0f : texture(c, y / 2, x / 2) * 1.02f;
  });
  manifest::Checks c;
  c.mean_shift = 0.05;
  c.max_zero_fraction = 0.5;
  c.grid = 4;
  const auto r = run_checks(c, {in}, {out});
  EXPECT_TRUE(find(r, "mean_shift").passed) << find(r, "mean_shift").detail;
  EXPECT_FALSE(find(r, "zero_fraction").passed);
  EXPECT_NE(find(r, "zero_fraction").detail.find("row 3, col 3"), std::string::npos)
      << find(r, "zero_fraction").detail;
}

TEST(SelfChecks, NaNsRangeAndScaleEachFail) {
  const auto in = image("x", 3, 8, 8, texture);
  const auto nan_out = image("y", 3, 16, 16, [](int64_t, int64_t y, int64_t) {
    return y == 3 ? std::numeric_limits<float>::quiet_NaN() : 0.5f;
  });
  EXPECT_FALSE(find(run_checks(all_checks(), {in}, {nan_out}), "finite").passed);
  const auto hot = image("y", 3, 16, 16, [](int64_t, int64_t, int64_t x) { return x == 0 ? 7.0f : 0.5f; });
  EXPECT_FALSE(find(run_checks(all_checks(), {in}, {hot}), "range").passed);
  const auto same_size = image("y", 3, 8, 8, texture);
  EXPECT_FALSE(find(run_checks(all_checks(), {in}, {same_size}), "scale").passed);
}

TEST(SelfChecks, NonFiniteValuesAreCountedAndLeftOutOfMeansAndRange) {
  // Odd sizes, so the vectorised runs have tails; an Inf, a -Inf and a NaN in one row.
  const auto in = image("x", 3, 7, 13, texture);
  const auto out = image("y", 3, 14, 26, [](int64_t c, int64_t y, int64_t x) {
    if (c == 1 && y == 5 && x < 3) return x == 0 ? INFINITY : x == 1 ? -INFINITY : NAN;
    return texture(c, y / 2, x / 2);
  });
  manifest::Checks c = all_checks();
  const auto r = run_checks(c, {in}, {out});
  EXPECT_FALSE(find(r, "finite").passed);
  EXPECT_NE(find(r, "finite").detail.find("has 3 NaN/Inf"), std::string::npos) << find(r, "finite").detail;
  EXPECT_TRUE(find(r, "range").passed) << find(r, "range").detail;            // extremes of the finite values
  EXPECT_TRUE(find(r, "mean_shift").passed) << find(r, "mean_shift").detail;  // means of the finite values
}

TEST(SelfChecks, ImageChecksWithoutAnImageOutputFailSayingSo) {
  auto t = Tensor::zeros(DType::float32, {1, 10}).value();
  manifest::Checks c;
  c.mean_shift = 0.05;
  const auto r = run_checks(c, {image("x", 3, 8, 8, texture)}, {{"logits", t}});
  ASSERT_NE(first_failure(r), nullptr);
  EXPECT_EQ(first_failure(r)->check, "image");
  // With only `finite` (the default), a classifier's outputs are checked and pass.
  EXPECT_EQ(first_failure(run_checks(manifest::Checks{}, {}, {{"logits", t}})), nullptr);
}

}  // namespace
}  // namespace parity::guard
