// The guard runtime end to end, on real ORT: the chain, preflight, self-checks, tiling, isolation,
// forcing and concurrency. The miscompute is ORT 1.30's WebGPU EP on a blocked 1-D
// DequantizeLinear (tests/models/models_guard.py), on SwiftShader here and NVIDIA on the GPU machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "guard/guard_fixtures.h"
#include "guard/preflight.h"
#include "support/run_parity.h"

namespace parity::testing {
namespace {

using Kind = GuardEvent::Kind;

// webgpu (the miscomputing EP, declared fit) then cpu, on the int8 upscaler. `extra` is appended.
std::string int8_manifest(const std::string& webgpu_extra, const std::string& extra) {
  return std::string(R"(
schema = "parity.manifest/1"
model = "guard_upscale_int8.onnx"
)") + extra +
         kSweepSetup + R"(
[backends.webgpu]
ep = "webgpu"
enabled = true
variant = "int8"
file = "guard_upscale_int8.onnx"
sha256 = "{sha:guard_upscale_int8}"
precision = "int8"
graph_optimization = "disabled"
)" + webgpu_extra +
         R"(
[backends.cpu]
ep = "cpu"
enabled = true
variant = "int8"
file = "guard_upscale_int8.onnx"
sha256 = "{sha:guard_upscale_int8}"
precision = "int8"
graph_optimization = "all"
)";
}

GuardOptions options_in(const TempDir& dir) {
  GuardOptions o;
  o.cache_dir = dir / "cache";
  return o;
}

const std::string kInt8 = std::string(PARITY_TEST_MODELS) + "/guard_upscale_int8.onnx";
const std::string kFp32 = std::string(PARITY_TEST_MODELS) + "/guard_upscale.onnx";

TEST(GuardedSession, PreflightRejectsAMiscomputingBackendBeforeTheModelIsUsed) {
  TempDir dir;
  const Manifest m = write_manifest(dir, int8_manifest("", ""));
  std::vector<GuardEvent> seen;
  GuardOptions o = options_in(dir);
  o.on_event = [&](const GuardEvent& e) { seen.push_back(e); };
  auto session = GuardedSession::open(kInt8, m, o);
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const auto& events = (*session)->open_events();
  EXPECT_EQ(count_events(events, Kind::preflight_failed, "webgpu"), 1) << describe(events);
  EXPECT_EQ(count_events(events, Kind::selected, "cpu"), 1) << describe(events);
  EXPECT_EQ(count_events(events, Kind::selected, "webgpu"), 0) << describe(events);
  EXPECT_EQ((*session)->backend(), "cpu");
  EXPECT_EQ(seen.size(), events.size());  // the callback saw each decision
  for (const GuardEvent& e : events)
    if (e.kind == Kind::preflight_failed) {
      EXPECT_NE(e.message.find("output 'y'"), std::string::npos) << e.message;
    }

  const auto input = image_input(48, 40);
  auto run = (*session)->run(input);
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->backend, "cpu");
  EXPECT_EQ(max_abs_diff(run->outputs.at(0).tensor, cpu_outputs(kInt8, input).at(0).tensor), 0.0);

  // The verdict is cached per backend, runtime, adapter and file: a second open does not re-run it.
  auto again = GuardedSession::open(kInt8, m, options_in(dir));
  ASSERT_TRUE(again.ok());
  bool cached = false;
  for (const GuardEvent& e : (*again)->open_events())
    cached = cached || (e.kind == Kind::preflight_failed && e.message.rfind("cached: ", 0) == 0);
  EXPECT_TRUE(cached) << describe((*again)->open_events());
}

