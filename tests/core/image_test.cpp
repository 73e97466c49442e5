#include "core/image.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

// stb_image_write is third-party C: silence it locally; STATIC keeps its symbols in this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace parity {
namespace {

using parity::testing::TempDir;
using ::testing::HasSubstr;

// 4 wide x 3 high RGB pixels with distinct, known values: pixel (y, x) = (10y + x, 100 + x, 200 + y).
std::vector<unsigned char> rgb_pixels(int w, int h) {
  std::vector<unsigned char> px;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      px.push_back(static_cast<unsigned char>(10 * y + x));
      px.push_back(static_cast<unsigned char>(100 + x));
      px.push_back(static_cast<unsigned char>(200 + y));
    }
  return px;
}

// Designated initialisers would trip -Wmissing-field-initializers on the optional sizes.
ImageLoadOptions opts(int channels, std::optional<int64_t> height = {}, std::optional<int64_t> width = {}) {
  ImageLoadOptions o;
  o.channels = channels;
  o.height = height;
  o.width = width;
  return o;
}

float at(const Tensor& t, int64_t c, int64_t y, int64_t x) {
  const auto& s = t.shape();
  return t.view<float>()[static_cast<std::size_t>((c * s[2] + y) * s[3] + x)];
}

TEST(Image, LoadsRgbPngAsNchwInUnitRange) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const auto px = rgb_pixels(4, 3);
  const auto path = dir / "rgb.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 4, 3, 3, px.data(), 4 * 3));
  auto t = load_image_nchw(path, {});
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_EQ(t->dtype(), DType::float32);
  EXPECT_EQ(t->shape(), (Shape{1, 3, 3, 4}));
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(at(*t, 0, y, x), static_cast<float>(10 * y + x) / 255.0f);
      EXPECT_EQ(at(*t, 1, y, x), static_cast<float>(100 + x) / 255.0f);
      EXPECT_EQ(at(*t, 2, y, x), static_cast<float>(200 + y) / 255.0f);
    }
}

TEST(Image, GrayIsLumaAndAlphaIsDropped) {
  TempDir dir;
  // RGBA: a gray pixel (v, v, v) and pure red, alpha varying
  const unsigned char px[] = {128, 128, 128, 10, 255, 0, 0, 255};
  const auto path = dir / "rgba.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 2, 1, 4, px, 2 * 4));

  auto gray = load_image_nchw(path, opts(1));
  ASSERT_TRUE(gray.ok()) << gray.error().describe();
  EXPECT_EQ(gray->shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ(at(*gray, 0, 0, 0), 128 / 255.0f);  // (77 + 150 + 29) * v >> 8 == v
  EXPECT_EQ(at(*gray, 0, 0, 1), 76 / 255.0f);   // 255 * 77 >> 8: stb's fixed-point luma

  auto rgb = load_image_nchw(path, opts(3));
  ASSERT_TRUE(rgb.ok());
  EXPECT_EQ(rgb->shape(), (Shape{1, 3, 1, 2}));
  EXPECT_EQ(at(*rgb, 0, 0, 1), 1.0f);  // red kept, alpha 255 not folded in
  EXPECT_EQ(at(*rgb, 0, 0, 0), 128 / 255.0f);
}

TEST(Image, GrayFileAsRgbReplicates) {
  TempDir dir;
  const unsigned char px[] = {0, 51, 255};
  const auto path = dir / "gray.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 3, 1, 1, px, 3));
  auto t = load_image_nchw(path, {});
  ASSERT_TRUE(t.ok());
  for (int c = 0; c < 3; ++c) EXPECT_EQ(at(*t, c, 0, 1), 0.2f);
}

TEST(Image, ResizeGivesRequestedShapeAndKeepsFlatColour) {
  TempDir dir;
  std::vector<unsigned char> px(5 * 4 * 3);
  for (std::size_t i = 0; i < px.size(); ++i) px[i] = i % 3 == 0 ? 64 : (i % 3 == 1 ? 128 : 255);
  const auto path = dir / "flat.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 5, 4, 3, px.data(), 5 * 3));
  using Size = std::pair<int64_t, int64_t>;
  for (auto [h, w] : {Size{8, 10}, Size{2, 3}, Size{1, 1}, Size{17, 5}}) {
    auto t = load_image_nchw(path, opts(3, h, w));
    ASSERT_TRUE(t.ok()) << t.error().describe();
    EXPECT_EQ(t->shape(), (Shape{1, 3, h, w}));
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        EXPECT_NEAR(at(*t, 0, y, x), 64 / 255.0f, 1e-6);
        EXPECT_NEAR(at(*t, 1, y, x), 128 / 255.0f, 1e-6);
        EXPECT_NEAR(at(*t, 2, y, x), 1.0f, 1e-6);
      }
  }
}

