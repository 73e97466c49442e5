// Every guarded ORT call, made to fail: with the real OrtApi table copied and one function swapped
// for a stub that returns an error status or leaves its out-pointer null, and with
// PARITY_TEST_FAULT's null action at each stage. Each must end in a clean typed Error naming the
// stage, never a crash.
#include "backend/ort/ort_guard.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <functional>
#include <ostream>

#include "backend/ort/ort_api.h"
#include "backend/ort/ort_backend.h"
#include "backend_test_util.h"
#include "onnx_wire.h"

namespace parity::backend {
namespace {

using testing::model_path;
using testing::spec_for;
using testing::test_values;

// The real table of the default library; the stubs need it to make statuses.
const OrtApi* real_api() {
  static const OrtApi* api = [] {
    void* lib = dlopen(PARITY_DEFAULT_ORT_LIB, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return static_cast<const OrtApi*>(nullptr);
    auto get_base = reinterpret_cast<const OrtApiBase* (*)()>(dlsym(lib, "OrtGetApiBase"));
    return get_base ? get_base()->GetApi(ORT_API_VERSION) : nullptr;
  }();
  return api;
}

// What a failing stub reports; tests set it before a run (single-threaded test body).
OrtErrorCode g_fail_code = ORT_FAIL;
const char* g_fail_message = "stub failure from the guard test";

template <class T>
void clear_out(T) {}
template <class T>
void clear_out(T** out) {  // only non-const T** parameters are out-pointers in the C API
  if (out != nullptr) *out = nullptr;
}

// Stubs with the exact signature of an OrtApi member (deduced from the member by stub_fail and
// stub_null; naming the member's type directly would drop ORT's warn_unused_result attribute).
template <class... Args>
struct Stub {
  static OrtStatus* fail(Args...) noexcept { return real_api()->CreateStatus(g_fail_code, g_fail_message); }
  // "OK" without an object, as in seed 000: the out-pointer stays null and no status is returned.
  static OrtStatus* null_out(Args... args) noexcept {
    (clear_out(args), ...);
    return nullptr;
  }
};
template <class... Args>
void stub_fail(OrtStatus* (*&slot)(Args...) noexcept) {
  slot = &Stub<Args...>::fail;
}
template <class... Args>
void stub_null(OrtStatus* (*&slot)(Args...) noexcept) {
  slot = &Stub<Args...>::null_out;
}

#define FAIL_STUB(member) [](OrtApi& a) { stub_fail(a.member); }
#define NULL_STUB(member) [](OrtApi& a) { stub_null(a.member); }

enum class Model { matmul, strings };

struct GuardCase {
  const char* name;  // the OrtApi member, also expected in the Error's message
  std::function<void(OrtApi&)> patch;
  Stage stage;
  bool null = false;  // a null-out stub instead of a failing one
  std::string ep = "cpu";
  Model model = Model::matmul;
  std::function<void(BackendSpec&)> adjust = nullptr;
};

// gtest would otherwise print the case's raw bytes (padding included) in its test listing.
void PrintTo(const GuardCase& c, std::ostream* os) {
  *os << (c.null ? "null " : "fail ") << c.name << " on " << c.ep;
}

class OrtGuardFault : public ::testing::TestWithParam<GuardCase> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::ScopedTempDir;
    strings_model_ = (dir_->path() / "identity_string.onnx").string();
    testing::write_file(strings_model_, testing::make_model({{"Identity", {"x"}, {"y"}}}, {{"x", 8, {"n"}}},
                                                            {{"y", 8, {"n"}}}));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static RunRequest request(Model m) {
    RunRequest r;
    if (m == Model::matmul) {
      r.model_path = model_path("matmul_add_relu.onnx");
      r.inputs.push_back({"x", Tensor::from_floats({2, 16}, test_values(32))});
    } else {
      r.model_path = strings_model_;
      r.inputs.push_back({"x", Tensor::from_strings({2}, {"a", "bc"})});
    }
    return r;
  }
  static inline testing::ScopedTempDir* dir_ = nullptr;
  static inline std::string strings_model_;
};

TEST_P(OrtGuardFault, TypedErrorAtItsStage) {
  const GuardCase& c = GetParam();
  ASSERT_NE(real_api(), nullptr);
  OrtApi table = *real_api();
  c.patch(table);
  BackendSpec spec = spec_for(c.ep);
  spec.label = "guarded";
  spec.webgpu_adapter = "system";  // the stub fails first; no need to pick a Vulkan driver
  if (c.adjust) c.adjust(spec);
  auto backend = ort::make_ort_backend(spec, {&table, std::nullopt});
  std::vector<Stage> seen;
  auto r = backend->run(request(c.model), [&](Stage s) { seen.push_back(s); });
  ASSERT_FALSE(r.ok()) << c.name << " was stubbed but the run succeeded";
  const Error& e = r.error();
  EXPECT_EQ(e.stage, c.stage) << e.describe();
  EXPECT_EQ(e.backend, "guarded");
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), c.stage);
  if (c.null) {
    EXPECT_EQ(e.kind, ErrorKind::error) << e.describe();
    EXPECT_NE(e.message.find("null"), std::string::npos) << e.describe();
    EXPECT_FALSE(e.hint.empty());
  } else {
    EXPECT_NE(e.message.find(c.name), std::string::npos) << e.describe();
    EXPECT_NE(e.message.find("ORT_FAIL"), std::string::npos) << e.describe();
    EXPECT_NE(e.message.find(g_fail_message), std::string::npos) << e.describe();
  }
}

