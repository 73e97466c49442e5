// The ORT backend against the real ONNX Runtime library, CPU EP (and the 1.29 library).
#include "backend/ort/ort_backend.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <thread>

#include "backend/backend.h"
#include "backend_test_util.h"
#include "core/interrupt.h"
#include "onnx_wire.h"
#include "reference_math.h"
#include "support/temp_dir.h"

namespace parity::backend {
namespace {

using testing::model_path;
using testing::spec_for;
using testing::test_values;

Result<RunResult> run_backend(const BackendSpec& spec, const RunRequest& request,
                              std::vector<Stage>* stages = nullptr) {
  auto backend = create_backend(spec);
  if (!backend.ok()) return backend.error();
  return (*backend)->run(request, [&](Stage s) {
    if (stages) stages->push_back(s);
  });
}

RunRequest matmul_request(int batch = 2) {
  RunRequest r;
  r.model_path = model_path("matmul_add_relu.onnx");
  r.inputs.push_back(
      {"x", Tensor::from_floats({batch, 16}, test_values(static_cast<std::size_t>(batch) * 16))});
  return r;
}

void expect_floats_near(const Tensor& t, const std::vector<float>& expected, double tol) {
  ASSERT_EQ(t.dtype(), DType::float32);
  auto got = t.view<float>();
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
}

TEST(OrtCpu, MatmulAddReluMatchesReferenceAndReportsItself) {
  std::vector<Stage> stages;
  auto r = run_backend(spec_for("cpu"), matmul_request(3), &stages);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].name, "y");
  EXPECT_EQ(r->outputs[0].tensor.shape(), (Shape{3, 8}));
  expect_floats_near(r->outputs[0].tensor, testing::expected_matmul_add_relu(test_values(48), 3), 1e-5);

  EXPECT_EQ(r->runtime_version, "1.30.0");
  EXPECT_TRUE(r->adapter.empty());
  EXPECT_GT(r->create_ms, 0);
  EXPECT_GT(r->run_ms, 0);
  // The CPU EP fuses MatMul+Add and runs Relu: at least one kernel, all of them on the CPU.
  EXPECT_GT(r->nodes_on_backend, 0);
  EXPECT_EQ(r->nodes_on_backend, r->nodes_on_cpu);
  EXPECT_EQ(stages, (std::vector<Stage>{Stage::load_library, Stage::create_env, Stage::append_provider,
                                        Stage::create_session, Stage::run, Stage::read_output}));
  bool api_note = false;
  for (const auto& n : r->notes) api_note |= n.find("OrtApi 29") != std::string::npos;
  EXPECT_TRUE(api_note);
}

// A stop request ends an in-process run that cannot poll (a Loop of 10^8 trips: over ten minutes here):
// ORT's terminate flag, set by the run's watcher, and the Error says interrupted. Before, the run
// went on to the end, and `parity accept` ignored Ctrl-C for as long.
TEST(OrtCpu, AStopRequestEndsALongInProcessRunAsInterrupted) {
  install_interrupt_handlers();
  RunRequest r;
  r.model_path = model_path("endless_loop.onnx");
  r.inputs.push_back({"x", Tensor::from_floats({4}, test_values(4))});
  auto trips = Tensor::zeros(DType::int64, {});
  ASSERT_TRUE(trips.ok());
  trips->mutable_view<int64_t>()[0] = 100'000'000;
  r.inputs.push_back({"trips", std::move(trips).value()});
  std::jthread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // before or during Run: either stops it
    request_interrupt(SIGINT);
  });
  const auto result = run_backend(spec_for("cpu"), r);
  stopper.join();
  clear_interrupt();
  ASSERT_FALSE(result.ok()) << "the Loop ran all its trips";
  EXPECT_EQ(result.error().kind, ErrorKind::interrupted) << result.error().describe();
  EXPECT_EQ(result.error().stage, Stage::run);
}

TEST(OrtCpu, OptionsWarmupAndNoProfiling) {
  BackendSpec spec = spec_for("cpu");
  spec.opt_level = "disabled";
  spec.intra_op_threads = 1;
  spec.count_nodes = false;
  spec.allow_fallback = false;  // ORT would refuse the CPU EP itself; the backend skips it for cpu
  spec.session_config = {{"session.intra_op.allow_spinning", "0"}};
  RunRequest req = matmul_request();
  req.warmup_runs = 2;
  auto r = run_backend(spec, req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  expect_floats_near(r->outputs[0].tensor, testing::expected_matmul_add_relu(test_values(32), 2), 1e-5);
  EXPECT_EQ(r->nodes_on_backend, -1);
  EXPECT_EQ(r->nodes_on_cpu, -1);
}

TEST(OrtCpu, UnfusedGraphCountsEveryNode) {
  BackendSpec spec = spec_for("cpu");
  spec.opt_level = "disabled";  // no MatMul+Add fusion: matmul, add, relu each run a kernel
  auto r = run_backend(spec, matmul_request());
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->nodes_on_cpu, 3);
}

