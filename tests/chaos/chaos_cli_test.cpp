// End to end: `parity chaos` against ORT 1.30.0's WebGPU EP on SwiftShader, through the real
// binary. Parity must never die, every fault must get an outcome, the seed's null pipeline must be
// named, and a capability mask must turn a model that is right on the full device into a failure
// that names the limit.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "backend/vulkan_adapter.h"
#include "chaos/fault_plan.h"
#include "support/requirements.h"
#include "support/run_parity.h"
#include "support/temp_dir.h"

namespace parity::chaos {
namespace {

using nlohmann::json;

const std::string kModel = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";

class ChaosCliTest : public ::testing::Test {
 protected:
  void SetUp() override { PARITY_REQUIRE("webgpu-adapter"); }

  // Runs parity chaos with `args` (after MODEL) and returns the parsed JSON report.
  json run_chaos(std::vector<std::string> args, parity::testing::CommandResult& result) {
    const std::string out = tmp_.str() + "/chaos.json";
    std::vector<std::string> argv = {"chaos",   kModel,      "--backend", "webgpu", "--dim",
                                     "batch=2", "--timeout", "60",        "--json", out};
    argv.insert(argv.end(), args.begin(), args.end());
    result = parity::testing::run_parity(argv, {{"VK_ICD_FILENAMES", std::string(backend::kSwiftShaderIcd)},
                                                {"VK_DRIVER_FILES", std::string(backend::kSwiftShaderIcd)}});
    std::ifstream in(out);
    return json::parse(in, nullptr, false);
  }

  static const json* row(const json& report, const std::string& name) {
    for (const auto& f : report["faults"])
      if (f["name"] == name) return &f;
    return nullptr;
  }

