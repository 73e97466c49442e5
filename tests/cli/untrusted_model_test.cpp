// Crafted models (tests/models/models_crafted.py) that once killed Parity itself with SIGFPE or an
// abort: every verb that reads a model must answer each with a typed error naming the problem.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

const std::string kModels = PARITY_TEST_MODELS;

struct Crafted {
  const char* file;
  const char* problem;  // what the message must say
};

// Named by Parity's own checks before any analysis runs.
const Crafted kNamed[] = {
    {"crafted_conv_stride0", "node 'conv' (Conv) has strides 0"},
    {"crafted_maxpool_stride0", "node 'pool' (MaxPool) has strides 0"},
    {"crafted_avgpool_stride0", "node 'pool' (AveragePool) has strides 0"},
    {"crafted_lppool_stride0", "node 'pool' (LpPool) has strides 0"},
    {"crafted_split_no_outputs", "node 'split' (Split) has no outputs"},
    {"crafted_scan_body_arity", "node 'scan' (Scan): its body has 1 inputs for the node's 2"},
};

std::vector<std::vector<std::string>> verbs(const std::string& model, const std::string& scratch) {
  return {{"inspect", model},
          {"lint", model, "-q"},
          {"bisect", model, "--backend", "cpu", "-q"},
          {"sweep", model, "--variants", "fp16", "-b", "cpu", "--out", scratch + "/sweep", "-q"}};
}

TEST(UntrustedModel, EveryVerbRefusesACraftedModelByName) {
  for (const Crafted& c : kNamed) {
    testing::TempDir tmp;
    const std::string model = kModels + "/" + c.file + ".onnx";
    for (const auto& args : verbs(model, tmp.str())) {
      const auto r = testing::run_parity(args);
      SCOPED_TRACE(args[0] + " " + c.file);
      EXPECT_EQ(r.signal, 0) << r.output;
      EXPECT_EQ(r.exit_code, 2) << r.output;
      EXPECT_NE(r.output.find(c.problem), std::string::npos) << r.output;
    }
  }
}

// A stride 0 inside a model-local function passes Parity's checks (they read graphs); ONNX's shape
// inference still divides by it, in a child whose death is a typed error (exit 3), not Parity's.
TEST(UntrustedModel, ACrashOfShapeInferenceIsATypedError) {
  testing::TempDir tmp;
  const std::string model = kModels + "/crafted_function_pool_stride0.onnx";
  for (const auto& args : verbs(model, tmp.str())) {
    if (args[0] == "inspect") continue;  // inspect runs no shape inference
    const auto r = testing::run_parity(args);
    SCOPED_TRACE(args[0]);
    EXPECT_EQ(r.signal, 0) << r.output;
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("ONNX shape inference crashed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("SIGFPE"), std::string::npos) << r.output;
  }
}

// A Scan whose num_scan_inputs exceeds its inputs passes the checks and ONNX's inference; bisect's
// unrolling of it once read before the node's input list (protobuf's CHECK threw, nothing caught it:
// "terminate called", SIGABRT). Now the unrolling refuses it and the runtime's own error is reported.
TEST(UntrustedModel, AMalformedScanIsATypedErrorInBisect) {
  const auto r = testing::run_parity(
      {"bisect", kModels + "/crafted_scan_num_scan_inputs.onnx", "--backend", "other=cpu", "-q"});
  EXPECT_EQ(r.signal, 0) << r.output;
  EXPECT_TRUE(r.exit_code == 2 || r.exit_code == 3) << r.output;
  EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace parity
