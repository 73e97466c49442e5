// model::ModelSurgery on generated models: order, names, types, exposure and extraction.
#include "model/model_surgery.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/onnx_model.h"
#include "support/temp_dir.h"

namespace parity::model {
namespace {

std::string model_path(const std::string& name) {
  return std::string(PARITY_TEST_MODELS) + "/" + name + ".onnx";
}

std::vector<std::string> names_of(const std::vector<ValueInfo>& v) {
  std::vector<std::string> out;
  for (const auto& i : v) out.push_back(i.name);
  return out;
}

TEST(ModelSurgery, ListsNodeOutputsInTopologicalOrderWithTypes) {
  auto s = ModelSurgery::open(model_path("webgpu_bug_dq_blocked_1d_multilayer"));
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const auto& g = s->outline();
  ASSERT_EQ(g.tensors.size(), 7u);
  const std::vector<std::string> want{"h1", "h2", "bias", "h3", "h4", "h5", "y"};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(g.tensors[i].tensor, want[i]);
    EXPECT_EQ(g.tensors[i].order, static_cast<int>(i));
    EXPECT_EQ(g.tensors[i].dtype, DType::float32) << want[i];
  }
  EXPECT_EQ(g.tensors[2].node, "dq_bias");
  EXPECT_EQ(g.tensors[2].op_type, "DequantizeLinear");
  EXPECT_EQ(g.graph_inputs, (std::vector<std::string>{"x", "bias_q"}));
  EXPECT_TRUE(g.initializers.count("bias_scale"));
  EXPECT_EQ(g.producer_of("bias"), 2);
  EXPECT_EQ(g.producer_of("x"), -1);
  EXPECT_TRUE(g.skipped_subgraphs.empty());
}

TEST(ModelSurgery, SynthesizesNamesAndInfersTypesWithoutValueInfo) {
  auto s = ModelSurgery::open(model_path("bisect_untyped_chain"));
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const auto& g = s->outline();
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.tensors[0].node, "Relu_0");  // the model leaves this node unnamed
  EXPECT_EQ(g.tensors[0].dtype, DType::float32);
  EXPECT_EQ(g.tensors[1].dtype, DType::float32);
  ASSERT_TRUE(g.tensors[1].shape.has_value());
  EXPECT_EQ(*g.tensors[1].shape, (Shape{2, 8}));
}

TEST(ModelSurgery, ReportsControlFlowAsSkipped) {
  auto s = ModelSurgery::open(model_path("bisect_if_dq"));
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const auto& g = s->outline();
  ASSERT_EQ(g.skipped_subgraphs.size(), 1u);
  EXPECT_NE(g.skipped_subgraphs[0].find("if_relu (If): 2 inner nodes"), std::string::npos);
  // The branches read `h` from the outer scope: an implicit input of the If.
  const auto& if_node = g.nodes[static_cast<std::size_t>(g.producer_of("branch"))];
  EXPECT_TRUE(if_node.has_subgraph);
  EXPECT_NE(std::find(if_node.outer_inputs.begin(), if_node.outer_inputs.end(), "h"),
            if_node.outer_inputs.end());
  // Inner values are never listed as exposable.
  EXPECT_EQ(g.find_tensor("branch_out"), nullptr);
}

TEST(ModelSurgery, ExposesChosenTensorsAfterTheOriginalOutputs) {
  auto s = ModelSurgery::open(model_path("webgpu_bug_dq_blocked_1d_multilayer"));
  ASSERT_TRUE(s.ok());
  testing::TempDir tmp;
  const auto out = tmp / "exposed.onnx";
  ASSERT_TRUE(s->write_exposed(out, {"bias", "h3", "y"}).ok());
  auto info = inspect_model(out);
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(names_of(info->outputs), (std::vector<std::string>{"y", "bias", "h3"}));
  EXPECT_EQ(info->outputs[1].dtype, DType::float32);
  EXPECT_EQ(info->node_count, 7u);
  EXPECT_FALSE(s->write_exposed(out, {"no_such_tensor"}).ok());
}

