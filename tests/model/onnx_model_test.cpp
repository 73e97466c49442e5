#include "model/onnx_model.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/requirements.h"
#include "support/temp_dir.h"
#include "wire_writer.h"

namespace parity::model {
namespace {

namespace fs = std::filesystem;
using parity::testing::TempDir;
using testing::WireWriter;
namespace f = testing::field;

const fs::path kModels = PARITY_TEST_MODELS;
const fs::path kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node";

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A ValueInfoProto of a tensor: dims >= 0 are fixed, "" is unknown, other strings are symbols.
WireWriter tensor_value(const std::string& name, int elem_type, std::initializer_list<std::string> dims) {
  WireWriter shape;
  for (const std::string& d : dims) {
    WireWriter dim;
    if (!d.empty() && (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-'))
      dim.varint(f::dim_value, static_cast<uint64_t>(std::stoll(d)));
    else if (!d.empty())
      dim.bytes(f::dim_param, d);
    shape.message(f::dim, dim);
  }
  WireWriter tensor;
  tensor.varint(f::elem_type, static_cast<uint64_t>(elem_type)).message(f::shape, shape);
  WireWriter type;
  type.message(f::tensor_type, tensor);
  WireWriter v;
  v.bytes(f::vi_name, name).message(f::vi_type, type);
  return v;
}

WireWriter node(const std::string& op_type, const std::string& domain = "") {
  WireWriter n;
  n.bytes(f::node_input, "x").bytes(f::node_output, "y").bytes(f::op_type, op_type);
  if (!domain.empty()) n.bytes(f::node_domain, domain);
  return n;
}

// A model around `graph`, with IR 8 and opset 17.
std::string model_with(const WireWriter& graph) {
  WireWriter opset;
  opset.varint(f::opset_version, 17);
  WireWriter m;
  m.varint(f::ir_version, 8)
      .bytes(f::producer_name, "wire")
      .message(f::graph, graph)
      .message(f::opset_import, opset);
  return m.str();
}

WireWriter one_node_graph() {
  WireWriter g;
  g.message(f::node, node("Neg")).message(f::input, tensor_value("x", 1, {"2"}));
  g.message(f::output, tensor_value("y", 1, {"2"}));
  return g;
}

void expect_error(const Result<ModelInfo>& r, ErrorKind kind, const std::string& in_message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, kind) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::load_model);
  EXPECT_NE(r.error().message.find(in_message), std::string::npos) << r.error().message;
  EXPECT_FALSE(r.error().hint.empty()) << r.error().describe();
  EXPECT_EQ(r.error().hint.find('\n'), std::string::npos);
}

TEST(InspectModel, DescribesMatMulAddRelu) {
  const fs::path path = kModels / "matmul_add_relu.onnx";
  auto r = inspect_model(path);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const ModelInfo& m = *r;
  EXPECT_EQ(m.path, path);
  EXPECT_EQ(m.ir_version, 8);
  EXPECT_EQ(m.opsets, (std::map<std::string, int64_t>{{"", 17}}));
  EXPECT_EQ(m.producer, "parity-tests");
  EXPECT_EQ(m.file_bytes, fs::file_size(path));
  ASSERT_EQ(m.inputs.size(), 1u);  // the weights w and b are initializers, not inputs
  EXPECT_EQ(m.inputs[0].name, "x");
  EXPECT_EQ(m.inputs[0].dtype, DType::float32);
  EXPECT_TRUE(m.inputs[0].has_shape);
  ASSERT_EQ(m.inputs[0].dims.size(), 2u);
  EXPECT_FALSE(m.inputs[0].dims[0].is_fixed());
  EXPECT_EQ(m.inputs[0].dims[0].symbol, "batch");
  EXPECT_TRUE(m.inputs[0].dims[1].is_fixed());
  EXPECT_EQ(m.inputs[0].dims[1].value, 16);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "y");
  EXPECT_EQ(m.outputs[0].dims[1].value, 8);
  EXPECT_EQ(m.node_count, 3u);
  EXPECT_EQ(m.op_counts, (std::map<std::string, int>{{"Add", 1}, {"MatMul", 1}, {"Relu", 1}}));
  EXPECT_FALSE(m.has_control_flow);
}

TEST(InspectModel, UnnamedDimsAreUnknown) {
  auto r = inspect_model(kModels / "unnamed_dims.onnx");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->inputs.size(), 1u);
  EXPECT_TRUE(r->inputs[0].has_shape);
  ASSERT_EQ(r->inputs[0].dims.size(), 2u);
  for (const Dim& d : r->inputs[0].dims) {
    EXPECT_EQ(d.value, -1);
    EXPECT_TRUE(d.symbol.empty());
  }
}

