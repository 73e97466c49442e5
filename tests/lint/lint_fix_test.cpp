// `parity lint --fix`: each exact rewrite turns a model a backend gets wrong (or refuses) into one
// that backend runs right, is verified on the reference before it is written, and the report shows
// the verdict before and after. Then a plain probe of the written file agrees.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/json_file.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kModels = PARITY_TEST_MODELS;

using testing::read_json;

struct FixCase {
  const char* model;
  const char* backend;
  const char* rule;
  const char* before;  // the original's status on the backend
};

class LintFix : public ::testing::TestWithParam<FixCase> {};

TEST_P(LintFix, TurnsAFailingModelIntoOneTheBackendRunsRight) {
  const FixCase& c = GetParam();
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/fixed.onnx", report = tmp.str() + "/lint.json";
  const auto run = testing::run_parity({"lint", kModels + "/" + c.model + ".onnx", "-b", c.backend, "--fix",
                                        out, "--apply", c.rule, "--json", report, "-q"});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const json j = read_json(report);
  const json& fix = j["fix"];
  ASSERT_TRUE(fix.is_object()) << run.output;
  EXPECT_EQ(fix["written"], true) << fix.dump();
  EXPECT_EQ(fix["reference_same"], true) << fix.dump();
  ASSERT_EQ(fix["applied"].size(), 1u);
  EXPECT_EQ(fix["applied"][0]["rule"], c.rule);
  ASSERT_EQ(fix["backends"].size(), 1u);
  EXPECT_EQ(fix["backends"][0]["before"], c.before) << fix.dump();
  EXPECT_EQ(fix["backends"][0]["after"], "ok") << fix.dump();
  ASSERT_TRUE(fs::is_regular_file(out));

  // The written file on its own: the backend agrees with the reference, and the rule is quiet.
  const auto probe = testing::run_parity({"probe", out, "-b", c.backend, "-q"});
  EXPECT_EQ(probe.exit_code, 0) << probe.output;
  const auto relint = testing::run_parity({"lint", out, "--json", tmp.str() + "/relint.json", "-q"});
  for (const auto& h : read_json(tmp.str() + "/relint.json")["hits"])
    EXPECT_NE(h["rule"], c.rule) << relint.output;
}

const FixCase kFixCases[] = {
    {"webgpu_bug_dq_blocked_1d_multilayer", "webgpu", "dq-blocked-1d", "mismatch"},
    {"webgpu_bug_slice_negative_step_multilayer", "webgpu", "slice-negative-step", "mismatch"},
    {"lint_fp16_island_in_fp32", "webgpu", "fp16-constant-island", "unavailable"},  // no shader-f16
    {"lint_conv_no_kernel_shape", "web-jsep", "conv-no-kernel-shape", "error"},
    // transformers.js' q8 layout on real PP-OCRv4 weights: one scale for a [120, 120] weight.
    {"qdq_w8_matmul", "web-jsep", "dq-per-tensor-scale", "mismatch"},
};

INSTANTIATE_TEST_SUITE_P(Lint, LintFix, ::testing::ValuesIn(kFixCases),
                         [](const auto& test) { return std::string(test.param.model); });

TEST(LintFixCli, SortsAnUnsortedFileAndRefusesWhatItCannotFix) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/sorted.onnx";
  const auto sorted =
      testing::run_parity({"lint", kModels + "/lint_unsorted.onnx", "--fix", out, "--apply", "all", "-q"});
  EXPECT_EQ(sorted.exit_code, 0) << sorted.output;
  EXPECT_NE(sorted.output.find("nodes written in topological order"), std::string::npos) << sorted.output;
  const auto relint = testing::run_parity({"lint", out, "-q"});
  EXPECT_NE(relint.output.find("no rule fired"), std::string::npos) << relint.output;

  const auto no_rules = testing::run_parity({"lint", kModels + "/lint_unsorted.onnx", "--fix", out});
  EXPECT_EQ(no_rules.exit_code, 2) << no_rules.output;
  const auto unknown = testing::run_parity(
      {"lint", kModels + "/sweep_pool_dilated.onnx", "--fix", out, "--apply", "maxpool-dilations"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("no exact fix"), std::string::npos) << unknown.output;
}

}  // namespace
}  // namespace parity
