// bench/browser_bench.cpp: what the browser backends cost, in real headless Chromium.
//
// - BM_BrowserLaunch: one Chromium + the localhost server, cold (the price a pool pays once).
// - BM_WebRun/<backend>/<side>: one whole run of a 1x3xSxS image network (session creation from
//   the model bytes, run, outputs back) on a warm pooled browser: the per-cell cost of a sweep.
// - BM_TensorTransfer{Binary,Json}/<MiB>: moving a float32 tensor into the page and back, as
//   Parity does (raw bytes through the localhost server) versus JSON number arrays over CDP,
//   the approach it avoids. Bytes per second are reported for both.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/browser/browser_pool.h"
#include "backend/browser/web_backend.h"

#ifndef PARITY_BENCH_MODELS
#define PARITY_BENCH_MODELS "build/test-models"
#endif

namespace parity::backend::browser {
namespace {

bool have_chromium() { return ::access(kDefaultChromium, X_OK) == 0; }

void BM_BrowserLaunch(benchmark::State& state) {
  if (!have_chromium()) return state.SkipWithError("no chromium");
  for (auto _ : state) {
    auto host = BrowserHost::launch({}, 30);
    if (!host.ok()) return state.SkipWithError(host.error().describe().c_str());
  }
}
BENCHMARK(BM_BrowserLaunch)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

BrowserPool& shared_pool() {
  static BrowserPool pool;  // warm across benchmarks, as in one verb run
  return pool;
}

void BM_WebRun(benchmark::State& state, const char* ep) {
  if (!have_chromium()) return state.SkipWithError("no chromium");
  const int64_t side = state.range(0);
  BackendSpec spec;
  spec.label = spec.ep = ep;
  spec.count_nodes = false;
  RunRequest request;
  request.model_path = std::string(PARITY_BENCH_MODELS) + "/conv_relu_image.onnx";
  std::vector<float> x(static_cast<std::size_t>(3 * side * side), 0.5f);
  request.inputs.push_back({"x", Tensor::from_floats({1, 3, side, side}, x)});
  auto backend = make_web_backend(spec, shared_pool(), {});
  if (!backend.ok()) return state.SkipWithError(backend.error().describe().c_str());
  if (auto warm = (*backend)->run(request, {}); !warm.ok())  // browser start and bundle load
    return state.SkipWithError(warm.error().describe().c_str());
  double create_ms = 0, run_ms = 0;
  for (auto _ : state) {
    auto r = (*backend)->run(request, {});
    if (!r.ok()) return state.SkipWithError(r.error().describe().c_str());
    create_ms += r->create_ms;
    run_ms += r->run_ms;
  }
  state.counters["create_ms"] = benchmark::Counter(create_ms, benchmark::Counter::kAvgIterations);
  state.counters["run_ms"] = benchmark::Counter(run_ms, benchmark::Counter::kAvgIterations);
}
BENCHMARK_CAPTURE(BM_WebRun, wasm, "web-wasm")
    ->Arg(64)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_WebRun, webgpu, "web-webgpu")
    ->Arg(64)
    ->Arg(128)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One browser page on the harness for the transfer benchmarks.
struct Page {
  std::unique_ptr<BrowserHost> host;
  Page() {
    auto h = BrowserHost::launch({}, 30);
    if (h.ok()) host = std::move(h).value();
  }
};

void BM_TensorTransferBinary(benchmark::State& state) {
  if (!have_chromium()) return state.SkipWithError("no chromium");
  static Page page;
  if (!page.host) return state.SkipWithError("browser did not start");
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  WebServer& server = page.host->server();
  const std::string blob = server.publish_bytes(std::string(bytes, '\x3f'));
  for (auto _ : state) {
    const std::string slot = server.open_slot(1);
    const std::string js = "(async () => { const b = new Float32Array(await (await fetch('" + blob +
                           "')).arrayBuffer()); await fetch('" + slot +
                           "/0', {method: 'POST', body: new Uint8Array(b.buffer)}); return b.length; })()";
    auto r = page.host->chromium().evaluate(js, 60);
    if (!r.ok()) return state.SkipWithError(r.error().describe().c_str());
    if (server.take_slot(slot)[0].size() != bytes) return state.SkipWithError("short upload");
  }
  server.withdraw(blob);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes * 2));
}
BENCHMARK(BM_TensorTransferBinary)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TensorTransferJson(benchmark::State& state) {
  if (!have_chromium()) return state.SkipWithError("no chromium");
  static Page page;
  if (!page.host) return state.SkipWithError("browser did not start");
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const std::vector<float> values(bytes / 4, 0.123456f);
  const std::string array = nlohmann::json(values).dump();
  for (auto _ : state) {
    // In: the numbers as a JSON literal in the expression; out: returnByValue of the array.
    auto r = page.host->chromium().evaluate("Array.from(new Float32Array(" + array + "))", 120);
    if (!r.ok()) return state.SkipWithError(r.error().describe().c_str());
    if (r->size() != values.size()) return state.SkipWithError("short result");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes * 2));
}
BENCHMARK(BM_TensorTransferJson)
    ->Arg(4)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

}  // namespace
}  // namespace parity::backend::browser
