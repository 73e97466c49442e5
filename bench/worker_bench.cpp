// bench/worker_bench.cpp: what isolation costs a run. The same tiny model (matmul_add_relu) opened
// and run on the CPU EP in this process (ORT already loaded: an application's steady state) and in
// a fresh `parity worker` process (spawn, ORT library load, request and tensors over pipes, reap),
// the way every native backend run of probe, bisect and sweep goes. The difference is the worker's
// start-up; goal (issue 19): <= 50 ms plus the library load.
//
//   build/bin/worker_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include "backend/ort/ort_session.h"
#include "isolate/isolated_runner.h"
#include "probe/input_plan.h"

namespace parity {
namespace {

backend::BackendSpec cpu_spec() {
  backend::BackendSpec spec;
  spec.label = spec.ep = "cpu";
  spec.count_nodes = false;
  return spec;
}

backend::RunRequest tiny_request() {
  backend::RunRequest r;
  r.model_path = std::string(PARITY_BENCH_MODELS) + "/matmul_add_relu.onnx";
  r.inputs = {{"x", probe::random_tensor(DType::float32, {2, 16}, {-1, 1}, 1).value()}};
  return r;
}

void BM_InProcess_OpenAndRun(benchmark::State& state) {
  const auto request = tiny_request();
  for (auto _ : state) {
    auto session = backend::ort::Session::open(cpu_spec(), request.model_path).value();
    benchmark::DoNotOptimize(session->run(request).value());
  }
}
BENCHMARK(BM_InProcess_OpenAndRun)->Unit(benchmark::kMillisecond);

void BM_Worker_OpenAndRun(benchmark::State& state) {
  const auto request = tiny_request();
  const isolate::WorkerLaunch launch{PARITY_BENCH_PARITY, std::nullopt, {}};
  for (auto _ : state) {
    auto run = isolate::run_isolated(cpu_spec(), request, {}, launch);
    if (!run.result.ok()) state.SkipWithError(run.result.error().describe().c_str());
    benchmark::DoNotOptimize(run);
  }
}
BENCHMARK(BM_Worker_OpenAndRun)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace parity