auto with_threads = [](BackendSpec& s) { s.intra_op_threads = 1; };
auto with_provider_option = [](BackendSpec& s) { s.provider_options = {{"device_id", "0"}}; };
auto without_fallback = [](BackendSpec& s) { s.allow_fallback = false; };
auto with_config = [](BackendSpec& s) { s.session_config = {{"session.intra_op.allow_spinning", "0"}}; };

const GuardCase kCases[] = {
    // create_env
    {"CreateEnv", FAIL_STUB(CreateEnv), Stage::create_env},
    {"CreateEnv", NULL_STUB(CreateEnv), Stage::create_env, true},
    {"CreateSessionOptions", FAIL_STUB(CreateSessionOptions), Stage::create_env},
    {"CreateSessionOptions", NULL_STUB(CreateSessionOptions), Stage::create_env, true},
    {"SetSessionGraphOptimizationLevel", FAIL_STUB(SetSessionGraphOptimizationLevel), Stage::create_env},
    {"SetIntraOpNumThreads", FAIL_STUB(SetIntraOpNumThreads), Stage::create_env, false, "cpu", Model::matmul,
     with_threads},
    {"AddSessionConfigEntry", FAIL_STUB(AddSessionConfigEntry), Stage::create_env, false, "webgpu",
     Model::matmul, without_fallback},
    {"AddSessionConfigEntry", FAIL_STUB(AddSessionConfigEntry), Stage::create_env, false, "cpu",
     Model::matmul, with_config},
    {"EnableProfiling", FAIL_STUB(EnableProfiling), Stage::create_env},
    // append_provider
    {"GetAvailableProviders", FAIL_STUB(GetAvailableProviders), Stage::append_provider},
    {"GetAvailableProviders", NULL_STUB(GetAvailableProviders), Stage::append_provider, true},
    {"SessionOptionsAppendExecutionProvider", FAIL_STUB(SessionOptionsAppendExecutionProvider),
     Stage::append_provider, false, "webgpu"},
    {"CreateCUDAProviderOptions", FAIL_STUB(CreateCUDAProviderOptions), Stage::append_provider, false,
     "cuda"},
    {"CreateCUDAProviderOptions", NULL_STUB(CreateCUDAProviderOptions), Stage::append_provider, true, "cuda"},
    {"UpdateCUDAProviderOptions", FAIL_STUB(UpdateCUDAProviderOptions), Stage::append_provider, false, "cuda",
     Model::matmul, with_provider_option},
    {"SessionOptionsAppendExecutionProvider_CUDA_V2",
     FAIL_STUB(SessionOptionsAppendExecutionProvider_CUDA_V2), Stage::append_provider, false, "cuda"},
    {"CreateTensorRTProviderOptions", FAIL_STUB(CreateTensorRTProviderOptions), Stage::append_provider, false,
     "tensorrt"},
    {"CreateTensorRTProviderOptions", NULL_STUB(CreateTensorRTProviderOptions), Stage::append_provider, true,
     "tensorrt"},
    {"UpdateTensorRTProviderOptions", FAIL_STUB(UpdateTensorRTProviderOptions), Stage::append_provider, false,
     "tensorrt", Model::matmul, with_provider_option},
    {"SessionOptionsAppendExecutionProvider_TensorRT_V2",
     FAIL_STUB(SessionOptionsAppendExecutionProvider_TensorRT_V2), Stage::append_provider, false, "tensorrt"},
    // create_session
    {"CreateSession", FAIL_STUB(CreateSession), Stage::create_session},
    {"CreateSession", NULL_STUB(CreateSession), Stage::create_session, true},
    // run
    {"GetAllocatorWithDefaultOptions", FAIL_STUB(GetAllocatorWithDefaultOptions), Stage::run},
    {"GetAllocatorWithDefaultOptions", NULL_STUB(GetAllocatorWithDefaultOptions), Stage::run, true},
    {"SessionGetOutputCount", FAIL_STUB(SessionGetOutputCount), Stage::run},
    {"SessionGetOutputName", FAIL_STUB(SessionGetOutputName), Stage::run},
    {"SessionGetOutputName", NULL_STUB(SessionGetOutputName), Stage::run, true},
    {"CreateCpuMemoryInfo", FAIL_STUB(CreateCpuMemoryInfo), Stage::run},
    {"CreateCpuMemoryInfo", NULL_STUB(CreateCpuMemoryInfo), Stage::run, true},
    {"CreateTensorWithDataAsOrtValue", FAIL_STUB(CreateTensorWithDataAsOrtValue), Stage::run},
    {"CreateTensorWithDataAsOrtValue", NULL_STUB(CreateTensorWithDataAsOrtValue), Stage::run, true},
    {"CreateTensorAsOrtValue", FAIL_STUB(CreateTensorAsOrtValue), Stage::run, false, "cpu", Model::strings},
    {"CreateTensorAsOrtValue", NULL_STUB(CreateTensorAsOrtValue), Stage::run, true, "cpu", Model::strings},
    {"FillStringTensor", FAIL_STUB(FillStringTensor), Stage::run, false, "cpu", Model::strings},
    {"Run", FAIL_STUB(Run), Stage::run},
    {"SessionEndProfiling", FAIL_STUB(SessionEndProfiling), Stage::run},
    {"SessionEndProfiling", NULL_STUB(SessionEndProfiling), Stage::run, true},
    // read_output: a Run that "succeeds" without outputs is caught when they are read
    {"Run", NULL_STUB(Run), Stage::read_output, true},
    {"GetValueType", FAIL_STUB(GetValueType), Stage::read_output},
    {"GetTensorTypeAndShape", FAIL_STUB(GetTensorTypeAndShape), Stage::read_output},
    {"GetTensorTypeAndShape", NULL_STUB(GetTensorTypeAndShape), Stage::read_output, true},
    {"GetTensorElementType", FAIL_STUB(GetTensorElementType), Stage::read_output},
    {"GetDimensionsCount", FAIL_STUB(GetDimensionsCount), Stage::read_output},
    {"GetDimensions", FAIL_STUB(GetDimensions), Stage::read_output},
    {"GetTensorShapeElementCount", FAIL_STUB(GetTensorShapeElementCount), Stage::read_output},
    {"GetTensorMutableData", FAIL_STUB(GetTensorMutableData), Stage::read_output},
    {"GetTensorMutableData", NULL_STUB(GetTensorMutableData), Stage::read_output, true},
    {"GetStringTensorDataLength", FAIL_STUB(GetStringTensorDataLength), Stage::read_output, false, "cpu",
     Model::strings},
    {"GetStringTensorContent", FAIL_STUB(GetStringTensorContent), Stage::read_output, false, "cpu",
     Model::strings},
};