TEST(GuardedSession, ASelfCheckCatchesAMiscomputeInsteadOfReturningIt) {
  TempDir dir;
  // No preflight: the wrong backend starts serving, and only the brightness check stands between
  // its black channels and the application.
  const Manifest m = write_manifest(dir, int8_manifest("", R"(
[guard]
preflight = false
[checks]
mean_shift = 0.05
per_channel = true
scale = 2
)"));
  auto session = GuardedSession::open(kInt8, m, options_in(dir));
  ASSERT_TRUE(session.ok()) << session.error().describe();
  EXPECT_EQ((*session)->backend(), "webgpu");
  const auto input = image_input(40, 40);
  auto run = (*session)->run(input);
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->backend, "cpu") << describe(run->events);
  // Whole, then two halvings of the tile budget, each caught; then the fallback.
  EXPECT_EQ(count_events(run->events, Kind::check_failed, "webgpu"), 3) << describe(run->events);
  EXPECT_EQ(count_events(run->events, Kind::retry_tiled, "webgpu"), 2) << describe(run->events);
  EXPECT_EQ(count_events(run->events, Kind::fell_back, "webgpu"), 1) << describe(run->events);
  for (const GuardEvent& e : run->events)
    if (e.kind == Kind::check_failed) {
      EXPECT_NE(e.message.find("mean_shift"), std::string::npos) << e.message;
    }
  EXPECT_EQ(max_abs_diff(run->outputs.at(0).tensor, cpu_outputs(kInt8, input).at(0).tensor), 0.0);
  for (const CheckResult& c : run->checks) EXPECT_TRUE(c.passed) << c.check << ": " << c.detail;
  EXPECT_EQ((*session)->backend(), "cpu");  // later runs go straight to cpu
}

TEST(GuardedSession, ABackendWithNoUsableAdapterFallsBackWithTheReason) {
  ScopedVulkanEnv restore;
  TempDir dir;
  const std::string icd = write_mock_icd_manifest(dir.str());
  const Manifest m = write_manifest(dir, int8_manifest("runtime = { adapter = \"" + icd + "\" }\n", ""));
  auto session = GuardedSession::open(kInt8, m, options_in(dir));
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const GuardEvent* failed = nullptr;
  for (const GuardEvent& e : (*session)->open_events())
    if (e.kind == Kind::open_failed && e.backend == "webgpu") failed = &e;
  ASSERT_NE(failed, nullptr) << describe((*session)->open_events());
  ASSERT_TRUE(failed->error.has_value());
  EXPECT_EQ(failed->error->kind, ErrorKind::unavailable);
  EXPECT_EQ(failed->error->stage, Stage::append_provider);
  EXPECT_NE(failed->message.find("adapter"), std::string::npos) << failed->message;
  EXPECT_EQ((*session)->backend(), "cpu");
}

// The adapter's real limits (SwiftShader's, read through Vulkan as Dawn reads them) against a file
// whose largest weight is declared at 64 GiB: not trusted before anything runs on it.
TEST(GuardedSession, AnAdapterBelowTheFilesLargestWeightIsNotTrusted) {
  ScopedVulkanEnv restore;
  TempDir dir;
  const Manifest m = write_manifest(dir, int8_manifest("largest_weight_bytes = 68719476736\n", ""));
  auto session = GuardedSession::open(kInt8, m, options_in(dir));
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const auto& events = (*session)->open_events();
  ASSERT_EQ(count_events(events, Kind::preflight_failed, "webgpu"), 1) << describe(events);
  for (const GuardEvent& e : events)
    if (e.kind == Kind::preflight_failed) {
      EXPECT_NE(e.message.find("the adapter's maxBufferSize is"), std::string::npos) << e.message;
      EXPECT_NE(e.message.find("below the 65536 MiB the file's largest weight needs"), std::string::npos)
          << e.message;
    }
  EXPECT_EQ((*session)->backend(), "cpu");
  // The same file at its real size fits: the limit is read, not assumed.
  const Manifest fits = write_manifest(dir, int8_manifest("largest_weight_bytes = 4096\n", ""));
  auto ok = GuardedSession::open(kInt8, fits, options_in(dir));
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  for (const GuardEvent& e : (*ok)->open_events())
    EXPECT_EQ(e.message.find("maxBufferSize"), std::string::npos) << e.message;
}