TEST(OrtCpu, ConvImageAndClassifierMatchReference) {
  RunRequest conv;
  conv.model_path = model_path("conv_image.onnx");
  conv.inputs.push_back({"x", Tensor::from_floats({1, 3, 5, 7}, test_values(105, 3))});
  auto c = run_backend(spec_for("cpu"), conv);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->outputs[0].tensor.shape(), (Shape{1, 3, 5, 7}));
  expect_floats_near(c->outputs[0].tensor, testing::expected_conv_image(test_values(105, 3), 5, 7), 1e-5);

  RunRequest cls;
  cls.model_path = model_path("classifier.onnx");
  cls.inputs.push_back({"x", Tensor::from_floats({4, 32}, test_values(128, 5))});
  auto k = run_backend(spec_for("cpu"), cls);
  ASSERT_TRUE(k.ok()) << k.error().describe();
  EXPECT_EQ(k->outputs[0].name, "probs");
  expect_floats_near(k->outputs[0].tensor, testing::expected_classifier(test_values(128, 5), 4), 1e-5);
}

TEST(OrtCpu, MixedInt64AndFloat16) {
  const std::vector<int64_t> ids{3, 99, 0, 42, 7};
  std::vector<uint16_t> mask;
  for (float v : test_values(20, 11)) mask.push_back(float_to_half(v * 2));
  std::vector<std::byte> id_bytes(ids.size() * 8), mask_bytes(mask.size() * 2);
  std::memcpy(id_bytes.data(), ids.data(), id_bytes.size());
  std::memcpy(mask_bytes.data(), mask.data(), mask_bytes.size());
  RunRequest req;
  req.model_path = model_path("mixed_types.onnx");
  req.inputs.push_back({"ids", Tensor::from_bytes(DType::int64, {1, 5}, id_bytes).value()});
  req.inputs.push_back({"mask", Tensor::from_bytes(DType::float16, {1, 5, 4}, mask_bytes).value()});
  auto r = run_backend(spec_for("cpu"), req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->outputs.size(), 2u);
  const auto expected = testing::expected_mixed_types(ids, mask);
  const Tensor& y = r->outputs[0].tensor;
  EXPECT_EQ(r->outputs[0].name, "y");
  EXPECT_EQ(y.dtype(), DType::float16);
  EXPECT_EQ(y.shape(), (Shape{1, 5, 4}));
  for (std::size_t i = 0; i < expected.y.size(); ++i)
    EXPECT_NEAR(y.element_as_double(i), expected.y[i], 1e-3 * (1 + std::abs(expected.y[i]))) << i;
  const Tensor& idx = r->outputs[1].tensor;
  EXPECT_EQ(idx.dtype(), DType::int64);
  EXPECT_EQ(std::vector<int64_t>(idx.view<int64_t>().begin(), idx.view<int64_t>().end()), expected.idx);

  // Asking for one output returns just that one.
  req.output_names = {"idx"};
  auto only = run_backend(spec_for("cpu"), req);
  ASSERT_TRUE(only.ok()) << only.error().describe();
  ASSERT_EQ(only->outputs.size(), 1u);
  EXPECT_EQ(only->outputs[0].name, "idx");
}

TEST(OrtCpu, UnnamedDims) {
  RunRequest req;
  req.model_path = model_path("unnamed_dims.onnx");
  req.inputs.push_back({"x", Tensor::from_floats({2, 3}, std::vector<float>{1, -2, 3, -4, 5, 0})});
  auto r = run_backend(spec_for("cpu"), req);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  expect_floats_near(r->outputs[0].tensor, {-1, 2, -3, 4, -5, 0}, 0);
}

// Identity models written here cover every element type the conversion code handles.
class OrtDtypes : public ::testing::Test {
 protected:
  std::string identity_model(DType dtype, std::vector<std::string> dims = {"n"}) {
    const std::string path =
        (dir_.path() / ("identity_" + std::string(dtype_name(dtype)) + ".onnx")).string();
    const int t = static_cast<int>(dtype);
    testing::write_file(
        path, testing::make_model({{"Identity", {"x"}, {"y"}}}, {{"x", t, dims}}, {{"y", t, dims}}));
    return path;
  }
  testing::ScopedTempDir dir_;
};

