// tests/guard/guard_fixtures.h: what the guard runtime's tests share: a manifest written from TOML
// text (with {models} and {tmp} filled in), seeded images, and the reference outputs of a model
// computed by a real CPU session.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "backend/ort/ort_session.h"
#include "core/sha256.h"
#include "parity/guard.h"
#include "parity/manifest.h"
#include "probe/input_plan.h"
#include "support/temp_dir.h"

namespace parity::testing {

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Writes `toml` to DIR/caps.toml and loads it; fails the test on a problem. Placeholders: {models},
// {tmp}, and {sha:NAME} for the sha256 of test model NAME.onnx.
inline Manifest write_manifest(const TempDir& dir, const std::string& toml) {
  std::string text = replace_all(replace_all(toml, "{models}", PARITY_TEST_MODELS), "{tmp}", dir.str());
  for (std::size_t at = text.find("{sha:"); at != std::string::npos; at = text.find("{sha:")) {
    const std::size_t end = text.find('}', at);
    const std::string name = text.substr(at + 5, end - at - 5);
    auto sha = sha256_file(std::string(PARITY_TEST_MODELS) + "/" + name + ".onnx");
    text.replace(at, end - at + 1, sha.ok() ? *sha : "unreadable");
  }
  const auto path = dir / "caps.toml";
  std::ofstream(path) << text;
  auto m = Manifest::load(path);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().describe());
  return m.ok() ? *m : Manifest{};
}

// A seeded random image x[1,3,h,w] in [0,1).
inline std::vector<NamedTensor> image_input(int64_t h, int64_t w, uint64_t seed = 7) {
  auto t = probe::random_tensor(DType::float32, {1, 3, h, w}, {0, 1}, seed);
  EXPECT_TRUE(t.ok());
  return {{"x", t.ok() ? std::move(t).value() : Tensor{}}};
}

// `model` on the CPU EP in this process: the numbers the guard's outputs must match.
inline std::vector<NamedTensor> cpu_outputs(const std::string& model,
                                            const std::vector<NamedTensor>& inputs) {
  backend::BackendSpec spec;
  spec.label = "cpu";
  spec.ep = "cpu";
  spec.count_nodes = false;
  auto session = backend::ort::Session::open(spec, model);
  EXPECT_TRUE(session.ok()) << (session.ok() ? "" : session.error().describe());
  if (!session.ok()) return {};
  backend::RunRequest request;
  request.inputs = inputs;
  auto r = (*session)->run(request);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return r.ok() ? r->outputs : std::vector<NamedTensor>{};
}

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return INFINITY;
  const auto x = a.view<float>(), y = b.view<float>();
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(double(x[i]) - double(y[i])));
  return worst;
}

inline int count_events(const std::vector<GuardEvent>& events, GuardEvent::Kind kind,
                        const std::string& backend) {
  int n = 0;
  for (const GuardEvent& e : events) n += (e.kind == kind && e.backend == backend) ? 1 : 0;
  return n;
}

inline std::string describe(const std::vector<GuardEvent>& events) {
  std::string s;
  for (const GuardEvent& e : events)
    s += "\n  " + std::string(to_string(e.kind)) + " " + e.backend + ": " + e.message;
  return s;
}

// Restores the Vulkan loader's variables on scope exit. An in-process native WebGPU session points
// them at its adapter for the whole process (docs/guard.md), and a test that picks a mock adapter
// must not hand it to the tests after it in the same process (workers and Chromium inherit it).
class ScopedVulkanEnv {
 public:
  ScopedVulkanEnv() {
    for (const char* name : kNames)
      saved_.emplace_back(name,
                          std::getenv(name) ? std::optional<std::string>(std::getenv(name)) : std::nullopt);
  }
  ~ScopedVulkanEnv() {
    for (const auto& [name, value] : saved_) value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
  }
  ScopedVulkanEnv(const ScopedVulkanEnv&) = delete;
  ScopedVulkanEnv& operator=(const ScopedVulkanEnv&) = delete;

 private:
  static constexpr const char* kNames[] = {"VK_ICD_FILENAMES", "VK_DRIVER_FILES"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// The sweep setup every test manifest shares: cpu reference, a 32x32 sample in [0, 1].
inline constexpr const char* kSweepSetup = R"(
[sweep]
timeout_s = 120
[sweep.reference]
ep = "cpu"
graph_optimization = "all"
[sweep.inputs]
seed = 1
samples = 1
shapes = { x = [1, 3, 32, 32] }
ranges = { x = [0.0, 1.0] }
)";

}  // namespace parity::testing
