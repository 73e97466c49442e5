// conformance/runner.h: `parity conformance`: every test of an ONNX backend test suite on every
// backend, each (test, backend) in its own worker process (browser backends: a new session in a
// reused page), in parallel.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "conformance/outcome.h"
#include "conformance/test_case.h"
#include "isolate/backend_runner.h"
#include "isolate/isolated_runner.h"
#include "parity/result.h"

namespace parity::conformance {

inline constexpr const char* kConformanceSchema = "parity.conformance/1";

struct ConformanceOptions {
  std::filesystem::path suite_dir = kDefaultSuiteDir;
  std::vector<std::string> filters;                                 // globs on test names; empty = all
  std::vector<backend::BackendSpec> backends;                       // in report order; labels unique
  Tolerance tolerance{kOnnxDefaultAtol, kOnnxDefaultRtol, {}, {}};  // for float outputs
  std::vector<std::pair<std::string, Tolerance>> test_tolerance;    // glob -> rule; first match wins
  int jobs = 1;                                                     // workers running at once (>= 1)
  isolate::IsolationLimits limits;                                  // timeout_s is per (test, backend) worker
  std::string worker_exe;                                           // empty = this executable
  isolate::BackendRunner* runner = nullptr;  // shared runner (browsers reused across tests); null = own
  // Re-run each cell that did not pass (and was not skipped) once, fresh; a changed state is
  // State::flaky with both attempts.
  bool recheck = true;
  std::string test_fault_env;  // value of PARITY_TEST_FAULT ("" = none), as for probe
};

// What the run knew about one backend (from its spec and the first worker that answered).
struct BackendInfo {
  std::string label, ep, ort_lib;
  bool allow_fallback = true;
  std::string runtime_version, adapter;  // empty when no worker of it ran
};

struct TestReport {
  std::string name;
  std::string op;
  std::vector<std::string> ops;
  int64_t opset = 0;
  std::vector<Outcome> results;  // one per backend, in ConformanceReport::backends order
};

struct ConformanceReport {
  std::string parity_version;
  std::string suite;
  std::vector<std::string> filters;
  std::vector<BackendInfo> backends;
  Tolerance tolerance;
  int jobs = 1;
  double wall_s = 0;
  std::vector<TestReport> tests;
  // Stopped by a signal: `tests` holds only the tests that finished on every backend (a cell cut
  // short is no outcome: it would count as an error); `tests_planned` how many were selected.
  bool interrupted = false;
  std::size_t tests_planned = 0;
  // Count of tests in `state` on backend `b` (index into backends).
  int count(std::size_t b, State state) const;
};

// done/total (test, backend) pairs; eta_s < 0 while unknown; `line` names a notable outcome
// ("test_x webgpu: failed (allclose ...)") or is empty for a plain tick.
using ConformanceProgress =
    std::function<void(std::size_t done, std::size_t total, double eta_s, const std::string& line)>;

// Fails only for a bad invocation (no backend, duplicate label, unreadable suite folder): every
// test problem is an Outcome. Calls `progress` from worker threads, one call at a time.
Result<ConformanceReport> run_conformance(const ConformanceOptions& options,
                                          const ConformanceProgress& progress = {});

// The float tolerance of test `name` under `options` (per-test override, else the run's rule).
Tolerance tolerance_for_test(const ConformanceOptions& options, const std::string& name);

}  // namespace parity::conformance