TEST(AdapterShortfall, TheBufferLimitHoldsEverywhereTheBindingLimitOnlyOnJsep) {
  manifest::Declaration d;
  d.ep = "web-webgpu";
  d.largest_weight_bytes = 384ull << 20;
  const std::vector<std::pair<std::string, std::string>> small_binding = {
      {"adapter.limits.maxBufferSize", std::to_string(1ull << 30)},
      {"adapter.limits.maxStorageBufferBindingSize", std::to_string(128ull << 20)}};
  EXPECT_EQ(guard::adapter_shortfall(d, small_binding), "");  // ORT's WebGPU EP binds in segments
  d.ep = "web-jsep";
  EXPECT_EQ(
      guard::adapter_shortfall(d, small_binding),
      "the adapter's maxStorageBufferBindingSize is 128 MiB, below the 384 MiB the file's largest weight "
      "needs");
  d.ep = "webgpu";
  const std::vector<std::pair<std::string, std::string>> small_buffer = {
      {"adapter.limits.maxBufferSize", std::to_string(256ull << 20)}};
  EXPECT_EQ(guard::adapter_shortfall(d, small_buffer),
            "the adapter's maxBufferSize is 256 MiB, below the 384 MiB the file's largest weight needs");
  EXPECT_EQ(guard::adapter_shortfall(d, {}), "");  // a backend with no adapter (cpu)
  d.largest_weight_bytes = 0;
  EXPECT_EQ(guard::adapter_shortfall(d, small_buffer), "");  // not recorded: nothing to hold it to
}

TEST(GuardedSession, ACrashingBackendInIsolatedModeFallsBackAndTheApplicationLives) {
  TempDir dir;
  const Manifest m = write_manifest(dir, int8_manifest("", ""));
  ::setenv("PARITY_TEST_FAULT", "create-session:segv@webgpu", 1);
  GuardOptions o = options_in(dir);
  o.isolated = true;
  o.worker_exe = PARITY_BIN;
  auto session = GuardedSession::open(kInt8, m, o);
  ::unsetenv("PARITY_TEST_FAULT");
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const GuardEvent* failed = nullptr;
  for (const GuardEvent& e : (*session)->open_events())
    if (e.kind == Kind::open_failed && e.backend == "webgpu") failed = &e;
  ASSERT_NE(failed, nullptr) << describe((*session)->open_events());
  ASSERT_TRUE(failed->error.has_value());
  EXPECT_EQ(failed->error->kind, ErrorKind::crashed);
  EXPECT_EQ(failed->error->stage, Stage::create_session);
  EXPECT_EQ(signal_name(failed->error->signal), "SIGSEGV");
  const auto input = image_input(32, 32);
  auto run = (*session)->run(input);
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->backend, "cpu");
  EXPECT_EQ(max_abs_diff(run->outputs.at(0).tensor, cpu_outputs(kInt8, input).at(0).tensor), 0.0);
}

TEST(GuardedSession, AnInputThatFailsWholeIsCompletedByHalvingTheTileBudget) {
  TempDir dir;
  // A real limit: the worker capped at 600 MiB runs the x2 upscaler up to 1024x1024 and runs out
  // of memory at 2048x2048 (measured with parity probe -b cpu:max-memory=600M).
  const Manifest m = write_manifest(dir, std::string(R"(
schema = "parity.manifest/1"
model = "guard_upscale.onnx"
[checks]
mean_shift = 0.05
scale = 2
)") + kSweepSetup + R"(
[backends.cpu]
ep = "cpu"
enabled = true
variant = "fp32"
file = "guard_upscale.onnx"
sha256 = "{sha:guard_upscale}"
precision = "fp32"
graph_optimization = "all"
runtime = { max_memory_bytes = 629145600 }
)");
  GuardOptions o = options_in(dir);
  o.isolated = true;
  o.worker_exe = PARITY_BIN;
  auto session = GuardedSession::open(kFp32, m, o);
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const auto input = image_input(2048, 2048);
  auto run = (*session)->run(input);
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->backend, "cpu");
  ASSERT_GE(count_events(run->events, Kind::run_failed, "cpu"), 1) << describe(run->events);
  EXPECT_EQ(run->events.front().error->kind, ErrorKind::oom) << describe(run->events);
  EXPECT_GE(count_events(run->events, Kind::retry_tiled, "cpu"), 1);
  EXPECT_GT(run->tiles, 1);
  // Tiled with 16 px of overlap, the upscaler (receptive radius 2) gives the whole-image numbers.
  EXPECT_LT(max_abs_diff(run->outputs.at(0).tensor, cpu_outputs(kFp32, input).at(0).tensor), 1e-5);
}

