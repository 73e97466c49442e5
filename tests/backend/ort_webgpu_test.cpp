// ORT's native WebGPU EP on Chromium's SwiftShader Vulkan driver, and on its mock driver that has
// no usable adapter. Seconds per test: SwiftShader compiles every shader on the CPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backend/backend.h"
#include "backend/vulkan_adapter.h"
#include "backend_test_util.h"
#include "onnx_wire.h"
#include "reference_math.h"
#include "support/requirements.h"

namespace parity::backend {
namespace {

using testing::model_path;
using testing::spec_for;
using testing::test_values;

constexpr const char* kMockIcdLib = "/usr/lib/chromium/libVkICD_mock_icd.so";

// Every test starts from the caller's Vulkan environment (none) and leaves it as it was, since
// the backend sets VK_ICD_FILENAMES/VK_DRIVER_FILES process-wide.
class OrtWebGpu : public ::testing::Test {
 protected:
  void SetUp() override { PARITY_REQUIRE("webgpu-adapter"); }
  Result<RunResult> timed_run(const BackendSpec& spec, const RunRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    auto backend = create_backend(spec);
    if (!backend.ok()) return backend.error();
    auto r = (*backend)->run(request, {});
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cout << "[ timing   ] " << ::testing::UnitTest::GetInstance()->current_test_info()->name() << " "
              << spec.label << " " << std::filesystem::path(request.model_path).filename().string() << ": "
              << static_cast<int>(ms) << " ms";
    if (r.ok())
      std::cout << " (create " << static_cast<int>(r->create_ms) << " ms, run " << r->run_ms << " ms)";
    std::cout << "\n";
    return r;
  }
  testing::ScopedEnv icd_{"VK_ICD_FILENAMES", std::nullopt};
  testing::ScopedEnv drivers_{"VK_DRIVER_FILES", std::nullopt};
};

void expect_same_numbers(const RunResult& a, const RunResult& b, double tol) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const auto x = a.outputs[i].tensor.to_doubles(), y = b.outputs[i].tensor.to_doubles();
    EXPECT_EQ(a.outputs[i].tensor.shape(), b.outputs[i].tensor.shape());
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t j = 0; j < x.size(); ++j)
      EXPECT_NEAR(x[j], y[j], tol) << a.outputs[i].name << "[" << j << "]";
  }
}

TEST_F(OrtWebGpu, AutoPicksSwiftShaderAndMatchesCpu) {
  RunRequest req;
  req.model_path = model_path("matmul_add_relu.onnx");
  req.inputs.push_back({"x", Tensor::from_floats({4, 16}, test_values(64))});
  auto gpu = timed_run(spec_for("webgpu"), req);
  ASSERT_TRUE(gpu.ok()) << gpu.error().describe();
  auto cpu = timed_run(spec_for("cpu"), req);
  ASSERT_TRUE(cpu.ok()) << cpu.error().describe();
  expect_same_numbers(*gpu, *cpu, 1e-4);
  const auto expected = testing::expected_matmul_add_relu(test_values(64), 4);
  const auto got = gpu->outputs[0].tensor.view<float>();
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-4);

  EXPECT_GT(gpu->nodes_on_backend, 0);
  EXPECT_EQ(gpu->nodes_on_cpu, 0);
  EXPECT_NE(gpu->adapter.find("SwiftShader"), std::string::npos) << gpu->adapter;
  EXPECT_NE(gpu->adapter.find("cpu"), std::string::npos) << gpu->adapter;  // SwiftShader is a CPU device
  bool noted = false;
  for (const auto& n : gpu->notes)
    noted |= n.find("auto") != std::string::npos && n.find("SwiftShader") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(OrtWebGpu, ConvImageMatchesCpu) {
  RunRequest req;
  req.model_path = model_path("conv_image.onnx");
  req.inputs.push_back({"x", Tensor::from_floats({1, 3, 16, 16}, test_values(768, 9))});
  BackendSpec spec = spec_for("webgpu");
  spec.webgpu_adapter = "swiftshader";
  spec.allow_fallback = false;  // every node must run on WebGPU
  auto gpu = timed_run(spec, req);
  ASSERT_TRUE(gpu.ok()) << gpu.error().describe();
  auto cpu = timed_run(spec_for("cpu"), req);
  ASSERT_TRUE(cpu.ok()) << cpu.error().describe();
  expect_same_numbers(*gpu, *cpu, 1e-4);
  EXPECT_GT(gpu->nodes_on_backend, 0);
}

