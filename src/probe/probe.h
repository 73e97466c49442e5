// probe/probe.h: `parity probe`: run one model on several backends, each in its own worker,
// compare every output with the reference backend, and say which backends are right.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "isolate/backend_runner.h"
#include "isolate/isolated_runner.h"
#include "model/onnx_model.h"
#include "parity/metrics.h"
#include "parity/region_map.h"
#include "parity/result.h"
#include "probe/input_plan.h"

namespace parity::probe {

// A backend's overall status; names are part of the JSON contract.
// `inconclusive`: every output matched, but at least one reference output carries no signal (all
// zeros, constant, NaN), so the match proves nothing about it.
enum class BackendStatus { ok, mismatch, error, crashed, timeout, oom, unavailable, inconclusive };
std::string_view to_string(BackendStatus s);
std::optional<BackendStatus> status_from_string(std::string_view name);
BackendStatus status_from_error(const Error& e);

struct ProbeOptions {
  std::filesystem::path model_path;
  std::vector<backend::BackendSpec> backends;  // in report order; may include the reference
  backend::BackendSpec reference;              // default: cpu
  InputSettings inputs;
  std::optional<Tolerance> tolerance;                 // --atol/--rtol for every output
  std::map<std::string, Tolerance> output_tolerance;  // --tol OUTPUT=atol,rtol
  isolate::IsolationLimits limits;
  std::string worker_exe;                        // empty = this executable
  std::string test_fault_env;                    // value of PARITY_TEST_FAULT ("" = none)
  std::optional<std::filesystem::path> save_io;  // write inputs/outputs in ONNX test-data layout
  // --noise-from: a second implementation that should be right too (cpu:opt=disabled, web-wasm).
  // It runs right after the reference; per output and sample, kNoiseMargin times its max_abs
  // against the reference widens every other backend's bound (Tolerance::noise_abs).
  std::optional<backend::BackendSpec> noise_from;
  isolate::BackendRunner* runner = nullptr;  // shared runner (one browser for many runs); null = own
  // The reference runs this model instead of model_path (sweep: the fp32 model judges its fp16 or
  // int8 variant). Inputs are planned from model_path; both must share input and output names.
  std::optional<std::filesystem::path> reference_model;
  // Float outputs are judged by the default rule of this type where it is looser than their own
  // (sweep: an fp16 variant with float32 outputs computes in fp16, so the float16 rule applies).
  // --atol/--rtol/--tol still win.
  std::optional<DType> judge_as;
  // A floor on the cosine of every float output (a quality gate), on top of the default rules
  // (sweep: a variant's noise floor is its own deviation, so pure noise must still fail).
  // --atol/--rtol/--tol replace it with theirs.
  std::optional<double> min_cosine;
  // A precision-drift budget for every float output (Tolerance::drift_cosine; sweep sets it for
  // fp16/bf16 variants). --atol/--rtol/--tol replace it with theirs.
  std::optional<double> drift_cosine;
  // Keep each output's tensors of the sample shown (OutputReport::tensor, reference_tensor), for
  // reports that draw them (--html). Off: a probe holds no outputs beyond the sample it judges.
  bool keep_outputs = false;
  // Run the backends one after another. Default: every native backend at once, each in its own
  // worker (a cpu reference beside a GPU target costs the longer run, not the sum), browser
  // backends in turn. One at a time gives timings free of contention and one session in memory.
  bool one_at_a_time = false;
};

// The evidence for one output of one backend (worst sample).
struct OutputReport {
  std::string name;
  Verdict verdict = Verdict::match;
  std::string failed_rule;  // empty on match
  std::string detail;
  DType dtype = DType::undefined;
  Shape shape;
  std::optional<Comparison> comparison;  // absent for the reference itself
  TensorStats stats;                     // of this backend's output
  TensorStats reference_stats;
  Tolerance tolerance;
  int worst_sample = 0;
  // The noise floor this output was judged with (--noise-from): the noise backend's max_abs
  // against the reference, in the sample shown; absent without --noise-from.
  std::optional<double> noise_max_abs;
  // Why this output's match proves nothing (uninformative_reason of the reference in every
  // sample); empty when the reference carries a signal or the output mismatches.
  std::string inconclusive;
  // Where an image-like output is wrong (grid over its spatial axes); absent for other outputs.
  std::optional<RegionMap> regions;
  // With ProbeOptions::keep_outputs: this backend's output and the reference's, in worst_sample.
  std::optional<Tensor> tensor, reference_tensor;
  // A mismatch the reference's own optimizer explains: this output matches the reference rerun at
  // opt=disabled (ProbeReport::reference_spread); empty otherwise.
  std::string reference_spread;
};

struct BackendReport {
  std::string name;
  std::string ep;
  bool is_reference = false;
  bool is_noise = false;  // the --noise-from backend: its spread is evidence, not a verdict to gate on
  BackendStatus status = BackendStatus::ok;
  std::optional<Error> error;
  std::string ort_version;
  std::string adapter;
  int64_t nodes_on_backend = -1, nodes_on_cpu = -1;
  double create_ms = 0, run_ms = 0, wall_ms = 0;  // worst sample's run; wall = all workers
  double start_ms = 0;          // when its worker started, from the probe's first run (backends run at once)
  uint64_t peak_rss_bytes = 0;  // largest worker peak resident memory over samples; 0 = unknown (web)
  std::vector<OutputReport> outputs;
  std::vector<std::string> notes;
  backend::KeyValues properties;  // the first sample's RunResult::properties (adapter, bundle, ...)
  std::string worker_log;         // tail of the failing worker's log, for the JSON
};

struct ProbeReport {
  std::string parity_version;
  model::ModelInfo model;
  std::vector<PlannedInput> inputs;
  int samples = 1;
  uint64_t seed = 0;
  std::string reference;
  std::string noise_from;               // label of the --noise-from backend, empty without it
  std::vector<BackendReport> backends;  // reference first
  // Stopped by a signal: `backends` is empty (no verdict from a run that was cut short, nor from
  // one whose reference was); `finished` lists the backends whose runs had ended, `unfinished` the rest.
  bool interrupted = false;
  std::vector<std::string> finished, unfinished;
  // The reference's settings that keep lossy rewrites off (lossy_rewrites_note), named where the
  // model holds ops they act on (QuantizeLinear, DequantizeLinear, ...); else empty.
  std::string reference_settings;
  // With a reference the user set at an opt level other than disabled and a row that mismatches:
  // how far the reference's outputs move when it is rerun at opt=disabled, where that is beyond the
  // bound ("the reference's optimizer changes the result: ..."); empty otherwise. A row whose
  // mismatch the rerun explains (it matches the unoptimized reference) is inconclusive, never a
  // mismatch: the reference is the suspect.
  std::string reference_spread;
  std::optional<Error> save_io_error;  // --save-io could not be written (names the file and reason)
  // Every backend ok; with `allow_inconclusive`, inconclusive rows count as ok too. Never when
  // interrupted.
  bool all_ok(bool allow_inconclusive = false) const;
};

// Progress events for long runs ("webgpu: 4 samples on one session ...", "webgpu: mismatch in 3.2 s").
using ProgressSink = std::function<void(const std::string& line)>;

// Runs the whole probe. Fails (Result error) only for a bad invocation or an unreadable model:
// backend failures are rows of the report.
Result<ProbeReport> run_probe(const ProbeOptions& options, const ProgressSink& progress = {});

// Tolerance applied to output `name` of dtype `dtype` under `options`.
Tolerance tolerance_for(const ProbeOptions& options, const std::string& name, DType dtype,
                        std::string_view arithmetic = {});

}  // namespace parity::probe
