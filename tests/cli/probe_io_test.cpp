// --save-io / --load-io / --input FILE.npy: a run can be written down and reproduced exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/npy.h"
#include "model/tensor_proto.h"
#include "support/json_file.h"
#include "support/run_parity.h"

namespace parity {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing::read_json;

TEST(ProbeIo, SavedInputsAndOutputsReloadToTheSameNumbers) {
  testing::TempDir tmp;
  const std::string model = std::string(PARITY_TEST_MODELS) + "/classifier.onnx";
  const std::string io = tmp.str() + "/io";
  auto first =
      testing::run_parity({"probe", model, "--backends", "cpu,webgpu", "--dim", "batch=3", "--samples", "2",
                           "--seed", "7", "--save-io", io, "--json", tmp.str() + "/a.json", "-q"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  for (const char* f :
       {"test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb", "test_data_set_1/input_0.pb",
        "test_data_set_0/webgpu/output_0.pb", "test_data_set_1/cpu/output_0.pb"})
    EXPECT_TRUE(fs::exists(fs::path(io) / f)) << f;

  auto saved = model::read_tensor_proto(fs::path(io) / "test_data_set_0/input_0.pb");
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(saved->name, "x");
  EXPECT_EQ(saved->tensor.shape(), (Shape{3, 32}));

  auto second = testing::run_parity(
      {"probe", model, "--backends", "cpu,webgpu", "--load-io", io, "--json", tmp.str() + "/b.json", "-q"});
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const json a = read_json(tmp.str() + "/a.json"), b = read_json(tmp.str() + "/b.json");
  EXPECT_EQ(b["samples"], 2);
  EXPECT_EQ(b["model"]["inputs"][0]["source"], "load-io");
  // Same inputs, same backends: the same evidence, to the last bit.
  EXPECT_EQ(a["backends"][1]["outputs"][0]["metrics"]["max_abs"],
            b["backends"][1]["outputs"][0]["metrics"]["max_abs"]);
  EXPECT_EQ(a["backends"][0]["outputs"][0]["metrics"]["mean"],
            b["backends"][0]["outputs"][0]["metrics"]["mean"]);
}

TEST(ProbeIo, NpyInputIsFedAsIs) {
  testing::TempDir tmp;
  std::vector<float> values(2 * 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 5) - 2.0f;
  ASSERT_TRUE(write_npy(tmp.str() + "/x.npy", Tensor::from_floats({2, 16}, values)).ok());
  auto r = testing::run_parity({"probe", std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx",
                                "--backends", "cpu", "--input", "x=" + tmp.str() + "/x.npy", "--json",
                                tmp.str() + "/r.json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = read_json(tmp.str() + "/r.json");
  EXPECT_EQ(j["model"]["inputs"][0]["shape"], json::array({2, 16}));
  EXPECT_EQ(j["model"]["inputs"][0]["source"], "file:" + tmp.str() + "/x.npy");
}

TEST(ProbeIo, WrongDtypeFileIsABadInvocation) {
  testing::TempDir tmp;
  auto t = Tensor::zeros(DType::float64, {1, 16});
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(write_npy(tmp.str() + "/x.npy", *t).ok());
  auto r = testing::run_parity({"probe", std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx", "--input",
                                "x=" + tmp.str() + "/x.npy"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("float64"), std::string::npos) << r.output;
}

TEST(Backends, CheckFindsCpuAndWebgpuUsable) {
  auto r = testing::run_parity({"backends", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cpu        usable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("webgpu     usable"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SwiftShader"), std::string::npos) << r.output;
  for (const char* web : {"web-wasm   usable", "web-jsep   usable", "web-webgpu usable"})
    EXPECT_NE(r.output.find(web), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("onnxruntime-web 1.30.0"), std::string::npos) << r.output;
}

TEST(Cli, HelpTeachesAndExitsZero) {
  auto r = testing::run_parity({"probe", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("Examples:"), std::string::npos);
  EXPECT_NE(r.output.find("--backends"), std::string::npos);
  // One summary line, then Usage; the long text (exit codes, examples) after the options.
  EXPECT_LT(r.output.find("Usage:"), r.output.find('\n') + 2) << r.output;
  EXPECT_LT(r.output.find("--backends"), r.output.find("Examples:"));
  EXPECT_EQ(r.output.find("{false}"), std::string::npos) << "a switch shows a misleading default";
  EXPECT_NE(r.output.find("--count-nodes               profile one run to count the nodes each EP really ran "
                          "(default: on)"),
            std::string::npos);
  // The top level lists each verb on one line.
  auto top = testing::run_parity({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_LT(std::count(top.output.begin(), top.output.end(), '\n'), 25) << top.output;
  auto none = testing::run_parity({});
  EXPECT_EQ(none.exit_code, 2);
}

}  // namespace
}  // namespace parity
