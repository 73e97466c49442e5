// conformance/outcome.h: the verdict of one (test, backend) pair and how it is reached.
//
// States are part of the JSON contract ("parity.conformance/1"); append-only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "parity/metrics.h"
#include "parity/result.h"

namespace parity::conformance {

enum class State {
  passed,         // every output within tolerance and the backend ran at least one kernel itself
  failed,         // an output is wrong: failed_rule + metrics say how
  crashed,        // the worker died on a signal
  timeout,        // the worker exceeded the per-test timeout
  error,          // the backend returned an error (ORT rejected the graph, a kernel failed at run)
  not_supported,  // the EP refused the graph, is unavailable, or ran none of its kernels
  skipped,        // not run: unreadable test data, or a feature the adapter/runtime lacks
  flaky,          // re-run in a fresh page or worker, it came out otherwise: both attempts are kept
};

std::string_view to_string(State s);  // "passed", "not-supported", ...
std::optional<State> state_from_string(std::string_view name);
inline constexpr State kAllStates[] = {State::passed, State::failed,        State::crashed, State::timeout,
                                       State::error,  State::not_supported, State::skipped, State::flaky};
// failed, crashed, timeout, error and flaky: the backend gave a wrong answer, none, or not the
// same one twice.
bool is_bad(State s);

// ONNX's own node-test runner defaults (onnx/backend/test/runner): rtol 1e-3, atol 1e-7, applied
// to floating-point outputs; every other element type must match exactly.
inline constexpr double kOnnxDefaultRtol = 1e-3;
inline constexpr double kOnnxDefaultAtol = 1e-7;

// The rule an output of `dtype` is judged by under the run's float tolerance `float_tol`.
Tolerance tolerance_for_dtype(DType dtype, const Tolerance& float_tol);

struct Outcome {
  State state = State::skipped;
  std::string reason;       // one line: the failed rule's detail, the error, or why it was skipped
  std::string failed_rule;  // for failed: "missing", "dtype", "shape", "nan", "allclose"
  std::string output;       // the output the metrics belong to (first failing, else the worst)
  std::optional<Comparison> comparison;
  std::optional<Error> error;     // for crashed/timeout/error/not_supported from an Error
  int64_t nodes_on_backend = -1;  // kernels the backend's EP ran (ORT profiler); -1 unknown
  int64_t nodes_on_cpu = -1;      // kernels that ran on the CPU EP instead
  double duration_ms = 0;         // worker wall time, all data sets
  double setup_ms = 0;            // of which one-time setup (browser start, bundle load); see RunResult
  double run_cpu_ms = -1;         // CPU of the backend's processes after setup (see RunResult); -1 unknown
  double session_run_ms = 0;      // of duration_ms, the time inside session.run itself (RunResult::run_ms)
  std::string runtime_version;    // ORT version the worker loaded
  std::string adapter;            // WebGPU adapter, empty for cpu
  // The re-check (run_conformance re-runs every cell that did not pass, from a fresh page or
  // worker): true once done, with both attempts here, first one first (duration_ms and setup_ms
  // above are their sums).
  bool rechecked = false;
  std::vector<Outcome> attempts;
};

// The verdict on a cell run twice: the first attempt's when both agree on the state, else a
// flaky outcome; either way rechecked, holding both attempts.
Outcome recheck_verdict(Outcome first, Outcome second);

// Turns one worker's result on one data set into an Outcome. Pure: no I/O.
// - an Error maps by kind: crashed, timeout, unavailable -> not_supported (a device feature the
//   adapter lacks, e.g. shader-f16 -> skipped), an opset the runtime does not know -> skipped,
//   anything else -> error;
// - a non-CPU backend that ran zero kernels itself is not_supported ("not exercised"), whatever
//   the numbers say: the CPU EP or constant folding computed them;
// - else each expected output is judged against the actual one of the same name under
//   tolerance_for_dtype(); the first mismatch makes the outcome failed.
Outcome classify(const backend::BackendSpec& spec, const Result<backend::RunResult>& run,
                 const std::vector<NamedTensor>& expected, const Tolerance& float_tol);

}  // namespace parity::conformance