  parity::testing::TempDir tmp_;
};

// Ctrl-C once the baseline is done: the fault running then is cut short, which is no outcome of
// the fault (it used to be recorded as clean-error); the report says interrupted.
TEST_F(ChaosCliTest, AnInterruptedFaultIsNoCleanError) {
  const std::string out = tmp_.str() + "/cut.json";
  const auto r = parity::testing::run_parity_signalled(
      {"chaos", kModel, "--backend", "webgpu", "--dim", "batch=2", "--timeout", "60", "--json", out},
      "baseline: ", SIGINT,
      {{"VK_ICD_FILENAMES", std::string(backend::kSwiftShaderIcd)},
       {"VK_DRIVER_FILES", std::string(backend::kSwiftShaderIcd)}});
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.output;
  std::ifstream in(out);
  const json report = json::parse(in, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.output;
  EXPECT_EQ(report.value("interrupted", false), true);
  EXPECT_GT(report["faults_planned"].get<std::size_t>(), report["faults"].size());
  for (const auto& f : report["faults"])
    EXPECT_EQ(f.dump().find("interrupted"), std::string::npos)
        << "a cut-short fault has no outcome: " << f.dump();
  EXPECT_NE(r.output.find("faults finished"), std::string::npos) << r.output;
}

TEST_F(ChaosCliTest, DefaultPlanGivesEveryFaultAnOutcomeAndParitySurvives) {
  parity::testing::CommandResult r;
  const json report = run_chaos({}, r);
  SCOPED_TRACE(r.output);
  EXPECT_EQ(r.signal, 0) << "parity itself must never die on a signal";
  ASSERT_FALSE(report.is_discarded()) << "no JSON report";
  EXPECT_EQ(report["schema"], "parity.chaos/1");
  EXPECT_EQ(report["baseline"]["outcome"], "unaffected") << "the layer must pass everything through";
  EXPECT_EQ(report["baseline"]["fired"], 0);

  const FaultPlan plan = default_plan();
  ASSERT_EQ(report["faults"].size(), plan.faults.size());
  const std::set<std::string> outcomes = {"clean-error", "crashed", "hung", "wrong-output", "unaffected"};
  bool crash_or_hang = false;
  for (const auto& f : report["faults"]) {
    SCOPED_TRACE(f.dump(1).substr(0, 2000));
    EXPECT_TRUE(outcomes.count(f["outcome"].get<std::string>()));
    if (f["outcome"] != "unaffected") {
      EXPECT_GT(f["fired"].get<int>(), 0) << "a failure the layer never caused";
    }
    if (f["outcome"] == "clean-error") {
      EXPECT_FALSE(f["message"].get<std::string>().empty());
    }
    if (f["outcome"] == "crashed") {
      EXPECT_TRUE(f.contains("signal_name"));
    }
    crash_or_hang = crash_or_hang || f["outcome"] == "crashed" || f["outcome"] == "hung";
  }
  EXPECT_EQ(r.exit_code, crash_or_hang ? 1 : 0);

  // The seed's case (success with a null pipeline) is reached and named by the layer's log line.
  const json* null_pipeline = row(report, "pipeline-null");
  ASSERT_NE(null_pipeline, nullptr);
  ASSERT_GT((*null_pipeline)["fired"].get<int>(), 0);
  EXPECT_NE(
      (*null_pipeline)["injections"][0].get<std::string>().find("call=vkCreateComputePipelines action=null"),
      std::string::npos);
  // A failing device creation must be a clean, typed error at provider attach.
  const json* no_device = row(report, "device-init-failed");
  ASSERT_NE(no_device, nullptr);
  EXPECT_EQ((*no_device)["outcome"], "clean-error");
  EXPECT_EQ((*no_device)["stage"], "append-provider");
  EXPECT_NE((*no_device)["message"].get<std::string>().find("VK_ERROR_INITIALIZATION_FAILED"),
            std::string::npos);
  EXPECT_NE(r.output.find("FAULT"), std::string::npos) << "the robustness table";
}

TEST_F(ChaosCliTest, MaskedLimitFailsAModelTheFullDeviceRunsRight) {
  parity::testing::CommandResult r;
  const json report = run_chaos({"--fault", "mask:maxStorageBufferRange=64K"}, r);
  SCOPED_TRACE(r.output);
  EXPECT_EQ(r.signal, 0);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["baseline"]["outcome"], "unaffected") << "correct on the full device";
  ASSERT_EQ(report["faults"].size(), 1u);
  const json& masked = report["faults"][0];
  EXPECT_NE(masked["outcome"], "unaffected") << "the masked device must fail the model";
  ASSERT_GT(masked["fired"].get<int>(), 0);
  EXPECT_NE(masked["injections"][0].get<std::string>().find("maxStorageBufferRange="), std::string::npos)
      << "the limit is named";
}

TEST_F(ChaosCliTest, SeedCrashReproducesAndExitsOne) {
  parity::testing::CommandResult r;
  const json report = run_chaos({"--fault", "vkCreateComputePipelines:null", "--no-baseline"}, r);
  SCOPED_TRACE(r.output);
  EXPECT_EQ(r.signal, 0);
  ASSERT_FALSE(report.is_discarded());
  ASSERT_EQ(report["faults"].size(), 1u);
  EXPECT_FALSE(report.contains("baseline"));
  const json& f = report["faults"][0];
  if (f["outcome"] == "crashed" || f["outcome"] == "hung") {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("repro (" + f["outcome"].get<std::string>() + "): parity chaos"),
              std::string::npos);
  } else {
    EXPECT_EQ(r.exit_code, 0);
  }
  EXPECT_NE(f["repro"].get<std::string>().find("--fault 'vkCreateComputePipelines:null'"), std::string::npos);
}

TEST_F(ChaosCliTest, TomlPlanNamesItsRows) {
  const std::string plan = tmp_.str() + "/plan.toml";
  std::ofstream(plan)
      << "[[fault]]\nname = \"no-device\"\nspec = \"vkCreateDevice:error\"\nwhy = \"busy GPU\"\n"
         "[[fault]]\nname = \"lost\"\nspec = \"vkQueueSubmit:device-lost@nth=1\"\n";
  parity::testing::CommandResult r;
  const json report = run_chaos({"--plan", plan, "--no-baseline"}, r);
  SCOPED_TRACE(r.output);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["plan"], plan);
  ASSERT_EQ(report["faults"].size(), 2u);
  EXPECT_EQ(report["faults"][0]["name"], "no-device");
  EXPECT_EQ(report["faults"][0]["why"], "busy GPU");
  EXPECT_EQ(report["faults"][1]["name"], "lost");
  for (const auto& f : report["faults"]) EXPECT_EQ(f["outcome"], "clean-error") << f.dump(1);
  EXPECT_EQ(r.exit_code, 0) << "clean errors only: exit 0";
}

TEST_F(ChaosCliTest, BadSpecAndMissingLayerAreUsageErrorsNotRuns) {
  auto r = parity::testing::run_parity({"chaos", kModel, "--fault", "vkCreateBuffer:explode"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown action 'explode'"), std::string::npos) << r.output;
  r = parity::testing::run_parity({"chaos", kModel, "--layer", tmp_.str() + "/nowhere.json"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("parity_vk_chaos.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace parity::chaos
