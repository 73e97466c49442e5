// The browser backends against real headless Chromium and real onnxruntime-web (SwiftShader for
// WebGPU): outputs equal ONNX Runtime's native CPU EP, the three paths really run on their own EP,
// one browser serves many runs, and failures are typed.
#include "backend/browser/web_backend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "backend/backend.h"
#include "backend_test_util.h"
#include "support/requirements.h"

namespace parity::backend::browser {
namespace {

using backend::testing::model_path;
using backend::testing::spec_for;
using backend::testing::test_values;

std::string property(const RunResult& r, const std::string& key) {
  for (const auto& [k, v] : r.properties)
    if (k == key) return v;
  return {};
}

class WebBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { PARITY_REQUIRE("chromium"); }

  Result<RunResult> run_web(const std::string& ep, const RunRequest& request, WebRunControl control = {},
                            BackendSpec spec = {}) {
    if (spec.ep.empty()) spec = spec_for(ep);
    auto backend = make_web_backend(spec, pool_, control);
    if (!backend.ok()) return backend.error();
    stages_.clear();
    auto r = (*backend)->run(request, [this](Stage s) { stages_.push_back(s); });
    log_ = (*backend)->log();
    return r;
  }

  // The same request on ONNX Runtime's native CPU EP, in this process: the reference.
  static std::vector<NamedTensor> cpu_outputs(const RunRequest& request) {
    auto cpu = create_backend(spec_for("cpu"));
    EXPECT_TRUE(cpu.ok());
    auto r = (*cpu)->run(request, {});
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? r->outputs : std::vector<NamedTensor>{};
  }

  static void expect_close(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                           double tol) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t o = 0; o < want.size(); ++o) {
      EXPECT_EQ(got[o].name, want[o].name);
      ASSERT_EQ(got[o].tensor.shape(), want[o].tensor.shape());
      ASSERT_EQ(got[o].tensor.dtype(), want[o].tensor.dtype());
      const auto a = got[o].tensor.to_doubles(), b = want[o].tensor.to_doubles();
      double worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
      EXPECT_LE(worst, tol) << "output " << want[o].name;
    }
  }

  BrowserPool pool_;
  std::vector<Stage> stages_;
  std::string log_;
};

RunRequest image_request(int64_t side) {
  RunRequest r;
  r.model_path = model_path("conv_relu_image.onnx");
  r.inputs.push_back(
      {"x", Tensor::from_floats({1, 3, side, side}, test_values(static_cast<std::size_t>(3 * side * side)))});
  return r;
}

TEST_F(WebBackendTest, ThreePathsMatchNativeCpuOnTheirOwnProvidersAndKeepTheirPages) {
  const RunRequest request = image_request(32);
  const auto want = cpu_outputs(request);
  const std::vector<std::pair<std::string, std::string>> paths = {{"web-wasm", "CPUExecutionProvider"},
                                                                  {"web-jsep", "JsExecutionProvider"},
                                                                  {"web-webgpu", "WebGpuExecutionProvider"}};
  for (int round = 0; round < 2; ++round) {
    for (const auto& [ep, provider] : paths) {
      SCOPED_TRACE(ep + " round " + std::to_string(round));
      auto r = run_web(ep, request);
      ASSERT_TRUE(r.ok()) << r.error().describe() << "\n" << log_;
      expect_close(r->outputs, want, 1e-5);
      EXPECT_EQ(r->runtime_version, "1.30.0");
      EXPECT_EQ(property(*r, "ort_web.version"), "1.30.0");
      EXPECT_NE(property(*r, "placement").find(provider + ":"), std::string::npos)
          << property(*r, "placement");
      EXPECT_GT(r->nodes_on_backend, 0);
      EXPECT_EQ(property(*r, "page.cross_origin_isolated"), "yes") << "COOP/COEP must isolate the page";
      // Each bundle keeps its own browser: round 0 launches one per path, round 1 finds each
      // page already holding its bundle and reloads nothing (docs/browser.md, "Why runs stalled").
      EXPECT_EQ(property(*r, "browser.reused"), round == 0 ? "no" : "yes");
      EXPECT_EQ(property(*r, "page.reused"), round == 0 ? "no" : "yes");
      EXPECT_EQ(property(*r, "page.settle_ms").empty(), round != 0) << "a loaded page waits to be quiet";
      if (round == 0) {
        EXPECT_GT(r->setup_ms, 0) << "launch and page load are setup, not run time";
      }
      if (ep != "web-wasm") {
        EXPECT_NE(r->adapter.find("swiftshader"), std::string::npos) << r->adapter;
        EXPECT_FALSE(property(*r, "adapter.limits.maxBufferSize").empty());
      }
    }
  }
  EXPECT_EQ(pool_.launched(), 3) << "one browser per bundle, each reused";
  // A fourth page (same bundle, other thread count) is past the pool's three hosts: it takes the
  // oldest idle browser and navigates it instead of launching another.
  BackendSpec one_thread = spec_for("web-wasm");
  one_thread.intra_op_threads = 1;
  auto fourth = run_web("web-wasm", request, {}, one_thread);
  ASSERT_TRUE(fourth.ok()) << fourth.error().describe() << "\n" << log_;
  EXPECT_EQ(property(*fourth, "browser.reused"), "yes");
  EXPECT_EQ(property(*fourth, "page.reused"), "no");
  EXPECT_EQ(pool_.launched(), 3);
  const std::vector<Stage> expected{Stage::create_env,     Stage::load_library, Stage::append_provider,
                                    Stage::create_session, Stage::run,          Stage::read_output};
  EXPECT_EQ(stages_, expected);
}