TEST(Image, UpscaleInterpolatesBetweenPixels) {
  TempDir dir;
  const unsigned char px[] = {0, 255};  // 2x1 gray: black then white
  const auto path = dir / "ramp.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 2, 1, 1, px, 2));
  auto t = load_image_nchw(path, opts(1, 1, 4));
  ASSERT_TRUE(t.ok());
  // Pixel centres at 0.25 and 0.75 of the source span: clamp, 1/4, 3/4, clamp.
  EXPECT_NEAR(at(*t, 0, 0, 0), 0.0f, 1e-6);
  EXPECT_NEAR(at(*t, 0, 0, 1), 0.25f, 1e-6);
  EXPECT_NEAR(at(*t, 0, 0, 2), 0.75f, 1e-6);
  EXPECT_NEAR(at(*t, 0, 0, 3), 1.0f, 1e-6);
  for (float v : t->view<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(Image, LoadsJpeg) {
  TempDir dir;
  std::vector<unsigned char> px(16 * 16 * 3, 200);
  const auto path = dir / "flat.jpg";
  ASSERT_TRUE(stbi_write_jpg(path.c_str(), 16, 16, 3, px.data(), 100));
  auto t = load_image_nchw(path, {});
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_EQ(t->shape(), (Shape{1, 3, 16, 16}));
  for (float v : t->view<float>()) EXPECT_NEAR(v, 200 / 255.0f, 2 / 255.0f);  // lossy codec
}

TEST(Image, MissingFileIsIoError) {
  TempDir dir;
  auto t = load_image_nchw(dir / "nope.png", {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::io);
  EXPECT_EQ(t.error().stage, Stage::prepare_inputs);
  EXPECT_THAT(t.error().message, HasSubstr("nope.png does not exist"));
  auto d = load_image_nchw(dir.path(), {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::io);
}

TEST(Image, GarbageIsBadInput) {
  TempDir dir;
  const auto path = dir / "garbage.png";
  std::ofstream(path) << "this is not an image at all";
  auto t = load_image_nchw(path, {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::bad_input);
  EXPECT_THAT(t.error().message, HasSubstr("cannot decode image"));
  // A PNG cut in half is undecodable, not a crash.
  const auto px = rgb_pixels(32, 32);
  const auto good = dir / "good.png";
  ASSERT_TRUE(stbi_write_png(good.c_str(), 32, 32, 3, px.data(), 32 * 3));
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto cut = dir / "cut.png";
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  auto c = load_image_nchw(cut, {});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::bad_input);
  // Empty file too.
  const auto empty = dir / "empty.png";
  std::ofstream{empty};
  EXPECT_FALSE(load_image_nchw(empty, {}).ok());
}

TEST(Image, BadOptionsAreBadInput) {
  TempDir dir;
  const auto px = rgb_pixels(2, 2);
  const auto path = dir / "a.png";
  ASSERT_TRUE(stbi_write_png(path.c_str(), 2, 2, 3, px.data(), 2 * 3));
  EXPECT_EQ(load_image_nchw(path, opts(4)).error().kind, ErrorKind::bad_input);
  EXPECT_EQ(load_image_nchw(path, opts(3, 4)).error().kind, ErrorKind::bad_input);
  EXPECT_EQ(load_image_nchw(path, opts(3, 0, 4)).error().kind, ErrorKind::bad_input);
}

}  // namespace
}  // namespace parity
