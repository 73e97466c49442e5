#include "conformance/outcome.h"

#include <gtest/gtest.h>

#include <cstring>

namespace parity::conformance {
namespace {

backend::BackendSpec spec(const std::string& ep) {
  backend::BackendSpec s;
  s.label = s.ep = ep;
  return s;
}

NamedTensor floats(const std::string& name, std::vector<float> v) {
  return {name, Tensor::from_floats({static_cast<int64_t>(v.size())}, v)};
}

NamedTensor int64s(const std::string& name, std::vector<int64_t> v) {
  std::vector<std::byte> bytes(v.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return {name, Tensor::from_bytes(DType::int64, {static_cast<int64_t>(v.size())}, std::move(bytes)).value()};
}

backend::RunResult ran(std::vector<NamedTensor> outputs, int64_t on_backend = 1, int64_t on_cpu = 0) {
  backend::RunResult r;
  r.outputs = std::move(outputs);
  r.nodes_on_backend = on_backend;
  r.nodes_on_cpu = on_cpu;
  r.runtime_version = "1.30.0";
  return r;
}

const Tolerance kOnnx{kOnnxDefaultAtol, kOnnxDefaultRtol, {}, {}};

Result<backend::RunResult> failed_with(ErrorKind kind, Stage stage, std::string message,
                                       std::string hint = {}) {
  Error e = make_error(kind, stage, std::move(message), std::move(hint));
  e.backend = "webgpu";
  return e;
}

TEST(Classify, WithinOnnxToleranceIsPassed) {
  auto o =
      classify(spec("webgpu"), ran({floats("y", {1.0005f, -2.0f})}), {floats("y", {1.0f, -2.0f})}, kOnnx);
  EXPECT_EQ(o.state, State::passed) << o.reason;
  ASSERT_TRUE(o.comparison);
  EXPECT_NEAR(o.comparison->max_abs, 5e-4, 1e-6);
  EXPECT_EQ(o.output, "y");
  EXPECT_EQ(o.runtime_version, "1.30.0");
}

TEST(Classify, BeyondRtolIsFailedWithRuleAndMetrics) {
  auto o = classify(spec("webgpu"), ran({floats("y", {1.002f, 0.0f})}), {floats("y", {1.0f, 0.0f})}, kOnnx);
  EXPECT_EQ(o.state, State::failed);
  EXPECT_EQ(o.failed_rule, "allclose");
  ASSERT_TRUE(o.comparison);
  EXPECT_EQ(o.comparison->elements_over_tol, 1);
  EXPECT_NE(o.reason.find("y"), std::string::npos);
}

TEST(Classify, OverriddenToleranceApplies) {
  const Tolerance loose{1e-2, 1e-2, {}, {}};
  auto o = classify(spec("webgpu"), ran({floats("y", {1.002f})}), {floats("y", {1.0f})}, loose);
  EXPECT_EQ(o.state, State::passed);
}

TEST(Classify, IntegersMustBeExact) {
  auto o = classify(spec("cpu"), ran({int64s("i", {1, 2})}), {int64s("i", {1, 3})}, kOnnx);
  EXPECT_EQ(o.state, State::failed);
  EXPECT_EQ(tolerance_for_dtype(DType::int64, kOnnx).rtol, 0);
  EXPECT_EQ(tolerance_for_dtype(DType::float16, kOnnx).rtol, kOnnxDefaultRtol);
}

TEST(Classify, MissingOutputAndWrongShapeFail) {
  auto missing = classify(spec("cpu"), ran({floats("other", {1})}), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(missing.state, State::failed);
  EXPECT_EQ(missing.failed_rule, "missing");
  auto shape = classify(spec("cpu"), ran({floats("y", {1, 2})}), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(shape.state, State::failed);
  EXPECT_EQ(shape.failed_rule, "shape");
}

TEST(Classify, ZeroKernelsOnTheEpIsNotExercisedNeverPassed) {
  auto o = classify(spec("webgpu"), ran({floats("y", {1})}, 0, 3), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(o.state, State::not_supported);
  EXPECT_NE(o.reason.find("not exercised"), std::string::npos);
  EXPECT_EQ(o.nodes_on_cpu, 3);
  // A folded graph on the CPU EP was still computed by CPU kernels at session creation.
  auto cpu = classify(spec("cpu"), ran({floats("y", {1})}, 0, 0), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(cpu.state, State::passed);
  EXPECT_NE(cpu.reason.find("folded"), std::string::npos);
  // With fallback on, a partial placement is judged, and the reason says so.
  auto partial = classify(spec("webgpu"), ran({floats("y", {1})}, 2, 1), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(partial.state, State::passed);
  EXPECT_EQ(partial.reason, "partly on CPU: 1 kernel(s) on CPU, 2 on webgpu");
  // Unknown counts (-1) do not hide a result.
  auto unknown = classify(spec("webgpu"), ran({floats("y", {1})}, -1, -1), {floats("y", {1})}, kOnnx);
  EXPECT_EQ(unknown.state, State::passed);
}

TEST(Classify, ErrorsMapToStates) {
  const std::vector<NamedTensor> exp{floats("y", {1})};
  Error crash = make_error(ErrorKind::crashed, Stage::run, "worker died");
  crash.signal = 11;
  EXPECT_EQ(classify(spec("webgpu"), Result<backend::RunResult>(crash), exp, kOnnx).state, State::crashed);
  EXPECT_NE(classify(spec("webgpu"), Result<backend::RunResult>(crash), exp, kOnnx).reason.find("SIGSEGV"),
            std::string::npos);
  EXPECT_EQ(
      classify(spec("webgpu"), failed_with(ErrorKind::timeout, Stage::run, "killed after 120 s"), exp, kOnnx)
          .state,
      State::timeout);
  auto refused =
      classify(spec("webgpu"),
               failed_with(ErrorKind::unavailable, Stage::create_session,
                           "This session contains graph nodes that are assigned to the default CPU EP, but "
                           "fallback to CPU EP has been explicitly disabled by the user."),
               exp, kOnnx);
  EXPECT_EQ(refused.state, State::not_supported);
  EXPECT_NE(refused.reason.find("EP refused"), std::string::npos);
  auto web_refused = classify(
      spec("web-webgpu"),
      failed_with(
          ErrorKind::unavailable, Stage::create_session,
          "Can't create a session. ERROR_CODE: 1, ERROR_MESSAGE: transformer_memcpy.cc:254 "
          "!node_provider_type.empty() was false. Provider type for BitShift node with name '' is not set."),
      exp, kOnnx);
  EXPECT_EQ(web_refused.state, State::not_supported);
  EXPECT_NE(web_refused.reason.find("EP refused"), std::string::npos) << web_refused.reason;
  auto f16 =
      classify(spec("webgpu"),
               failed_with(ErrorKind::unavailable, Stage::create_session,
                           "The model uses f16 but the device does not support it",
                           "the adapter lacks a feature this model needs (shader-f16 for float16 models)"),
               exp, kOnnx);
  EXPECT_EQ(f16.state, State::skipped);
  auto opset = classify(spec("cpu"),
                        failed_with(ErrorKind::error, Stage::create_session,
                                    "Opset 99 is under development and support for this is limited."),
                        exp, kOnnx);
  EXPECT_EQ(opset.state, State::skipped);
  EXPECT_NE(opset.reason.find("opset beyond the runtime"), std::string::npos);
  auto other = classify(spec("webgpu"),
                        failed_with(ErrorKind::error, Stage::run, "Non-zero status code\nstack"), exp, kOnnx);
  EXPECT_EQ(other.state, State::error);
  EXPECT_EQ(other.reason, "run: Non-zero status code");
  ASSERT_TRUE(other.error);
}

TEST(StateNames, RoundTripAndBadness) {
  for (State s : kAllStates) EXPECT_EQ(state_from_string(to_string(s)), s);
  EXPECT_EQ(to_string(State::not_supported), "not-supported");
  EXPECT_FALSE(state_from_string("ok"));
  EXPECT_TRUE(is_bad(State::crashed));
  EXPECT_FALSE(is_bad(State::not_supported));
}

}  // namespace
}  // namespace parity::conformance
