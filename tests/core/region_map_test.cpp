// Region maps: where in an image-like output the damage is (parity/region_map.h).
#include "parity/region_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace parity {
namespace {

// A smooth 1x1xHxW picture with values in (0.1, 1.1).
std::vector<float> picture(int h, int w) {
  std::vector<float> v(static_cast<std::size_t>(h * w));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      v[static_cast<std::size_t>(y * w + x)] = 0.6f + 0.5f * std::sin(0.1f * x + 0.07f * y);
  return v;
}

std::optional<RegionMap> map_of(const Tensor& a, const Tensor& e) {
  const Tolerance tol = default_tolerance(DType::float32);
  return region_map(a, e, compare_tensors(a, e, tol), tol);
}

TEST(RegionMap, AZeroedBandIsPartlyWrongWithItsBox) {
  const int h = 64, w = 64;
  std::vector<float> ref = picture(h, w), out = ref;
  for (int y = 40; y < 64; ++y)  // the bottom three grid rows go black, the seed's "locally zero"
    for (int x = 0; x < w; ++x) out[static_cast<std::size_t>(y * w + x)] = 0;
  const auto m = map_of(Tensor::from_floats({1, 1, h, w}, out), Tensor::from_floats({1, 1, h, w}, ref));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rows, 8);
  EXPECT_EQ(m->cols, 8);
  EXPECT_EQ(m->wrong_cells(), 24);
  EXPECT_EQ(m->extent(), RegionExtent::part);
  EXPECT_EQ(m->wrong_box(), "rows 6-8, cols 1-8");
  EXPECT_EQ(m->picture()[4], "........");
  EXPECT_EQ(m->picture()[7], "########");
  EXPECT_DOUBLE_EQ(m->cells[63].zero_fraction, 1.0);
  EXPECT_DOUBLE_EQ(m->cells[63].ref_zero_fraction, 0.0);
}

TEST(RegionMap, AllBlackIsWrongAllOverAndACleanOutputHasNoWrongCell) {
  const int h = 32, w = 48;
  const std::vector<float> ref = picture(h, w);
  const Tensor e = Tensor::from_floats({1, 1, h, w}, ref);
  const auto black = map_of(Tensor::from_floats({1, 1, h, w}, std::vector<float>(ref.size(), 0.f)), e);
  ASSERT_TRUE(black);
  EXPECT_EQ(black->extent(), RegionExtent::all);
  const auto same = map_of(e, e);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->extent(), RegionExtent::none);
  EXPECT_EQ(same->wrong_box(), "");
}

TEST(RegionMap, OneBadElementDoesNotMakeARegionWrong) {
  const int h = 64, w = 64;
  std::vector<float> ref = picture(h, w), out = ref;
  out[100] += 1.0f;  // a near-tie flip, not a broken region
  const auto m = map_of(Tensor::from_floats({1, 1, h, w}, out), Tensor::from_floats({1, 1, h, w}, ref));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->extent(), RegionExtent::none);
}

TEST(RegionMap, NhwcUsesAxesOneAndTwoAndOtherShapesHaveNoMap) {
  EXPECT_EQ(spatial_axes({1, 3, 16, 16}), (std::pair{2, 3}));
  EXPECT_EQ(spatial_axes({1, 16, 16, 3}), (std::pair{1, 2}));
  EXPECT_FALSE(spatial_axes({1, 1000}));
  EXPECT_FALSE(spatial_axes({1, 25, 6625}));
  // NHWC with the right half of the picture wrong in its second channel.
  const int h = 16, w = 16, c = 3;
  std::vector<float> ref(static_cast<std::size_t>(h * w * c), 0.5f), out = ref;
  for (int y = 0; y < h; ++y)
    for (int x = 8; x < w; ++x) out[static_cast<std::size_t>((y * w + x) * c + 1)] = 2.0f;
  const auto m = map_of(Tensor::from_floats({1, h, w, c}, out), Tensor::from_floats({1, h, w, c}, ref));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->height_axis, 1);
  EXPECT_EQ(m->wrong_box(), "rows 1-8, cols 5-8");
}

}  // namespace
}  // namespace parity
