// Pure parts of the ORT backend: error classification, EP names, profile parsing.
#include <gtest/gtest.h>

#include "backend/ort/ort_guard.h"
#include "backend/ort/ort_library.h"
#include "backend/ort/ort_profile.h"
#include "backend/ort/ort_providers.h"

namespace parity::backend::ort {
namespace {

TEST(OrtErrors, CodeNames) {
  EXPECT_EQ(error_code_name(ORT_FAIL), "ORT_FAIL");
  EXPECT_EQ(error_code_name(ORT_EP_FAIL), "ORT_EP_FAIL");
  EXPECT_EQ(error_code_name(ORT_INVALID_GRAPH), "ORT_INVALID_GRAPH");
  EXPECT_EQ(error_code_name(static_cast<OrtErrorCode>(99)), "ORT_ERROR_99");
}

TEST(OrtErrors, ClassifiesByMessageThenCode) {
  struct Case {
    OrtErrorCode code;
    const char* message;
    Stage stage;
    ErrorKind kind;
  };
  const Case cases[] = {
      {ORT_FAIL, "Failed to get a WebGPU adapter: No supported adapters", Stage::append_provider,
       ErrorKind::unavailable},
      {ORT_INVALID_ARGUMENT, "Unknown provider name 'Foo'. Currently supported values are ...",
       Stage::append_provider, ErrorKind::unavailable},
      {ORT_INVALID_ARGUMENT, "WebGPU execution provider is not supported in this build. ",
       Stage::append_provider, ErrorKind::unavailable},
      {ORT_FAIL, "OrtSessionOptionsAppendExecutionProvider_Cuda: Failed to load shared library",
       Stage::append_provider, ErrorKind::unavailable},
      {ORT_RUNTIME_EXCEPTION, "std::bad_alloc", Stage::run, ErrorKind::oom},
      {ORT_FAIL, "CUDA failure 2: out of memory", Stage::run, ErrorKind::oom},
      {ORT_FAIL, "Failed to allocate memory for requested buffer of size 1234", Stage::create_session,
       ErrorKind::oom},
      {ORT_NO_SUCHFILE, "Load model from x.onnx failed. File doesn't exist", Stage::create_session,
       ErrorKind::io},
      {ORT_INVALID_PROTOBUF, "Protobuf parsing failed.", Stage::create_session, ErrorKind::bad_input},
      {ORT_INVALID_GRAPH, "This is an invalid model.", Stage::create_session, ErrorKind::error},
      {ORT_NOT_IMPLEMENTED, "Could not find an implementation for Foo(1) node", Stage::create_session,
       ErrorKind::unavailable},
      {ORT_INVALID_ARGUMENT, "Invalid input name: q", Stage::run, ErrorKind::bad_input},
      {ORT_INVALID_ARGUMENT, "some other argument", Stage::create_session, ErrorKind::error},
      {ORT_FAIL,
       "Exception during initialization: transformer_memcpy.cc:253 bool onnxruntime::TransformerMemcpyImpl::"
       "IsNodeCompatibleWithProvider(const onnxruntime::Node&) const !node_provider_type.empty() was false. "
       "Provider type for BitShift node with name '' is not set.",
       Stage::create_session, ErrorKind::unavailable},
      {ORT_EP_FAIL, "kernel exploded", Stage::run, ErrorKind::error},
  };
  for (const Case& c : cases) {
    const Classification got = classify_ort_error(c.code, c.message, c.stage);
    EXPECT_EQ(got.kind, c.kind) << c.message;
    if (got.kind != ErrorKind::error) {
      EXPECT_FALSE(got.hint.empty()) << c.message;
    }
  }
}

// A fake library entry point serving API versions 1..g_max_api, like ORT 1.<g_max_api>.
uint32_t g_max_api = 20;
std::vector<uint32_t> g_asked;
const OrtApi* fake_get_api(uint32_t version) noexcept {
  static const OrtApi table{};
  g_asked.push_back(version);
  return version <= g_max_api ? &table : nullptr;
}
const char* fake_version() noexcept { return "1.20.0"; }

TEST(OrtApiVersion, FallsBackToTheNewestServedVersionDownToTheFloor) {
  const OrtApiBase base{fake_get_api, fake_version};
  g_max_api = 20;
  g_asked.clear();
  // A version string we cannot read: start at the headers' version and walk down.
  EXPECT_EQ(negotiate_api(base, "unknown").version, 20u);
  EXPECT_EQ(g_asked.front(), kHeaderApiVersion);
  EXPECT_EQ(g_asked.back(), 20u);
  // A readable "1.20.0" asks for 20 first, so ORT prints no "version not available" lines.
  g_asked.clear();
  EXPECT_EQ(negotiate_api(base, "1.20.0").version, 20u);
  EXPECT_EQ(g_asked, std::vector<uint32_t>{20});
  // Older than the floor: nothing.
  g_max_api = kMinApiVersion - 1;
  const NegotiatedApi none = negotiate_api(base, "1.11.0");
  EXPECT_EQ(none.api, nullptr);
  EXPECT_EQ(none.version, 0u);
  EXPECT_EQ(negotiate_api(OrtApiBase{nullptr, nullptr}, "1.30.0").api, nullptr);
}

TEST(OrtProviders, ShortNames) {
  EXPECT_EQ(short_ep_name("CPUExecutionProvider"), "cpu");
  EXPECT_EQ(short_ep_name("WebGpuExecutionProvider"), "webgpu");
  EXPECT_EQ(short_ep_name("CUDAExecutionProvider"), "cuda");
  EXPECT_EQ(short_ep_name("TensorrtExecutionProvider"), "tensorrt");
  EXPECT_EQ(short_ep_name("XnnpackExecutionProvider"), "xnnpack");
  EXPECT_EQ(short_ep_name("FooBarExecutionProvider"), "foobar");
  ASSERT_NE(find_ep_by_short_name("webgpu"), nullptr);
  EXPECT_EQ(find_ep_by_short_name("webgpu")->append_name, "WebGPU");
  EXPECT_EQ(find_ep_by_short_name("cuda")->method, AppendMethod::cuda_v2);
  EXPECT_EQ(find_ep_by_short_name("cpu")->method, AppendMethod::none);
  EXPECT_EQ(find_ep_by_short_name("nope"), nullptr);
  for (const EpName& ep : known_eps()) EXPECT_EQ(short_ep_name(ep.provider_name), ep.short_name);
}

TEST(OrtProfile, CountsDistinctNodesPerProvider) {
  const char* json = R"([
    {"cat": "Session", "name": "model_run", "args": {}},
    {"cat": "Node", "name": "matmul/MatMulAddFusion_kernel_time", "args": {"provider": "WebGpuExecutionProvider"}},
    {"cat": "Node", "name": "relu_kernel_time", "args": {"provider": "WebGpuExecutionProvider"}},
    {"cat": "Node", "name": "relu_kernel_time", "args": {"provider": "WebGpuExecutionProvider"}},
    {"cat": "Node", "name": "relu_fence_before", "args": {"provider": "WebGpuExecutionProvider"}},
    {"cat": "Node", "name": "gather_kernel_time", "args": {"provider": "CPUExecutionProvider"}},
    {"cat": "Node", "name": "no_provider_kernel_time", "args": {}},
    {"cat": "Api", "name": "relu&Relu&Relu", "args": {"cache_key": "x"}}
  ])";
  auto counts = count_profiled_nodes(json);
  ASSERT_TRUE(counts.ok()) << counts.error().describe();
  EXPECT_EQ(counts->at("WebGpuExecutionProvider"), 2);
  EXPECT_EQ(counts->at("CPUExecutionProvider"), 1);
  EXPECT_EQ(counts->size(), 2u);

  auto wrapped = count_profiled_nodes(R"({"traceEvents": [{"cat": "Node", "name": "a_kernel_time",
                                          "args": {"provider": "CPUExecutionProvider"}}]})");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(wrapped->at("CPUExecutionProvider"), 1);
}

TEST(OrtProfile, MalformedIsAnErrorNotACrash) {
  for (const char* bad : {"", "{", "42", R"({"traceEvents": 3})"}) {
    auto counts = count_profiled_nodes(bad);
    ASSERT_FALSE(counts.ok()) << bad;
    EXPECT_EQ(counts.error().stage, Stage::read_output);
  }
  auto odd = count_profiled_nodes(R"([1, "x", {"cat": 3}, {"cat": "Node", "name": 5, "args": []}])");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(odd->empty());
  EXPECT_FALSE(read_profile_file("/nonexistent/profile.json").ok());
}

}  // namespace
}  // namespace parity::backend::ort
