// How a backend's reduced arithmetic is judged: CUDA's default TF32 must not turn every real
// network into a "mismatch" (measured on an H100: ResNet-50's logits leave float32's rule at
// max_abs 0.035, cosine 0.9999999), and a wrong answer must still fail at that precision.
#include "probe/precision.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "probe/probe.h"

namespace parity::probe {
namespace {

backend::BackendSpec spec(const std::string& ep, backend::KeyValues options = {}) {
  backend::BackendSpec s;
  s.label = ep;
  s.ep = ep;
  s.provider_options = std::move(options);
  return s;
}

TEST(ReducedArithmetic, CudaComputesInTf32UnlessToldNot) {
  EXPECT_EQ(backend::reduced_arithmetic(spec("cuda")), "tf32");
  EXPECT_EQ(backend::reduced_arithmetic(spec("cuda", {{"use_tf32", "1"}})), "tf32");
  EXPECT_EQ(backend::reduced_arithmetic(spec("cuda", {{"device_id", "0"}, {"use_tf32", "0"}})), "");
  for (const char* ep : {"cpu", "webgpu", "web-webgpu", "tensorrt"})
    EXPECT_EQ(backend::reduced_arithmetic(spec(ep)), "") << ep;
  // Either side of a comparison: a CUDA reference judges a CPU target at TF32 too.
  EXPECT_EQ(judged_arithmetic(spec("cpu"), spec("cuda")), "tf32");
  EXPECT_EQ(judged_arithmetic(spec("cuda"), spec("cpu")), "tf32");
  EXPECT_EQ(judged_arithmetic(spec("cpu"), spec("webgpu")), "");
}

TEST(ReducedArithmetic, Tf32IsJudgedLikeFp16AndOnlyForFloats) {
  const Tolerance f32 = default_tolerance(DType::float32);
  const Tolerance tf32 = default_tolerance_in(DType::float32, "tf32");
  EXPECT_EQ(tf32.scale_rtol, default_tolerance(DType::float16).scale_rtol);
  ASSERT_TRUE(tf32.drift_cosine.has_value());
  EXPECT_EQ(*tf32.drift_cosine, 0.9999);
  EXPECT_EQ(default_tolerance_in(DType::float32, "").scale_rtol, f32.scale_rtol);
  EXPECT_FALSE(default_tolerance_in(DType::float32, "").drift_cosine.has_value());
  EXPECT_EQ(default_tolerance_in(DType::int64, "tf32").atol, 0);  // integers stay exact
  EXPECT_FALSE(default_tolerance_in(DType::int64, "tf32").drift_cosine.has_value());
  EXPECT_FALSE(arithmetic_note("tf32").empty());
  EXPECT_TRUE(arithmetic_note("").empty());
}

TEST(ReducedArithmetic, TheDriftOfTf32PassesAndAWrongAnswerStillFails) {
  // Logits like ResNet-50's (1000 values, |max| ~65) with TF32's measured spread on an H100.
  std::mt19937 rng(7);
  std::normal_distribution<float> logit(0.f, 20.f), spread(0.f, 0.01f);
  std::vector<float> ref(1000), tf32(1000), wrong(1000);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ref[i] = logit(rng);
    tf32[i] = ref[i] + spread(rng);
    wrong[i] = i % 50 == 0 ? -ref[i] : tf32[i];  // 2% of the classes flipped: cosine ~0.92
  }
  const NamedTensor expected{"y", Tensor::from_floats({1, 1000}, ref)};
  const NamedTensor drifted{"y", Tensor::from_floats({1, 1000}, tf32)};
  const NamedTensor broken{"y", Tensor::from_floats({1, 1000}, wrong)};
  const ProbeOptions none;
  auto verdict = [&](const NamedTensor& actual, std::string_view arithmetic) {
    return evaluate_output(&actual, expected, tolerance_for(none, "y", DType::float32, arithmetic))
        .verdict.verdict;
  };
  EXPECT_EQ(verdict(drifted, ""), Verdict::mismatch);  // float32's rule: the false alarm
  EXPECT_EQ(verdict(drifted, "tf32"), Verdict::match);
  EXPECT_EQ(verdict(broken, "tf32"), Verdict::mismatch);
  // A rule the user gave wins over the arithmetic's.
  ProbeOptions strict;
  strict.tolerance = fixed_tolerance(1e-4, 1e-3);
  EXPECT_EQ(
      evaluate_output(&drifted, expected, tolerance_for(strict, "y", DType::float32, "tf32")).verdict.verdict,
      Verdict::mismatch);
}

}  // namespace
}  // namespace parity::probe