TEST_F(OrtWebGpu, MockDriverIsUnavailableAtAppendProvider) {
  PARITY_REQUIRE("mock-icd");
  testing::ScopedTempDir dir;
  const auto manifest = dir.path() / "mock_icd.json";
  std::ofstream(manifest) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": ")" << kMockIcdLib
                          << R"(", "api_version": "1.3.0"}})";
  BackendSpec spec = spec_for("webgpu");
  spec.webgpu_adapter = manifest.string();
  RunRequest req;
  req.model_path = model_path("matmul_add_relu.onnx");
  req.inputs.push_back({"x", Tensor::from_floats({1, 16}, test_values(16))});
  auto r = timed_run(spec, req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::unavailable) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::append_provider) << r.error().describe();
  EXPECT_NE(r.error().message.find("No supported adapters"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("ORT_FAIL"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().hint.find("Mock"), std::string::npos) << r.error().hint;  // the Vulkan device seen
}

// Each run releases its OrtEnv, and Dawn's instance with it, so a later run in the same process
// picks its driver afresh (with an env kept alive, the mock run above would reuse SwiftShader).
TEST_F(OrtWebGpu, SwiftShaderWorksAgainAfterTheMockDriver) {
  BackendSpec spec = spec_for("webgpu");
  spec.webgpu_adapter = "swiftshader";
  RunRequest req;
  req.model_path = model_path("classifier.onnx");
  req.inputs.push_back({"x", Tensor::from_floats({2, 32}, test_values(64, 4))});
  auto r = timed_run(spec, req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto expected = testing::expected_classifier(test_values(64, 4), 2);
  const auto got = r->outputs[0].tensor.view<float>();
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-4);
}

// SwiftShader has no shader-f16, yet the WebGPU EP claims float16 nodes at partitioning and only
// fails when the kernel first runs: unavailable at run, not a wrong answer.
TEST_F(OrtWebGpu, Float16OnSwiftShaderIsUnavailableAtRun) {
  const std::vector<int64_t> ids{1, 2, 3};
  std::vector<std::byte> id_bytes(24), mask_bytes(24);
  std::memcpy(id_bytes.data(), ids.data(), 24);
  for (std::size_t i = 0; i < 12; ++i) {
    const uint16_t one = float_to_half(1.0f);
    std::memcpy(mask_bytes.data() + 2 * i, &one, 2);
  }
  RunRequest req;
  req.model_path = model_path("mixed_types.onnx");
  req.inputs.push_back({"ids", Tensor::from_bytes(DType::int64, {1, 3}, id_bytes).value()});
  req.inputs.push_back({"mask", Tensor::from_bytes(DType::float16, {1, 3, 4}, mask_bytes).value()});
  BackendSpec spec = spec_for("webgpu");
  spec.webgpu_adapter = "swiftshader";
  auto r = timed_run(spec, req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::unavailable) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::run) << r.error().describe();
  EXPECT_NE(r.error().message.find("f16"), std::string::npos) << r.error().message;
}

// Neg runs on WebGPU, the string Identity only on the CPU: the profile sees both, and without
// fallback the session is refused.
TEST_F(OrtWebGpu, NodeCountsSplitAndDisabledFallback) {
  testing::ScopedTempDir dir;
  const std::string path = (dir.path() / "split.onnx").string();
  testing::write_file(
      path, testing::make_model({{"Neg", {"x"}, {"y"}}, {"Identity", {"s"}, {"t"}}},
                                {{"x", 1, {"n"}}, {"s", 8, {"m"}}}, {{"y", 1, {"n"}}, {"t", 8, {"m"}}}));
  RunRequest req;
  req.model_path = path;
  req.inputs.push_back({"x", Tensor::from_floats({3}, std::vector<float>{1, -2, 3})});
  req.inputs.push_back({"s", Tensor::from_strings({2}, {"on", "cpu"})});
  BackendSpec spec = spec_for("webgpu");
  spec.webgpu_adapter = "swiftshader";
  auto r = timed_run(spec, req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->nodes_on_backend, 1);
  EXPECT_EQ(r->nodes_on_cpu, 1);
  EXPECT_EQ(r->outputs[0].tensor, Tensor::from_floats({3}, std::vector<float>{-1, 2, -3}));
  EXPECT_EQ(r->outputs[1].tensor, req.inputs[1].tensor);

  spec.allow_fallback = false;
  auto strict = timed_run(spec, req);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().stage, Stage::create_session) << strict.error().describe();
  EXPECT_EQ(strict.error().kind, ErrorKind::unavailable) << strict.error().describe();
}

}  // namespace
}  // namespace parity::backend
