// Real worker processes (the built `parity` binary) running the real ONNX Runtime; every crash,
// hang and failure here happens for real inside the worker and must come back as a typed value.
#include "isolate/isolated_runner.h"

#include <gtest/gtest.h>

#include <csignal>

namespace parity::isolate {
namespace {

backend::BackendSpec cpu_spec() {
  backend::BackendSpec s;
  s.label = "cpu";
  s.ep = "cpu";
  s.count_nodes = false;
  return s;
}

backend::RunRequest matmul_request() {
  backend::RunRequest r;
  r.model_path = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";
  std::vector<float> x(2 * 16, 0.5f);
  r.inputs.push_back({"x", Tensor::from_floats({2, 16}, x)});
  return r;
}

IsolatedRun run_with_fault(Stage stage, backend::FaultAction action, double timeout_s = 60) {
  IsolationLimits limits;
  limits.timeout_s = timeout_s;
  return run_isolated(cpu_spec(), matmul_request(), limits,
                      WorkerLaunch{PARITY_BIN, backend::TestFault{stage, action}, {}});
}

TEST(IsolatedRunner, CpuRunReturnsOutputsFromTheWorker) {
  auto run = run_isolated(cpu_spec(), matmul_request(), {}, WorkerLaunch{PARITY_BIN, std::nullopt, {}});
  ASSERT_TRUE(run.result.ok()) << run.result.error().describe() << "\n" << run.worker_log;
  ASSERT_EQ(run.result->outputs.size(), 1u);
  EXPECT_EQ(run.result->outputs[0].name, "y");
  EXPECT_EQ(run.result->outputs[0].tensor.shape(), (Shape{2, 8}));
  EXPECT_EQ(run.result->runtime_version, "1.30.0");
  EXPECT_EQ(run.last_stage, Stage::read_output);
}

// probe --samples N: N input sets through one worker and one session, each answered as if run alone.
TEST(IsolatedRunner, FurtherInputSetsRunOnOneSessionAndMatchSeparateRuns) {
  std::vector<backend::RunRequest> alone;
  for (float v : {0.5f, -1.0f, 2.0f}) {
    backend::RunRequest r = matmul_request();
    std::vector<float> x(2 * 16);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = v * static_cast<float>(i % 7) - 1.5f;
    r.inputs = {{"x", Tensor::from_floats({2, 16}, x)}};
    alone.push_back(r);
  }
  backend::RunRequest together = alone[0];
  together.more_inputs = {alone[1].inputs, alone[2].inputs};
  const WorkerLaunch launch{PARITY_BIN, std::nullopt, {}};
  auto run = run_isolated(cpu_spec(), together, {}, launch);
  ASSERT_TRUE(run.result.ok()) << run.result.error().describe() << "\n" << run.worker_log;
  ASSERT_EQ(run.result->more_outputs.size(), 2u);
  for (std::size_t k = 0; k < alone.size(); ++k) {
    auto separate = run_isolated(cpu_spec(), alone[k], {}, launch);
    ASSERT_TRUE(separate.result.ok()) << separate.result.error().describe();
    const auto& got = k == 0 ? run.result->outputs : run.result->more_outputs[k - 1];
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], separate.result->outputs[0]) << "input set " << k;
  }
  EXPECT_NE(run.result->outputs[0], run.result->more_outputs[0][0])
      << "the sets must differ to prove anything";
}

class StageFault : public ::testing::TestWithParam<Stage> {};

TEST_P(StageFault, SegfaultBecomesCrashedWithSignalAndStage) {
  auto run = run_with_fault(GetParam(), backend::FaultAction::segv);
  ASSERT_FALSE(run.result.ok());
  const Error& e = run.result.error();
  EXPECT_EQ(e.kind, ErrorKind::crashed) << e.describe();
  EXPECT_EQ(e.signal, SIGSEGV);
  EXPECT_EQ(e.stage, GetParam()) << e.describe();
  EXPECT_EQ(e.backend, "cpu");
  EXPECT_FALSE(e.hint.empty());
}

TEST_P(StageFault, AbortBecomesCrashedWithSigabrt) {
  auto run = run_with_fault(GetParam(), backend::FaultAction::abort);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().kind, ErrorKind::crashed);
  EXPECT_EQ(run.result.error().signal, SIGABRT);
  EXPECT_EQ(run.result.error().stage, GetParam());
}

TEST_P(StageFault, NullResultBecomesACleanTypedError) {
  auto run = run_with_fault(GetParam(), backend::FaultAction::null_result);
  ASSERT_FALSE(run.result.ok());
  const Error& e = run.result.error();
  EXPECT_NE(e.kind, ErrorKind::crashed) << e.describe();
  EXPECT_EQ(e.stage, GetParam()) << e.describe();
  EXPECT_FALSE(e.message.empty());
}

INSTANTIATE_TEST_SUITE_P(AllStages, StageFault,
                         ::testing::Values(Stage::load_library, Stage::create_env, Stage::append_provider,
                                           Stage::create_session, Stage::run, Stage::read_output),
                         [](const auto& param_info) {
                           std::string n(to_string(param_info.param));
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(IsolatedRunner, HangBecomesTimeoutAtTheStage) {
  auto run = run_with_fault(Stage::run, backend::FaultAction::hang, /*timeout_s=*/2);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().kind, ErrorKind::timeout);
  EXPECT_EQ(run.result.error().stage, Stage::run);
  EXPECT_LT(run.wall_ms, 10000);
}

TEST(IsolatedRunner, RunawayAllocationUnderAMemoryCapBecomesOom) {
  IsolationLimits limits;
  limits.max_memory_bytes = uint64_t{512} << 20;
  auto run =
      run_isolated(cpu_spec(), matmul_request(), limits,
                   WorkerLaunch{PARITY_BIN, backend::TestFault{Stage::run, backend::FaultAction::oom}, {}});
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().kind, ErrorKind::oom) << run.result.error().describe();
}

TEST(IsolatedRunner, MissingWorkerBinaryIsAnErrorValue) {
  auto run =
      run_isolated(cpu_spec(), matmul_request(), {}, WorkerLaunch{"/nonexistent/parity", std::nullopt, {}});
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().backend, "cpu");
  EXPECT_NE(run.result.error().kind, ErrorKind::crashed);
}

TEST(IsolatedRunner, FaultSpecTargetsOneBackend) {
  auto f = test_fault_for("run:segv@webgpu,create-session:abort@old", "webgpu");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->has_value());
  EXPECT_EQ((*f)->stage, Stage::run);
  auto none = test_fault_for("run:segv@webgpu", "cpu");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto all = test_fault_for("run:hang", "cpu");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->has_value());
  EXPECT_FALSE(test_fault_for("nowhere:segv", "cpu").ok());
}

}  // namespace
}  // namespace parity::isolate
