// bench/metrics_bench.cpp: cost of judging one large image output, the probe's per-output overhead.
//
// A 1x3x1024x1024 float32 pair (12 MiB each) like a 4x super-resolution tile: compute_stats is one
// streaming pass, compare_tensors two where any pair differs (the second, once the scale-aware
// bound is known, measures bound_used), so time scales with memory bandwidth. The second pass
// took bm_compare_tensors from 11.9 to 21.4 ms here (2 cores, a fuzz run beside it).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "parity/metrics.h"

namespace parity {
namespace {

constexpr int64_t kSide = 1024;

// Deterministic image-like values in [0, 1] and a copy with small noise, as two backends give.
struct ImagePair {
  Tensor actual, expected;
  ImagePair() {
    const std::size_t n = 3 * kSide * kSide;
    std::vector<float> e(n), a(n);
    uint32_t seed = 1;
    for (std::size_t i = 0; i < n; ++i) {
      seed = seed * 1664525u + 1013904223u;
      e[i] = static_cast<float>(i % 4096) / 4096.0f;
      a[i] = e[i] + (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f) * 2e-4f;
    }
    actual = Tensor::from_floats({1, 3, kSide, kSide}, a);
    expected = Tensor::from_floats({1, 3, kSide, kSide}, e);
  }
};

const ImagePair& pair() {
  static const ImagePair p;  // built once: construction is not what is measured
  return p;
}

void set_counters(benchmark::State& state, int tensors) {
  const int64_t n = pair().expected.numel();
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * 4 * tensors);
}

void bm_compare_tensors(benchmark::State& state) {
  const auto& p = pair();
  const Tolerance tol = default_tolerance(DType::float32);
  for (auto _ : state) benchmark::DoNotOptimize(compare_tensors(p.actual, p.expected, tol));
  set_counters(state, 2);
}
BENCHMARK(bm_compare_tensors)->Unit(benchmark::kMillisecond);

void bm_compute_stats(benchmark::State& state) {
  const auto& p = pair();
  for (auto _ : state) benchmark::DoNotOptimize(compute_stats(p.actual));
  set_counters(state, 1);
}
BENCHMARK(bm_compute_stats)->Unit(benchmark::kMillisecond);

// What the probe does per output: stats of both sides, the comparison and the verdict.
void bm_judge_output(benchmark::State& state) {
  const auto& p = pair();
  const Tolerance tol = default_tolerance(DType::float32);
  for (auto _ : state) {
    benchmark::DoNotOptimize(compute_stats(p.actual));
    benchmark::DoNotOptimize(compute_stats(p.expected));
    const Comparison c = compare_tensors(p.actual, p.expected, tol);
    benchmark::DoNotOptimize(judge(p.actual, p.expected, c, tol));
  }
  set_counters(state, 4);
}
BENCHMARK(bm_judge_output)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace parity