TEST(InspectModel, MixedTypes) {
  auto r = inspect_model(kModels / "mixed_types.onnx");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->inputs.size(), 2u);
  EXPECT_EQ(r->inputs[0].name, "ids");
  EXPECT_EQ(r->inputs[0].dtype, DType::int64);
  EXPECT_EQ(r->inputs[0].dims[1].symbol, "seq");
  EXPECT_EQ(r->inputs[1].name, "mask");
  EXPECT_EQ(r->inputs[1].dtype, DType::float16);
  EXPECT_EQ(r->inputs[1].dims.size(), 3u);
  ASSERT_EQ(r->outputs.size(), 2u);
  EXPECT_EQ(r->outputs[0].dtype, DType::float16);
  EXPECT_EQ(r->outputs[1].dtype, DType::int64);
  EXPECT_EQ(r->node_count, 4u);
  EXPECT_EQ(r->op_counts.at("Gather"), 1);
}

TEST(InspectModel, BytesAgreeWithFile) {
  const fs::path path = kModels / "mixed_types.onnx";
  auto from_file = inspect_model(path);
  auto from_bytes = inspect_model_bytes(read_file(path), "in-memory");
  ASSERT_TRUE(from_file.ok() && from_bytes.ok());
  EXPECT_EQ(from_bytes->path, fs::path("in-memory"));
  EXPECT_EQ(from_bytes->file_bytes, from_file->file_bytes);
  EXPECT_EQ(from_bytes->inputs.size(), from_file->inputs.size());
  EXPECT_EQ(from_bytes->op_counts, from_file->op_counts);
}

// The precision a file computes in comes from its weights, not its I/O (every variant keeps
// float32 I/O): 8-bit weights under DequantizeLinear are an int8 model, plain float ones fp32.
TEST(WeightPrecision, ReadsWhatTheWeightsAre) {
  auto fp32 = inspect_model(kModels / "sweep_conv.onnx");
  auto int8 = inspect_model(kModels / "sweep_conv_int8.onnx");
  ASSERT_TRUE(fp32.ok() && int8.ok());
  EXPECT_EQ(weight_precision(*fp32), "fp32");
  EXPECT_EQ(weight_precision(*int8), "int8");
  EXPECT_GT(int8->weight_bytes.at(DType::int8), 0u);
  EXPECT_GT(int8->largest_weight_bytes, 0u);
  EXPECT_LE(int8->largest_weight_bytes, int8->initializer_bytes);
  // No weights at all (a model of one op) is fp32: nothing says otherwise.
  auto bare = inspect_model(kModels / "sweep_pool_dilated.onnx");
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->weight_bytes.empty());
  EXPECT_EQ(weight_precision(*bare), "fp32");
}

