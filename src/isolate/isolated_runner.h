// isolate/isolated_runner.h: runs one backend request in a fresh worker process.
//
// Whatever the backend does (returns an error, segfaults, aborts, hangs, eats memory), the
// caller gets a value: the outputs, or an Error naming the backend, the stage the worker had
// reached, the kind (error, crashed + signal, timeout, oom, unavailable) and a hint, plus the
// worker's own log. Parity itself never goes down with a backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "backend/test_fault.h"
#include "parity/result.h"

namespace parity::isolate {

struct IsolationLimits {
  double timeout_s = 600;         // wall time for the whole worker (library load to outputs)
  uint64_t max_memory_bytes = 0;  // RSS cap (and RLIMIT_DATA) per worker; 0 = none
};

struct IsolatedRun {
  Result<backend::RunResult> result = make_error(ErrorKind::internal, Stage::none, "not run");
  Stage last_stage = Stage::none;  // the last stage the worker announced
  std::string worker_log;          // the worker's stdout+stderr (last 64 KiB)
  double wall_ms = 0;              // spawn to reap
  double setup_ms = 0;             // of which one-time setup (browser start, page load), success or not
  // The worker's peak resident memory (library, session, arena, tensors); 0 when unknown (browser
  // backends share one Chromium, so no run has a figure of its own).
  uint64_t peak_rss_bytes = 0;
};

struct WorkerLaunch {
  std::string worker_exe;                        // binary that implements `worker`; empty = this executable
  std::optional<backend::TestFault> test_fault;  // injected into this worker only
  // Extra environment for this worker only (e.g. a Vulkan layer for parity chaos).
  std::vector<std::pair<std::string, std::string>> env;
};

IsolatedRun run_isolated(const backend::BackendSpec& spec, const backend::RunRequest& request,
                         const IsolationLimits& limits, const WorkerLaunch& launch = {});

// Parses PARITY_TEST_FAULT as used by the parent: "stage:action[@label][,stage:action[@label]...]".
// Returns the fault for the backend `label` (an entry without @label applies to every backend).
Result<std::optional<backend::TestFault>> test_fault_for(const std::string& env_value,
                                                         const std::string& label);

}  // namespace parity::isolate