TEST(GuardedSession, ABackendDeclaredUnfitIsRefusedEvenWhenForced) {
  TempDir dir;
  const Manifest m = write_manifest(dir, std::string(R"(
schema = "parity.manifest/1"
model = "guard_upscale_int8.onnx"
)") + kSweepSetup + R"(
[backends.webgpu]
ep = "webgpu"
enabled = false
reason = "mismatch: blocked 1-D DequantizeLinear reads the wrong scale, cosine 0.578"
[backends.cpu]
ep = "cpu"
enabled = true
variant = "int8"
file = "guard_upscale_int8.onnx"
sha256 = "{sha:guard_upscale_int8}"
precision = "int8"
graph_optimization = "all"
)");
  GuardOptions o = options_in(dir);
  o.force = "webgpu";
  auto session = GuardedSession::open(kInt8, m, o);
  ASSERT_TRUE(session.ok()) << session.error().describe();
  const auto& events = (*session)->open_events();
  ASSERT_EQ(count_events(events, Kind::refused, "webgpu"), 1) << describe(events);
  EXPECT_NE(events.front().message.find("blocked 1-D DequantizeLinear"), std::string::npos)
      << describe(events);
  EXPECT_EQ((*session)->backend(), "cpu");
}

TEST(GuardedSession, ConcurrentRunsEqualSerialOnes) {
  TempDir dir;
  const Manifest m = write_manifest(dir, std::string(R"(
schema = "parity.manifest/1"
model = "guard_upscale.onnx"
[checks]
mean_shift = 0.05
)") + kSweepSetup + R"(
[backends.cpu]
ep = "cpu"
enabled = true
variant = "fp32"
file = "guard_upscale.onnx"
sha256 = "{sha:guard_upscale}"
precision = "fp32"
graph_optimization = "all"
)");
  auto session = GuardedSession::open(kFp32, m, options_in(dir));
  ASSERT_TRUE(session.ok()) << session.error().describe();
  constexpr int kThreads = 4, kRuns = 3;
  std::vector<std::vector<NamedTensor>> inputs;
  std::vector<Tensor> serial;
  for (int i = 0; i < kThreads * kRuns; ++i) {
    inputs.push_back(image_input(64 + 8 * (i % 3), 64, 100 + i));
    auto r = (*session)->run(inputs.back());
    ASSERT_TRUE(r.ok()) << r.error().describe();
    serial.push_back(r->outputs.at(0).tensor);
  }
  std::vector<Tensor> concurrent(inputs.size());
  std::vector<std::string> errors(inputs.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kRuns; ++k) {
        const int i = t * kRuns + k;
        auto r = (*session)->run(inputs[i]);
        if (r.ok())
          concurrent[i] = r->outputs.at(0).tensor;
        else
          errors[i] = r.error().describe();
      }
    });
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(max_abs_diff(concurrent[i], serial[i]), 0.0) << "run " << i;
  }
}

TEST(GuardedSession, NoUsableBackendIsOneErrorListingEveryReason) {
  ScopedVulkanEnv restore;
  TempDir dir;
  const std::string icd = write_mock_icd_manifest(dir.str());
  const Manifest m = write_manifest(dir, std::string(R"(
schema = "parity.manifest/1"
model = "guard_upscale.onnx"
)") + kSweepSetup + R"(
[backends.webgpu]
ep = "webgpu"
enabled = true
variant = "fp32"
file = "guard_upscale.onnx"
sha256 = "{sha:guard_upscale}"
precision = "fp32"
graph_optimization = "all"
runtime = { adapter = ")" + icd + R"(" }
[backends.wasm]
ep = "web-wasm"
enabled = true
variant = "fp32"
file = "guard_upscale.onnx"
sha256 = "{sha:guard_upscale}"
precision = "fp32"
graph_optimization = "all"
)");
  auto session = GuardedSession::open(kFp32, m, options_in(dir));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().kind, ErrorKind::unavailable);
  EXPECT_NE(session.error().message.find("webgpu: "), std::string::npos) << session.error().message;
}

}  // namespace
}  // namespace parity::testing