TEST(InspectModel, ReadsOnnxTestSuiteModels) {
  PARITY_REQUIRE("onnx-testdata");
  auto add = inspect_model(kOnnxNodeTests / "test_add" / "model.onnx");
  ASSERT_TRUE(add.ok()) << add.error().describe();
  ASSERT_EQ(add->inputs.size(), 2u);
  EXPECT_EQ(add->inputs[1].name, "y");
  ASSERT_EQ(add->inputs[1].dims.size(), 3u);
  EXPECT_EQ(add->inputs[1].dims[2].value, 5);
  EXPECT_EQ(add->op_counts, (std::map<std::string, int>{{"Add", 1}}));
  EXPECT_FALSE(add->has_control_flow);

  for (const char* name : {"test_if", "test_loop11", "test_scan9_sum"}) {
    auto m = inspect_model(kOnnxNodeTests / name / "model.onnx");
    ASSERT_TRUE(m.ok()) << m.error().describe();
    EXPECT_TRUE(m->has_control_flow) << name;
  }
}

TEST(InspectModel, MissingFileIsIo) {
  expect_error(inspect_model(kModels / "no_such_model.onnx"), ErrorKind::io, "no_such_model.onnx");
}

TEST(InspectModel, DirectoryIsIo) { expect_error(inspect_model(kModels), ErrorKind::io, "is a directory"); }

TEST(InspectModel, UnreadableFileIsIo) {
  // Not a missing tool: root reads files whatever their permissions, so there is nothing to test.
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files regardless of permissions";
  TempDir dir;
  const fs::path path = dir / "locked.onnx";
  write_file(path, read_file(kModels / "matmul_add_relu.onnx"));
  fs::permissions(path, fs::perms::none);
  expect_error(inspect_model(path), ErrorKind::io, "cannot open");
}

TEST(InspectModel, EmptyFileIsBadInput) {
  TempDir dir;
  write_file(dir / "empty.onnx", "");
  expect_error(inspect_model(dir / "empty.onnx"), ErrorKind::bad_input, "empty");
  expect_error(inspect_model_bytes("", "mem"), ErrorKind::bad_input, "mem: the file is empty");
}

TEST(InspectModel, TextFileIsNotOnnx) {
  const fs::path path = kModels / "not_onnx.onnx";
  expect_error(inspect_model(path), ErrorKind::bad_input, path.string() + ": not an ONNX model");
}

TEST(InspectModel, TensorFileIsNotOnnx) {
  PARITY_REQUIRE("onnx-testdata");
  // A TensorProto frames as protobuf; its field types give it away.
  expect_error(inspect_model(kOnnxNodeTests / "test_add" / "test_data_set_0" / "input_0.pb"),
               ErrorKind::bad_input, "not an ONNX model");
}

TEST(InspectModel, TruncatedFileSaysTruncated) {
  auto r = inspect_model(kModels / "truncated.onnx");
  expect_error(r, ErrorKind::bad_input, "truncated");
  EXPECT_NE(r.error().message.find("'graph'"), std::string::npos) << r.error().message;
}

TEST(InspectModel, EveryPrefixFailsCleanlyOrParses) {
  const std::string good = read_file(kModels / "matmul_add_relu.onnx");
  ASSERT_FALSE(good.empty());
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto r = inspect_model_bytes(good.substr(0, n), "cut");
    // A cut exactly between top-level fields can still parse; it must then fail a plausibility check
    // or describe a complete model (the opset import is the last field).
    if (r.ok()) continue;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input) << n;
    EXPECT_EQ(r.error().stage, Stage::load_model);
  }
}

TEST(InspectModel, NestedDamageNamesTheField) {
  WireWriter g;
  g.message(f::output, tensor_value("y", 1, {})).raw(WireWriter().bytes(f::node, "\xff\xff").str());
  auto r = inspect_model_bytes(model_with(g), "mem");
  expect_error(r, ErrorKind::bad_input, "corrupt at 'graph.node[0]'");
}

TEST(InspectModel, NoGraphIsBadInput) {
  expect_error(inspect_model_bytes(WireWriter().varint(f::ir_version, 8).str(), "mem"), ErrorKind::bad_input,
               "no graph");
}

