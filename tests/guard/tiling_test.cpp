// Tiled execution against a real session: the reassembled image equals the whole-image run, at
// several budgets and shapes, and a model that is not image-to-image is refused, not garbled.
#include "guard/tiling.h"

#include <gtest/gtest.h>

#include "guard/guard_fixtures.h"

namespace parity::guard {
namespace {

using testing::cpu_outputs;
using testing::image_input;
using testing::max_abs_diff;

TEST(Tiling, TheGridCoversTheImageOnceWithinTheBudget) {
  for (auto [h, w, budget] : {std::tuple{100, 70, 1600}, {1024, 1024, 300000}, {33, 513, 5000}, {8, 8, 10}}) {
    const TileGrid g = plan_tiles(h, w, budget, 4);
    std::vector<int> covered(static_cast<std::size_t>(h * w), 0);
    for (const Tile& t : g.tiles) {
      for (int64_t y = t.y0; y < t.y1; ++y)
        for (int64_t x = t.x0; x < t.x1; ++x) ++covered[static_cast<std::size_t>(y * w + x)];
      EXPECT_LE(t.cy0, t.y0);
      EXPECT_GE(t.cy1, t.y1);
      if (budget >= 64 * 64) {
        EXPECT_LE((t.cy1 - t.cy0) * (t.cx1 - t.cx0), budget) << h << "x" << w;
      }
    }
    for (int c : covered) ASSERT_EQ(c, 1) << h << "x" << w << " budget " << budget;
  }
}

TEST(Tiling, TheUpscalerTiledEqualsTheWholeImage) {
  const std::string model = std::string(PARITY_TEST_MODELS) + "/guard_upscale.onnx";
  auto spec = backend::BackendSpec{};
  spec.label = spec.ep = "cpu";
  spec.count_nodes = false;
  auto session = backend::ort::Session::open(spec, model);
  ASSERT_TRUE(session.ok()) << session.error().describe();
  auto run = [&](const std::vector<NamedTensor>& in) -> Result<std::vector<NamedTensor>> {
    backend::RunRequest r;
    r.inputs = in;
    PARITY_ASSIGN_OR_RETURN(out, (*session)->run(r));
    return out.outputs;
  };
  for (auto [h, w, budget, overlap] :
       {std::tuple{96, 80, 1500, 8}, {61, 47, 900, 4}, {64, 64, 64 * 64 / 3, 16}}) {
    const auto input = image_input(h, w);
    const TileGrid grid = plan_tiles(h, w, budget, overlap);
    ASSERT_GT(grid.tiles.size(), 1u);
    auto tiled = run_tiled(input, "x", grid, run);
    ASSERT_TRUE(tiled.ok()) << tiled.error().describe();
    const auto whole = cpu_outputs(model, input);
    ASSERT_EQ(tiled->at(0).tensor.shape(), whole.at(0).tensor.shape());
    EXPECT_LT(max_abs_diff(tiled->at(0).tensor, whole.at(0).tensor), 1e-5)
        << h << "x" << w << " in " << grid.tiles.size() << " tiles, overlap " << overlap;
  }
}

TEST(Tiling, ABlendBandNarrowerThanTheReceptiveFieldShowsAtTheSeams) {
  // The control: with no overlap the seams differ from the whole image, so the test above could fail.
  const std::string model = std::string(PARITY_TEST_MODELS) + "/guard_upscale.onnx";
  const auto input = image_input(64, 64);
  auto run = [&](const std::vector<NamedTensor>& in) -> Result<std::vector<NamedTensor>> {
    return testing::cpu_outputs(model, in);
  };
  auto tiled = run_tiled(input, "x", plan_tiles(64, 64, 32 * 32, 0), run);
  ASSERT_TRUE(tiled.ok());
  EXPECT_GT(max_abs_diff(tiled->at(0).tensor, cpu_outputs(model, input).at(0).tensor), 1e-3);
}

TEST(Tiling, AModelWhoseOutputIsNotAnImageIsRefused) {
  const auto input = image_input(32, 32);
  auto classify = [](const std::vector<NamedTensor>&) -> Result<std::vector<NamedTensor>> {
    return std::vector<NamedTensor>{{"logits", Tensor::zeros(DType::float32, {1, 10}).value()}};
  };
  auto r = run_tiled(input, "x", plan_tiles(32, 32, 300, 2), classify);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_NE(r.error().message.find("logits"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace parity::guard