// The exposed copy is the source file with the further outputs appended (protobuf merges the two),
// unless the file changed since it was read: then the model in memory is written whole.
TEST(ModelSurgery, ExposedCopyAppendsToTheSourceFileUnlessItChanged) {
  testing::TempDir tmp;
  const auto src = tmp / "source.onnx";
  std::filesystem::copy_file(model_path("webgpu_bug_dq_blocked_1d_multilayer"), src);
  auto s = ModelSurgery::open(src);
  ASSERT_TRUE(s.ok());
  auto bytes = [](const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string source = bytes(src);
  const auto out = tmp / "exposed.onnx";
  ASSERT_TRUE(s->write_exposed(out, {"h1", "bias"}).ok());
  EXPECT_EQ(bytes(out).substr(0, source.size()), source);
  auto info = inspect_model(out);
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(names_of(info->outputs), (std::vector<std::string>{"y", "h1", "bias"}));

  std::ofstream(src, std::ios::binary | std::ios::trunc) << "changed";
  ASSERT_TRUE(s->write_exposed(out, {"h1", "bias"}).ok());
  info = inspect_model(out);
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(names_of(info->outputs), (std::vector<std::string>{"y", "h1", "bias"}));
  EXPECT_EQ(info->node_count, 7u);
}

TEST(ModelSurgery, ExtractsANodeKeepingInitializersAsInitializers) {
  auto s = ModelSurgery::open(model_path("webgpu_bug_dq_blocked_1d_multilayer"));
  ASSERT_TRUE(s.ok());
  testing::TempDir tmp;
  const auto out = tmp / "dq.onnx";
  auto inputs = s->write_subgraph(out, {2}, {"bias"}, {{"bias_q", Shape{16}}});
  ASSERT_TRUE(inputs.ok()) << inputs.error().describe();
  // Scale and zero point stay constant initializers: only the runtime value becomes an input.
  EXPECT_EQ(*inputs, (std::vector<std::string>{"bias_q"}));
  auto info = inspect_model(out);
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(names_of(info->inputs), (std::vector<std::string>{"bias_q"}));
  ASSERT_EQ(info->inputs[0].dims.size(), 1u);
  EXPECT_EQ(info->inputs[0].dims[0].value, 16);
  EXPECT_EQ(names_of(info->outputs), (std::vector<std::string>{"bias"}));
  EXPECT_EQ(info->op_counts["DequantizeLinear"], 1);
  EXPECT_EQ(info->node_count, 1u);
}

TEST(ModelSurgery, ExtractsAChainTurningCutValuesIntoInputs) {
  auto s = ModelSurgery::open(model_path("webgpu_bug_dq_blocked_1d_multilayer"));
  ASSERT_TRUE(s.ok());
  testing::TempDir tmp;
  auto inputs = s->write_subgraph(tmp / "cut.onnx", {3, 2}, {"h3"}, {});
  ASSERT_TRUE(inputs.ok()) << inputs.error().describe();
  EXPECT_EQ(*inputs, (std::vector<std::string>{"bias_q", "h2"}));
  EXPECT_FALSE(s->write_subgraph(tmp / "bad.onnx", {3}, {"y"}, {}).ok()) << "y is not produced by add_bias";
}

TEST(ModelSurgery, ExtractsAnIfWithItsOuterScopeValues) {
  auto s = ModelSurgery::open(model_path("bisect_if_dq"));
  ASSERT_TRUE(s.ok());
  testing::TempDir tmp;
  const int if_index = s->outline().producer_of("branch");
  auto inputs = s->write_subgraph(tmp / "if.onnx", {if_index}, {"branch"}, {});
  ASSERT_TRUE(inputs.ok()) << inputs.error().describe();
  EXPECT_EQ(*inputs, (std::vector<std::string>{"h"}));  // cond is an initializer
}

TEST(ModelSurgery, RefusesNonModels) {
  auto s = ModelSurgery::open(model_path("not_onnx"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::bad_input);
}

}  // namespace
}  // namespace parity::model