TEST_F(OrtDtypes, EveryNumericTypeRoundTripsThroughIdentity) {
  const DType types[] = {DType::float32,  DType::uint8,        DType::int8,      DType::uint16,
                         DType::int16,    DType::int32,        DType::int64,     DType::boolean,
                         DType::float16,  DType::float64,      DType::uint32,    DType::uint64,
                         DType::bfloat16, DType::float8e4m3fn, DType::float8e5m2};
  for (DType dtype : types) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const std::size_t n = 5, size = dtype_size(dtype);
    std::vector<std::byte> bytes(n * size);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(static_cast<uint8_t>(i * 37 + 11));
    if (dtype == DType::boolean)
      for (std::size_t i = 0; i < n; ++i) bytes[i] = std::byte(i % 2);
    RunRequest req;
    req.model_path = identity_model(dtype);
    req.inputs.push_back({"x", Tensor::from_bytes(dtype, {static_cast<int64_t>(n)}, bytes).value()});
    auto r = run_backend(spec_for("cpu"), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->outputs.size(), 1u);
    EXPECT_EQ(r->outputs[0].tensor, req.inputs[0].tensor);
  }
}

// ORT's CPU Identity has no 4-bit kernel, Cast does: x(4-bit) -> Cast to 8-bit -> `wide` checks
// Parity's packing of inputs; wide -> Cast back -> `y` checks the unpacking of outputs. An odd
// element count exercises the half-filled last byte.
TEST_F(OrtDtypes, FourBitTypesPackAndUnpack) {
  struct Case {
    DType narrow, wide;
    std::vector<int8_t> values;  // one element per byte, sign-extended for int4
  };
  const Case cases[] = {{DType::int4, DType::int8, {-8, -1, 0, 5, 7}},
                        {DType::uint4, DType::uint8, {0, 15, 1, 9, 6}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.narrow)));
    const int narrow = static_cast<int>(c.narrow), wide = static_cast<int>(c.wide);
    const std::string path = (dir_.path() / ("cast_" + std::string(dtype_name(c.narrow)) + ".onnx")).string();
    testing::write_file(
        path, testing::make_model(
                  {{"Cast", {"x"}, {"wide"}, {{"to", wide}}}, {"Cast", {"wide"}, {"y"}, {{"to", narrow}}}},
                  {{"x", narrow, {"n"}}}, {{"wide", wide, {"n"}}, {"y", narrow, {"n"}}}));
    std::vector<std::byte> bytes(c.values.size());
    std::memcpy(bytes.data(), c.values.data(), bytes.size());
    const int64_t n = static_cast<int64_t>(c.values.size());
    RunRequest req;
    req.model_path = path;
    req.inputs.push_back({"x", Tensor::from_bytes(c.narrow, {n}, bytes).value()});
    auto r = run_backend(spec_for("cpu"), req);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(r->outputs.size(), 2u);
    EXPECT_EQ(r->outputs[0].tensor, Tensor::from_bytes(c.wide, {n}, bytes).value());
    EXPECT_EQ(r->outputs[1].tensor, req.inputs[0].tensor);
  }
}

TEST_F(OrtDtypes, StringsScalarsAndEmptyTensors) {
  RunRequest strings;
  strings.model_path = identity_model(DType::string);
  strings.inputs.push_back({"x", Tensor::from_strings({4}, {"alpha", "", "gamma delta", "\xce\xbb"})});
  auto s = run_backend(spec_for("cpu"), strings);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->outputs[0].tensor, strings.inputs[0].tensor);

  RunRequest scalar;
  scalar.model_path = identity_model(DType::float32, {});
  scalar.inputs.push_back({"x", Tensor::from_floats({}, std::vector<float>{2.5f})});
  auto sc = run_backend(spec_for("cpu"), scalar);
  ASSERT_TRUE(sc.ok()) << sc.error().describe();
  EXPECT_EQ(sc->outputs[0].tensor, scalar.inputs[0].tensor);

  RunRequest empty;
  empty.model_path = identity_model(DType::float32);
  empty.inputs.push_back({"x", Tensor::from_floats({0}, std::vector<float>{})});
  auto e = run_backend(spec_for("cpu"), empty);
  ASSERT_TRUE(e.ok()) << e.error().describe();
  EXPECT_EQ(e->outputs[0].tensor.shape(), (Shape{0}));
  EXPECT_EQ(e->outputs[0].tensor.byte_size(), 0u);

  RunRequest empty_strings;
  empty_strings.model_path = identity_model(DType::string);
  empty_strings.inputs.push_back({"x", Tensor::from_strings({0}, {})});
  auto es = run_backend(spec_for("cpu"), empty_strings);
  ASSERT_TRUE(es.ok()) << es.error().describe();
  EXPECT_EQ(es->outputs[0].tensor.numel(), 0);
}

