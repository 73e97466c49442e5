// `parity lint` and `parity findings verify` end to end: exit codes and JSON, the live checks of a
// real session (placement, constant folding, the runtime's refusal), and a findings base whose
// records follow reruns under another onnxruntime-web release.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/json_file.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kModels = PARITY_TEST_MODELS;
const std::string kFindings = std::string(PARITY_SOURCE_DIR) + "/docs/findings";

using testing::read_json;

const json* hit_of(const json& report, const std::string& rule) {
  for (const auto& h : report["hits"])
    if (h["rule"] == rule) return &h;
  return nullptr;
}

TEST(LintCli, AnErrorRuleExitsOneAndACleanModelZero) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto dirty = testing::run_parity({"lint", kModels + "/sweep_pool_dilated.onnx", "--json", out});
  EXPECT_EQ(dirty.exit_code, 1) << dirty.output;
  EXPECT_NE(dirty.output.find("maxpool-dilations"), std::string::npos) << dirty.output;
  EXPECT_NE(dirty.output.find("docs/findings/web-jsep-test_maxpool_2d_dilations (its repro"),
            std::string::npos);
  const json j = read_json(out);
  EXPECT_EQ(j["schema"], "parity.lint/1");
  EXPECT_EQ(j["errors"], 1);
  ASSERT_NE(hit_of(j, "maxpool-dilations"), nullptr);
  EXPECT_EQ((*hit_of(j, "maxpool-dilations"))["nodes"][0], "pool");

  const auto clean = testing::run_parity({"lint", kModels + "/lint_maxpool_plain.onnx"});
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_NE(clean.output.find("no rule fired"), std::string::npos) << clean.output;
  // Linting only for backends the rule does not concern: nothing to say.
  const auto wasm = testing::run_parity(
      {"lint", kModels + "/sweep_pool_dilated.onnx", "-b", "cpu", "--dim", "h=8", "--dim", "w=8", "-q"});
  EXPECT_EQ(wasm.exit_code, 0) << wasm.output;
}

// Nothing in the file says Det has no WebGPU kernel: the session's placement does.
TEST(LintCli, PlacementComesFromARealSession) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto run =
      testing::run_parity({"lint", kModels + "/lint_det_on_cpu.onnx", "-b", "webgpu", "--json", out, "-q"});
  EXPECT_EQ(run.exit_code, 0) << run.output;  // a warning, not an error
  const json j = read_json(out);
  const json* hit = hit_of(j, "ep-cpu-fallback");
  ASSERT_NE(hit, nullptr) << run.output;
  EXPECT_EQ((*hit)["nodes"], json::array({"det"}));
  EXPECT_EQ(j["checks"][0]["cpu_nodes"][0]["op"], "Det");
  EXPECT_EQ(j["checks"][0]["runtime_version"], "1.30.0");
  // Without a session the rule cannot fire: nothing is guessed.
  const auto file_only =
      testing::run_parity({"lint", kModels + "/lint_det_on_cpu.onnx", "-b", "webgpu", "--no-live", "-q"});
  EXPECT_EQ(file_only.output.find("ep-cpu-fallback"), std::string::npos) << file_only.output;
}

// The first seed's trap: an fp16 MatMul between two initializers survives ORT's constant folding
// (asked of ORT itself, through the optimized model it writes); the fp32 twin is folded.
TEST(LintCli, ConstantFoldingIsAskedOfTheRuntime) {
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto run = testing::run_parity(
      {"lint", kModels + "/lint_fp16_unfolded_matmul.onnx", "-b", "cpu", "--json", out, "-q"});
  const json j = read_json(out);
  const json* hit = hit_of(j, "fp16-constant-island");
  ASSERT_NE(hit, nullptr) << run.output;
  bool confirmed = false;
  for (const auto& b : (*hit)["backends"])
    confirmed |= b["basis"].get<std::string>().find("1 of 1 survive constant folding in ORT 1.30.0") !=
                 std::string::npos;
  EXPECT_TRUE(confirmed) << hit->dump();
  const auto folded =
      testing::run_parity({"lint", kModels + "/lint_fp32_folded_matmul.onnx", "-b", "cpu", "-q"});
  EXPECT_EQ(folded.exit_code, 0) << folded.output;
  EXPECT_EQ(folded.output.find("fp16-constant-island"), std::string::npos) << folded.output;
}

