// The guard runtime's own cost (docs/guard.md): a guarded run against a bare run of the same ORT
// session (the difference is the checks and bookkeeping; target < 1% of inference), tiled against
// whole (the tile overhead where the whole run is right), and isolated mode (a worker per run).
// Models: the x2 upscaler of tests/models/models_guard.py at 512x512 and PP-OCRv4 det at 640x640 (a
// real network; its checks are finite and range, since its map is mostly zeros by design), on cpu.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "backend/ort/ort_session.h"
#include "core/sha256.h"
#include "guard/self_checks.h"
#include "parity/guard.h"
#include "probe/input_plan.h"

namespace {

namespace fs = std::filesystem;
using namespace parity;

const std::string kUpscale = std::string(PARITY_BENCH_MODELS) + "/guard_upscale.onnx";
const std::string kDet = std::string(PARITY_THIRD_PARTY) + "/models/ch_PP-OCRv4_det_infer.onnx";

struct Case {
  std::string model;
  int64_t side;
  manifest::Checks checks;
};

Case upscale_case() {
  manifest::Checks c;
  c.mean_shift = 0.05;
  c.per_channel = true;
  c.max_zero_fraction = 0.5;
  c.scale = 2;
  return {kUpscale, 512, c};
}

Case det_case() {
  manifest::Checks c;
  c.range = std::pair{0.0, 1.0};
  return {kDet, 640, c};
}

Manifest manifest_for(const Case& k, const std::string& size_budget) {
  Manifest m;
  m.model = k.model;
  manifest::Declaration d;
  d.backend = d.ep = "cpu";
  d.enabled = true;
  d.variant = d.precision = "fp32";
  d.file = k.model;
  d.sha256 = sha256_file(k.model).value();
  d.graph_optimization = "all";
  d.size_budget = size_budget;
  m.backends = {d};
  m.checks = k.checks;
  return m;
}

std::vector<NamedTensor> input_for(const Case& k) {
  return {{"x", probe::random_tensor(DType::float32, {1, 3, k.side, k.side}, {0, 1}, 5).value()}};
}

// A plain CPU session on the case's model: what an application without the guard runs.
std::unique_ptr<backend::ort::Session> cpu_session(const Case& k) {
  backend::BackendSpec spec;
  spec.label = spec.ep = "cpu";
  spec.count_nodes = false;
  return backend::ort::Session::open(spec, k.model).value();
}

void bare(benchmark::State& state, const Case& k) {
  auto session = cpu_session(k);
  backend::RunRequest request;
  request.inputs = input_for(k);
  for (auto _ : state) benchmark::DoNotOptimize(session->run(request).value());
}

void guarded(benchmark::State& state, const Case& k, const std::string& budget, bool isolated) {
  GuardOptions o;
  o.isolated = isolated;
  o.cache_dir = "-";
  auto session = GuardedSession::open(k.model, manifest_for(k, budget), o).value();
  const auto inputs = input_for(k);
  double checks_ms = 0, wall_ms = 0;
  int tiles = 0;
  for (auto _ : state) {
    auto r = session->run(inputs).value();
    checks_ms += r.checks_ms;
    wall_ms += r.wall_ms;
    tiles = r.tiles;
  }
  state.counters["checks_share_%"] = 100 * checks_ms / wall_ms;
  state.counters["tiles"] = tiles;
}

// The checks alone on the upscaler's real output: the guard's own cost, without the run around it.
void BM_Upscale512_ChecksOnly(benchmark::State& state) {
  const Case k = upscale_case();
  auto session = cpu_session(k);
  backend::RunRequest request;
  request.inputs = input_for(k);
  const auto outputs = session->run(request).value().outputs;
  for (auto _ : state) benchmark::DoNotOptimize(guard::run_checks(k.checks, request.inputs, outputs));
  state.counters["elements"] =
      static_cast<double>(outputs.at(0).tensor.numel() + request.inputs.at(0).tensor.numel());
}

void BM_Upscale512_BareSession(benchmark::State& s) { bare(s, upscale_case()); }
void BM_Upscale512_Guarded(benchmark::State& s) { guarded(s, upscale_case(), "", false); }
void BM_Upscale512_GuardedTiled4(benchmark::State& s) { guarded(s, upscale_case(), "x=288x288", false); }
void BM_Upscale512_GuardedIsolated(benchmark::State& s) { guarded(s, upscale_case(), "", true); }
void BM_PPOCRv4Det640_BareSession(benchmark::State& s) { bare(s, det_case()); }
void BM_PPOCRv4Det640_Guarded(benchmark::State& s) { guarded(s, det_case(), "", false); }
void BM_PPOCRv4Det640_GuardedIsolated(benchmark::State& s) { guarded(s, det_case(), "", true); }

BENCHMARK(BM_Upscale512_ChecksOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Upscale512_BareSession)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Upscale512_Guarded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Upscale512_GuardedTiled4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Upscale512_GuardedIsolated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PPOCRv4Det640_BareSession)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PPOCRv4Det640_Guarded)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PPOCRv4Det640_GuardedIsolated)->Unit(benchmark::kMillisecond);

}  // namespace