TEST(InspectModel, NoOutputsIsBadInput) {
  WireWriter g;
  g.message(f::node, node("Neg")).message(f::input, tensor_value("x", 1, {"2"}));
  expect_error(inspect_model_bytes(model_with(g), "mem"), ErrorKind::bad_input, "no outputs");
}

TEST(InspectModel, InputMustBeATypedTensor) {
  WireWriter sequence_type;
  sequence_type.message(f::sequence_type, WireWriter());
  WireWriter seq_input;
  seq_input.bytes(f::vi_name, "xs").message(f::vi_type, sequence_type);
  WireWriter g1 = one_node_graph();
  g1.message(f::input, seq_input);
  expect_error(inspect_model_bytes(model_with(g1), "mem"), ErrorKind::bad_input, "'xs' is a sequence");

  WireWriter g2 = one_node_graph();
  g2.message(f::input, WireWriter().bytes(f::vi_name, "untyped"));
  expect_error(inspect_model_bytes(model_with(g2), "mem"), ErrorKind::bad_input, "'untyped' has no type");
}

TEST(InspectModel, UnknownInputElementTypeIsBadInput) {
  WireWriter g = one_node_graph();
  g.message(f::input, tensor_value("future", 99, {"1"}));
  expect_error(inspect_model_bytes(model_with(g), "mem"), ErrorKind::bad_input,
               "'future' has element type 99");
  WireWriter g0 = one_node_graph();
  g0.message(f::input, tensor_value("undefined", 0, {"1"}));
  expect_error(inspect_model_bytes(model_with(g0), "mem"), ErrorKind::bad_input,
               "'undefined' has element type 0");
}

TEST(InspectModel, UntypedOutputIsDescribedNotRefused) {
  WireWriter g = one_node_graph();
  g.message(f::output, WireWriter().bytes(f::vi_name, "loose"));
  g.message(f::output, tensor_value("future", 99, {}));
  auto r = inspect_model_bytes(model_with(g), "mem");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->outputs.size(), 3u);
  EXPECT_EQ(r->outputs[1].dtype, DType::undefined);
  EXPECT_FALSE(r->outputs[1].has_shape);
  EXPECT_EQ(r->outputs[2].dtype, DType::undefined);
}

TEST(InspectModel, InitializersListedAsInputsAreNotInputs) {
  // IR < 4 exporters list every weight among the graph inputs.
  WireWriter g = one_node_graph();
  g.message(f::input, tensor_value("w", 1, {"2"}));
  g.message(f::initializer, WireWriter().bytes(f::name, "w").varint(f::data_type, 1));
  g.message(f::input, tensor_value("s", 1, {"2"}));
  g.message(f::sparse_initializer,
            WireWriter().message(f::sparse_values, WireWriter().bytes(f::name, "s").varint(f::data_type, 1)));
  auto r = inspect_model_bytes(model_with(g), "mem");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->inputs.size(), 1u);
  EXPECT_EQ(r->inputs[0].name, "x");
}

TEST(InspectModel, ControlFlowAndDomains) {
  WireWriter g = one_node_graph();
  g.message(f::node, node("Gelu", "com.microsoft")).message(f::node, node("Relu", "ai.onnx"));
  auto plain = inspect_model_bytes(model_with(g), "mem");
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  EXPECT_FALSE(plain->has_control_flow);
  EXPECT_EQ(plain->node_count, 3u);
  EXPECT_EQ(plain->op_counts,
            (std::map<std::string, int>{{"Neg", 1}, {"Relu", 1}, {"com.microsoft:Gelu", 1}}));

  WireWriter custom_if = one_node_graph();
  custom_if.message(f::node, node("If", "my.domain"));
  auto custom = inspect_model_bytes(model_with(custom_if), "mem");
  ASSERT_TRUE(custom.ok());
  EXPECT_FALSE(custom->has_control_flow);

  for (const char* op : {"If", "Loop", "Scan"}) {
    WireWriter cf = one_node_graph();
    cf.message(f::node, node(op));
    auto r = inspect_model_bytes(model_with(cf), "mem");
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->has_control_flow) << op;
  }
}

