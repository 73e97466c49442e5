// Real worker processes (the built `parity` binary) running the real ONNX Runtime; every crash,
// hang and failure here happens for real inside the worker and must come back as a typed value.
#include "isolate/isolated_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

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

// A worker whose allocation fails at its --max-memory cap and then dies of SIGSEGV (native code
// using the failed allocation, as Dawn and SwiftShader do) hit its cap: oom, not "crashed (SIGSEGV)".
TEST(IsolatedRunner, ACrashAtTheMemoryCapIsNamedOomCapped) {
  IsolationLimits limits;
  limits.max_memory_bytes = uint64_t{512} << 20;
  auto run = run_isolated(
      cpu_spec(), matmul_request(), limits,
      WorkerLaunch{PARITY_BIN, backend::TestFault{Stage::run, backend::FaultAction::oom_crash}, {}});
  ASSERT_FALSE(run.result.ok());
  const Error& e = run.result.error();
  EXPECT_EQ(e.kind, ErrorKind::oom) << e.describe();
  EXPECT_NE(e.message.find("--max-memory cap of 512 MiB"), std::string::npos) << e.describe();
  EXPECT_EQ(e.signal, SIGSEGV);
  // Without a cap the same crash is what it is: a crash.
  auto uncapped = run_with_fault(Stage::run, backend::FaultAction::oom_crash);
  ASSERT_FALSE(uncapped.result.ok());
  EXPECT_EQ(uncapped.result.error().kind, ErrorKind::crashed) << uncapped.result.error().describe();
}

// The oom test fault without a cap caps itself: it ends as a typed oom with the worker's memory
// bounded, instead of eating the host's memory until the OOM killer comes.
TEST(IsolatedRunner, TheOomFaultWithoutACapStaysBounded) {
  auto run = run_with_fault(Stage::run, backend::FaultAction::oom);
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().kind, ErrorKind::oom) << run.result.error().describe();
  EXPECT_GT(run.peak_rss_bytes, 0u);
  EXPECT_LT(run.peak_rss_bytes, uint64_t{1} << 30);
}

// The live children of this process (the workers run_isolated spawned).
std::vector<pid_t> my_workers() {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    char state = 0;
    int ppid = 0;
    if (close != std::string::npos && std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 &&
        ppid == ::getpid() && state != 'Z')
      found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

// kill -9 of a worker by someone else is no out-of-memory: the kernel's OOM-kill count says so.
TEST(IsolatedRunner, AnExternalSigkillIsNotNamedOom) {
  auto pending =
      std::async(std::launch::async, [] { return run_with_fault(Stage::run, backend::FaultAction::hang); });
  std::vector<pid_t> workers;
  while (workers.empty() && pending.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    workers = my_workers();
  ASSERT_FALSE(workers.empty()) << "the worker never started";
  for (pid_t w : workers) ::kill(w, SIGKILL);
  const IsolatedRun run = pending.get();
  ASSERT_FALSE(run.result.ok());
  const Error& e = run.result.error();
  EXPECT_NE(e.kind, ErrorKind::oom) << e.describe();
  EXPECT_EQ(e.kind, ErrorKind::crashed) << e.describe();
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_NE(e.message.find("SIGKILL from outside Parity"), std::string::npos) << e.describe();
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