TEST_F(OrtDtypes, SequenceOutputIsAClearErrorNamingIt) {
  const std::string path = (dir_.path() / "sequence.onnx").string();
  testing::write_file(path, testing::make_model({{"SequenceConstruct", {"x"}, {"items"}}}, {{"x", 1, {"n"}}},
                                                {{"items", 1, {"n"}, /*sequence=*/true}}));
  RunRequest req;
  req.model_path = path;
  req.inputs.push_back({"x", Tensor::from_floats({2}, std::vector<float>{1, 2})});
  auto r = run_backend(spec_for("cpu"), req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, Stage::read_output);
  EXPECT_NE(r.error().message.find("'items'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("sequence"), std::string::npos) << r.error().message;
}

TEST(OrtCpuErrors, BadModelsAndInputsAreTypedErrors) {
  RunRequest missing = matmul_request();
  missing.model_path = model_path("no_such_model.onnx");
  auto m = run_backend(spec_for("cpu"), missing);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().stage, Stage::create_session);
  EXPECT_EQ(m.error().kind, ErrorKind::io) << m.error().describe();
  EXPECT_EQ(m.error().backend, "cpu");

  RunRequest not_onnx = matmul_request();
  not_onnx.model_path = model_path("not_onnx.onnx");
  auto n = run_backend(spec_for("cpu"), not_onnx);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().stage, Stage::create_session);
  EXPECT_EQ(n.error().kind, ErrorKind::bad_input) << n.error().describe();
  EXPECT_NE(n.error().message.find("ORT_INVALID_PROTOBUF"), std::string::npos) << n.error().message;

  RunRequest truncated = matmul_request();
  truncated.model_path = model_path("truncated.onnx");
  auto t = run_backend(spec_for("cpu"), truncated);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().stage, Stage::create_session) << t.error().describe();

  RunRequest wrong_name = matmul_request();
  wrong_name.inputs[0].name = "not_x";
  auto w = run_backend(spec_for("cpu"), wrong_name);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().stage, Stage::run);
  EXPECT_EQ(w.error().kind, ErrorKind::bad_input) << w.error().describe();

  RunRequest wrong_shape = matmul_request();
  wrong_shape.inputs[0].tensor = Tensor::from_floats({2, 5}, test_values(10));
  auto ws = run_backend(spec_for("cpu"), wrong_shape);
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.error().stage, Stage::run) << ws.error().describe();

  RunRequest wrong_output = matmul_request();
  wrong_output.output_names = {"nope"};
  auto wo = run_backend(spec_for("cpu"), wrong_output);
  ASSERT_FALSE(wo.ok());
  EXPECT_EQ(wo.error().stage, Stage::run);
  EXPECT_EQ(wo.error().kind, ErrorKind::bad_input);
  EXPECT_NE(wo.error().hint.find("y"), std::string::npos);

  BackendSpec bad_level = spec_for("cpu");
  bad_level.opt_level = "max";
  auto bl = run_backend(bad_level, matmul_request());
  ASSERT_FALSE(bl.ok());
  EXPECT_EQ(bl.error().stage, Stage::create_env);
  EXPECT_EQ(bl.error().kind, ErrorKind::bad_input);
}

TEST(OrtLibraryLoading, MissingLibraryIsALoadLibraryErrorWithHint) {
  BackendSpec spec = spec_for("cpu");
  spec.ort_lib = "/nonexistent/libonnxruntime.so.1";
  auto r = run_backend(spec, matmul_request());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, Stage::load_library);
  EXPECT_EQ(r.error().kind, ErrorKind::io);
  EXPECT_NE(r.error().message.find("/nonexistent/libonnxruntime.so.1"), std::string::npos);
  EXPECT_FALSE(r.error().hint.empty());

  spec.ort_lib = model_path("not_onnx.onnx");  // exists, but is no shared library
  auto d = run_backend(spec, matmul_request());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().stage, Stage::load_library);
  EXPECT_EQ(d.error().kind, ErrorKind::unavailable) << d.error().describe();
  EXPECT_NE(d.error().message.find("dlopen"), std::string::npos);
}