TEST_F(WebBackendTest, LargeImageCrossesAsRawBytes) {
  // 1x3x512x512 float32 in and out: 3 MiB each way, no JSON numbers.
  const RunRequest request = image_request(512);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_web("web-wasm", request);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  expect_close(r->outputs, cpu_outputs(request), 1e-5);
  std::cout << "[ info ] web-wasm 1x3x512x512 conv: " << ms << " ms end to end, run " << r->run_ms << " ms\n";
}

TEST_F(WebBackendTest, WarmupAndChosenOutputsAndInt64) {
  RunRequest request;
  request.model_path = model_path("mixed_types.onnx");
  request.inputs.push_back({"ids", Tensor::from_bytes(DType::int64, {1, 3},
                                                      [] {
                                                        std::vector<std::byte> b(3 * 8);
                                                        const int64_t ids[3] = {1, 42, 99};
                                                        std::memcpy(b.data(), ids, sizeof ids);
                                                        return b;
                                                      }())
                                       .value()});
  auto mask = Tensor::zeros(DType::float16, {1, 3, 4}).value();
  for (auto& h : mask.mutable_view<uint16_t>()) h = float_to_half(1.0f);
  request.inputs.push_back({"mask", std::move(mask)});
  request.output_names = {"idx"};
  request.warmup_runs = 1;
  auto r = run_web("web-wasm", request);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->outputs.size(), 1u) << "only the requested output comes back";
  EXPECT_EQ(r->outputs[0].name, "idx");
  EXPECT_EQ(r->outputs[0].tensor.dtype(), DType::int64);
  expect_close(r->outputs, cpu_outputs(request), 0);
}

// probe --samples N in the browser: further input sets on the page's one session, each answered as
// the CPU EP answers it alone.
TEST_F(WebBackendTest, FurtherInputSetsRunOnTheSameSession) {
  RunRequest request = image_request(8);
  RunRequest second = image_request(8);
  for (auto& v : second.inputs[0].tensor.mutable_view<float>()) v = 1.0f - v;
  request.more_inputs = {second.inputs};
  auto r = run_web("web-wasm", request);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->more_outputs.size(), 1u);
  expect_close(r->outputs, cpu_outputs(image_request(8)), 1e-5);
  expect_close(r->more_outputs[0], cpu_outputs(second), 1e-5);
  EXPECT_EQ(pool_.launched(), 1);
}

TEST_F(WebBackendTest, HangTimesOutAndTheNextRunGetsAFreshBrowser) {
  WebRunControl hang;
  hang.timeout_s = 15;  // launch, page load and session creation fit on a loaded 2-core machine
  hang.test_fault = TestFault{Stage::run, FaultAction::hang};
  const RunRequest request = image_request(8);
  auto r = run_web("web-wasm", request, hang);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::timeout) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::run);
  EXPECT_EQ(r.error().backend, "web-wasm");
  EXPECT_EQ(pool_.idle(), 0) << "a hung browser is not put back";
  EXPECT_NE(r.error().message.find("killed the browser"), std::string::npos) << r.error().message;
  auto next = run_web("web-wasm", request);
  ASSERT_TRUE(next.ok()) << next.error().describe();
  EXPECT_EQ(pool_.launched(), 2);
}

