#include "isolate/backend_runner.h"

#include <chrono>

#include "backend/browser/browser_pool.h"
#include "backend/browser/web_backend.h"

namespace parity::isolate {

BackendRunner::BackendRunner() : browsers_(std::make_unique<backend::browser::BrowserPool>()) {}
BackendRunner::~BackendRunner() = default;

int BackendRunner::browsers_launched() const { return browsers_->launched(); }

IsolatedRun BackendRunner::run(const backend::BackendSpec& spec, const backend::RunRequest& request,
                               const IsolationLimits& limits, const WorkerLaunch& launch) {
  if (!backend::is_web_backend(spec.ep)) {
    IsolationLimits capped = limits;
    if (spec.max_memory_bytes &&
        (!capped.max_memory_bytes || spec.max_memory_bytes < capped.max_memory_bytes))
      capped.max_memory_bytes = spec.max_memory_bytes;
    return run_isolated(spec, request, capped, launch);
  }

  IsolatedRun out;
  const auto t0 = std::chrono::steady_clock::now();
  backend::browser::WebRunControl control;
  control.timeout_s = limits.timeout_s;
  control.test_fault = launch.test_fault;
  auto made = backend::browser::make_web_backend(spec, *browsers_, control);
  if (!made.ok()) {
    out.result = made.error();
  } else {
    out.result = (*made)->run(request, [&out](Stage s) { out.last_stage = s; });
    out.worker_log = (*made)->log();
    out.setup_ms = (*made)->last_setup_ms();
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace parity::isolate
