// BackendRunner: native specs go to worker processes, browser specs to one pooled Chromium.
#include "isolate/backend_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "support/requirements.h"

namespace parity::isolate {
namespace {

backend::RunRequest matmul_request() {
  backend::RunRequest r;
  r.model_path = std::string(PARITY_TEST_MODELS) + "/matmul_add_relu.onnx";
  std::vector<float> x(2 * 16, 0.25f);
  r.inputs.push_back({"x", Tensor::from_floats({2, 16}, x)});
  return r;
}

backend::BackendSpec spec_for(const std::string& ep) {
  backend::BackendSpec s;
  s.label = s.ep = ep;
  return s;
}

TEST(BackendRunner, BrowsersAreSharedPerBundleAndNativeRunsInWorkers) {
  PARITY_REQUIRE("chromium");
  BackendRunner runner;
  IsolationLimits limits;
  limits.timeout_s = 120;
  WorkerLaunch launch;
  launch.worker_exe = PARITY_BIN;
  const auto request = matmul_request();
  auto cpu = runner.run(spec_for("cpu"), request, limits, launch);
  ASSERT_TRUE(cpu.result.ok()) << cpu.result.error().describe();
  for (const char* ep : {"web-wasm", "web-webgpu", "web-wasm"}) {
    auto web = runner.run(spec_for(ep), request, limits, launch);
    ASSERT_TRUE(web.result.ok()) << web.result.error().describe() << "\n" << web.worker_log;
    EXPECT_EQ(web.last_stage, Stage::read_output);
    ASSERT_EQ(web.result->outputs.size(), 1u);
    EXPECT_EQ(web.result->outputs[0].tensor.shape(), cpu.result->outputs[0].tensor.shape());
    EXPECT_GT(web.wall_ms, 0);
  }
  // web-wasm's second run finds its own browser again: one browser per bundle, none per run.
  EXPECT_EQ(runner.browsers_launched(), 2);
}

TEST(BackendRunner, BrowserTestFaultTravelsWithTheLaunch) {
  PARITY_REQUIRE("chromium");
  BackendRunner runner;
  IsolationLimits limits;
  limits.timeout_s = 10;  // room for launch and session creation on a loaded 2-core machine
  WorkerLaunch launch;
  launch.test_fault = backend::TestFault{Stage::run, backend::FaultAction::hang};
  auto hung = runner.run(spec_for("web-wasm"), matmul_request(), limits, launch);
  ASSERT_FALSE(hung.result.ok());
  EXPECT_EQ(hung.result.error().kind, ErrorKind::timeout);
  EXPECT_EQ(hung.last_stage, Stage::run);
  EXPECT_LT(hung.wall_ms, 25000) << "the time limit covers the whole browser run";
}

}  // namespace
}  // namespace parity::isolate