std::string case_name(const ::testing::TestParamInfo<GuardCase>& info) {
  return std::string(info.param.null ? "null_" : "fail_") + info.param.name + "_" + info.param.ep +
         (info.param.model == Model::strings ? "_strings" : "");
}

INSTANTIATE_TEST_SUITE_P(Each, OrtGuardFault, ::testing::ValuesIn(kCases), case_name);

// The kind comes from ORT's code and message, through the same guard.
TEST(OrtGuardKinds, StubbedFailuresAreClassified) {
  ASSERT_NE(real_api(), nullptr);
  struct KindCase {
    OrtErrorCode code;
    const char* message;
    ErrorKind kind;
  };
  const KindCase cases[] = {{ORT_RUNTIME_EXCEPTION, "std::bad_alloc", ErrorKind::oom},
                            {ORT_INVALID_PROTOBUF, "Protobuf parsing failed.", ErrorKind::bad_input},
                            {ORT_NO_SUCHFILE, "File doesn't exist", ErrorKind::io},
                            {ORT_EP_FAIL, "the EP fell over", ErrorKind::error}};
  for (const KindCase& k : cases) {
    g_fail_code = k.code;
    g_fail_message = k.message;
    OrtApi table = *real_api();
    stub_fail(table.CreateSession);
    auto r = ort::make_ort_backend(spec_for("cpu"), {&table, std::nullopt})
                 ->run(RunRequest{model_path("matmul_add_relu.onnx"), {}, {}, 0}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, k.kind) << r.error().describe();
    EXPECT_NE(r.error().message.find(ort::error_code_name(k.code)), std::string::npos) << r.error().message;
  }
  g_fail_code = ORT_FAIL;
  g_fail_message = "stub failure from the guard test";
}

