// classify(), the layer-log parser, the worker environment and the report, without a GPU or a
// worker: each outcome is built from the IsolatedRun a worker would have produced.
#include "chaos/chaos_runner.h"

#include <gtest/gtest.h>

#include "report/chaos_report.h"

namespace parity::chaos {
namespace {

NamedTensor tensor(const std::string& name, std::vector<float> values) {
  return {name, Tensor::from_floats({static_cast<int64_t>(values.size())}, values)};
}

isolate::IsolatedRun ran(std::vector<NamedTensor> outputs, std::string log = {}) {
  isolate::IsolatedRun run;
  backend::RunResult r;
  r.outputs = std::move(outputs);
  run.result = std::move(r);
  run.worker_log = std::move(log);
  return run;
}

isolate::IsolatedRun failed(ErrorKind kind, Stage stage, int signal = 0) {
  isolate::IsolatedRun run;
  Error e = make_error(kind, stage, "boom");
  e.signal = signal;
  run.result = e;
  run.worker_log =
      "noise\nparity-chaos: injected fault=0 spec=\"vkCreateBuffer:null\" call=vkCreateBuffer action=null "
      "occurrence=1 result=VK_SUCCESS+VK_NULL_HANDLE\nmore noise";
  return run;
}

const PlannedFault kFault{"buffer-null", "vkCreateBuffer:null", ""};

TEST(ChaosClassify, EachWorkerResultMapsToOneOutcome) {
  const std::vector<NamedTensor> ref = {tensor("y", {1, 2, 3})};
  EXPECT_EQ(classify(kFault, ran({tensor("y", {1, 2, 3})}), ref, {}).outcome, Outcome::unaffected);
  const FaultResult wrong = classify(kFault, ran({tensor("y", {1, 2, 30})}), ref, {});
  EXPECT_EQ(wrong.outcome, Outcome::wrong_output);
  EXPECT_EQ(wrong.failed_output, "y");
  EXPECT_EQ(wrong.failed_rule, "allclose");
  EXPECT_EQ(classify(kFault, ran({tensor("z", {1, 2, 3})}), ref, {}).failed_rule, "missing");

  const FaultResult crashed = classify(kFault, failed(ErrorKind::crashed, Stage::run, 11), ref, {});
  EXPECT_EQ(crashed.outcome, Outcome::crashed);
  EXPECT_EQ(crashed.error->signal, 11);
  EXPECT_FALSE(crashed.worker_log.empty()) << "crash rows keep the log";
  ASSERT_EQ(crashed.injections.size(), 1u);
  EXPECT_EQ(crashed.injections[0].rfind("fault=0 spec=\"vkCreateBuffer:null\"", 0), 0u);
  EXPECT_EQ(classify(kFault, failed(ErrorKind::timeout, Stage::run), ref, {}).outcome, Outcome::hung);
  for (ErrorKind k : {ErrorKind::error, ErrorKind::unavailable, ErrorKind::oom}) {
    const FaultResult clean = classify(kFault, failed(k, Stage::append_provider), ref, {});
    EXPECT_EQ(clean.outcome, Outcome::clean_error);
    EXPECT_EQ(clean.error->stage, Stage::append_provider);
    EXPECT_TRUE(clean.worker_log.empty());
  }
}

TEST(ChaosClassify, LayerEnvAppendsToTheCallersLayers) {
  setenv("VK_INSTANCE_LAYERS", "VK_LAYER_other", 1);
  const auto env = layer_env(LayerLocation{"/opt/x/parity_vk_chaos.json"}, "mask:heapSize=1M");
  unsetenv("VK_INSTANCE_LAYERS");
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0].first, "VK_ADD_LAYER_PATH");
  EXPECT_EQ(env[0].second.rfind("/opt/x", 0), 0u);
  EXPECT_EQ(env[1].second, "VK_LAYER_other:VK_LAYER_PARITY_chaos");
  EXPECT_EQ(env[2], (std::pair<std::string, std::string>{"PARITY_CHAOS_FAULTS", "mask:heapSize=1M"}));
}

TEST(ChaosReportTest, TableAndJsonNameEveryRowAndTheRepro) {
  ChaosReport report;
  report.backend = "webgpu";
  report.reference = "cpu";
  const std::vector<NamedTensor> ref = {tensor("y", {1})};
  report.baseline = classify({"baseline", "", ""}, ran({tensor("y", {1})}), ref, {});
  FaultResult crash = classify(kFault, failed(ErrorKind::crashed, Stage::create_session, 11), ref, {});
  crash.repro = "parity chaos m.onnx --backend webgpu --fault 'vkCreateBuffer:null'";
  report.faults.push_back(crash);
  report.faults.push_back(
      classify({"oom", "vkCreateBuffer:error", ""}, failed(ErrorKind::error, Stage::run), ref, {}));
  EXPECT_TRUE(report.any_crash_or_hang());

  const std::string table = report::chaos_table(report);
  EXPECT_NE(table.find("buffer-null"), std::string::npos);
  EXPECT_NE(table.find("crashed"), std::string::npos);
  EXPECT_NE(table.find("SIGSEGV"), std::string::npos);
  EXPECT_NE(table.find("2 faults: 1 clean-error, 1 crashed"), std::string::npos) << table;
  EXPECT_NE(table.find("repro (crashed): " + crash.repro), std::string::npos);

  const auto j = report::chaos_to_json(report);
  EXPECT_EQ(j["schema"], "parity.chaos/1");
  EXPECT_EQ(j["baseline"]["outcome"], "unaffected");
  EXPECT_EQ(j["faults"][0]["outcome"], "crashed");
  EXPECT_EQ(j["faults"][0]["signal_name"], "SIGSEGV");
  EXPECT_EQ(j["faults"][0]["stage"], "create-session");
  EXPECT_EQ(j["faults"][0]["fired"], 1);
  EXPECT_EQ(j["faults"][1]["outcome"], "clean-error");
  EXPECT_EQ(j["summary"]["crashed"], 1);
  EXPECT_TRUE(j["any_crash_or_hang"].get<bool>());
}

}  // namespace
}  // namespace parity::chaos
