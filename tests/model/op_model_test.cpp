// One-node models built from a description: what `parity hunt` will sweep. Checked by ONNX's own
// checker and shape inference, read back by Parity's inspector, and run for real: the 1-D Conv
// case of issue 20 (weight [128, C, 3], pads [1, 1], input [1, C, 3]) comes out wrong on ORT
// 1.30.0's WebGPU EP for C = 129 only, so a model built here must show it and its neighbours not.
#include "model/op_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/onnx_model.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::model {
namespace {

Tensor weights(const Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape_numel(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * std::sin(0.37f * static_cast<float>(i));
  return Tensor::from_floats(shape, v);
}

OpModel conv1d(int64_t channels) {
  OpModel op;
  op.op_type = "Conv";
  op.inputs = {{"x", DType::float32, {1, channels, 3}, std::nullopt, std::nullopt},
               {"w", DType::float32, {128, channels, 3}, weights({128, channels, 3}), std::nullopt}};
  op.attributes = {{"pads", ints_attribute({1, 1})}, {"kernel_shape", ints_attribute({3})}};
  return op;
}

TEST(OpModel, BuildsACheckedModelWithInferredOutputs) {
  testing::TempDir dir;
  const auto path = dir.path() / "conv.onnx";
  const auto written = write_op_model(conv1d(129), path);
  ASSERT_TRUE(written.ok()) << written.error().describe();
  auto info = inspect_model(path);
  ASSERT_TRUE(info.ok()) << info.error().describe();
  ASSERT_EQ(info->inputs.size(), 1u);  // the weight is an initializer, not an input
  EXPECT_EQ(info->inputs[0].name, "x");
  ASSERT_EQ(info->outputs.size(), 1u);
  EXPECT_EQ(info->outputs[0].dtype, DType::float32);
  EXPECT_EQ(info->outputs[0].dims.size(), 3u);  // [1, 128, 3], inferred by ONNX
}

TEST(OpModel, ADescriptionTheSchemaRejectsIsBadInput) {
  OpModel op = conv1d(129);
  op.attributes[0] = {"pads", ints_attribute({1, 1, 1, 1})};  // 2-D pads on a 1-D Conv
  auto bytes = op_model_bytes(op);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().kind, ErrorKind::bad_input);
  EXPECT_NE(bytes.error().message.find("Conv model"), std::string::npos) << bytes.error().describe();
  OpModel unknown = conv1d(8);
  unknown.attributes.push_back({"no_such_attribute", int_attribute(1)});
  EXPECT_FALSE(op_model_bytes(unknown).ok());
}

TEST(OpModel, TheConv1dChannelCaseMiscomputesOnWebgpuAtExactly129Channels) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir dir;
  auto probe = [&](int64_t channels) {
    const auto path = dir.path() / ("conv1d_" + std::to_string(channels) + ".onnx");
    EXPECT_TRUE(write_op_model(conv1d(channels), path).ok());
    return testing::run_parity({"probe", path.string(), "-b", "cpu,webgpu", "-q"});
  };
  const auto at129 = probe(129);
  EXPECT_EQ(at129.exit_code, 1) << "C_in = 129 must mismatch on webgpu:\n" << at129.output;
  for (int64_t channels : {128, 130}) {
    const auto r = probe(channels);
    EXPECT_EQ(r.exit_code, 0) << "C_in = " << channels << " must match:\n" << r.output;
  }
}

}  // namespace
}  // namespace parity::model