TEST(OrtLibraryLoading, Ort129LoadsBesideOrt130AndAgrees) {
  BackendSpec spec = spec_for("cpu");
  spec.label = "ort129";
  spec.ort_lib = testing::ort_129_lib();
  auto old = run_backend(spec, matmul_request());
  ASSERT_TRUE(old.ok()) << old.error().describe();
  EXPECT_EQ(old->runtime_version, "1.29.0");
  auto current = run_backend(spec_for("cpu"), matmul_request());
  ASSERT_TRUE(current.ok()) << current.error().describe();
  EXPECT_EQ(current->runtime_version, "1.30.0");
  EXPECT_EQ(old->outputs, current->outputs);

  auto info = ort::probe_ort_library(testing::ort_129_lib());
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(info->version, "1.29.0");
  EXPECT_EQ(info->api_version, 29u);
  EXPECT_EQ(info->eps, (std::vector<std::string>{"cpu"}));
}

TEST(OrtLibraryLoading, ListsAvailableEps) {
  auto eps = ort::list_available_eps("");
  ASSERT_TRUE(eps.ok()) << eps.error().describe();
  for (const char* ep : {"cpu", "webgpu", "cuda", "tensorrt"})
    EXPECT_NE(std::find(eps->begin(), eps->end(), ep), eps->end()) << ep;
  auto missing = ort::list_available_eps("/nonexistent/lib.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().stage, Stage::load_library);
}

TEST(OrtEps, UnknownOrMissingEpsAreUnavailableAtAppendProvider) {
  auto unknown = run_backend(spec_for("foo"), matmul_request());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(unknown.error().stage, Stage::append_provider);
  EXPECT_NE(unknown.error().hint.find("cpu"), std::string::npos) << unknown.error().hint;
  EXPECT_NE(unknown.error().hint.find("webgpu"), std::string::npos) << unknown.error().hint;

  BackendSpec webgpu129 = spec_for("webgpu");
  webgpu129.ort_lib = testing::ort_129_lib();
  auto w = run_backend(webgpu129, matmul_request());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::unavailable);
  EXPECT_EQ(w.error().stage, Stage::append_provider);

  // Built into 1.30 but its provider libraries are not shipped in the npm package: the hint names
  // the first file ORT looks for (its own status names none).
  for (const char* ep : {"cuda", "tensorrt"}) {
    auto r = run_backend(spec_for(ep), matmul_request());
    ASSERT_FALSE(r.ok()) << ep;
    EXPECT_EQ(r.error().kind, ErrorKind::unavailable) << r.error().describe();
    EXPECT_EQ(r.error().stage, Stage::append_provider) << r.error().describe();
    EXPECT_NE(r.error().hint.find("libonnxruntime_providers_shared.so is not next to"), std::string::npos)
        << r.error().hint;
  }
}

TEST(OrtEps, AMissingProviderDependencyIsNamed) {
  // ORT 1.30 with a provider bridge and a CUDA provider library beside it, whose dependency the
  // loader cannot find: the case of a GPU build's libraries on a machine without CUDA's.
  namespace fs = std::filesystem;
  parity::testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fs::copy_file(PARITY_DEFAULT_ORT_LIB, dir / "libonnxruntime.so.1");
  fs::copy_file(PARITY_TEST_PROVIDER_BRIDGE, dir / "libonnxruntime_providers_shared.so");
  BackendSpec cuda = spec_for("cuda");
  cuda.ort_lib = (dir / "libonnxruntime.so.1").string();

  auto no_provider = run_backend(cuda, matmul_request());
  ASSERT_FALSE(no_provider.ok());
  EXPECT_NE(no_provider.error().hint.find("libonnxruntime_providers_cuda.so is not next to"),
            std::string::npos)
      << no_provider.error().describe();

  fs::copy_file(PARITY_TEST_PROVIDER, dir / "libonnxruntime_providers_cuda.so");
  auto r = run_backend(cuda, matmul_request());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::unavailable) << r.error().describe();
  EXPECT_EQ(r.error().stage, Stage::append_provider) << r.error().describe();
  EXPECT_NE(r.error().hint.find("libonnxruntime_providers_cuda.so needs libparity_test_absent_dep.so"),
            std::string::npos)
      << r.error().describe();
  EXPECT_NE(r.error().hint.find("LD_LIBRARY_PATH"), std::string::npos) << r.error().hint;
}

TEST(Registry, CreatesOrtBackendsAndRejectsEmptyEp) {
  auto b = create_backend(spec_for("cpu"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->spec().ep, "cpu");
  BackendSpec none;
  none.label = "x";
  auto e = create_backend(none);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::bad_input);
  EXPECT_EQ(e.error().backend, "x");
}

}  // namespace
}  // namespace parity::backend
