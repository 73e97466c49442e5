// bench/worker_bench.cpp: what isolation costs a run. The same tiny model (matmul_add_relu) opened
// and run on the CPU EP in this process (ORT already loaded: an application's steady state) and in
// a fresh `parity worker` process (spawn, ORT library load, request and tensors over pipes, reap),
// the way every native backend run of probe, bisect and sweep goes. The difference is the worker's
// start-up; goal (issue 19): <= 50 ms plus the library load. And the protocol's throughput for the
// large tensors a bisect round moves (ViT-B/16: 586 MB a side): one tensor frame written from its
// tensor and read into the tensor the parent keeps, through a socket pair, as the worker's reply.
//
//   build/bin/worker_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "backend/ort/ort_session.h"
#include "isolate/frame_io.h"
#include "isolate/isolated_runner.h"
#include "isolate/protocol.h"
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

void BM_Protocol_TensorThroughSocket(benchmark::State& state) {
  const auto mib = static_cast<int64_t>(state.range(0));
  const NamedTensor sent{"t", probe::random_tensor(DType::float32, {mib, 1 << 18}, {-1, 1}, 1).value()};
  for (auto _ : state) {
    int fd[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fd) != 0) state.SkipWithError("socketpair");
    ::fcntl(fd[0], F_SETFL, O_NONBLOCK);
    std::thread worker([&] { (void)isolate::write_tensor_frame(fd[1], sent); });
    isolate::FrameReader reader;  // as the parent reads: poll, feed, take
    std::optional<isolate::Frame> frame;
    while (!frame) {
      pollfd p{fd[0], POLLIN, 0};
      ::poll(&p, 1, 100);
      if (!reader.feed(fd[0]).ok()) break;
      auto next = reader.next();
      if (next.ok() && *next) frame = std::move(**next);
    }
    worker.join();
    ::close(fd[0]);
    ::close(fd[1]);
    if (!frame) {
      state.SkipWithError("no frame");
      break;
    }
    auto received = isolate::decode_tensor(std::move(frame->payload));
    if (!received.ok() || received->tensor.byte_size() != sent.tensor.byte_size())
      state.SkipWithError("lost");
    benchmark::DoNotOptimize(received);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sent.tensor.byte_size()));
}
BENCHMARK(BM_Protocol_TensorThroughSocket)
    ->Arg(1)
    ->Arg(64)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace parity