TEST(InspectModel, OpsetDomainsAndProducer) {
  WireWriter m;
  m.varint(f::ir_version, 3).bytes(f::producer_name, "pytorch").bytes(f::producer_version, "2.1");
  m.message(f::graph, one_node_graph());
  m.message(f::opset_import, WireWriter().bytes(f::opset_domain, "ai.onnx").varint(f::opset_version, 13));
  m.message(f::opset_import,
            WireWriter().bytes(f::opset_domain, "com.microsoft").varint(f::opset_version, 1));
  auto r = inspect_model_bytes(m.str(), "mem");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->ir_version, 3);
  EXPECT_EQ(r->producer, "pytorch 2.1");
  EXPECT_EQ(r->opsets, (std::map<std::string, int64_t>{{"", 13}, {"com.microsoft", 1}}));
}

TEST(InspectModel, NegativeDimValueIsUnknown) {
  WireWriter g;
  g.message(f::node, node("Neg")).message(f::input, tensor_value("x", 1, {"-3", "4"}));
  g.message(f::output, tensor_value("y", 1, {}));
  auto r = inspect_model_bytes(model_with(g), "mem");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->inputs[0].dims[0].value, -1);
  EXPECT_FALSE(r->inputs[0].dims[0].is_fixed());
  EXPECT_EQ(r->inputs[0].dims[1].value, 4);
}

// CI's fuzz run found dims whose product passes 2^63 in a Constant compared with an input; the
// compared-with scan multiplied them in int64 (UBSan stops the fuzz target's replay of this seed).
TEST(InspectModel, DimsPastInt64AreNoOneElementConstant) {
  auto r = inspect_model((kModels / "crafted_constant_dims_overflow.onnx").string());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(r->compared_with.empty());
  EXPECT_EQ(r->initializer_bytes, 0u);
}

// PaddleOCR's exporter keeps every weight in a Constant node: the largest weight (what the guard
// holds an adapter's maxBufferSize to) counts those too.
TEST(InspectModel, TheLargestWeightCountsConstantValues) {
  PARITY_REQUIRE("ocr-models");
  auto det = inspect_model(std::string(PARITY_THIRD_PARTY) + "/models/ch_PP-OCRv4_det_infer.onnx");
  ASSERT_TRUE(det.ok()) << det.error().describe();
  EXPECT_EQ(det->initializer_count, 0u);
  EXPECT_EQ(det->largest_weight_bytes, 589824u);  // 147456 float32 values, 576 KiB
}

TEST(InspectModel, ReadsModelsOver64MiB) {
  // Protobuf's historical default total-bytes limit is 64 MiB; ONNX models are often larger.
  const std::size_t weight_bytes = std::size_t{80} << 20;
  WireWriter weight;
  weight.packed_varints(f::dims, {static_cast<int64_t>(weight_bytes / 4)}).varint(f::data_type, 1);
  weight.bytes(f::name, "w").bytes(f::raw_data, std::string(weight_bytes, '\1'));
  WireWriter g = one_node_graph();
  g.message(f::initializer, weight);
  const std::string bytes = model_with(g);
  ASSERT_GT(bytes.size(), weight_bytes);

  auto in_memory = inspect_model_bytes(bytes, "big");
  ASSERT_TRUE(in_memory.ok()) << in_memory.error().describe();
  EXPECT_EQ(in_memory->file_bytes, bytes.size());
  EXPECT_EQ(in_memory->largest_weight_bytes, weight_bytes);  // one buffer a GPU backend must create

  TempDir dir;
  write_file(dir / "big.onnx", bytes);
  auto from_file = inspect_model(dir / "big.onnx");
  ASSERT_TRUE(from_file.ok()) << from_file.error().describe();
  EXPECT_EQ(from_file->inputs.size(), 1u);
}

}  // namespace
}  // namespace parity::model