// A page that waits for a promise no one settles keeps beating while the browser idles: the stall
// watch calls it within its window, far inside --timeout, replaces the page and keeps the browser.
TEST_F(WebBackendTest, StallIsCaughtByTheHeartbeatAndOnlyThePageIsReplaced) {
  WebRunControl stall;
  stall.timeout_s = 120;
  stall.test_fault = TestFault{Stage::run, FaultAction::stall};
  const RunRequest request = image_request(8);
  const auto start = std::chrono::steady_clock::now();
  auto r = run_web("web-wasm", request, stall);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::timeout) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::run);
  EXPECT_NE(r.error().message.find("heartbeat went on"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("in step 'run: stalled on purpose"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("replaced the page"), std::string::npos) << r.error().message;
  EXPECT_LT(took, 40) << "a 10 s stall window, not the 120 s timeout";
  EXPECT_EQ(pool_.idle(), 1) << "the browser itself was fine and went back to the pool";
  auto next = run_web("web-wasm", request);
  ASSERT_TRUE(next.ok()) << next.error().describe();
  EXPECT_EQ(property(*next, "browser.reused"), "yes");
  EXPECT_EQ(property(*next, "page.reused"), "no") << "the stalled page is gone";
  EXPECT_EQ(pool_.launched(), 1);
}

// Any error from onnxruntime-web (here: a feed it does not know) costs the page: JSEP, for one,
// refuses every later run of a page in which a kernel failed. The next run gets a new tab in the
// same browser; a successful run keeps its page.
TEST_F(WebBackendTest, ErrorsReplaceThePageNotTheBrowser) {
  const RunRequest good = image_request(8);
  ASSERT_TRUE(run_web("web-wasm", good).ok());
  auto again = run_web("web-wasm", good);
  ASSERT_TRUE(again.ok()) << again.error().describe();
  EXPECT_EQ(property(*again, "page.reused"), "yes");
  RunRequest wrong = good;
  wrong.inputs[0].name = "not_an_input";
  auto refused = run_web("web-wasm", wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().stage, Stage::run) << refused.error().describe();
  auto after_error = run_web("web-wasm", good);
  ASSERT_TRUE(after_error.ok()) << after_error.error().describe();
  EXPECT_EQ(property(*after_error, "page.reused"), "no");
  EXPECT_EQ(property(*after_error, "browser.reused"), "yes");
  EXPECT_EQ(pool_.launched(), 1);
}

TEST_F(WebBackendTest, PageCrashAndBareNumberAreTyped) {
  const RunRequest request = image_request(8);
  WebRunControl crash;
  crash.test_fault = TestFault{Stage::create_session, FaultAction::segv};
  auto crashed = run_web("web-jsep", request, crash);
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(crashed.error().kind, ErrorKind::crashed) << crashed.error().describe();
  EXPECT_EQ(crashed.error().stage, Stage::create_session);

  WebRunControl abort_fault;
  abort_fault.test_fault = TestFault{Stage::load_library, FaultAction::abort};
  auto numeric = run_web("web-wasm", request, abort_fault);
  ASSERT_FALSE(numeric.ok());
  EXPECT_EQ(numeric.error().kind, ErrorKind::error);
  EXPECT_EQ(numeric.error().stage, Stage::load_library);
  EXPECT_NE(numeric.error().message.find("bare number"), std::string::npos) << numeric.error().message;

  WebRunControl null_outputs;
  null_outputs.test_fault = TestFault{Stage::read_output, FaultAction::null_result};
  auto missing = run_web("web-wasm", request, null_outputs);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().stage, Stage::read_output);
  EXPECT_NE(missing.error().message.find("no tensor for output 'y'"), std::string::npos)
      << missing.error().message;

  WebRunControl oom_fault;
  oom_fault.test_fault = TestFault{Stage::run, FaultAction::oom};
  auto refused = make_web_backend(spec_for("web-wasm"), pool_, oom_fault);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::bad_input) << "a fault the page cannot do is refused, not faked";
}

TEST_F(WebBackendTest, MissingPiecesAreUnavailable) {
  const RunRequest request = image_request(8);
  BackendSpec old = spec_for("web-wasm");
  old.ort_web = "0.0.1";
  auto not_fetched = run_web("web-wasm", request, {}, old);
  ASSERT_FALSE(not_fetched.ok());
  EXPECT_EQ(not_fetched.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(not_fetched.error().stage, Stage::load_library);
  EXPECT_NE(not_fetched.error().hint.find("fetch_ort_web.sh 0.0.1"), std::string::npos);

  BackendSpec no_browser = spec_for("web-wasm");
  no_browser.browser = "/nonexistent/chromium";
  auto launched = run_web("web-wasm", request, {}, no_browser);
  ASSERT_FALSE(launched.ok());
  EXPECT_EQ(launched.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(launched.error().stage, Stage::create_env);
  EXPECT_EQ(launched.error().backend, "web-wasm");
}

TEST_F(WebBackendTest, Fp16ModelOnAdapterWithoutShaderF16) {
  RunRequest request;
  request.model_path = model_path("fp16_image_scale.onnx");
  request.inputs.push_back({"x", Tensor::from_floats({1, 3, 4, 4}, test_values(48))});
  auto refused = run_web("web-jsep", request);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(refused.error().stage, Stage::append_provider);
  EXPECT_NE(refused.error().message.find("shader-f16"), std::string::npos);
  // Without the check, JSEP's fp16 shaders fail WebGPU validation and it would return zeros:
  // Parity reports that as an error, not as outputs.
  BackendSpec unchecked = spec_for("web-jsep");
  unchecked.check_features = false;
  auto silent = run_web("web-jsep", request, {}, unchecked);
  ASSERT_FALSE(silent.ok()) << "JSEP's zeros must not pass as a result";
  EXPECT_NE(silent.error().message.find("validation error"), std::string::npos) << silent.error().message;
  auto wasm = run_web("web-wasm", request);
  ASSERT_TRUE(wasm.ok()) << wasm.error().describe();
  expect_close(wasm->outputs, cpu_outputs(request), 1e-3);
}

}  // namespace
}  // namespace parity::backend::browser
