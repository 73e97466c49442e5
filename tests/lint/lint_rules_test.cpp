// Every static lint rule against a model that triggers it and a model that must not (the clean
// twin), read from the file alone: the table is the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "lint/lint.h"

namespace parity::lint {
namespace {

const std::string kModels = PARITY_TEST_MODELS;

struct RuleCase {
  const char* rule;
  const char* trigger;  // tests/models: a file the rule must fire on
  const char* clean;    // and one it must not
  const char* detail;   // a piece of the trigger's detail line
};

const RuleCase kCases[] = {
    {"dq-blocked-1d", "webgpu_bug_dq_blocked_1d", "lint_dq_per_axis_1d", "block_size 2 over 8 elements"},
    // Inside control flow: the node sits in an If's branch (and a Loop's body).
    {"dq-blocked-1d", "bisect_if_whole_network", "bisect_if_clean", "block_size 4 over 16 elements"},
    {"dq-blocked-1d", "bisect_loop_dq", "bisect_loop_early_stop", "block_size 4 over 16 elements"},
    {"slice-negative-step", "webgpu_bug_slice_negative_step", "lint_slice_reverse_from_end",
     "from start 7 (dim 10)"},
    {"slice-negative-step", "webgpu_bug_slice_negative_step", "lint_slice_positive_step",
     "step -1 on axis 1"},
    // JSEP's twin: one element short from any start, -1 included; a forward step is clean.
    {"slice-negative-step-jsep", "lint_slice_reverse_from_end", "lint_slice_positive_step",
     "step -1 on axis 1 from start -1"},
    {"conv-no-kernel-shape", "lint_conv_no_kernel_shape", "lint_conv_kernel_shape",
     "implies kernel_shape [3,3]"},
    {"maxpool-dilations", "sweep_pool_dilated", "lint_maxpool_plain", "dilations [2,2]"},
    {"pool-ceil-mode", "lint_maxpool_ceil", "lint_maxpool_plain", "MaxPool with ceil_mode 1, kernel [3,3]"},
    {"dq-uint8-zero-point", "lint_dq_uint8_zero_point", "lint_dq_int8_zero_point", "uint8 zero point 128"},
    // The weight-only QDQ MatMul of transformers.js' q8 (a [K, N] weight, one scale); per column is clean.
    {"dq-per-tensor-scale", "qdq_w8_matmul", "qdq_w8_matmul_opset19", "one scale over a [120,120] input"},
    {"dq-per-tensor-scale", "findings:web-jsep-dq-per-tensor-scale", "lint_dq_per_axis_1d",
     "one scale over a [2,4] input"},
    {"fp16-needs-shader-f16", "lint_fp16_unfolded_matmul", "lint_fp32_folded_matmul",
     "compute float16 values"},
    {"fp16-constant-island", "lint_fp16_unfolded_matmul", "lint_fp32_folded_matmul",
     "MatMul over constants only"},
    {"unsorted-graph", "lint_unsorted", "lint_sorted", "node 0 reads 's' before node 1"},
    {"opset-too-new", "lint_opset_future", "lint_sorted", "ai.onnx opset 99"},
    // The conformance findings' own repro models trigger their rules.
    {"convtranspose-3d", "findings:webgpu-test_convtranspose_3d", "lint_convtranspose_2d",
     "a 3-D transposed"},
    {"maxpool-indices", "findings:webgpu-test_maxpool_with_argmax_2d_precomputed_pads", "lint_maxpool_plain",
     "the Indices output"},
    {"dft-accuracy", "findings:webgpu-test_dft", "lint_sorted", "DFT"},
    // Found by parity hunt: its finding folder's one Conv -> Relu -> Tanh chain.
    {"conv-two-activations", "findings:webgpu-conv-two-activations", "lint_conv_kernel_shape",
     "Conv Conv_0 -> Relu -> Tanh"},
    {"conv-grouped", "findings:webgpu-conv-grouped", "lint_conv_kernel_shape",
     "group 2, 43 output channels per group"},
    {"convtranspose-grouped", "findings:webgpu-convtranspose-grouped", "lint_convtranspose_2d",
     "group 2, 4 input channels and 1 output channel per group"},
    // Found by parity hunt on onnxruntime-web's JSEP path: each folder's model against its neighbour's.
    {"matmulnbits-large-block", "findings:web-jsep-matmulnbits-block-64",
     "findings:web-jsep-matmulnbits-n-17-zp-1", "block_size 64"},
    {"cumsum-reverse", "findings:web-jsep-cumsum-rev-1", "lint_sorted", "CumSum with reverse=1"},
    {"skiplayernorm-bias-without-beta", "findings:web-jsep-skiplayernorm-beta-0-bias-1",
     "findings:web-jsep-skiplayernorm-b-2-bias-0-skip2d-1", "a bias and no beta"},
    {"skiplayernorm-broadcast-skip", "findings:web-jsep-skiplayernorm-b-2-bias-0-skip2d-1",
     "findings:web-jsep-skiplayernorm-beta-0-bias-1", "skip [1,4] broadcast over input [2,1,4]"},
};

const LintHit* hit_of(const LintReport& r, const std::string& rule) {
  const auto it = std::find_if(r.hits.begin(), r.hits.end(), [&](const auto& h) { return h.rule == rule; });
  return it == r.hits.end() ? nullptr : &*it;
}

LintReport lint_file(const std::string& name) {
  LintOptions o;
  const std::string findings = std::string(PARITY_SOURCE_DIR) + "/docs/findings/";
  o.model = name.rfind("findings:", 0) == 0 ? findings + name.substr(9) + "/model.onnx"
                                            : kModels + "/" + name + ".onnx";
  o.findings_dir = std::string(PARITY_SOURCE_DIR) + "/docs/findings";
  auto r = run_lint(o);
  EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : LintReport{};
}

class RuleTable : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleTable, FiresOnItsTriggerAndNotOnTheCleanTwin) {
  const RuleCase& c = GetParam();
  ASSERT_NE(find_rule(c.rule), nullptr) << c.rule;
  const LintReport fired = lint_file(c.trigger);
  const LintHit* hit = hit_of(fired, c.rule);
  ASSERT_NE(hit, nullptr) << c.rule << " did not fire on " << c.trigger;
  EXPECT_NE(hit->detail.find(c.detail), std::string::npos) << hit->detail;
  EXPECT_FALSE(hit->why.empty());
  EXPECT_FALSE(hit->fix.empty());
  EXPECT_EQ(hit_of(lint_file(c.clean), c.rule), nullptr) << c.rule << " fired on the clean " << c.clean;
}

INSTANTIATE_TEST_SUITE_P(Lint, RuleTable, ::testing::ValuesIn(kCases), [](const auto& test) {
  std::string name = std::string(test.param.rule) + "_" + test.param.clean;
  std::replace(name.begin(), name.end(), '-', '_');
  name.erase(std::remove(name.begin(), name.end(), ':'), name.end());
  return name;
});

// Every rule is in the table above or is a live rule (no matcher), so none goes untested.
TEST(RuleTable, EveryStaticRuleHasACase) {
  for (const Rule& r : rules()) {
    if (!r.match) continue;
    EXPECT_TRUE(std::any_of(std::begin(kCases), std::end(kCases), [&](const auto& c) {
      return r.id == c.rule;
    })) << r.id;
  }
}

// The findings base decides per backend: the recorded runs of the maxpool finding say JSEP fails on
// 1.30.0 and web-webgpu passes there (it runs the native WebGPU EP) but failed on 1.22.0.
TEST(LintEvidence, RecordedRunsDecidePerBackend) {
  const LintReport r = lint_file("sweep_pool_dilated");
  const LintHit* hit = hit_of(r, "maxpool-dilations");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->severity, Severity::error);
  EXPECT_EQ(hit->finding, "web-jsep-test_maxpool_2d_dilations");
  bool saw_jsep = false, saw_webgpu = false;
  for (const auto& a : hit->backends) {
    if (a.backend == "web-jsep") {
      saw_jsep = true;
      EXPECT_EQ(a.severity, Severity::error);
      EXPECT_NE(a.basis.find("reproduced on 1.30.0"), std::string::npos) << a.basis;
    }
    if (a.backend == "web-webgpu") {
      saw_webgpu = true;
      EXPECT_EQ(a.severity, Severity::info);
      EXPECT_NE(a.basis.find("fails on 1.22.0"), std::string::npos) << a.basis;
    }
    EXPECT_NE(a.backend, "cpu") << "the rule does not concern the CPU";
  }
  EXPECT_TRUE(saw_jsep && saw_webgpu);
}

// A real trained model without any of the traps: no false alarm.
TEST(LintEvidence, CleanTrainedModelFiresNothing) {
  const std::string det = std::string(PARITY_THIRD_PARTY) + "/models/ch_PP-OCRv4_det_infer.onnx";
  LintOptions o;
  o.model = det;
  o.findings_dir = std::string(PARITY_SOURCE_DIR) + "/docs/findings";
  auto r = run_lint(o);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  for (const auto& h : r->hits) ADD_FAILURE() << h.rule << ": " << h.detail;
}

}  // namespace
}  // namespace parity::lint
