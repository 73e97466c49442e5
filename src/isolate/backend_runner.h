// isolate/backend_runner.h: the one way verbs run a backend.
//
// Native backends (ONNX Runtime EPs in native code) run in a fresh worker process each time
// (run_isolated), because their crashes would otherwise take Parity down. Browser backends
// (web-*) already run in another process tree, Chromium's renderer, so they run from this
// process on a browser leased from the runner's pool: one Chromium serves every run of this
// runner (a probe's samples, a bisect's rounds, a sweep's cells, a conformance suite), a page per
// onnxruntime-web bundle, a session per run. A browser that timed out or crashed is killed and
// replaced. Either way the caller gets the same IsolatedRun: a result or a typed Error, the last
// stage, a log (worker output, or the page's console and ORT's log) and the wall time.
//
// Thread-safe: concurrent runs of browser backends lease separate browsers.
#pragma once

#include <memory>

#include "isolate/isolated_runner.h"

namespace parity::backend::browser {
class BrowserPool;
}

namespace parity::isolate {

class BackendRunner {
 public:
  BackendRunner();
  ~BackendRunner();
  BackendRunner(const BackendRunner&) = delete;
  BackendRunner& operator=(const BackendRunner&) = delete;

  IsolatedRun run(const backend::BackendSpec& spec, const backend::RunRequest& request,
                  const IsolationLimits& limits, const WorkerLaunch& launch = {});

  // Browsers started so far (reuse shows as 1 for any number of runs).
  int browsers_launched() const;

 private:
  std::unique_ptr<backend::browser::BrowserPool> browsers_;
};

// The runner an options struct points at, or `fallback` (a runner of the caller's own) when null.
inline BackendRunner& runner_or(BackendRunner* given, std::unique_ptr<BackendRunner>& fallback) {
  if (given) return *given;
  if (!fallback) fallback = std::make_unique<BackendRunner>();
  return *fallback;
}

}  // namespace parity::isolate