// A backend linted for that refuses the model will get it wrong: `lint -b` exited 0 when every
// backend refused (no rule matched, nothing was checked).
TEST(LintCli, ABackendThatRefusesTheModelIsAFinding) {
  const auto run = testing::run_parity({"lint", kModels + "/lint_unknown_op.onnx", "-b", "cpu", "-q"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("NoSuchOp"), std::string::npos) << "the refusal is shown\n" << run.output;
  const auto statically = testing::run_parity({"lint", kModels + "/lint_unknown_op.onnx", "-q"});
  EXPECT_EQ(statically.exit_code, 0) << "without -b nothing ran, and no static rule matches\n"
                                     << statically.output;
}

// Every session failing at run on the same random inputs checked nothing (Silero v5 at the shapes
// inspect suggests takes its 8 kHz branch and fails everywhere): "could not check", exit 3, not a
// clean 0 or a finding against every backend.
TEST(LintCli, EverySessionFailingAtRunCouldNotCheck) {
  PARITY_REQUIRE("vad-model");
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto run =
      testing::run_parity({"lint", std::string(PARITY_THIRD_PARTY) + "/models/silero_vad_v5.onnx", "-b",
                           "cpu", "--shape", "input=1,32", "--shape", "state=2,32,128", "--json", out, "-q"});
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("could not check"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("cpu: Run: ORT_INVALID_ARGUMENT"), std::string::npos) << "the reason\n"
                                                                                  << run.output;
  const json j = read_json(out);
  ASSERT_EQ(j["could_not_check"].size(), 1u) << j.dump(2);
  // No inputs could be planned at all (no --shape): nothing was checked either.
  const auto unplanned = testing::run_parity(
      {"lint", std::string(PARITY_THIRD_PARTY) + "/models/silero_vad_v5.onnx", "-b", "cpu", "-q"});
  EXPECT_EQ(unplanned.exit_code, 3) << unplanned.output;
  EXPECT_NE(unplanned.output.find("could not check"), std::string::npos) << unplanned.output;
}

// Integer shape arithmetic inside If bodies is not float work left to the CPU (docs/lint.md): the
// bodies declare no types, and the fallback warning counted their int64 Mul and Add.
TEST(LintCli, ShapeNodesInsideIfBodiesAreNotCpuFallback) {
  PARITY_REQUIRE("webgpu-adapter");
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto run = testing::run_parity(
      {"lint", kModels + "/lint_shape_if.onnx", "-b", "webgpu", "--dim", "n=2", "--json", out, "-q"});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const json j = read_json(out);
  ASSERT_TRUE(j["checks"][0]["ran"].get<bool>()) << run.output;
  bool body_on_cpu = false;  // the case is real only if ORT left the bodies' nodes to the CPU
  for (const auto& n : j["checks"][0]["cpu_nodes"]) body_on_cpu |= n["node"] == "then_add";
  EXPECT_TRUE(body_on_cpu) << j["checks"][0].dump(2);
  EXPECT_EQ(hit_of(j, "ep-cpu-fallback"), nullptr) << run.output;
}

// JSEP's reverse Slice is one element short whatever the start, -1 included (Silero v4's
// Slice_130); the WebGPU EP is right from -1. The prediction is checked on onnxruntime-web itself.
TEST(LintCli, AReverseSliceFromTheEndIsFlaggedForJsepOnly) {
  const std::string model = kModels + "/lint_slice_reverse_from_end.onnx";
  testing::TempDir tmp;
  const std::string out = tmp.str() + "/lint.json";
  const auto jsep = testing::run_parity({"lint", model, "-b", "web-jsep", "--no-live", "--json", out, "-q"});
  EXPECT_EQ(jsep.exit_code, 1) << jsep.output;
  const json j = read_json(out);
  const json* hit = hit_of(j, "slice-negative-step-jsep");
  ASSERT_NE(hit, nullptr) << jsep.output;
  EXPECT_EQ((*hit)["nodes"], json::array({"slice"}));
  EXPECT_EQ((*hit)["backends"][0]["severity"], "error");
  const auto webgpu = testing::run_parity({"lint", model, "-b", "webgpu,web-webgpu", "--no-live", "-q"});
  EXPECT_EQ(webgpu.exit_code, 0) << webgpu.output;
  EXPECT_EQ(webgpu.output.find("slice-negative-step"), std::string::npos) << webgpu.output;
  PARITY_REQUIRE("chromium");
  const auto probe = testing::run_parity({"probe", model, "-b", "web-jsep", "-q"});
  EXPECT_EQ(probe.exit_code, 1) << probe.output;
  EXPECT_NE(probe.output.find("actual shape [3,9], reference shape [3,10]"), std::string::npos)
      << probe.output;
}

TEST(LintCli, TheRuntimesRefusalIsQuoted) {
  const auto run = testing::run_parity({"lint", kModels + "/lint_opset_future.onnx", "-b", "cpu", "-q"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("live: Current official support for domain ai.onnx is till opset 26"),
            std::string::npos)
      << run.output;
}

// findings verify against a copy of one finding: the record agrees (exit 0), a record that says
// otherwise is flagged (exit 1), and a run under onnxruntime-web 1.22.0 is appended with --record,
// after which lint judges that release by it.
TEST(FindingsCli, VerifyComparesWithTheRecordAndRecordsNewReleases) {
  testing::TempDir tmp;
  const fs::path base = tmp.path() / "findings";
  fs::create_directories(base);
  fs::copy(kFindings + "/web-jsep-test_maxpool_2d_dilations", base / "maxpool", fs::copy_options::recursive);
  json record = read_json((base / "maxpool" / "finding.json").string());
  record["runs"] =
      json::array({{{"backend", "web-jsep"}, {"version", "1.30.0"}, {"fails", true}, {"measured", "x"}}});
  std::ofstream(base / "maxpool" / "finding.json") << record.dump(2);

  const std::string out = tmp.str() + "/verify.json";
  const auto same = testing::run_parity(
      {"findings", "verify", "--findings", base.string(), "-b", "web-jsep", "--json", out, "-q"});
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("STILL FAILS"), std::string::npos) << same.output;
  const json j = read_json(out);
  EXPECT_EQ(j["schema"], "parity.findings-verify/1");
  EXPECT_EQ(j["checks"][0]["fails"], true);
  EXPECT_EQ(j["checks"][0]["version"], "1.30.0");

  record["runs"][0]["fails"] = false;  // a record that says it passed: this run differs
  std::ofstream(base / "maxpool" / "finding.json") << record.dump(2);
  const auto differs =
      testing::run_parity({"findings", "verify", "--findings", base.string(), "-b", "web-jsep", "-q"});
  EXPECT_EQ(differs.exit_code, 1) << differs.output;
  EXPECT_NE(differs.output.find("regression"), std::string::npos) << differs.output;

  const auto old = testing::run_parity({"findings", "verify", "--findings", base.string(),
                                        "--ort-web-version", "1.22.0", "-b", "web-webgpu", "--record", "-q"});
  EXPECT_EQ(old.exit_code, 0) << old.output;
  const json after = read_json((base / "maxpool" / "finding.json").string());
  ASSERT_EQ(after["runs"].size(), 2u);
  EXPECT_EQ(after["runs"][1]["backend"], "web-webgpu");
  EXPECT_EQ(after["runs"][1]["version"], "1.22.0");
  EXPECT_EQ(after["runs"][1]["fails"], true);

  // ORT 1.29.0's library has no WebGPU EP: the row says so and nothing is recorded.
  const std::string ort129 = std::string(PARITY_THIRD_PARTY) + "/ort-1.29.0/lib/libonnxruntime.so.1";
  const auto native_old = testing::run_parity({"findings", "verify", "--findings", base.string(), "--ort-lib",
                                               ort129, "-b", "webgpu", "--record", "-q"});
  EXPECT_EQ(native_old.exit_code, 3) << native_old.output;
  EXPECT_NE(native_old.output.find("not run: EP 'webgpu' is not available in ONNX Runtime 1.29.0"),
            std::string::npos)
      << native_old.output;
  EXPECT_EQ(read_json((base / "maxpool" / "finding.json").string())["runs"].size(), 2u);

  const auto lint =
      testing::run_parity({"lint", kModels + "/sweep_pool_dilated.onnx", "--findings", base.string(), "-b",
                           "old=web-webgpu:ort-web=1.22.0", "--no-live", "-q"});
  EXPECT_EQ(lint.exit_code, 1) << lint.output;
  EXPECT_NE(lint.output.find("old: error - reproduced on 1.22.0"), std::string::npos) << lint.output;
}

}  // namespace
}  // namespace parity