// PARITY_TEST_FAULT=<stage>:null at each stage, through the seam and through the environment.
class OrtTestFaultNull : public ::testing::TestWithParam<Stage> {};

TEST_P(OrtTestFaultNull, EndsInATypedErrorAtThatStage) {
  const Stage stage = GetParam();
  for (const char* ep : {"cpu", "webgpu"}) {
    SCOPED_TRACE(ep);
    if (std::string(ep) == "webgpu" && stage >= Stage::create_session)
      continue;  // shader compiles: slow path
    BackendSpec spec = spec_for(ep);
    spec.webgpu_adapter = "system";
    std::vector<Stage> seen;
    auto r = ort::make_ort_backend(spec, {nullptr, TestFault{stage, FaultAction::null_result}})
                 ->run(RunRequest{model_path("matmul_add_relu.onnx"),
                                  {{"x", Tensor::from_floats({1, 16}, test_values(16))}},
                                  {},
                                  0},
                       [&](Stage s) { seen.push_back(s); });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().stage, stage) << r.error().describe();
    EXPECT_EQ(r.error().backend, ep);
    EXPECT_NE(r.error().message.find("injected by PARITY_TEST_FAULT"), std::string::npos)
        << r.error().describe();
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), stage);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStage, OrtTestFaultNull,
                         ::testing::Values(Stage::load_library, Stage::create_env, Stage::append_provider,
                                           Stage::create_session, Stage::run, Stage::read_output),
                         [](const ::testing::TestParamInfo<Stage>& param) {
                           std::string name(to_string(param.param));
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(OrtTestFaultEnv, ReadFromTheEnvironment) {
  {
    testing::ScopedEnv fault("PARITY_TEST_FAULT", "create-session:null");
    auto r = create_backend(spec_for("cpu"))
                 .value()
                 ->run(RunRequest{model_path("matmul_add_relu.onnx"),
                                  {{"x", Tensor::from_floats({1, 16}, test_values(16))}},
                                  {},
                                  0},
                       {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().stage, Stage::create_session);
    EXPECT_NE(r.error().message.find("CreateSession"), std::string::npos);
  }
  {
    testing::ScopedEnv fault("PARITY_TEST_FAULT", "create-session:kaboom");
    auto r = create_backend(spec_for("cpu"))
                 .value()
                 ->run(RunRequest{model_path("matmul_add_relu.onnx"), {}, {}, 0}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_EQ(r.error().stage, Stage::parse_args);
  }
}

}  // namespace
}  // namespace parity::backend
