#include "parity/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "parity/tensor.h"

namespace parity {
namespace {

TEST(DType, NumbersMatchOnnx) {
  EXPECT_EQ(dtype_from_onnx(1), DType::float32);
  EXPECT_EQ(dtype_from_onnx(10), DType::float16);
  EXPECT_EQ(dtype_from_onnx(16), DType::bfloat16);
  EXPECT_FALSE(dtype_from_onnx(0).has_value());
  EXPECT_FALSE(dtype_from_onnx(999).has_value());
  EXPECT_EQ(dtype_size(DType::int64), 8u);
  EXPECT_EQ(dtype_name(DType::boolean), "bool");
  EXPECT_EQ(dtype_from_name("float16"), DType::float16);
}

TEST(DType, HalfRoundTripsExactValuesAndRoundsToNearestEven) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /* min normal */,
                  5.9604644775390625e-08f /* min subnormal */}) {
    EXPECT_EQ(half_to_float(float_to_half(f)), f) << f;
  }
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048.0f), float_to_half(1.0f));  // tie -> even
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
}

TEST(DType, Bfloat16RoundTrips) {
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(1.5f)), 1.5f);
  EXPECT_NEAR(bfloat16_to_float(float_to_bfloat16(3.14159f)), 3.14159f, 0.02f);
}

TEST(Tensor, FromBytesChecksSize) {
  auto bad = Tensor::from_bytes(DType::float32, {2, 3}, std::vector<std::byte>(5));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::bad_input);
  auto good = Tensor::zeros(DType::float16, {2, 3});
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->byte_size(), 12u);
  EXPECT_FALSE(Tensor::zeros(DType::float32, {-1, 3}).ok());
}

TEST(Tensor, ElementsWidenToDouble) {
  auto t = Tensor::zeros(DType::float16, {2}).value();
  t.mutable_view<uint16_t>()[1] = float_to_half(-3.0f);
  EXPECT_EQ(t.to_doubles(), (std::vector<double>{0.0, -3.0}));
}

}  // namespace
}  // namespace parity

namespace parity {
namespace {

TEST(DType, Float8DecodesPerOnnxSpec) {
  EXPECT_EQ(float8_to_double(0x38, DType::float8e4m3fn), 1.0);  // 0 0111 000
  EXPECT_EQ(float8_to_double(0xb8, DType::float8e4m3fn), -1.0);
  EXPECT_EQ(float8_to_double(0x7e, DType::float8e4m3fn), 448.0);  // max normal
  EXPECT_TRUE(std::isnan(float8_to_double(0x7f, DType::float8e4m3fn)));
  EXPECT_EQ(float8_to_double(0x3c, DType::float8e5m2), 1.0);  // 0 01111 00
  EXPECT_TRUE(std::isinf(float8_to_double(0x7c, DType::float8e5m2)));
  EXPECT_TRUE(std::isnan(float8_to_double(0x80, DType::float8e4m3fnuz)));
  auto t = Tensor::zeros(DType::float8e4m3fn, {2}).value();
  t.mutable_view<uint8_t>()[1] = 0x38;
  EXPECT_EQ(t.to_doubles(), (std::vector<double>{0.0, 1.0}));  // was silently 0 before
}

}  // namespace
}  // namespace parity
